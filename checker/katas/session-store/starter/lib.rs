//! # Kata: session store
//!
//! A web app's login sessions: each lasts 30 minutes, is checked on every request (right after
//! login too), can be refreshed and ended, and a user can list their devices — task, table and
//! rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use engine::{AttributeValue, Client, Error, Item};
#[allow(unused_imports)]
use given::{bad_item, not_written_yet, Session, BY_USER, EXPIRES_AT, SESSION_LIFETIME_S, TABLE};

// The table the tests create for you: `given::TABLE` (`sessions`, partition key `session_id`,
// on-demand, TTL on `expires_at`), and its GSI `given::BY_USER` (`by-user`: partition key
// `user_id`, sort key `expires_at`, projection ALL). One item per session:
//   session_id (S), user_id (S), expires_at (N: Unix epoch seconds)
// Now is the world's clock, in epoch seconds: `client.world().epoch_seconds()`.
// The types are in the kata's given part: checker/katas/session-store/given/src/lib.rs.

/// Starts a session for `user_id`, lasting `SESSION_LIFETIME_S` from now; returns it.
pub fn login(client: &Client, session_id: &str, user_id: &str) -> Result<Session, Error> {
    // TODO: one PutItem; expires_at = now + SESSION_LIFETIME_S, in epoch seconds.
    let _ = (client, session_id, user_id);
    Err(not_written_yet("login"))
}

/// The session `session_id` if it is live (now < expires_at), `None` if there is none or it
/// has expired. Called on every request, the first one right after `login`.
pub fn session(client: &Client, session_id: &str) -> Result<Option<Session>, Error> {
    // TODO: one GetItem that sees a login made a moment ago; an expired item is not a session.
    let _ = (client, session_id);
    Err(not_written_yet("session"))
}

/// Extends a live session to `SESSION_LIFETIME_S` from now and returns it; `None` (and no
/// write that lands) if the session has expired, ended, or never existed.
pub fn refresh(client: &Client, session_id: &str) -> Result<Option<Session>, Error> {
    // TODO: one UpdateItem whose condition lets it extend only a live session.
    let _ = (client, session_id);
    Err(not_written_yet("refresh"))
}

/// Ends the session (logout). Ending a session that does not exist is not an error.
pub fn logout(client: &Client, session_id: &str) -> Result<(), Error> {
    // TODO: one DeleteItem.
    let _ = (client, session_id);
    Err(not_written_yet("logout"))
}

/// The live sessions of `user_id` (now < expires_at), in any order.
pub fn sessions_of(client: &Client, user_id: &str) -> Result<Vec<Session>, Error> {
    // TODO: one Query of the index BY_USER; skip the sessions that have expired.
    let _ = (client, user_id);
    Err(not_written_yet("sessions_of"))
}
