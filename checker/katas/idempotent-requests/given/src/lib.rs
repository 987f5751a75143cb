//! # The given part of the kata: idempotent requests
//!
//! What the tests and your code share: the table, the item keys, the key lifetime, the request
//! your function takes, the receipt it returns and its error. It is not yours to change — the
//! checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/idempotent-requests/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

use std::fmt;

use engine::error::SdkError;
use engine::Error;

/// The table the tests create for you: `wallet`, partition key `PK` (string), no sort key,
/// on-demand, with TTL enabled on [`TTL_ATTRIBUTE`]. It holds two kinds of item:
///
/// - a card, [`card_pk`]: `PK = "CARD#<card>"`, `balance` (number, cents);
/// - an idempotency record, [`record_pk`]: `PK = "IDEMPOTENCY#<key>"`, `card` (string),
///   `amount` (number, cents), `creditedAt` (number, epoch seconds: when the top-up was
///   credited) and `expiresAt` (number, epoch seconds: [`KEY_LIFETIME_S`] after that).
pub const TABLE: &str = "wallet";

/// The attribute the table's TTL is enabled on: an item whose `expiresAt` (a number of epoch
/// seconds) is in the past is deleted by DynamoDB's background sweep, some time later.
pub const TTL_ATTRIBUTE: &str = "expiresAt";

/// How long an idempotency key is remembered: 24 hours, in seconds. A retry within that time is
/// a duplicate; a key sent again after it is a new request.
pub const KEY_LIFETIME_S: u64 = 24 * 3600;

/// The partition key of a card's item: `CARD#<card>`.
pub fn card_pk(card: &str) -> String {
    format!("CARD#{card}")
}

/// The partition key of the idempotency record of a key: `IDEMPOTENCY#<key>`.
pub fn record_pk(idempotency_key: &str) -> String {
    format!("IDEMPOTENCY#{idempotency_key}")
}

/// One top-up request, as the app sends it (and sends it again when it does not hear back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopUp {
    /// Chosen by the app, once per top-up, and sent again with every retry of it.
    pub idempotency_key: String,
    /// The card to credit.
    pub card: String,
    /// How much to add to the card's balance, in cents.
    pub amount_cents: u64,
}

/// What a top-up returns: the same receipt for the first request and every duplicate of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub card: String,
    pub amount_cents: u64,
    /// When the card was credited (epoch seconds): the `now` of the request that credited it,
    /// not of a later duplicate.
    pub credited_at: u64,
}

/// Why a top-up was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum TopUpError {
    /// The key was already used, within its lifetime, for a top-up with other parameters
    /// (another card or another amount). Nothing was credited.
    KeyReused { idempotency_key: String },
    /// The engine refused a request (throttled, a partition without a leader, invalid…). The
    /// app may retry with the same key.
    Engine(Error),
}

impl From<Error> for TopUpError {
    fn from(e: Error) -> Self {
        TopUpError::Engine(e)
    }
}

/// `?` on a `send()` inside `top_up`: any failure of the call is an `Engine` error.
impl<E: Into<Error>, R> From<SdkError<E, R>> for TopUpError {
    fn from(e: SdkError<E, R>) -> Self {
        TopUpError::Engine(e.into())
    }
}

impl fmt::Display for TopUpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopUpError::KeyReused { idempotency_key } => write!(
                f,
                "idempotency key {idempotency_key} was already used for another top-up"
            ),
            TopUpError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TopUpError {}

/// The error for a state the README says cannot last (an idempotency record that vanished
/// between two of your requests, again and again). Not part of the SDK, whose `Error` has no
/// public constructor: a `ValidationException` built by the engine; in a service you would
/// return your own error.
pub fn unexpected(what: impl Into<String>) -> Error {
    Error::validation(what.into())
}

/// What the starter returns until `top_up` is written: an error naming the function.
pub fn not_written_yet(function: &str) -> TopUpError {
    TopUpError::Engine(Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/idempotent-requests/README.md)"
    )))
}
