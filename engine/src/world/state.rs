//! The world's state and the work it does on the clock: admission (capacity), elections,
//! splits and replication catch-up.

use std::collections::BTreeMap;

use super::log::RequestLog;
use super::rng::Rng;
use super::WorldConfig;
use crate::capacity::admission::{self, Kind, Limits, Refusal};
use crate::error::{Exception, Result};
use crate::ops::create_table::{ON_DEMAND_INITIAL_RCU, ON_DEMAND_INITIAL_WCU};
use crate::table::partition::Partition;
use crate::table::{IndexKind, ReplicationTiming, Store, Table, Tables};
use crate::types::BillingMode;

/// Everything inside a world. Crate-internal: reach it through `World` and `Client`.
#[derive(Debug)]
pub(crate) struct State {
    pub now_ms: u64,
    pub rng: Rng,
    pub config: WorldConfig,
    pub tables: Tables,
    /// Idempotency tokens of TransactWriteItems: token → (the request's actions, completed at).
    pub transaction_tokens: BTreeMap<String, (Vec<crate::types::TransactWriteItem>, u64)>,
    pub log: RequestLog,
    /// The world's Regions: the others' tables (parked), Region faults, global tables.
    pub regions: crate::global::region::Regions,
}

impl State {
    pub fn new(config: WorldConfig) -> State {
        State {
            now_ms: 0,
            rng: Rng::new(config.seed),
            log: RequestLog::new(config.request_log_capacity),
            config,
            tables: Tables::new(),
            transaction_tokens: BTreeMap::new(),
            regions: crate::global::region::Regions::new(),
        }
    }

    pub fn timing(&self) -> ReplicationTiming {
        ReplicationTiming {
            min_delay_ms: self.config.replication_delay_ms.0,
            max_delay_ms: self.config.replication_delay_ms.1,
        }
    }

    /// Simulated Unix time in seconds.
    pub fn epoch_seconds(&self) -> u64 {
        self.config.epoch_seconds + self.now_ms / 1000
    }

    /// Starts the record of a request (sent by scheduled client `client`, if any).
    pub fn begin_request(&mut self, operation: &'static str, client: Option<usize>) {
        self.log.begin(operation, self.now_ms, client);
    }

    /// Completes the record of the current request with its outcome.
    pub fn finish_request(&mut self, error: Option<&Exception>) {
        self.log.finish(error.map(Exception::name));
    }

    /// Takes `units` of write capacity from the partition of `hash` in `table` (and, for a
    /// query or scan on a global secondary index, from the index), or fails with the
    /// throttling error of the table's billing mode. Nothing is taken when it fails.
    pub fn admit_write(&mut self, table: &str, hash: u64, units: f64) -> Result<()> {
        self.admit(table, None, hash, units, Kind::Write)
    }

    /// Takes `units` of read capacity from the partition of `hash` in `table`.
    pub fn admit_read(&mut self, table: &str, hash: u64, units: f64) -> Result<()> {
        self.admit(table, None, hash, units, Kind::Read)
    }

    /// Takes read capacity from a global secondary index's partition (a local index reads
    /// through its table's capacity).
    pub fn admit_index_read(
        &mut self,
        table: &str,
        index: &str,
        hash: u64,
        units: f64,
    ) -> Result<()> {
        self.admit(table, Some(index), hash, units, Kind::Read)
    }

    /// Takes write capacity from a global secondary index's partition, for the index write a
    /// table write causes.
    pub fn admit_index_write(
        &mut self,
        table: &str,
        index: &str,
        hash: u64,
        units: f64,
    ) -> Result<()> {
        self.admit(table, Some(index), hash, units, Kind::Write)
    }

    fn admit(
        &mut self,
        table_name: &str,
        index: Option<&str>,
        hash: u64,
        units: f64,
        kind: Kind,
    ) -> Result<()> {
        let second = self.now_ms / 1000;
        let config = &self.config;
        let Some(table) = self.tables.get_mut(table_name) else {
            return Ok(());
        };
        let billing = table.billing_mode;
        let limits = limits_for(table, index, kind, config);
        // Each kind's bucket is banked at its own allocation: a second that a write opens must
        // not bank the read bucket at the write allocation (or the other way round).
        let read_limits = limits_for(table, index, Kind::Read, config);
        let write_limits = limits_for(table, index, Kind::Write, config);
        let is_gsi =
            index.is_some_and(|i| table.index(i).is_some_and(|x| x.kind == IndexKind::Global));
        let store = match index {
            Some(i) if is_gsi => {
                &mut table
                    .indexes
                    .iter_mut()
                    .find(|x| x.name == i)
                    .expect("checked")
                    .store
            }
            _ => &mut table.store,
        };
        store.meter.roll(second);
        let count = store.partitions.len();
        let p = store.locate(hash);
        let allocations =
            [read_limits, write_limits].map(|l| l.map_or(f64::MAX, |l| allocation(l, count)));
        let partition = &mut store.partitions[p];
        roll_partition(partition, second, allocations, limits, config);
        let meter = match kind {
            Kind::Read => &mut partition.load.read,
            Kind::Write => &mut partition.load.write,
        };
        let verdict = match limits {
            Some(l) => admission::admit(meter, &mut store.meter, kind, units, l, count),
            None => {
                meter.consumed += units;
                Ok(())
            }
        };
        let id = partition.id;
        if partition.load.heat.len() < HEAT_KEYS_TRACKED || partition.load.heat.contains_key(&hash)
        {
            *partition.load.heat.entry(hash).or_insert(0.0) += units;
        }
        let (r, w) = match (kind, verdict) {
            (Kind::Read, Ok(())) => (units, 0.0),
            (Kind::Write, Ok(())) => (0.0, units),
            _ => (0.0, 0.0),
        };
        self.log.touch(table_name, id, r, w);
        match verdict {
            Ok(()) => Ok(()),
            Err(refusal) => Err(throttle_error(billing, is_gsi, refusal)),
        }
    }

    /// Runs background work due at or before the current time: replication between the
    /// Regions of global tables, then in every Region replication catch-up, elections,
    /// splits (and their stream shards), index propagation and backfills, TTL sweeps, stream
    /// trimming.
    pub fn run_due(&mut self) {
        crate::global::replication::deliver_due(self);
        self.for_each_region(State::run_due_here);
    }

    /// [`State::run_due`] in the Region in place.
    fn run_due_here(&mut self) {
        let now = self.now_ms;
        let size_limit = self.config.partition_size_limit;
        let timing = self.timing();
        let retention_ms = self.config.stream_retention_s * 1000;
        let State { tables, rng, .. } = self;
        for table in tables.values_mut() {
            if table.active_due_ms.is_some_and(|d| d <= now) {
                table.active_due_ms = None;
                table.status = crate::types::TableStatus::Active;
            }
            let splits = background(&mut table.store, now, size_limit, rng);
            if let Some(stream) = &mut table.stream_log {
                for (parent, children) in splits {
                    stream.on_split(parent, children, now);
                }
                stream.trim(now, retention_ms);
            }
            // Propagations are applied as of their due time, then the index partitions'
            // own replication catches up to now.
            crate::index::run_due(table, now, rng, timing);
            for index in &mut table.indexes {
                background(&mut index.store, now, size_limit, rng);
            }
        }
        self.sweep_ttl();
    }

    /// The TTL sweeper: on each sweep boundary, deletes items expired long enough ago.
    fn sweep_ttl(&mut self) {
        let interval_ms = self.config.ttl_sweep_interval_s.max(1) * 1000;
        let now = self.now_ms;
        let epoch = self.epoch_seconds();
        let delay = self.config.ttl_delete_delay_s;
        let mut deletions = Vec::new();
        for (name, table) in &mut self.tables {
            if table.ttl.attribute.is_none() {
                continue;
            }
            let last = table.ttl.last_sweep_ms;
            if last.is_some_and(|l| l / interval_ms == now / interval_ms) {
                continue;
            }
            table.ttl.last_sweep_ms = Some(now);
            for key in table.ttl.due(epoch, delay) {
                deletions.push((name.clone(), key));
            }
        }
        for (name, key) in deletions {
            crate::ops::commit_write_as(self, &name, key, None, true);
        }
    }

    /// When the TTL sweeper of a Region (its `tables`) next has something to delete.
    fn next_ttl_due(&self, tables: &Tables) -> Option<u64> {
        let interval_ms = self.config.ttl_sweep_interval_s.max(1) * 1000;
        let epoch0 = self.config.epoch_seconds;
        let delay = self.config.ttl_delete_delay_s;
        tables
            .values()
            .filter(|t| t.ttl.attribute.is_some())
            .filter_map(|t| t.ttl.earliest(self.epoch_seconds()))
            .map(|expiry| {
                let deletable_ms = (expiry + delay).saturating_sub(epoch0).saturating_mul(1000);
                let at = deletable_ms.max(self.now_ms + 1);
                at.div_ceil(interval_ms) * interval_ms
            })
            .min()
    }

    /// The latest time of background work already scheduled, in every Region (replication,
    /// elections, index propagation and backfills; not TTL sweeps, which depend on what is
    /// left).
    pub fn last_due(&self) -> Option<u64> {
        let store_last = |s: &Store| {
            s.partitions
                .iter()
                .flat_map(|p| {
                    p.replicas
                        .iter()
                        .filter(|r| r.up)
                        .filter_map(|r| r.pending.back().map(|e| e.due_ms))
                        .chain(
                            p.election_due_ms
                                .filter(|_| p.replicas.iter().any(|r| r.up)),
                        )
                })
                .max()
        };
        self.all_tables()
            .into_iter()
            .flat_map(|(_, tables)| tables.values())
            .flat_map(|t| {
                std::iter::once(store_last(&t.store))
                    .chain(t.indexes.iter().map(|i| store_last(&i.store)))
                    .chain(std::iter::once(
                        t.index_queue.iter().map(|p| p.due_ms).max(),
                    ))
                    .chain(t.indexes.iter().map(|i| i.backfill_due_ms))
                    .chain(std::iter::once(t.active_due_ms))
            })
            .flatten()
            .chain(crate::global::replication::last_due(self))
            .max()
    }

    /// The earliest time background work is due in any Region, if any is pending.
    pub fn next_due(&self) -> Option<u64> {
        let store_due = |s: &Store| {
            let elections = s.partitions.iter().filter_map(|p| {
                // An election that cannot succeed (no live replica) is not pending work.
                p.election_due_ms
                    .filter(|_| p.replicas.iter().any(|r| r.up))
            });
            s.next_due().into_iter().chain(elections).min()
        };
        let regions = self.all_tables();
        let ttl = regions
            .iter()
            .filter_map(|(_, t)| self.next_ttl_due(t))
            .min();
        regions
            .iter()
            .flat_map(|(_, tables)| tables.values())
            .flat_map(|t| {
                std::iter::once(store_due(&t.store))
                    .chain(t.indexes.iter().map(|i| store_due(&i.store)))
                    .chain(std::iter::once(crate::index::next_due(t)))
                    .chain(std::iter::once(t.active_due_ms))
            })
            .flatten()
            .chain(ttl)
            .chain(crate::global::replication::next_due(self))
            .min()
    }
}

/// Units per second a partition is allocated: an even share of the table's capacity, at most
/// the ceiling.
fn allocation(limits: Limits, partitions: usize) -> f64 {
    match limits.provisioned {
        Some(total) => (total / partitions.max(1) as f64).min(limits.ceiling),
        None => limits.ceiling,
    }
}

/// The capacity rules of a table's store (or of one of its global indexes).
fn limits_for(
    table: &Table,
    index: Option<&str>,
    kind: Kind,
    config: &WorldConfig,
) -> Option<Limits> {
    let ceiling = match kind {
        Kind::Read => config.partition_read_ceiling,
        Kind::Write => config.partition_write_ceiling,
    };
    let gsi = index
        .and_then(|i| table.index(i))
        .filter(|i| i.kind == IndexKind::Global);
    let throughput = match gsi {
        Some(g) => g.throughput,
        None => table.throughput,
    };
    let provisioned = match table.billing_mode {
        BillingMode::Provisioned => Some(throughput.map_or(1.0, |t| match kind {
            Kind::Read => t.read_capacity_units as f64,
            Kind::Write => t.write_capacity_units as f64,
        })),
        BillingMode::PayPerRequest => None,
    };
    Some(Limits {
        provisioned,
        ceiling,
        on_demand_initial: match kind {
            Kind::Read => ON_DEMAND_INITIAL_RCU as f64,
            Kind::Write => ON_DEMAND_INITIAL_WCU as f64,
        },
        burst_window_s: config.burst_window_s,
    })
}

/// Closes the partition's meters up to `second`, moving what they measured into history and
/// watching for sustained heat.
/// `allocations`: the partition's per-second allocation for reads, then for writes.
fn roll_partition(
    p: &mut Partition,
    second: u64,
    allocations: [f64; 2],
    limits: Option<Limits>,
    config: &WorldConfig,
) {
    let ceiling = limits.map_or(f64::MAX, |l| l.ceiling);
    for kind in [Kind::Read, Kind::Write] {
        let ceiling_for_kind = match (kind, limits) {
            (Kind::Read, Some(_)) => config.partition_read_ceiling,
            (Kind::Write, Some(_)) => config.partition_write_ceiling,
            _ => ceiling,
        };
        let (meter, allocation) = match kind {
            Kind::Read => (&mut p.load.read, allocations[0]),
            Kind::Write => (&mut p.load.write, allocations[1]),
        };
        let Some((closed, consumed, throttled, throttled_units)) =
            meter.roll(second, allocation, config.burst_window_s)
        else {
            continue;
        };
        if consumed == 0.0 && throttled == 0 {
            continue;
        }
        let leader = p.leader;
        let lag = p
            .replicas
            .iter()
            .map(|r| r.lag_entries(p.seq))
            .max()
            .unwrap_or(0);
        let stats = p.load.history.entry(closed).or_default();
        stats.leader = leader;
        stats.replica_lag_writes = lag;
        let k = match kind {
            Kind::Read => {
                stats.consumed_read += consumed;
                stats.throttled_reads += throttled;
                stats.throttled_read_units += throttled_units;
                0
            }
            Kind::Write => {
                stats.consumed_write += consumed;
                stats.throttled_writes += throttled;
                stats.throttled_write_units += throttled_units;
                1
            }
        };
        let hot = consumed + throttled_units >= config.split_for_heat_threshold * ceiling_for_kind;
        if hot {
            let streak = if p.load.last_hot_second[k] + 1 == closed {
                p.load.hot_streak[k] + 1
            } else {
                1
            };
            p.load.hot_streak[k] = streak;
            p.load.last_hot_second[k] = closed;
            if u64::from(streak) >= config.split_for_heat_after_s {
                p.split_for_heat = true;
            }
        } else {
            p.load.hot_streak[k] = 0;
        }
    }
    if p.load.hot_streak == [0, 0] && !p.split_for_heat {
        p.load.heat.clear();
    }
    let keep_from = second.saturating_sub(config.metrics_retention_s);
    while p
        .load
        .history
        .first_key_value()
        .is_some_and(|(s, _)| *s < keep_from)
    {
        p.load.history.pop_first();
    }
}

/// Background work of one store: replication, elections, splits. Returns the splits made.
fn background(
    store: &mut Store,
    now: u64,
    size_limit: usize,
    rng: &mut Rng,
) -> Vec<(u32, [u32; 2])> {
    let mut splits = Vec::new();
    store.catch_up(now);
    for p in &mut store.partitions {
        if p.election_due_ms.is_some_and(|due| due <= now) {
            elect(p, rng);
        }
    }
    let mut i = 0;
    while i < store.partitions.len() {
        let (too_big, hot) = (
            store.partitions[i].bytes > size_limit,
            store.partitions[i].split_for_heat,
        );
        let split = if too_big {
            store.split_for_size(i, now)
        } else if hot {
            store.split_for_heat(i, now)
        } else {
            None
        };
        match split {
            Some(children) => splits.push((store.splits.last().map_or(0, |s| s.0), children)),
            None => i += 1,
        }
    }
    splits
}

/// Elects the most advanced live replica (ties broken by the seed). It has every
/// acknowledged write: each write was acknowledged by the leader and one follower that had
/// applied every earlier entry.
fn elect(p: &mut Partition, rng: &mut Rng) {
    let best = p
        .replicas
        .iter()
        .filter(|r| r.up)
        .map(|r| r.applied_seq)
        .max();
    let Some(best) = best else {
        return; // nobody to elect until a replica comes back
    };
    let candidates: Vec<usize> = (0..3)
        .filter(|&i| p.replicas[i].up && p.replicas[i].applied_seq == best)
        .collect();
    let winner = candidates[rng.below(candidates.len() as u64) as usize];
    // Entries still in flight to the winner came from the deposed leader; the new leader
    // starts from what it has applied, which includes every acknowledged write.
    p.replicas[winner].pending.clear();
    p.seq = p.seq.max(p.replicas[winner].applied_seq);
    p.leader = Some(winner);
    p.election_due_ms = None;
}

fn throttle_error(billing: BillingMode, gsi: bool, _refusal: Refusal) -> Exception {
    match (billing, gsi) {
        (BillingMode::PayPerRequest, _) => Exception::Throttling {
            message: ON_DEMAND_THROTTLE.to_string(),
        },
        (BillingMode::Provisioned, true) => Exception::ProvisionedThroughputExceeded {
            message: GSI_THROTTLE.to_string(),
        },
        (BillingMode::Provisioned, false) => Exception::ProvisionedThroughputExceeded {
            message: TABLE_THROTTLE.to_string(),
        },
    }
}

const TABLE_THROTTLE: &str = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.";
const GSI_THROTTLE: &str = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API";
const ON_DEMAND_THROTTLE: &str = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html";

/// Distinct partition-key hashes a partition remembers during a hot streak.
const HEAT_KEYS_TRACKED: usize = 4096;
