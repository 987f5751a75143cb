//! # The given part of the kata: a read model fed by a stream
//!
//! What the tests and your code share: the table's name and the types your functions take and
//! return. It is not yours to change — the checker and grading always build your `src/lib.rs`
//! against this copy (`checker/katas/stream-read-model/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

/// The source table, created by the tests: partition key `order_id` (S); each order item has
/// `customer_id` (S), `status` (S, one of [`STATUSES`]), `total_cents` (N) and, for some,
/// `expires_at` (N, epoch seconds: the table's TTL attribute). Its stream carries
/// `NEW_AND_OLD_IMAGES`.
pub const ORDERS_TABLE: &str = "orders";

/// The read model's table.
pub const READ_MODEL_TABLE: &str = "order_stats";

/// Every status an order can have.
pub const STATUSES: [&str; 5] = ["PLACED", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"];

/// What the read model knows about one customer: their orders now in the orders table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CustomerStats {
    /// How many of the customer's orders are in the table.
    pub order_count: i64,
    /// The sum of their `total_cents`.
    pub spend_cents: i64,
}

/// The error the starter's functions return until they are written (not part of the SDK: a
/// `ValidationException` built by the engine, so that the starter compiles and every hidden
/// test fails with a message that says where the task is).
pub fn not_written_yet(function: &str) -> engine::Error {
    engine::Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/stream-read-model/README.md)"
    ))
}

/// The error to return for a stream record that is not shaped as the README says (a key
/// without `order_id`). The tests never send such a record. Not part of the SDK, whose `Error`
/// has no public constructor: a `ValidationException` built by the engine.
pub fn bad_record(what: impl Into<String>) -> engine::Error {
    engine::Error::validation(format!("malformed record: {}", what.into()))
}
