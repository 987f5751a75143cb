//! # Global tables: one table, a replica in each of several Regions
//!
//! A DynamoDB *global table* (version 2019.11.21, the current one) is a set of replica
//! tables, one per AWS Region, with the same name, key schema and items. An application
//! reads and writes its local replica through that Region's endpoint — there is no global
//! endpoint — and DynamoDB replicates every write to the other replicas in the background.
//! A table becomes global when UpdateTable adds a replica (`replica_updates` with a
//! `CreateReplicationGroupMemberAction`); DescribeTable lists the replicas.
//!
//! What DynamoDB guarantees, in its default mode, **multi-Region eventual consistency
//! (MREC)** (Developer Guide, "How global tables work"):
//!
//! - replication is **asynchronous**, "typically within a second or less"; a write is
//!   shipped only after it commits in its own Region, and items are replicated one by one
//!   (a transaction may show up half-applied in another Region for a while);
//! - a **strongly consistent read** returns the latest version only if the item was last
//!   written in the Region of the read; elsewhere it may be stale. A condition expression is
//!   evaluated against the item *as the local replica has it*;
//! - **conflicts** — the same item written in two Regions before either write reached the
//!   other — are settled by **last writer wins** on an internal per-item timestamp: every
//!   replica converges to the latest write, and the other write is lost, silently (no error,
//!   no metric). Non-idempotent updates such as `x = x + 1` lose increments;
//! - a replica that is cut off keeps what it has; writes not yet replicated are replicated
//!   when it is healthy again.
//!
//! ## How the model does it
//!
//! ```text
//!   client_in("us-east-1")            client_in("eu-west-1")
//!        │ PutItem x=1 @ t=0 ms            │ PutItem x=2 @ t=0 ms
//!        ▼                                 ▼
//!   ┌ us-east-1 ────────────┐         ┌ eu-west-1 ────────────┐
//!   │ table "app" (replica) │         │ table "app" (replica) │
//!   │ partitions, capacity, │         │ partitions, capacity, │
//!   │ stream, TTL           │         │ stream, TTL           │
//!   └──────────┬────────────┘         └──────────┬────────────┘
//!              │ ship (x=1, stamp 0 µs/us-east-1)│ ship (x=2, stamp 0 µs/eu-west-1)
//!              └──────▶ in_flight queue ◀────────┘   due = now + seeded delay + link lag
//!                       deliver: later stamp wins ─▶ both converge to x=1;
//!                       x=2 recorded as the loser in `replication_conflicts("app")`
//! ```
//!
//! - Each Region is a whole DynamoDB of its own ([`region`]): a client from
//!   [`World::client_in`] talks to one Region, as an SDK client configured for it does, and
//!   its requests see only that Region's tables. `world.client()` is the default Region's
//!   (`local-1`), so a single-Region world is unchanged.
//! - Every committed write in a replica is stamped (simulated time in µs, then its Region)
//!   and shipped to each other replica, due after a delay drawn from the world's seed
//!   ([`WorldConfig::global_replication_delay_ms`](crate::WorldConfig)) plus any injected
//!   link lag; a link delivers in order ([`replication`]). Replicas are added and removed by
//!   UpdateTable (`replicas`).
//! - A shipment is applied only if its stamp is later than the replica's version of the
//!   item; otherwise it is dropped. Ties of time go to the Region whose name sorts last.
//!   When neither write had seen the other, the loser is listed by
//!   [`World::replication_conflicts`]: key, both writes (Region, time, image), where and
//!   when the conflict was detected.
//! - Capacity, streams and TTL are per replica, as in DynamoDB: a replicated write is
//!   charged to the receiving replica's partitions and appears in its stream; a TTL delete
//!   in one Region replicates as a delete. A new replica gets a stream of its own
//!   (`NEW_AND_OLD_IMAGES`, which the first replica gets too if it had none).
//! - Faults are named operations: [`World::fail_region`] (its clients get
//!   `ServiceUnavailable`, HTTP 503; replication to and from it waits), [`World::heal_region`],
//!   [`World::lag_replication`] (one link slower), [`World::heal_all`].
//!
//! ## The other mode: multi-Region strong consistency (MRSC)
//!
//! Since June 2025 a global table can instead be created with
//! `MultiRegionConsistency = STRONG`: exactly three Regions (three replicas, or two and a
//! *witness*), the table empty when the mode is set, the mode fixed for the table's life. A
//! write returns only once it is replicated to at least one other Region, so a strongly
//! consistent read in *any* Region returns the latest version (a recovery point objective of
//! zero), at the price of higher write latency; a write racing a write to the same item from
//! another Region is refused with `ReplicatedWriteConflictException` instead of being
//! silently lost. **Not modelled**: UpdateTable with `multi_region_consistency(Strong)` is
//! refused with a ValidationException saying so; the engine's global tables are all MREC.
//!
//! What the model leaves out on purpose: replica creation time (a new replica is `ACTIVE` at
//! once), table changes made after the replicas exist (DynamoDB keeps write capacity, GSIs
//! and TTL consistent across replicas; here an UpdateTable changes one replica), witnesses, the `ReplicationLatency` metric (see `pending_replication`), per-replica
//! capacity overrides, cross-account replication, a Region holding two unrelated tables of a
//! global table's name in different replication groups, and request latency (a request to
//! another Region's endpoint is as fast as a local one; DynamoDB advises against making it).

pub mod region;
pub(crate) mod replicas;
pub mod replication;

pub use region::Region;

use std::time::Duration;

use crate::error::{Exception, Result};
use crate::value::Item;
use crate::world::World;
use replication::Stamp;

/// One side of a replication conflict.
#[derive(Clone, Debug, PartialEq)]
pub struct ConflictingWrite {
    /// The Region the write was made in.
    pub region: Region,
    /// Its timestamp (simulated time since the world began, µs resolution).
    pub at: Duration,
    /// The item it wrote (`None`: a delete).
    pub item: Option<Item>,
}

impl ConflictingWrite {
    pub(crate) fn new(stamp: &Stamp, item: Option<Item>) -> ConflictingWrite {
        ConflictingWrite {
            region: stamp.region.clone(),
            at: Duration::from_micros(stamp.micros),
            item,
        }
    }
}

/// Two writes to one item of a global table, neither made with knowledge of the other;
/// last writer wins kept `winner` everywhere and `loser` is gone.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicationConflict {
    pub table: String,
    /// The item's key attributes.
    pub key: Item,
    pub winner: ConflictingWrite,
    pub loser: ConflictingWrite,
    /// The replica that first saw both writes, and when.
    pub detected_in: Region,
    pub detected_at: Duration,
}

/// A write on its way from one replica to another.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingReplication {
    pub from: Region,
    pub to: Region,
    /// The item's key attributes.
    pub key: Item,
    /// When it was written, and when it is due at `to` (it waits longer if either Region is
    /// down).
    pub written_at: Duration,
    pub due_at: Duration,
}

impl World {
    /// The replication conflicts of a global table so far, oldest first, each listed once
    /// (however many replicas saw it). Empty for a table that is not global.
    pub fn replication_conflicts(&self, table: &str) -> Vec<ReplicationConflict> {
        self.lock()
            .regions
            .global
            .get(table)
            .map(|g| g.conflicts.clone())
            .unwrap_or_default()
    }

    /// The writes of a global table not yet applied in some replica, in delivery order.
    pub fn pending_replication(&self, table: &str) -> Vec<PendingReplication> {
        let state = self.lock();
        state
            .regions
            .in_flight
            .values()
            .filter(|s| s.table == table)
            .map(|s| {
                let key = state
                    .tables_of(&s.to)
                    .and_then(|t| t.get(table))
                    .or_else(|| state.tables_of(&s.from).and_then(|t| t.get(table)))
                    .map(|t| t.schema().key_item(&s.key))
                    .unwrap_or_default();
                PendingReplication {
                    from: s.from.clone(),
                    to: s.to.clone(),
                    key,
                    written_at: Duration::from_millis(s.written_ms),
                    due_at: Duration::from_millis(s.due_ms),
                }
            })
            .collect()
    }

    /// The Regions holding a replica of `table`, in name order (just this handle's Region
    /// for a table that is not global).
    pub fn replica_regions(&self, table: &str) -> Result<Vec<Region>> {
        let state = self.lock();
        match state.regions.global.get(table) {
            Some(g) if g.regions.contains(&self.region) => Ok(g.regions.iter().cloned().collect()),
            _ if state.tables.contains_key(table) => Ok(vec![self.region.clone()]),
            _ => Err(Exception::resource_not_found(format!(
                "Requested resource not found: Table: {table} not found"
            ))),
        }
    }
}

/// Fastest replication between two replicas of a global table (ms).
pub const DEFAULT_GLOBAL_REPLICATION_DELAY_MIN_MS: u64 = 100;
/// Slowest replication between two replicas of a global table (ms). DynamoDB: "typically
/// within a second or less" (0.5–2.5 s is common between Regions of one geography, more
/// across the world); the default keeps every write within one second, so `advance(1 s)`
/// always converges a world without faults.
pub const DEFAULT_GLOBAL_REPLICATION_DELAY_MAX_MS: u64 = 1_000;
/// The global tables version the engine models (DescribeTable's `GlobalTableVersion`).
pub const GLOBAL_TABLE_VERSION: &str = "2019.11.21";
