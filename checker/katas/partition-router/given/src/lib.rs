//! # The given part of the kata: Partition router
//!
//! What the tests and your code share: the router trait the engine calls, the types it is
//! called with, and the two helpers of the engine's hash. It is not yours to change — the
//! checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/partition-router/given/`). Your crate reaches it as `given`.
//!
//! They are the engine's own (`engine::seams`): the tests build one world with the engine's
//! router and one with yours, from the same seed, and compare what each did.

pub use engine::seams::{
    splitmix_finalize, Collection, HashRange, KeyBytes, PartitionRouter, FNV_OFFSET, FNV_PRIME,
};

/// What your `router()` returns: any router the engine can share between its clients.
pub type BoxedRouter = Box<dyn PartitionRouter + Send + Sync>;
