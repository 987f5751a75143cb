//! # The given part of the kata: TTL sweeper: delete what is still expired
//!
//! What the tests and your code share: the trait you implement and the names it uses, and
//! the table the tests sweep. It is not yours to change — the checker and grading always
//! build your `src/lib.rs` against this copy (`checker/katas/ttl-sweeper/given/`). Your crate
//! reaches it as `given`.
//!
//! The trait is the engine's own seam (`engine/src/ttl/sweep.rs`, whose top comment is the
//! concept's essay): the engine runs its sweeps through a [`TtlSweeper`], its own or yours.

pub use engine::seams::{ExpiryIndex, ItemKey, Sweep, TtlSweeper};

/// Items whose expiry is more than this far in the past are never deleted (5 × 365 days, in
/// seconds): DynamoDB's guard against bad data and other units.
pub const FIVE_YEARS_S: u64 = engine::ttl::FIVE_YEARS_S;

/// The table the tests create: partition key `PK` (string), on-demand, a stream with new and
/// old images, TTL on [`TTL_ATTRIBUTE`].
pub const TABLE: &str = "sessions";

/// The table's TTL attribute. The engine reads it out of each item for you: your sweeper
/// sees its values, never the name.
pub const TTL_ATTRIBUTE: &str = "expires_at";
