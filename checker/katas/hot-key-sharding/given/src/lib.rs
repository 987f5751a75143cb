//! # The given part of the kata: hot-key sharding
//!
//! What the tests and your code share: the table's name and the types your functions take and
//! return. It is not yours to change — the checker and grading always build your `src/lib.rs`
//! against this copy (`checker/katas/hot-key-sharding/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

/// The table the tests create for you: `likes`, partition key `PK` (string), no sort key,
/// provisioned with 1,000 RCU and 40,000 WCU.
pub const TABLE: &str = "likes";
