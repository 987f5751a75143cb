//! # The given part of the kata: Quorum replication: acknowledged at two of three
//!
//! What the tests and your code share: the trait you implement and the types it uses, and
//! the table the tests write. It is not yours to change — the checker and grading always
//! build your `src/lib.rs` against this copy (`checker/katas/quorum-replication/given/`).
//! Your crate reaches it as `given`.
//!
//! The trait is the engine's own seam (`engine/src/table/replication.rs`, whose top comment
//! is the concept's essay): the engine replicates every partition through a
//! [`Replication`], its own or yours.

pub use engine::seams::{Az, Delivery, Draw, Group, ReplicaState, Replication, Unavailable};

/// The table the tests write: partition key `PK` (string), provisioned so that it has two
/// partitions. Every item is `{PK: "acct-N", v: W}`, W being the write's number.
pub const TABLE: &str = "accounts";

/// Replicas per partition, one per availability zone.
pub const REPLICAS: usize = 3;

/// Replicas that must hold a write before it is acknowledged — and that must be up for an
/// election: two of three.
pub const QUORUM: usize = 2;
