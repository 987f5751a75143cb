//! # A snapshot: everything a picture of the world's inside needs, as plain data
//!
//! The live view of `katas serve` and the view of a kata's failing run draw the same page.
//! One reads a world that is still running; the other reads a world that ended in a hidden
//! test's process a minute ago, saved as a JSON file. Both go through a [`Snapshot`]: the
//! world's tables with their partitions, each partition's replicas and per-second load, the
//! secondary indexes with theirs, the stream shards, the Regions with their global tables'
//! pending replication and conflicts, and the request log's tail.
//!
//! ```text
//!  katas serve:     World ── World::snapshot(live) ──▶ Snapshot ──▶ view::draw ──▶ HTML
//!  a failing test:  World ── World::snapshot(saved) ─▶ Snapshot ─▶ JSON file (SavedRun)
//!  katas view:                        JSON file ──▶ Snapshot ──▶ view::draw ──▶ HTML
//! ```
//!
//! Decisions:
//! - **Plain data with strings for DynamoDB's enums** (`"ACTIVE"`, `"PAY_PER_REQUEST"`,
//!   `"az-b"`), not the engine's types: the file is read by another build of the code (the
//!   learner may have pulled in between), and a string that a newer engine does not know is
//!   still drawn, where an unknown enum variant would refuse the whole file.
//! - **Only the window the picture shows** of each partition's per-second history
//!   ([`SnapshotOptions::seconds`]), not the hour the engine keeps: a page shows a couple of
//!   minutes, and a file of a long test would otherwise hold an hour per partition.
//! - **Where the window ends** is the builder's choice ([`WindowEnd`]): a live page ends it
//!   now, so time is seen passing; a failing run ends it at the last second a request was
//!   throttled (else the last busy second), because a test often moves the clock on long
//!   after the moment that explains its failure.
//!
//! Left out on purpose: items themselves (a snapshot is a picture of load and placement, not
//! a backup; the request log says which keys were touched only through partitions), and the
//! stream records' contents.

use serde::{Deserialize, Serialize};

use super::inspect::{partition_infos, seconds_of, table_info, PartitionInfo, PartitionSecond};
use super::World;
use crate::table::{IndexKind, Store};
use crate::types::BillingMode;
use crate::value::{Item, SortedMap};

/// What to put in a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// Seconds of per-partition history.
    pub seconds: u64,
    /// Where those seconds end.
    pub end: WindowEnd,
    /// Requests of the log's tail.
    pub log_tail: usize,
}

/// Where a snapshot's window of seconds ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowEnd {
    /// At the world's current second (a live page).
    Now,
    /// At the last second with a throttled request, else the last second with any load,
    /// else now (a failing run's picture).
    LastThrottle,
}

/// The world's inside at one moment, as plain data (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Simulated time (ms since the world began).
    pub now_ms: u64,
    /// The seconds the per-partition series cover, inclusive.
    pub window: (u64, u64),
    /// Why the window ends where it does (`now`, `the last throttled second`, …).
    pub window_end: String,
    /// Read and write units per second one partition serves.
    pub partition_read_ceiling: f64,
    pub partition_write_ceiling: f64,
    /// Counts over every request since the world began.
    pub requests: u64,
    pub throttled: u64,
    pub errors: u64,
    /// Every Region with tables or faults, in name order (one, `local-1`, for most worlds).
    pub regions: Vec<RegionSnapshot>,
    /// Every table of every Region, by Region then name.
    pub tables: Vec<TableSnapshot>,
    /// Tables with replicas in more than one Region.
    pub global_tables: Vec<GlobalTableSnapshot>,
    /// The request log's tail, oldest first.
    pub log: Vec<RequestSnapshot>,
}

/// One Region.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionSnapshot {
    pub name: String,
    /// `false` after `fail_region`.
    pub up: bool,
}

/// One table in one Region.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableSnapshot {
    pub name: String,
    pub region: String,
    /// `ACTIVE`, `UPDATING`, …
    pub status: String,
    /// `PROVISIONED` or `PAY_PER_REQUEST`.
    pub billing_mode: String,
    /// Provisioned read and write capacity units (table-wide), provisioned tables only.
    pub provisioned: Option<(i64, i64)>,
    pub item_count: usize,
    pub bytes: usize,
    pub partitions: Vec<PartitionSnapshot>,
    pub indexes: Vec<IndexSnapshot>,
    pub stream: Option<StreamSnapshot>,
}

/// One partition of a table or of a global secondary index.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PartitionSnapshot {
    pub id: u32,
    /// First and last hash owned (inclusive).
    pub hash_range: (u64, u64),
    pub item_count: usize,
    pub bytes: usize,
    /// The leader's AZ (`az-a`…), `None` during an election.
    pub leader: Option<String>,
    /// Its three replicas, by AZ.
    pub replicas: Vec<ReplicaSnapshot>,
    /// Its load in the window's seconds that saw any, oldest first.
    pub seconds: Vec<SecondSnapshot>,
}

/// One replica of a partition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicaSnapshot {
    pub az: String,
    pub up: bool,
    /// Writes the leader has that this replica has not applied.
    pub lag_writes: u64,
    /// Replication delay injected by `lag_replica` (ms).
    pub extra_lag_ms: u64,
}

/// One partition's load in one second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondSnapshot {
    pub second: u64,
    pub consumed_read: f64,
    pub consumed_write: f64,
    pub throttled_reads: u64,
    pub throttled_writes: u64,
}

/// One secondary index.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexSnapshot {
    pub name: String,
    /// Global (its own partitions and capacity) or local (lives in the table's partitions).
    pub global: bool,
    /// `CREATING` while backfilling, then `ACTIVE`.
    pub status: String,
    /// While backfilling: when it completes (simulated ms).
    pub backfill_due_ms: Option<u64>,
    /// Table changes on their way to this (global) index.
    pub pending_changes: usize,
    /// When the last of them lands (simulated ms); `None` when caught up.
    pub caught_up_at_ms: Option<u64>,
    pub item_count: usize,
    pub bytes: usize,
    /// A global index's partitions (empty for a local index).
    pub partitions: Vec<PartitionSnapshot>,
}

/// A table's stream.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamSnapshot {
    pub arn: String,
    pub label: String,
    /// `NEW_AND_OLD_IMAGES`, …
    pub view_type: String,
    pub disabled: bool,
    /// Parents before their children.
    pub shards: Vec<ShardSnapshot>,
}

/// One stream shard.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardSnapshot {
    pub shard_id: String,
    pub parent_shard_id: Option<String>,
    pub partition: u32,
    pub records: usize,
    pub open: bool,
}

/// A table with replicas in several Regions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobalTableSnapshot {
    pub table: String,
    /// The Regions holding a replica, in name order.
    pub replicas: Vec<String>,
    /// Writes not yet applied in some replica: how many in all, and the first few in
    /// delivery order.
    pub pending_count: usize,
    pub pending: Vec<PendingSnapshot>,
    /// Replication conflicts: how many in all, and the latest few, oldest first.
    pub conflict_count: usize,
    pub conflicts: Vec<ConflictSnapshot>,
}

/// One write on its way between replicas.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PendingSnapshot {
    pub from: String,
    pub to: String,
    /// The item's key, as text (`{"PK": S("a")}`).
    pub key: String,
    pub written_ms: u64,
    pub due_ms: u64,
}

/// One replication conflict: last writer wins kept `winner`, `loser` is gone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConflictSnapshot {
    pub key: String,
    pub winner_region: String,
    pub winner_at_us: u64,
    pub loser_region: String,
    pub loser_at_us: u64,
    pub detected_in: String,
    pub detected_at_us: u64,
}

/// One request of the log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestSnapshot {
    pub seq: u64,
    pub at_ms: u64,
    pub operation: String,
    pub tables: Vec<String>,
    pub index: Option<String>,
    /// Partition ids the request was routed to, in order.
    pub partitions: Vec<u32>,
    pub read_units: f64,
    pub write_units: f64,
    /// The exception's name, `None` on success.
    pub error: Option<String>,
    pub throttled: bool,
}

/// What a kata's failing run saves for `cargo katas view`: the snapshot of the world the
/// failing test used, and which test it was.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedRun {
    /// The hidden test that failed.
    pub test: String,
    /// Its seed, for a seeded test (`katas run --seed` replays it).
    pub seed: Option<u64>,
    /// The start of its failure message.
    pub message: String,
    pub snapshot: Snapshot,
}

fn partitions_of(s: &Store, (from, to): (u64, u64)) -> Vec<PartitionSnapshot> {
    let metrics = seconds_of(s);
    partition_infos(s)
        .into_iter()
        .map(|p| partition_snapshot(p, &metrics, from, to))
        .collect()
}

fn partition_snapshot(
    p: PartitionInfo,
    metrics: &[PartitionSecond],
    from: u64,
    to: u64,
) -> PartitionSnapshot {
    PartitionSnapshot {
        id: p.id,
        hash_range: p.hash_range,
        item_count: p.item_count,
        bytes: p.bytes,
        leader: p.leader.map(|az| az.name().to_string()),
        replicas: p
            .replicas
            .iter()
            .map(|r| ReplicaSnapshot {
                az: r.az.name().to_string(),
                up: r.up,
                lag_writes: r.lag_writes,
                extra_lag_ms: r.extra_lag_ms,
            })
            .collect(),
        seconds: metrics
            .iter()
            .filter(|m| m.partition == p.id && (from..=to).contains(&m.second))
            .map(|m| SecondSnapshot {
                second: m.second,
                consumed_read: m.consumed_read,
                consumed_write: m.consumed_write,
                throttled_reads: m.throttled_reads,
                throttled_writes: m.throttled_writes,
            })
            .collect(),
    }
}

fn key_text(key: &Item) -> String {
    format!("{:?}", SortedMap(key))
}

impl World {
    /// A snapshot of everything the views draw (see the module docs). Like the rest of the
    /// inspection API it changes nothing and is not a request.
    pub fn snapshot(&self, options: &SnapshotOptions) -> Snapshot {
        let state = self.lock();
        let now_s = state.now_ms / 1000;
        let all = state.all_tables();
        // The window's last second.
        let (to, window_end) = match options.end {
            WindowEnd::Now => (now_s, "now".to_string()),
            WindowEnd::LastThrottle => {
                let seconds: Vec<PartitionSecond> = all
                    .iter()
                    .flat_map(|(_, tables)| tables.values())
                    .flat_map(|t| {
                        std::iter::once(&t.store).chain(t.indexes.iter().map(|i| &i.store))
                    })
                    .flat_map(seconds_of)
                    .collect();
                let last_throttle = seconds
                    .iter()
                    .filter(|m| m.throttled_reads + m.throttled_writes > 0)
                    .map(|m| m.second)
                    .max();
                let last_busy = seconds.iter().map(|m| m.second).max();
                match (last_throttle, last_busy) {
                    (Some(s), _) => (s, format!("second {s}, the last with a throttled request")),
                    (None, Some(s)) => (s, format!("second {s}, the last with any load")),
                    (None, None) => (now_s, "now".to_string()),
                }
            }
        };
        let window = ((to + 1).saturating_sub(options.seconds.max(1)), to);
        let mut tables = Vec::new();
        for (region, region_tables) in &all {
            for t in region_tables.values() {
                let info = table_info(t);
                tables.push(TableSnapshot {
                    name: info.name.clone(),
                    region: region.as_str().to_string(),
                    status: info.status.as_str().to_string(),
                    billing_mode: info.billing_mode.as_str().to_string(),
                    provisioned: match info.billing_mode {
                        BillingMode::Provisioned => info
                            .throughput
                            .map(|tp| (tp.read_capacity_units, tp.write_capacity_units)),
                        BillingMode::PayPerRequest => None,
                    },
                    item_count: info.item_count,
                    bytes: info.bytes,
                    partitions: partitions_of(&t.store, window),
                    indexes: info
                        .indexes
                        .iter()
                        .zip(&t.indexes)
                        .map(|(i, index)| IndexSnapshot {
                            name: i.name.clone(),
                            global: i.kind == IndexKind::Global,
                            status: i.status.as_str().to_string(),
                            backfill_due_ms: i.backfill_due_ms,
                            pending_changes: i.pending_changes,
                            caught_up_at_ms: i.caught_up_at_ms,
                            item_count: i.item_count,
                            bytes: i.bytes,
                            partitions: if i.kind == IndexKind::Global {
                                partitions_of(&index.store, window)
                            } else {
                                Vec::new()
                            },
                        })
                        .collect(),
                    stream: info.stream.map(|s| StreamSnapshot {
                        arn: s.arn,
                        label: s.label,
                        view_type: s.view_type.as_str().to_string(),
                        disabled: s.disabled,
                        shards: s
                            .shards
                            .into_iter()
                            .map(|sh| ShardSnapshot {
                                shard_id: sh.shard_id,
                                parent_shard_id: sh.parent_shard_id,
                                partition: sh.partition,
                                records: sh.records,
                                open: sh.open,
                            })
                            .collect(),
                    }),
                });
            }
        }
        let global_tables = state
            .regions
            .global
            .iter()
            .filter(|(_, g)| g.regions.len() > 1)
            .map(|(name, g)| {
                let in_flight: Vec<_> = state
                    .regions
                    .in_flight
                    .values()
                    .filter(|s| &s.table == name)
                    .collect();
                let key_of = |s: &crate::global::replication::Shipment| {
                    state
                        .tables_of(&s.to)
                        .and_then(|t| t.get(name))
                        .or_else(|| state.tables_of(&s.from).and_then(|t| t.get(name)))
                        .map(|t| key_text(&t.schema().key_item(&s.key)))
                        .unwrap_or_default()
                };
                let skip = g.conflicts.len().saturating_sub(SHOWN_PER_GLOBAL_TABLE);
                GlobalTableSnapshot {
                    table: name.clone(),
                    replicas: g.regions.iter().map(|r| r.as_str().to_string()).collect(),
                    pending_count: in_flight.len(),
                    pending: in_flight
                        .iter()
                        .take(SHOWN_PER_GLOBAL_TABLE)
                        .map(|s| PendingSnapshot {
                            from: s.from.as_str().to_string(),
                            to: s.to.as_str().to_string(),
                            key: key_of(s),
                            written_ms: s.written_ms,
                            due_ms: s.due_ms,
                        })
                        .collect(),
                    conflict_count: g.conflicts.len(),
                    conflicts: g.conflicts[skip..]
                        .iter()
                        .map(|c| ConflictSnapshot {
                            key: key_text(&c.key),
                            winner_region: c.winner.region.as_str().to_string(),
                            winner_at_us: c.winner.at.as_micros() as u64,
                            loser_region: c.loser.region.as_str().to_string(),
                            loser_at_us: c.loser.at.as_micros() as u64,
                            detected_in: c.detected_in.as_str().to_string(),
                            detected_at_us: c.detected_at.as_micros() as u64,
                        })
                        .collect(),
                }
            })
            .collect();
        let records = &state.log.records;
        let log = records
            .iter()
            .skip(records.len().saturating_sub(options.log_tail))
            .map(|r| RequestSnapshot {
                seq: r.seq,
                at_ms: r.at_ms,
                operation: r.operation.to_string(),
                tables: r.tables.iter().map(|t| t.to_string()).collect(),
                index: r.index.clone(),
                partitions: r.partitions.iter().map(|(_, p)| *p).collect(),
                read_units: r.read_units,
                write_units: r.write_units,
                error: r.error.map(str::to_string),
                throttled: r.throttled(),
            })
            .collect();
        let totals = &state.log.totals;
        Snapshot {
            now_ms: state.now_ms,
            window,
            window_end,
            partition_read_ceiling: state.config.partition_read_ceiling,
            partition_write_ceiling: state.config.partition_write_ceiling,
            requests: totals.requests,
            throttled: totals.throttled,
            errors: totals.errors.values().sum(),
            regions: state
                .regions
                .names()
                .into_iter()
                .map(|r| RegionSnapshot {
                    up: state.regions.is_up(&r),
                    name: r.as_str().to_string(),
                })
                .collect(),
            tables,
            global_tables,
            log,
        }
    }
}

/// Calls `hook` with every world created from now on in this process, on the thread that
/// creates it; `false` when a hook was set already (there is one per process).
///
/// Design decision: a hidden test makes its worlds itself (`World::new(seed)` in twenty
/// katas' tests), and when it fails, the test kit must find the world to save without each
/// test handing it over. A process-wide hook, set once by the test kit's `run`, is the one
/// place that sees every world; the alternative — a `testkit::world(seed)` every test must
/// call instead of `World::new` — is a rule each new kata could forget. The hook sees a
/// world only as it is created and changes nothing in it, so no run's trace depends on it.
pub fn on_new_world(hook: fn(&World)) -> bool {
    NEW_WORLD_HOOK.set(hook).is_ok()
}

static NEW_WORLD_HOOK: std::sync::OnceLock<fn(&World)> = std::sync::OnceLock::new();

pub(super) fn announce(world: &World) {
    if let Some(hook) = NEW_WORLD_HOOK.get() {
        hook(world);
    }
}

/// Pending writes and conflicts listed per global table (the counts say how many in all):
/// a page shows a handful; a burst of writes during a Region outage can queue thousands.
pub const SHOWN_PER_GLOBAL_TABLE: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AttributeDefinition, KeySchemaElement, KeyType, ScalarAttributeType};
    use crate::AttributeValue;

    fn options(end: WindowEnd) -> SnapshotOptions {
        SnapshotOptions {
            seconds: 60,
            end,
            log_tail: 5,
        }
    }

    fn world_with_a_hot_key() -> World {
        let world = World::new(1);
        let client = world.client();
        client
            .create_table()
            .table_name("likes")
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap();
        let pad = "x".repeat(9_700);
        // 220 writes of 10 WCU to one key: past its partition's ceiling and the second of
        // headroom an on-demand partition has above it.
        for _ in 0..220 {
            let _ = client
                .put_item()
                .table_name("likes")
                .item("PK", AttributeValue::S("hot".into()))
                .item("pad", AttributeValue::S(pad.clone()))
                .send();
        }
        world
    }

    #[test]
    fn a_failing_runs_window_ends_at_its_last_throttle_not_now() {
        let world = world_with_a_hot_key();
        world.advance(std::time::Duration::from_secs(600));
        let live = world.snapshot(&options(WindowEnd::Now));
        assert_eq!(live.window, (541, 600));
        assert!(live.tables[0]
            .partitions
            .iter()
            .all(|p| p.seconds.is_empty()));
        let saved = world.snapshot(&options(WindowEnd::LastThrottle));
        assert_eq!(saved.window, (0, 0), "{}", saved.window_end);
        let busy: Vec<_> = saved.tables[0]
            .partitions
            .iter()
            .flat_map(|p| &p.seconds)
            .collect();
        assert_eq!(
            busy.len(),
            1,
            "one hot partition, one busy second: {busy:?}"
        );
        assert!(busy[0].throttled_writes > 0, "{busy:?}");
        assert!(saved.throttled > 0 && saved.requests == 221);
        assert_eq!(saved.log.len(), 5, "the log's tail only");
        assert_eq!(saved.log[4].seq, 220);
    }

    #[test]
    fn a_snapshot_survives_its_json_file() {
        let world = world_with_a_hot_key();
        let saved = SavedRun {
            test: "spreads".into(),
            seed: Some(7),
            message: "throttled".into(),
            snapshot: world.snapshot(&options(WindowEnd::LastThrottle)),
        };
        let text = serde_json::to_string(&saved).unwrap();
        let back: SavedRun = serde_json::from_str(&text).unwrap();
        assert_eq!(back, saved);
        assert_eq!(back.snapshot.tables[0].billing_mode, "PAY_PER_REQUEST");
        assert_eq!(back.snapshot.regions[0].name, "local-1");
    }
}
