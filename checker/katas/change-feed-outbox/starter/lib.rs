//! # Kata: the stream as the outbox
//!
//! The shop writes an order once, to `orders`; a relay reads the table's stream and publishes
//! every change to the event bus, appends it to the audit trail, and keeps going past a
//! record it can never publish. Task and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.
//!
//! The tables, the bus (`given::publish`), the dead-letter queue (`given::dead_letter`) and
//! the types are the kata's given part: checker/katas/change-feed-outbox/given/src/lib.rs.

use engine::{Client, Error};
use given::{not_written_yet, Order, RelayError};

/// Places a new order (status `PLACED`) in `given::ORDERS_TABLE`; refused with the service's
/// error if the order id is taken. Its event reaches the bus through the stream, not from
/// here.
pub fn place_order(client: &Client, order: &Order) -> Result<(), Error> {
    // TODO: one write.
    let _ = (client, order);
    Err(not_written_yet("place_order"))
}

/// One relay pass over the stream of `orders`: for each shard (a parent before its
/// children), one page of records from where the relay stopped — each published on the bus,
/// appended to the audit, or sent to the dead-letter queue if the bus can never take it —
/// then the new checkpoint. `Err(RelayError::Trimmed { .. })` when records the relay had not
/// read yet were trimmed.
pub fn relay(client: &Client) -> Result<(), RelayError> {
    // TODO: DescribeTable (the stream's ARN), DescribeStream (the shards), then per shard
    // GetShardIterator and GetRecords; keep the checkpoints in given::CHECKPOINT_TABLE.
    let _ = client;
    Err(RelayError::Failed(not_written_yet("relay").to_string()))
}
