//! Seeing inside: partitions, replicas, per-second load, the request log, the tables with
//! their indexes and stream shards, and a text picture of a table's partitions.
//!
//! Everything here reads the world without changing it (it does not even move replication
//! along), so a test can look as often as it likes. Nothing here is a request either: unlike
//! `DescribeTable` or `DescribeStream` through a client, looking leaves no trace in the
//! request log — which is what a live view that polls every second needs (`katas-serve`'s
//! `/_katas/` page is drawn from these accessors alone).

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use super::faults::Az;
use super::log::{LogTotals, RequestRecord};
use super::World;
use crate::error::{Exception, Result};
use crate::table::key::KeyValue;
use crate::table::partition::AZ_NAMES;
use crate::table::IndexKind;
use crate::table::{Store, Table};
use crate::types::{BillingMode, IndexStatus, ProvisionedThroughput, StreamViewType, TableStatus};
use crate::value::AttributeValue;

/// One partition as the inspection API shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionInfo {
    pub id: u32,
    /// First and last hash owned (inclusive).
    pub hash_range: (u64, u64),
    pub item_count: usize,
    pub bytes: usize,
    pub leader: Option<Az>,
    pub replicas: Vec<ReplicaInfo>,
}

/// One replica of a partition.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaInfo {
    pub az: Az,
    pub up: bool,
    /// Writes the leader has that this replica has not applied yet.
    pub lag_writes: u64,
    /// Extra replication delay injected by `lag_replica` (ms).
    pub extra_lag_ms: u64,
}

/// One partition's load in one second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartitionSecond {
    pub partition: u32,
    pub second: u64,
    pub consumed_read: f64,
    pub consumed_write: f64,
    pub throttled_reads: u64,
    pub throttled_writes: u64,
    /// The leader's AZ at the end of the second (`None` during an election).
    pub leader: Option<Az>,
    /// How many writes the most lagging replica was behind at the end of the second.
    pub replica_lag_writes: u64,
}

/// One table at a glance: what `DescribeTable` and `DescribeStream` would say, without
/// being a request.
#[derive(Clone, Debug, PartialEq)]
pub struct TableInfo {
    pub name: String,
    pub status: TableStatus,
    pub billing_mode: BillingMode,
    /// Provisioned throughput (provisioned tables only).
    pub throughput: Option<ProvisionedThroughput>,
    pub item_count: usize,
    pub bytes: usize,
    pub partition_count: usize,
    /// Secondary indexes, in the order they were declared.
    pub indexes: Vec<IndexInfo>,
    /// The table's stream, while it has (or recently had) one.
    pub stream: Option<StreamInfo>,
}

/// One secondary index at a glance.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexInfo {
    pub name: String,
    pub kind: IndexKind,
    /// `CREATING` while backfilling, then `ACTIVE`.
    pub status: IndexStatus,
    /// While backfilling: when the backfill completes (simulated ms).
    pub backfill_due_ms: Option<u64>,
    /// Table changes on their way to this (global) index: its lag, counted in writes.
    pub pending_changes: usize,
    /// When the last of those changes lands (simulated ms); `None` when caught up.
    pub caught_up_at_ms: Option<u64>,
    pub item_count: usize,
    pub bytes: usize,
    pub partition_count: usize,
}

/// A table's stream at a glance.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamInfo {
    pub arn: String,
    pub label: String,
    pub view_type: StreamViewType,
    /// Disabled streams keep their records for the retention period, then go.
    pub disabled: bool,
    /// Shards in the order they were opened: parents before their children.
    pub shards: Vec<ShardInfo>,
}

/// One stream shard: its lineage and how many records it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardInfo {
    pub shard_id: String,
    /// The shard this one continues after a split.
    pub parent_shard_id: Option<String>,
    /// The partition whose changes it carries.
    pub partition: u32,
    /// Records still kept (not trimmed by retention).
    pub records: usize,
    /// Closed shards (their partition split) take no more records.
    pub open: bool,
}

pub(super) fn table_info(t: &Table) -> TableInfo {
    TableInfo {
        name: t.name.clone(),
        status: t.status.clone(),
        billing_mode: t.billing_mode.clone(),
        throughput: t.throughput.clone(),
        item_count: t.store.item_count(),
        bytes: t.store.size_bytes(),
        partition_count: t.store.partitions.len(),
        indexes: t
            .indexes
            .iter()
            .map(|i| {
                let queued = t.index_queue.iter().filter(|p| p.index == i.name);
                IndexInfo {
                    name: i.name.clone(),
                    kind: i.kind,
                    status: i.status.clone(),
                    backfill_due_ms: i.backfill_due_ms,
                    pending_changes: queued.clone().count(),
                    caught_up_at_ms: queued.map(|p| p.due_ms).max(),
                    item_count: i.store.item_count(),
                    bytes: i.store.size_bytes(),
                    partition_count: i.store.partitions.len(),
                }
            })
            .collect(),
        stream: t.stream_log.as_ref().map(|s| StreamInfo {
            arn: s.arn.clone(),
            label: s.label.clone(),
            view_type: s.view_type.clone(),
            disabled: s.disabled,
            shards: s
                .shards
                .iter()
                .map(|sh| ShardInfo {
                    shard_id: sh.shard_id.clone(),
                    parent_shard_id: sh.parent_shard_id.clone(),
                    partition: sh.partition,
                    records: sh.records.len(),
                    open: sh.ending_sequence_number.is_none(),
                })
                .collect(),
        }),
    }
}

fn table<'a>(tables: &'a crate::table::Tables, name: &str) -> Result<&'a Table> {
    tables.get(name).ok_or_else(|| {
        Exception::resource_not_found(format!(
            "Requested resource not found: Table: {name} not found"
        ))
    })
}

fn store<'a>(t: &'a Table, index: Option<&str>) -> Result<&'a Store> {
    match index {
        None => Ok(&t.store),
        Some(i) => t.index(i).map(|x| &x.store).ok_or_else(|| {
            Exception::validation(format!("The table does not have the specified index: {i}"))
        }),
    }
}

pub(super) fn partition_infos(s: &Store) -> Vec<PartitionInfo> {
    s.partitions
        .iter()
        .map(|p| PartitionInfo {
            id: p.id,
            hash_range: (p.start, p.end),
            item_count: p.item_count,
            bytes: p.bytes,
            leader: p.leader.map(|i| Az::ALL[i]),
            replicas: p
                .replicas
                .iter()
                .enumerate()
                .map(|(i, r)| ReplicaInfo {
                    az: Az::ALL[i],
                    up: r.up,
                    lag_writes: r.lag_entries(p.seq),
                    extra_lag_ms: r.extra_lag_ms,
                })
                .collect(),
        })
        .collect()
}

pub(super) fn seconds_of(s: &Store) -> Vec<PartitionSecond> {
    let mut out = Vec::new();
    for p in &s.partitions {
        for (second, st) in &p.load.history {
            out.push(PartitionSecond {
                partition: p.id,
                second: *second,
                consumed_read: st.consumed_read,
                consumed_write: st.consumed_write,
                throttled_reads: st.throttled_reads,
                throttled_writes: st.throttled_writes,
                leader: st.leader.map(|i| Az::ALL[i]),
                replica_lag_writes: st.replica_lag_writes,
            });
        }
        // The second still open (not closed by a later request yet).
        let (r, w) = (&p.load.read, &p.load.write);
        for (second, read, write) in [(r.second, Some(r), None), (w.second, None, Some(w))] {
            let consumed = read.map_or(0.0, |m| m.consumed) + write.map_or(0.0, |m| m.consumed);
            let throttled = read.map_or(0, |m| m.throttled) + write.map_or(0, |m| m.throttled);
            if consumed == 0.0 && throttled == 0 {
                continue;
            }
            let entry = match out
                .iter_mut()
                .find(|e| e.partition == p.id && e.second == second)
            {
                Some(e) => e,
                None => {
                    out.push(PartitionSecond {
                        partition: p.id,
                        second,
                        consumed_read: 0.0,
                        consumed_write: 0.0,
                        throttled_reads: 0,
                        throttled_writes: 0,
                        leader: p.leader.map(|i| Az::ALL[i]),
                        replica_lag_writes: p
                            .replicas
                            .iter()
                            .map(|r| r.lag_entries(p.seq))
                            .max()
                            .unwrap_or(0),
                    });
                    out.last_mut().expect("pushed")
                }
            };
            if let Some(m) = read {
                entry.consumed_read += m.consumed;
                entry.throttled_reads += m.throttled;
            }
            if let Some(m) = write {
                entry.consumed_write += m.consumed;
                entry.throttled_writes += m.throttled;
            }
        }
    }
    out.sort_by_key(|e| (e.second, e.partition));
    out
}

impl World {
    /// The partitions of a table, in hash order.
    pub fn partitions(&self, table_name: &str) -> Result<Vec<PartitionInfo>> {
        let state = self.lock();
        Ok(partition_infos(&table(&state.tables, table_name)?.store))
    }

    /// The partitions of a secondary index, in hash order.
    pub fn index_partitions(&self, table_name: &str, index: &str) -> Result<Vec<PartitionInfo>> {
        let state = self.lock();
        Ok(partition_infos(store(
            table(&state.tables, table_name)?,
            Some(index),
        )?))
    }

    /// The id of the partition that holds items with this partition-key value.
    pub fn partition_of(&self, table_name: &str, partition_key: &AttributeValue) -> Result<u32> {
        let state = self.lock();
        let t = table(&state.tables, table_name)?;
        let schema = t.schema();
        let key =
            KeyValue::from_attribute(partition_key, schema.pk_type.clone()).ok_or_else(|| {
                Exception::validation(format!(
                    "The partition key of {table_name} is of type {}, not {}",
                    schema.pk_type.as_str(),
                    partition_key.type_name()
                ))
            })?;
        Ok(t.store.partitions[t.store.locate(schema.hash(&key, None))].id)
    }

    /// Per-partition, per-second consumed and throttled capacity of a table (or of one of
    /// its indexes), ordered by second then partition.
    pub fn partition_metrics(
        &self,
        table_name: &str,
        index: Option<&str>,
    ) -> Result<Vec<PartitionSecond>> {
        let state = self.lock();
        Ok(seconds_of(store(table(&state.tables, table_name)?, index)?))
    }

    /// The most recent requests (up to the configured capacity), oldest first.
    pub fn request_log(&self) -> Vec<RequestRecord> {
        self.lock().log.records.iter().cloned().collect()
    }

    /// The last `n` requests of the log, oldest first (cheaper than [`World::request_log`]
    /// for a view that shows only the tail of a long log).
    pub fn request_log_tail(&self, n: usize) -> Vec<RequestRecord> {
        let state = self.lock();
        let records = &state.log.records;
        records
            .iter()
            .skip(records.len().saturating_sub(n))
            .cloned()
            .collect()
    }

    /// Every table, in name order, with its indexes and stream shards.
    pub fn tables(&self) -> Vec<TableInfo> {
        self.lock().tables.values().map(table_info).collect()
    }

    /// Counts over every request since the world began.
    pub fn request_totals(&self) -> LogTotals {
        self.lock().log.totals.clone()
    }

    /// Forgets the request log (totals included) — e.g. after a test's setup.
    pub fn clear_request_log(&self) {
        let mut state = self.lock();
        state.log.records.clear();
        state.log.totals = LogTotals::default();
    }

    /// Partition splits of a table so far: (parent id, [child ids], simulated ms).
    pub fn partition_splits(&self, table_name: &str) -> Result<Vec<(u32, [u32; 2], u64)>> {
        let state = self.lock();
        Ok(table(&state.tables, table_name)?.store.splits.clone())
    }

    /// A fingerprint of everything observable: clock, data of every replica in every Region,
    /// load history, the request log, and the writes on their way between Regions. Two runs
    /// with the same seed and the same requests have the same fingerprint.
    pub fn trace_hash(&self) -> u64 {
        let state = self.lock();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        state.now_ms.hash(&mut h);
        let regions = state.all_tables();
        let several = regions.len() > 1;
        for (name, t) in regions
            .iter()
            .flat_map(|(region, tables)| tables.iter().map(move |(n, t)| ((region, n), t)))
        {
            // A single-Region world hashes as it did before Regions existed.
            if several {
                name.0.as_str().hash(&mut h);
            }
            name.1.hash(&mut h);
            for s in std::iter::once(&t.store).chain(t.indexes.iter().map(|i| &i.store)) {
                for p in &s.partitions {
                    (p.id, p.start, p.end, p.leader, p.seq).hash(&mut h);
                    for r in &p.replicas {
                        (r.up, r.applied_seq, r.pending.len()).hash(&mut h);
                        format!("{:?}", r.data).hash(&mut h);
                    }
                    format!("{:?}", p.load).hash(&mut h);
                }
            }
        }
        format!("{:?}", state.log.records).hash(&mut h);
        // Items are `HashMap`s: hashed through their name-ordered `Debug`.
        let sorted = |item: &Option<crate::value::Item>| {
            format!("{:?}", item.as_ref().map(crate::value::SortedMap))
        };
        for ((due, seq), s) in &state.regions.in_flight {
            (due, seq, &s.table, s.from.as_str(), s.to.as_str()).hash(&mut h);
            (format!("{:?}", s.key), sorted(&s.item)).hash(&mut h);
        }
        for g in state.regions.global.values() {
            for c in &g.conflicts {
                (
                    c.winner.region.as_str(),
                    c.winner.at,
                    sorted(&c.winner.item),
                )
                    .hash(&mut h);
                (c.loser.region.as_str(), c.loser.at, sorted(&c.loser.item)).hash(&mut h);
                sorted(&Some(c.key.clone())).hash(&mut h);
            }
        }
        h.finish()
    }

    /// A text picture of a table's partitions and their write (or read) load over the last
    /// `seconds` seconds: one bar per partition against its per-second ceiling, marked where
    /// requests were throttled. Meant for kata failure messages and the terminal.
    pub fn render_partitions(&self, table_name: &str, seconds: u64) -> Result<String> {
        let state = self.lock();
        let t = table(&state.tables, table_name)?;
        let metrics = seconds_of(&t.store);
        let now_s = state.now_ms / 1000;
        let from = (now_s + 1).saturating_sub(seconds.max(1));
        let (rc, wc) = (
            state.config.partition_read_ceiling,
            state.config.partition_write_ceiling,
        );
        let mut out = String::new();
        let mode = match t.billing_mode {
            BillingMode::Provisioned => {
                let tp = t
                    .throughput
                    .clone()
                    .map_or((0, 0), |p| (p.read_capacity_units, p.write_capacity_units));
                format!("provisioned {} RCU / {} WCU", tp.0, tp.1)
            }
            BillingMode::PayPerRequest => "on-demand".to_string(),
        };
        let _ = writeln!(
            out,
            "table {table_name} — {} partitions, {mode}; seconds {from}..={now_s}; ceiling {wc} WCU / {rc} RCU per partition",
            t.store.partitions.len()
        );
        let any_reads = metrics
            .iter()
            .any(|m| m.second >= from && m.consumed_read > 0.0);
        for p in &t.store.partitions {
            let window: Vec<_> = metrics
                .iter()
                .filter(|m| m.partition == p.id && m.second >= from)
                .collect();
            let peak_w = window.iter().map(|m| m.consumed_write).fold(0.0, f64::max);
            let peak_r = window.iter().map(|m| m.consumed_read).fold(0.0, f64::max);
            let throttled: u64 = window
                .iter()
                .map(|m| m.throttled_writes + m.throttled_reads)
                .sum();
            let worst = window
                .iter()
                .max_by_key(|m| m.throttled_writes + m.throttled_reads);
            let leader = p.leader.map_or("none", |i| AZ_NAMES[i]);
            // The read bar only when the window saw reads: lines stay under ~110 columns.
            let reads = if any_reads {
                format!(" │{}│ {:>5.0} RCU/s peak", bar(peak_r / rc, 10), peak_r)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  partition {:>3} │{}│ {:>5.0} WCU/s peak{}{reads}  items {}  leader {leader}{}",
                p.id,
                bar(peak_w / wc, 20),
                peak_w,
                if throttled > 0 { "!" } else { " " },
                p.item_count,
                match worst {
                    Some(m) if throttled > 0 => format!(
                        "  THROTTLED {throttled}× (worst: second {}, {})",
                        m.second,
                        m.throttled_writes + m.throttled_reads
                    ),
                    _ => String::new(),
                }
            );
        }
        Ok(out)
    }
}

/// A bar of `width` cells filled to `fraction` (capped at full).
fn bar(fraction: f64, width: usize) -> String {
    let filled = ((fraction.clamp(0.0, 1.0)) * width as f64).round() as usize;
    format!("{}{}", "█".repeat(filled), "·".repeat(width - filled))
}
