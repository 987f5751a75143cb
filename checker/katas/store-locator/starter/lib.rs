//! # Kata: store locator
//!
//! A coffee chain's store finder: every store of a country, page by page; every store of a
//! city, newest first; one store. Encode the hierarchy in the sort key so that each of them is
//! one request that reads only what it returns — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error};
use given::{not_written_yet, Cursor, Page, Store};

// The table the tests create for you: `given::TABLE` (`stores`, partition key `PK`, sort key
// `SK`, on-demand). A country's stores share `PK = COUNTRY#<CC>` (upper case); each store is
// `SK = CITY#<city in lower case>#STORE#<id in 4 digits>`, with `country` (S), `city` (S, as
// written), `id` (N), `name` (S) and `about` (S). The types are in the kata's given part:
// checker/katas/store-locator/given/src/lib.rs.

/// Stores `store` under its key (replacing a store with the same key). A city containing `#`
/// is refused with `given::invalid_store(..)`, and nothing is written.
pub fn add_store(client: &Client, store: &Store) -> Result<(), Error> {
    // TODO: one PutItem of the item the README lays out.
    let _ = (client, store);
    Err(not_written_yet("add_store"))
}

/// One store (None: there is no store `id` in that city of that country). `country` and
/// `city` in any case: `"de"`, `"BERLIN"`.
pub fn store(client: &Client, country: &str, city: &str, id: u32) -> Result<Option<Store>, Error> {
    let _ = (client, country, city, id);
    Err(not_written_yet("store"))
}

/// Every store of a city, newest (highest id) first. `country` and `city` in any case.
pub fn stores_in_city(client: &Client, country: &str, city: &str) -> Result<Vec<Store>, Error> {
    let _ = (client, country, city);
    Err(not_written_yet("stores_in_city"))
}

/// One page of a country's stores — at most `limit` (1 to 100), in the order the sort key
/// gives (city, then id) — starting where `start` says (None: at the first store).
pub fn stores_in_country(
    client: &Client,
    country: &str,
    limit: i32,
    start: Option<Cursor>,
) -> Result<Page, Error> {
    let _ = (client, country, limit, start);
    Err(not_written_yet("stores_in_country"))
}
