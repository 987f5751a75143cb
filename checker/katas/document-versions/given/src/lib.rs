//! # The given part of the kata: document versions
//!
//! What the tests and your code share: the table's name, the version type your reads return
//! and the error a save returns. It is not yours to change — the checker and grading always
//! build your `src/lib.rs` against this copy (`checker/katas/document-versions/given/`), so an
//! edit here would be judged at home and lost in grading. Your crate reaches it as `given`
//! (`use given::{...};`).

use std::fmt;

use engine::error::SdkError;
use engine::Error;

/// The table the tests create for you: `docs`, partition key `PK` (string), sort key `SK`
/// (string), on-demand. A document's items share `PK = DOC#<doc_id>`: `SK = v0` is the latest
/// version, `SK = v0001`, `v0002`, … (the version, zero-padded to 4 digits) its history.
pub const TABLE: &str = "docs";

/// The sort key of the latest version of every document.
pub const LATEST: &str = "v0";

/// The highest version a document can reach: history sort keys have 4 digits (`v9999`).
pub const MAX_VERSION: u64 = 9999;

/// One version of a document, as `latest`, `history` and `version` return it. Stored with
/// `version` (N), `body` (S) and `author` (S) — in its history item `v<version, 4 digits>`,
/// and, while it is the latest, in `v0` too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub version: u64,
    pub body: String,
    pub author: String,
}

/// Why a save was not made. Nothing of the save was written in either case.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveError {
    /// The document is no longer at the version the editor expected: another editor saved
    /// first (or the document does not exist, or exists, against what the editor expected).
    /// `current` is the version the document is at (0: it does not exist), so the editor can
    /// be shown what changed.
    Conflict { current: u64 },
    /// The engine refused or could not serve a request, for any other reason (returned as the
    /// engine reported it: the caller decides whether to retry).
    Engine(Error),
}

impl From<Error> for SaveError {
    fn from(e: Error) -> Self {
        SaveError::Engine(e)
    }
}

/// `?` on a `send()` inside `save`: any failure of the call is an `Engine` error.
impl<E: Into<Error>, R> From<SdkError<E, R>> for SaveError {
    fn from(e: SdkError<E, R>) -> Self {
        SaveError::Engine(e.into())
    }
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::Conflict { current } => {
                write!(f, "conflict: the document is at version {current}")
            }
            SaveError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SaveError {}

/// The error to return when an item the table holds is not shaped as the README's layout says
/// (an attribute missing, or of another type): `bad_item("v0 of DOC#12 has no number version")`.
/// The tests never store such an item; this is for the `None` your code must still handle.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/document-versions/README.md)"
    ))
}
