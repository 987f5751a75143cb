//! The world's state, and when the work on the clock runs. The rules of each piece live in
//! its module: admission in [`crate::capacity::enforce`], replication catch-up, elections
//! and splits in [`crate::table::replication`], index propagation in [`crate::index`], the
//! TTL sweep in [`crate::ttl::sweep`]; this file has their entry points and the hand-written
//! list of kinds of timed work (`run_due`, `next_due`, `last_due`).

use std::collections::BTreeMap;

use super::log::RequestLog;
use super::WorldConfig;
use crate::capacity::admission::Kind;
use crate::capacity::enforce;
use crate::error::{Exception, Result};
use crate::rng::Rng;
use crate::table::replication::background;
use crate::table::{ReplicationTiming, Store, Tables};
use crate::ttl::sweep::Sweeper;

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
    /// The pieces of the engine's inside this world runs ([`crate::seams`]).
    pub pieces: crate::seams::Pieces,
}

impl State {
    pub fn new(config: WorldConfig, pieces: crate::seams::Pieces) -> State {
        State {
            now_ms: 0,
            rng: Rng::new(config.seed),
            log: RequestLog::new(config.request_log_capacity),
            config,
            tables: Tables::new(),
            transaction_tokens: BTreeMap::new(),
            regions: crate::global::region::Regions::new(),
            pieces,
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
        let rules = self.capacity_rules();
        let Some(table) = self.tables.get_mut(table_name) else {
            return Ok(());
        };
        let (partition, verdict) = enforce::admit(
            table,
            index,
            hash,
            units,
            kind,
            second,
            &rules,
            &*self.pieces.admission,
        );
        let charged = if verdict.is_ok() { units } else { 0.0 };
        let (r, w) = match kind {
            Kind::Read => (charged, 0.0),
            Kind::Write => (0.0, charged),
        };
        self.log.touch(table_name, partition, r, w);
        verdict
    }

    /// The capacity settings of this world, as [`enforce`] reads them.
    fn capacity_rules(&self) -> enforce::Rules {
        let c = &self.config;
        enforce::Rules {
            read_ceiling: c.partition_read_ceiling,
            write_ceiling: c.partition_write_ceiling,
            burst_window_s: c.burst_window_s,
            split_for_heat_threshold: c.split_for_heat_threshold,
            split_for_heat_after_s: c.split_for_heat_after_s,
            metrics_retention_s: c.metrics_retention_s,
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

    /// The TTL sweeper: on each sweep boundary, deletes items expired long enough ago (the
    /// rules are in [`crate::ttl::sweep`]; the deletions go through the write path).
    fn sweep_ttl(&mut self) {
        let sweeper = self.ttl_sweeper();
        let now = self.now_ms;
        let mut deletions = Vec::new();
        for (name, table) in &mut self.tables {
            for key in sweeper.sweep(&mut table.ttl, now) {
                deletions.push((name.clone(), key));
            }
        }
        for (name, key) in deletions {
            crate::ops::commit_write_as(self, &name, key, None, true);
        }
    }

    /// The TTL sweeper's settings in this world.
    fn ttl_sweeper(&self) -> Sweeper {
        Sweeper {
            interval_ms: self.config.ttl_sweep_interval_s.max(1) * 1000,
            delay_s: self.config.ttl_delete_delay_s,
            epoch0_s: self.config.epoch_seconds,
        }
    }

    /// When the TTL sweeper of a Region (its `tables`) next has something to delete.
    fn next_ttl_due(&self, tables: &Tables) -> Option<u64> {
        let sweeper = self.ttl_sweeper();
        tables
            .values()
            .filter_map(|t| sweeper.next_due(&t.ttl, self.now_ms))
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
