//! # Kata: the bulk loader
//!
//! The nightly feed into the catalogue with BatchWriteItem, books read back with BatchGetItem —
//! both retrying what DynamoDB leaves unprocessed, with exponential backoff and jitter on the
//! simulated clock — and a box set written all or nothing with TransactWriteItems. Task, table
//! and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error, Item};
use given::{not_written_yet, Jitter};

// The table the tests create for you: given::TABLE (`catalogue`, partition key `isbn`),
// provisioned with little capacity. The limits (MAX_BATCH_WRITE, MAX_BATCH_GET, MAX_ITEM_BYTES,
// MAX_TRANSACT_ITEMS), item_size, the backoff steps (BASE_DELAY, MAX_DELAY) and Jitter are in
// the given part: checker/katas/bulk-loader/given/src/lib.rs. The sleep is
// client.world().advance(wait).

/// Writes every item of the feed with BatchWriteItem, at most 25 per call, retrying what comes
/// back unprocessed after a growing, jittered wait. Refuses a feed with an item over 400 KB
/// before sending anything.
pub fn load(client: &Client, items: Vec<Item>, jitter: &mut Jitter) -> Result<(), Error> {
    // TODO: check every item's size; then for each chunk of 25: BatchWriteItem, and while
    // something is unprocessed (or the call was throttled whole): wait, send it again.
    let _ = (client, items, jitter);
    Err(not_written_yet("load"))
}

/// One entry per ISBN asked, in order: the book's item, or None if it is not in the
/// catalogue. BatchGetItem, at most 100 distinct keys per call, unprocessed keys retried.
pub fn read_books(
    client: &Client,
    isbns: &[String],
    jitter: &mut Jitter,
) -> Result<Vec<Option<Item>>, Error> {
    // TODO: BatchGetItem in chunks of distinct keys; retry UnprocessedKeys with backoff; put
    // each item found back at the places its ISBN was asked.
    let _ = (client, isbns, jitter);
    Err(not_written_yet("read_books"))
}

/// Writes the set and its volumes all or nothing, only if none of their ISBNs exists yet.
pub fn add_box_set(client: &Client, set: Item, volumes: Vec<Item>) -> Result<(), Error> {
    // TODO: one TransactWriteItems: a Put with attribute_not_exists(isbn) per item.
    let _ = (client, set, volumes);
    Err(not_written_yet("add_box_set"))
}
