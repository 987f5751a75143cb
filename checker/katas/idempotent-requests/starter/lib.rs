//! # Kata: idempotent requests
//!
//! A wallet's top-up API, called by apps that retry whenever they do not hear back. Credit each
//! top-up once, whatever the retries — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::Client;
use given::{Receipt, TopUp, TopUpError};

// The table the tests create for you: `given::TABLE` (`wallet`, partition key `PK`, on-demand,
// TTL enabled on `expiresAt`). A card is `PK = given::card_pk(card)` with `balance`; the
// idempotency record of a key is `PK = given::record_pk(key)`. The types are in the kata's
// given part: checker/katas/idempotent-requests/given/src/lib.rs.

/// Credits `request.amount_cents` to `request.card`, once per `request.idempotency_key`, and
/// returns the receipt. `now` is the time the request arrived, in epoch seconds. A duplicate
/// (the same key again, within `given::KEY_LIFETIME_S`) credits nothing and returns the first
/// request's receipt — or `TopUpError::KeyReused` if it asks for another card or amount.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    // TODO: one TransactWriteItems: the key's record (with its expiry, create-only) and the
    // credit; when the record's condition fails, the request is a duplicate.
    let _ = (client, request, now);
    Err(given::not_written_yet("top_up"))
}
