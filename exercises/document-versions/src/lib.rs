//! # Kata: document versions
//!
//! A shared document editor: the latest version of each document, every version before it,
//! and editors saving at the same moment. Keep the latest and its history in one item
//! collection and never let them disagree — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error};
use given::{not_written_yet, SaveError, Version};

// The table the tests create for you: `given::TABLE` (`docs`, partition key `PK`, sort key
// `SK`, on-demand). A document's items share `PK = DOC#<doc_id>`: `SK = v0` (`given::LATEST`)
// is the latest version, `SK = v0001`, `v0002`, … its history; each holds `version` (N),
// `body` (S) and `author` (S). The types are in the kata's given part:
// checker/katas/document-versions/given/src/lib.rs.

/// Saves `body` by `author` as version `expected + 1` of the document, only if its latest is
/// still version `expected` (0: the document does not exist yet); returns the new version.
/// Otherwise nothing is written and the error is `SaveError::Conflict { current }`.
pub fn save(
    client: &Client,
    doc_id: &str,
    expected: u64,
    author: &str,
    body: &str,
) -> Result<u64, SaveError> {
    // TODO: one TransactWriteItems — v0 to the new version, conditioned on the version
    // expected, and the new history item, create-only.
    let _ = (client, doc_id, expected, author, body);
    Err(SaveError::Engine(not_written_yet("save")))
}

/// The latest version of the document (None: it does not exist).
pub fn latest(client: &Client, doc_id: &str) -> Result<Option<Version>, Error> {
    let _ = (client, doc_id);
    Err(not_written_yet("latest"))
}

/// The document's history, newest first, at most `limit` versions (1 to 100); the latest's
/// own item, `v0`, is not among them.
pub fn history(client: &Client, doc_id: &str, limit: i32) -> Result<Vec<Version>, Error> {
    let _ = (client, doc_id, limit);
    Err(not_written_yet("history"))
}

/// One version of the document (None: it never had that version).
pub fn version(client: &Client, doc_id: &str, version: u64) -> Result<Option<Version>, Error> {
    let _ = (client, doc_id, version);
    Err(not_written_yet("version"))
}
