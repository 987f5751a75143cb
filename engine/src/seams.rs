//! # Seams: the engine's inside, replaceable one piece at a time
//!
//! The Build-it track lets a learner write one piece of DynamoDB's inside — the partition
//! router, a partition's admission bucket, the TTL sweeper, index propagation, quorum
//! replication, stream shards — and run real workloads through it. Each such piece is a trait, defined in
//! the module that explains the concept (the trait's essay is the concept's essay), with the
//! engine's own implementation as the default. [`Pieces`] holds one implementation of each; a world is built with the engine's
//! pieces ([`World::new`](crate::World::new), [`World::with_config`](crate::World::with_config))
//! or with others ([`World::with_pieces`](crate::World::with_pieces)).
//!
//! Why a separate value and not fields of [`WorldConfig`](crate::WorldConfig): the
//! configuration is plain data (`Clone`, `PartialEq`, printed in a failing test), a piece is
//! code. Each piece is an `Arc<dyn Trait + Send + Sync>`, so `Pieces` clones cheaply and two
//! worlds built from the same seed — one with the engine's pieces, one with a learner's —
//! can run the same workload side by side, as the Build-it katas' hidden tests do.
//!
//! The engine's own path goes through the same trait object as a learner's: the default is
//! not a special case, so what a learner's piece replaces is exactly what the engine runs.
//!
//! A learner's piece must be the learner's: the Build-it katas' hidden tests wrap it in
//! [`Learners`], and the engine's own pieces refuse to answer while a learner's piece of
//! their seam runs, so a piece that delegates to the engine's fails with a message saying so
//! ([`guard`]).
//!
//! Determinism holds across a seam: a piece gets the simulated time and whatever seeded
//! randomness it needs as arguments; it never reads the wall clock.

use std::sync::Arc;

pub mod guard;
pub use guard::Learners;

pub use crate::capacity::admission::{Admission, Ask, Closing, Decision, Kind, Rate, TokenBucket};
pub use crate::index::propagate::{
    IndexKey, IndexPropagator, IndexShape, IndexWrite, KeyAttribute,
};
pub use crate::stream::{Change, EngineShards, Position, Shard, Shards, StreamShards};
pub use crate::table::key::splitmix_finalize;
pub use crate::table::replication::{
    Az, Delivery, Draw, Group, QuorumReplication, ReplicaState, Replication, Unavailable,
};
pub use crate::table::router::{
    Collection, EngineRouter, HashRange, KeyBytes, PartitionRouter, Router, FNV_OFFSET, FNV_PRIME,
};
pub use crate::ttl::sweep::{Sweep, TtlSweeper};
pub use crate::ttl::{ExpiryIndex, ItemKey};

/// One implementation of each replaceable piece of the engine. `Pieces::default()` is the
/// engine's own; replace a field to run a world with another.
#[derive(Clone)]
pub struct Pieces {
    /// A partition's admission bucket: burst banked from unused seconds, the per-partition
    /// ceiling, the decision for one request ([`crate::capacity::admission`]). Default:
    /// [`TokenBucket`].
    pub admission: Arc<dyn Admission>,
    /// Partition key → hash → partition, and where a partition splits
    /// ([`crate::table::router`]). Default: [`EngineRouter`].
    pub router: Arc<dyn PartitionRouter + Send + Sync>,
    /// The TTL sweeper ([`crate::ttl::sweep`]): what is an expiry, which expired items a
    /// sweep deletes, and whether they are still expired when it does.
    pub ttl_sweeper: Arc<dyn TtlSweeper>,
    /// Index propagation ([`crate::index::propagate`]): the index writes one table write
    /// causes in one index — which entry goes, which comes, what it holds, its units.
    pub index_propagator: Arc<dyn IndexPropagator>,
    /// Quorum replication ([`crate::table::replication`]): whether a partition takes a
    /// write, which replicas the write goes to and when, which replica serves a read, who
    /// leads after a failure. Default: [`QuorumReplication`].
    pub replication: Arc<dyn Replication>,
    /// Stream shards ([`crate::stream::shards`]): which shard a change record goes to, its
    /// sequence number, what a split does to the shard tree, which records retention drops,
    /// where each kind of iterator starts. Default: [`EngineShards`].
    pub stream_shards: Arc<dyn StreamShards>,
}

impl Default for Pieces {
    fn default() -> Pieces {
        Pieces {
            admission: Arc::new(TokenBucket),
            router: Arc::new(EngineRouter),
            ttl_sweeper: Arc::new(crate::ttl::sweep::EngineSweeper),
            index_propagator: Arc::new(crate::index::propagate::EnginePropagator),
            replication: Arc::new(QuorumReplication),
            stream_shards: Arc::new(EngineShards),
        }
    }
}

impl Pieces {
    /// These pieces with `sweeper` as the TTL sweeper.
    pub fn with_ttl_sweeper(mut self, sweeper: Arc<dyn TtlSweeper>) -> Pieces {
        self.ttl_sweeper = sweeper;
        self
    }

    /// These pieces with `propagator` as the index propagator.
    pub fn with_index_propagator(mut self, propagator: Arc<dyn IndexPropagator>) -> Pieces {
        self.index_propagator = propagator;
        self
    }

    /// These pieces with `shards` as the stream-shards piece.
    pub fn with_stream_shards(mut self, shards: Arc<dyn StreamShards>) -> Pieces {
        self.stream_shards = shards;
        self
    }

    /// These pieces with `replication` as quorum replication.
    pub fn with_replication(mut self, replication: Arc<dyn Replication>) -> Pieces {
        self.replication = replication;
        self
    }
}

impl std::fmt::Debug for Pieces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pieces").finish_non_exhaustive()
    }
}
