//! # The given part of the kata: Stream shards: order, lineage and retention
//!
//! What the tests and your code share: the trait you implement and the types it uses, and
//! the table the tests write. It is not yours to change — the checker and grading always
//! build your `src/lib.rs` against this copy (`checker/katas/stream-shards/given/`).
//! Your crate reaches it as `given`.
//!
//! The trait is the engine's own seam (`engine/src/stream/shards.rs`, whose top comment is
//! the concept's essay): the engine files every stream record through a [`StreamShards`],
//! its own or yours.

pub use engine::seams::{Change, Position, Shard, Shards, StreamShards};
pub use engine::stream::SEQUENCE_BASE;

/// The table the tests write: partition key `PK` (string), sort key `SK` (string), a
/// `NEW_AND_OLD_IMAGES` stream, partitions that split when they pass a few KB.
pub const TABLE: &str = "orders";

/// DynamoDB keeps stream records for 24 hours: the retention period, in ms, that the
/// engine passes to `trim`.
pub const RETENTION_MS: u64 = 24 * 3600 * 1000;
