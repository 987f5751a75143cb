//! The world's state and the entry points of the pieces that act on it: admission (the
//! rules are in [`crate::capacity::enforce`]), the write path's one door (`commit_write`;
//! the path is [`crate::write`]) and the TTL sweeper (its rules in [`crate::ttl::sweep`]).
//! When timed work runs — replication, elections, splits, index propagation, TTL sweeps,
//! streams, shipments between Regions — is the agenda's ([`super::agenda`]).

use std::collections::BTreeMap;

use super::log::RequestLog;
use super::WorldConfig;
use crate::capacity::admission::Kind;
use crate::capacity::enforce;
use crate::error::{Exception, Result};
use crate::rng::Rng;
use crate::table::key::StoreKey;
use crate::table::partition::Stored;
use crate::table::{ReplicationTiming, Tables};
use crate::ttl::sweep::Sweeper;
use crate::value::Item;
use crate::write::{self, Author};
use std::sync::Arc;

/// Everything inside a world. Crate-internal: reach it through `World` and `Client`.
#[derive(Debug)]
pub(crate) struct State {
    pub now_ms: u64,
    pub rng: Rng,
    pub config: WorldConfig,
    pub tables: Tables,
    /// Idempotency tokens of TransactWriteItems and ExecuteTransaction: token → (the
    /// request's actions or statements, completed at).
    pub transaction_tokens:
        BTreeMap<String, (crate::ops::transact_write_items::TokenedRequest, u64)>,
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

    /// Commits one item write (or delete, for `None`) an application's request made: the
    /// write path ([`crate::write`]). Returns the previous item. Callers have validated and
    /// admitted the write: this cannot fail.
    pub fn commit_write(
        &mut self,
        table_name: &str,
        key: StoreKey,
        new: Option<Item>,
    ) -> Option<Arc<Stored>> {
        self.commit_write_by(table_name, key, new, Author::Application)
    }

    /// [`State::commit_write`] by `author`: the one door to the write path, for the
    /// operations, the TTL sweeper and the writes replicated from other Regions. A replica
    /// of a global table ships what changed to the other Regions.
    pub fn commit_write_by(
        &mut self,
        table_name: &str,
        key: StoreKey,
        new: Option<Item>,
        author: Author,
    ) -> Option<Arc<Stored>> {
        let ctx = write::Context {
            now_ms: self.now_ms,
            epoch_seconds: self.epoch_seconds(),
            timing: self.timing(),
            gsi_delay_ms: self.config.gsi_propagation_delay_ms,
            global: self.regions.global.contains_key(table_name),
            author,
        };
        let State { tables, rng, .. } = &mut *self;
        let table = tables.get_mut(table_name)?;
        let applied = write::apply(table, key, new, &ctx, rng);
        if let Some((key, item)) = applied.ship {
            crate::global::replication::on_commit(self, table_name, &key, item);
        }
        applied.prev
    }

    /// The TTL sweeper: on each sweep boundary, deletes items expired long enough ago (the
    /// rules are in [`crate::ttl::sweep`]; the deletions go through the write path).
    pub(super) fn sweep_ttl(&mut self) {
        let sweeper = self.ttl_sweeper();
        let now = self.now_ms;
        let mut deletions = Vec::new();
        for (name, table) in &mut self.tables {
            for key in sweeper.sweep(&mut table.ttl, &table.store, now) {
                deletions.push((name.clone(), key));
            }
        }
        for (name, key) in deletions {
            self.commit_write_by(&name, key, None, Author::TimeToLive);
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
    pub(super) fn next_ttl_due(&self, tables: &Tables) -> Option<u64> {
        let sweeper = self.ttl_sweeper();
        tables
            .values()
            .filter_map(|t| sweeper.next_due(&t.ttl, self.now_ms))
            .min()
    }
}
