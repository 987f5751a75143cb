//! # The given part of the kata: conditional stock
//!
//! What the tests and your code share: the table's name and the types your functions take and
//! return. It is not yours to change — the checker and grading always build your `src/lib.rs`
//! against this copy (`checker/katas/conditional-stock/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

use std::fmt;

use engine::error::SdkError;
use engine::Error;

/// The table the tests create for you: `inventory`, partition key `sku` (string), on-demand.
/// A product's stock is the number attribute `stock` of its item.
pub const TABLE: &str = "inventory";

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

/// `?` on a `send()` inside `reserve`: any failure of the call is an `Engine` error.
impl<E: Into<Error>, R> From<SdkError<E, R>> for ReserveError {
    fn from(e: SdkError<E, R>) -> Self {
        ReserveError::Engine(e.into())
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

/// The error the starter's functions return until they are written (not part of the SDK: a
/// `ValidationException` built by the engine, so that the starter compiles and every hidden
/// test fails with a message that says where the task is).
pub fn not_written_yet(function: &str) -> engine::Error {
    engine::Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/conditional-stock/README.md)"
    ))
}
