//! # Kata: conditional stock
//!
//! A flash sale: many buyers race for the last units of a product. Reserve stock so that it
//! never goes below zero — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error};
use given::ReserveError;

// The table the tests create for you: `given::TABLE` (`inventory`, partition key `sku`,
// on-demand); a product's stock is the number attribute `stock` of its item. The types you
// return are in the kata's given part: checker/katas/conditional-stock/given/src/lib.rs.

/// Takes `qty` units (at least 1) of `sku` out of stock, atomically, and returns the stock
/// left. If fewer than `qty` are in stock, nothing changes and the error carries the current
/// stock — taken from the failed condition itself, without a second request.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    // TODO: one conditional UpdateItem: subtract `qty` only if at least `qty` are in stock.
    let _ = (client, sku, qty);
    Err(ReserveError::Engine(given::not_written_yet("reserve")))
}

/// Adds `qty` units to the stock of `sku` (creating the item if needed), atomically, and
/// returns the new stock.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    // TODO: add `qty` to the item's `stock` in one request.
    let _ = (client, sku, qty);
    Err(given::not_written_yet("restock"))
}
