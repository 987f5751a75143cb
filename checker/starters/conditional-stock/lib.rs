//! # Kata: conditional stock
//!
//! A flash sale: many buyers race for the last units of a product. Reserve stock so that it
//! never goes below zero — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use std::fmt;

use engine::{Client, Error};

/// The table the tests create for you: `inventory`, partition key `sku` (string), on-demand.
/// A product's stock is the number attribute `stock` of its item.
#[allow(dead_code)]
const TABLE: &str = "inventory";

/// Why a reservation did not happen.
#[derive(Debug, Clone, PartialEq)]
pub enum ReserveError {
    /// Fewer than the requested units are in stock; nothing was reserved. `available` is the
    /// stock at the moment the reservation was refused (0 for a product never restocked).
    OutOfStock { available: u64 },
    /// The engine refused the request for another reason.
    Engine(Error),
}

impl From<Error> for ReserveError {
    fn from(e: Error) -> Self {
        ReserveError::Engine(e)
    }
}

impl fmt::Display for ReserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReserveError::OutOfStock { available } => {
                write!(f, "out of stock ({available} available)")
            }
            ReserveError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReserveError {}

/// Takes `qty` units (at least 1) of `sku` out of stock, atomically, and returns the stock
/// left. If fewer than `qty` are in stock, nothing changes and the error carries the current
/// stock — taken from the failed condition itself, without a second request.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    // TODO: one conditional UpdateItem: subtract `qty` only if at least `qty` are in stock.
    let _ = (client, sku, qty);
    Err(ReserveError::Engine(Error::validation(
        "TODO: reserve is not written yet (see exercises/conditional-stock/README.md)",
    )))
}

/// Adds `qty` units to the stock of `sku` (creating the item if needed), atomically, and
/// returns the new stock.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    // TODO: add `qty` to the item's `stock` in one request.
    let _ = (client, sku, qty);
    Err(Error::validation(
        "TODO: restock is not written yet (see exercises/conditional-stock/README.md)",
    ))
}
