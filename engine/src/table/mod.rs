//! # Tables, stores and partitions
//!
//! A DynamoDB table is a set of items, each identified by its primary key: a partition key,
//! and optionally a sort key. Under the API, the table is split into *partitions* by a hash
//! of the partition key; each partition is a small replicated database of its own.
//!
//! This module holds that structure:
//!
//! ```text
//! Table "app"  ── schema (PK: S, SK: S), billing, indexes, stream, TTL
//!   └─ Store   ── the partitioned items, ordered by (hash, PK, SK)
//!        ├─ Partition 0  hash 0x0000…–0x7fff…   replicas: az-a (leader), az-b, az-c
//!        └─ Partition 1  hash 0x8000…–0xffff…   replicas: az-a, az-b (leader), az-c
//! ```
//!
//! A [`Store`] is the reusable part: a global secondary index is "physically another
//! partitioned table", so an index owns a `Store` of its own with its own key schema.
//!
//! What the model leaves out: storage nodes hosting many partitions, B-trees and write-ahead
//! logs on disk, log replicas, the metadata service and request routers — a partition here
//! is addressed directly by hash.

pub mod key;
pub mod partition;
pub mod replication;
pub mod router;
pub mod settings;
pub mod split;

use std::collections::BTreeMap;

use crate::capacity::admission::TableMeter;
use crate::error::{Exception, Result};
use crate::rng::Rng;
use crate::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, Projection, ProvisionedThroughput,
    StreamSpecification, TableStatus,
};
use crate::value::Item;
use key::{KeySchema, StoreKey};
use partition::{Partition, Stored};
use replication::{Delivery, Draw, Replication, Unavailable};
use std::sync::Arc;

/// A partitioned, replicated set of items under one key schema (a table's, or an index's).
#[derive(Clone, Debug)]
pub struct Store {
    pub schema: KeySchema,
    /// Sorted by `start`; together they cover the whole hash space.
    pub partitions: Vec<Partition>,
    /// `partitions[i]`'s hash range at index `i`: the slice the router routes over (a copy,
    /// kept beside the partitions so that routing a request reads one small contiguous
    /// array). Changed only where partitions are made: [`Store::new`] and the splits.
    pub ranges: Vec<router::HashRange>,
    pub next_partition_id: u32,
    /// This second's consumption over all partitions (adaptive pool, on-demand peak).
    pub meter: TableMeter,
    /// Splits so far, in order: (parent partition id, child ids, simulated ms).
    pub splits: Vec<(u32, [u32; 2], u64)>,
    /// The world's replication piece ([`crate::seams::Pieces::replication`]): every
    /// partition of this store asks it whether to take a write, where the write goes, which
    /// replica serves a read, who leads after a failure.
    ///
    /// Why the store holds it: writes reach a store from the write path, index
    /// propagation, backfills and the TTL sweeper, reads from six operations, elections
    /// from the background pass — each already holds the store, as it holds the schema that
    /// carries the router. A piece passed beside the store would be one more argument in
    /// each of those places.
    pub replication: Arc<dyn Replication>,
}

/// Timing knobs the store needs on each write (a copy of the world's config).
#[derive(Clone, Copy, Debug)]
pub struct ReplicationTiming {
    pub min_delay_ms: u64,
    pub max_delay_ms: u64,
}

impl Store {
    /// A store split evenly into `count` partitions, each with a seeded leader, replicated
    /// by `replication`.
    pub fn new(
        schema: KeySchema,
        count: u32,
        replication: Arc<dyn Replication>,
        rng: &mut Rng,
    ) -> Store {
        let count = count.max(1);
        let width = u64::MAX / u64::from(count);
        let mut partitions = Vec::with_capacity(count as usize);
        for i in 0..count {
            let start = width * u64::from(i);
            let end = if i + 1 == count {
                u64::MAX
            } else {
                width * u64::from(i + 1) - 1
            };
            partitions.push(Partition::new(i, start, end, rng.below(3) as usize));
        }
        Store {
            schema,
            ranges: partitions
                .iter()
                .map(|p| router::HashRange::new(p.start, p.end))
                .collect(),
            partitions,
            next_partition_id: count,
            meter: TableMeter::default(),
            splits: Vec::new(),
            replication,
        }
    }

    /// The index of the partition that owns `hash`: the router's answer (one past the end
    /// is read as the last partition, so a mistaken router misroutes instead of crashing).
    pub fn locate(&self, hash: u64) -> usize {
        let p = self.schema.router.route(hash, &self.ranges);
        p.min(self.ranges.len() - 1)
    }

    /// The current (leader) value of a key; what a write replaces and a condition checks.
    pub fn current(&self, key: &StoreKey) -> Option<&Item> {
        self.partitions[self.locate(key.hash)].current(key)
    }

    /// [`Store::current`], as stored (shared, with its size).
    pub fn current_stored(&self, key: &StoreKey) -> Option<&Arc<Stored>> {
        self.partitions[self.locate(key.hash)].current_stored(key)
    }

    /// Picks the replica that serves a read of partition `p` (the piece's
    /// [`Replication::serve_read`]): a strongly consistent read's, or an eventually
    /// consistent one's. A replica that is down does not answer: the read gets a 500.
    pub fn read_replica(
        &self,
        p: usize,
        consistent: bool,
        now_ms: u64,
        rng: &mut Rng,
    ) -> Result<usize> {
        let partition = &self.partitions[p];
        let group = partition.group(now_ms);
        let az = self
            .replication
            .serve_read(&group, consistent, &mut Draw::new(rng))
            .map_err(|why| why.exception(&group))?;
        if !partition.replicas[az.index()].up {
            return Err(Exception::InternalServerError {
                message: format!(
                    "Internal server error (partition {}: the replica in {az} is down)",
                    partition.id
                ),
            });
        }
        Ok(az.index())
    }

    /// Reads one item as a strongly or eventually consistent read would see it.
    pub fn read(
        &mut self,
        key: &StoreKey,
        consistent: bool,
        now_ms: u64,
        rng: &mut Rng,
    ) -> Result<Option<&Arc<Stored>>> {
        let p = self.locate(key.hash);
        let r = self.read_replica(p, consistent, now_ms, rng)?;
        Ok(self.partitions[p].replica_data(r, now_ms).get(key))
    }

    /// Checks that partition `p` can take a write now (the piece's
    /// [`Replication::accept_write`]: a leader, and a follower to form a quorum of two).
    pub fn check_writable(&self, p: usize, now_ms: u64) -> Result<()> {
        let group = self.partitions[p].group(now_ms);
        self.replication
            .accept_write(&group)
            .map_err(|why: Unavailable| why.exception(&group))
    }

    /// Writes (or deletes, for `None`) an item through its partition's leader and returns the
    /// previous value. The caller has checked [`Store::check_writable`].
    pub fn write(
        &mut self,
        key: StoreKey,
        item: Option<Item>,
        now_ms: u64,
        rng: &mut Rng,
        timing: ReplicationTiming,
    ) -> Option<Arc<Stored>> {
        self.write_stored(key, item.map(Stored::new), now_ms, rng, timing)
    }

    /// [`Store::write`] of an item already stored elsewhere (an index entry that is the
    /// whole item shares it with the table). The piece places it
    /// ([`Replication::replicate`]); then the replication delay to the followers that get
    /// it later is drawn.
    pub fn write_stored(
        &mut self,
        key: StoreKey,
        item: Option<Arc<Stored>>,
        now_ms: u64,
        rng: &mut Rng,
        timing: ReplicationTiming,
    ) -> Option<Arc<Stored>> {
        let p = self.locate(key.hash);
        let partition = &mut self.partitions[p];
        // Writes are routed to partitions with a leader; the engine's own writes that must
        // not wait (TTL deletions, backfills, index changes) go through the most advanced
        // replica while there is none.
        let leader = partition
            .leader
            .unwrap_or_else(|| partition.most_advanced());
        let mut group = partition.group(now_ms);
        group.leader = Some(replication::Az::ALL[leader]);
        let plan: [Delivery; 3] = self.replication.replicate(&group, &mut Draw::new(rng));
        let delay = rng.between(timing.min_delay_ms, timing.max_delay_ms);
        partition.replicate(key, item, now_ms, leader, plan, delay)
    }

    /// Applies replication that has arrived by `now` on every replica.
    pub fn catch_up(&mut self, now_ms: u64) {
        for p in &mut self.partitions {
            for r in &mut p.replicas {
                r.catch_up(now_ms);
            }
            p.anti_entropy();
        }
    }

    /// The earliest time some replication is still due, if any.
    pub fn next_due(&self) -> Option<u64> {
        self.partitions
            .iter()
            .flat_map(|p| {
                p.replicas
                    .iter()
                    .filter(|r| r.up)
                    .filter_map(|r| r.pending.front().map(|e| e.due_ms))
            })
            .min()
    }

    pub fn item_count(&self) -> usize {
        self.partitions.iter().map(|p| p.item_count).sum()
    }

    pub fn size_bytes(&self) -> usize {
        self.partitions.iter().map(|p| p.bytes).sum()
    }
}

/// Global or local.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    Global,
    Local,
}

/// A secondary index's definition and data.
#[derive(Clone, Debug)]
pub struct Index {
    pub name: String,
    pub kind: IndexKind,
    pub key_elements: Vec<KeySchemaElement>,
    pub projection: Projection,
    pub throughput: Option<ProvisionedThroughput>,
    /// The index's own partitioned entries, keyed by (index key, table key).
    pub store: Store,
    /// `CREATING` while an index added to an existing table is backfilled, then `ACTIVE`.
    pub status: crate::types::IndexStatus,
    /// When the backfill of a `CREATING` index completes (simulated ms).
    pub backfill_due_ms: Option<u64>,
}

impl Index {
    /// What the index keeps. CreateTable and UpdateTable refuse an index without a
    /// projection type, so every stored index has one.
    pub fn projection_type(&self) -> crate::types::ProjectionType {
        self.projection
            .projection_type
            .clone()
            .unwrap_or(crate::types::ProjectionType::KeysOnly)
    }
}

/// One table: definition plus data.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    /// The Region this table (or this replica of a global table) lives in.
    pub region: String,
    pub status: TableStatus,
    pub created_ms: u64,
    /// While `status` is `CREATING`: when the table becomes `ACTIVE` (simulated ms).
    pub active_due_ms: Option<u64>,
    pub key_elements: Vec<KeySchemaElement>,
    pub attribute_definitions: Vec<AttributeDefinition>,
    pub billing_mode: BillingMode,
    pub throughput: Option<ProvisionedThroughput>,
    pub store: Store,
    pub indexes: Vec<Index>,
    pub stream: Option<StreamSpecification>,
    pub stream_label: Option<String>,
    pub ttl_attribute: Option<String>,
    /// Changes on their way to global secondary indexes, in order.
    pub index_queue: std::collections::VecDeque<crate::index::Propagation>,
    /// The piece that turns this table's writes into index writes (the world's
    /// [`Pieces::index_propagator`](crate::seams::Pieces::index_propagator)).
    pub propagator: crate::index::propagate::Propagator,
    /// The table's stream (kept for 24 hours after the stream is disabled).
    pub stream_log: Option<crate::stream::Stream>,
    /// TTL setting and the index of items by expiry.
    pub ttl: crate::ttl::Ttl,
    /// Tags and the other control-plane settings.
    pub settings: settings::Settings,
}

impl Table {
    pub fn schema(&self) -> &KeySchema {
        &self.store.schema
    }

    pub fn arn(&self) -> String {
        format!(
            "arn:aws:dynamodb:{}:{ACCOUNT}:table/{}",
            self.region, self.name
        )
    }

    /// The ARN of the table's index `name` (a throttling reason's `resource` when the index
    /// refused, DescribeTable's `IndexArn`).
    pub fn index_arn(&self, name: &str) -> String {
        format!("{}/index/{name}", self.arn())
    }

    pub fn index(&self, name: &str) -> Option<&Index> {
        self.indexes.iter().find(|i| i.name == name)
    }
}

/// The ARN of the stream with `label` of a table in `region`.
pub fn stream_arn(region: &str, table: &str, label: &str) -> String {
    format!("arn:aws:dynamodb:{region}:{ACCOUNT}:table/{table}/stream/{label}")
}

/// The default Region: the one `world.client()` talks to, named by the ARNs of its tables.
pub const REGION: &str = "local-1";
/// The account every simulated ARN names.
pub const ACCOUNT: &str = "000000000000";

/// All tables of a world, by name (a `BTreeMap`: ListTables is in name order, as DynamoDB's).
pub type Tables = BTreeMap<String, Table>;
