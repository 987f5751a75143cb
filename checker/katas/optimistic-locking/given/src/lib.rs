//! # The given part of the kata: optimistic locking
//!
//! What the tests and your code share: the table's name, the retry bound and the error your
//! function returns. It is not yours to change — the checker and grading always build your
//! `src/lib.rs` against this copy (`checker/katas/optimistic-locking/given/`), so an edit here
//! would be judged at home and lost in grading. Your crate reaches it as `given`
//! (`use given::{...};`).

use std::fmt;

use engine::error::SdkError;
use engine::Error;

/// The table the tests create for you: `wiki`, partition key `page` (string), on-demand.
/// A page is one item: `page` (its name), `body` (string, the text) and `version` (number,
/// 1 after the first save, one more after each). A page never saved has no item.
pub const TABLE: &str = "wiki";

/// How many writes one edit may send before it gives up with [`EditError::Conflict`]: the
/// first attempt and three retries.
pub const MAX_ATTEMPTS: u32 = 4;

/// Why an edit was not saved.
#[derive(Debug, Clone, PartialEq)]
pub enum EditError {
    /// Every one of the `attempts` writes lost the race: another editor saved the page between
    /// the edit's read and its write, each time. Nothing of this edit was saved.
    Conflict { attempts: u32 },
    /// The engine refused a request for another reason (returned at once: a retry would not
    /// help, or the caller decides).
    Engine(Error),
}

impl From<Error> for EditError {
    fn from(e: Error) -> Self {
        EditError::Engine(e)
    }
}

/// `?` on a `send()` inside `edit`: any failure of the call is an `Engine` error.
impl<E: Into<Error>, R> From<SdkError<E, R>> for EditError {
    fn from(e: SdkError<E, R>) -> Self {
        EditError::Engine(e.into())
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Conflict { attempts } => {
                write!(f, "conflict: another editor saved first, {attempts} times")
            }
            EditError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EditError {}

/// What the starter returns until `edit` is written: an error naming the function (not part
/// of the SDK: a `ValidationException` built by the engine).
pub fn not_written_yet(function: &str) -> EditError {
    EditError::Engine(Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/optimistic-locking/README.md)"
    )))
}
