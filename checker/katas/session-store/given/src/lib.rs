//! # The given part of the kata: session store
//!
//! What the tests and your code share: the table's and the index's names, how long a session
//! lasts, and the type your functions return. It is not yours to change — the checker and
//! grading always build your `src/lib.rs` against this copy
//! (`checker/katas/session-store/given/`), so an edit here would be judged at home and lost in
//! grading. Your crate reaches it as `given` (`use given::{...};`).

use engine::Error;

/// The table the tests create for you: `sessions`, partition key `session_id` (string),
/// on-demand, with TTL enabled on `expires_at`. A session is one item: `session_id` (S),
/// `user_id` (S), `expires_at` (N: Unix epoch **seconds**).
pub const TABLE: &str = "sessions";

/// The global secondary index the tests create on the table: partition key `user_id` (string),
/// sort key `expires_at` (number), every attribute projected (`ALL`). Eventually consistent
/// only, like every GSI.
pub const BY_USER: &str = "by-user";

/// The name of the TTL attribute (the tests enable TTL on it).
pub const EXPIRES_AT: &str = "expires_at";

/// How long a session lasts after a login or a refresh: 30 minutes, in seconds.
pub const SESSION_LIFETIME_S: u64 = 30 * 60;

/// One session, as the table holds it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Session {
    pub session_id: String,
    pub user_id: String,
    /// The first second at which the session is over: Unix epoch seconds (the world's clock,
    /// `client.world().epoch_seconds()`). The session is live while now < expires_at.
    pub expires_at: u64,
}

/// The error to return when an item the table holds is not shaped as the README's layout says
/// (an attribute missing, or of another type): `bad_item("session s-1 has no user_id")`.
/// The tests never store such an item; this is for the `None` your code must still handle.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/session-store/README.md)"
    ))
}
