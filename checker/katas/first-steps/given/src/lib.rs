//! # The given part of the kata: first steps
//!
//! What the tests and your code share: the table's name and the types your functions take and
//! return. It is not yours to change — the checker and grading always build your `src/lib.rs`
//! against this copy (`checker/katas/first-steps/given/`), so an edit here would be judged at
//! home and lost in grading. Your crate reaches it as `given` (`use given::{...};`).

use engine::Error;

/// The table the tests create for you: `shop`, partition key `PK` (string), sort key `SK`
/// (string), on-demand. A customer's items share `PK = CUSTOMER#<customer_id>`; the profile
/// has `SK = PROFILE`, an order `SK = ORDER#<placed_at>#<order_id>` (the README's layout).
pub const TABLE: &str = "shop";

/// A customer's profile. Stored as `PK = CUSTOMER#<customer_id>`, `SK = PROFILE`, `name` (S),
/// `email` (S).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub customer_id: String,
    pub name: String,
    pub email: String,
}

/// One order of a customer. Stored as `PK = CUSTOMER#<customer_id>`,
/// `SK = ORDER#<placed_at>#<order_id>`, `order_id` (S), `placed_at` (S), `total_cents` (N).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    /// When the order was placed: ISO-8601 UTC, to the second (`2025-06-12T09:30:00Z`).
    pub placed_at: String,
    pub total_cents: u64,
}

/// The error to return when an item the table holds is not shaped as the README's layout says
/// (an attribute missing, or of another type): `bad_item("order o-9 has no number total_cents")`.
/// The tests never store such an item; this is for the `None` your code must still handle.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/first-steps/README.md)"
    ))
}
