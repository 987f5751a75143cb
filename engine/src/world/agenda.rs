//! # The agenda: every kind of timed work, in one place
//!
//! Much of what DynamoDB does happens after the request that caused it has returned: the
//! third replica catches up, a partition without a leader elects one, a hot or full
//! partition splits, a change reaches a global secondary index, the TTL process deletes
//! what has expired, a stream drops records older than 24 hours, a Lambda poller hands a
//! batch to its function, a write crosses to the other Regions of a global table. In the
//! model each of these is a *kind of work* ([`Work`]), and this file is the one list of
//! them: what each kind is, when it is next due, when the last of what is already
//! scheduled is due, how it runs, and whether the clock must stop at it.
//!
//! ```text
//!   seq  kind               runs in          due times read from
//!   0    Shipments          the world        writes in flight between Regions
//!   1    TableActivation    each table       a new table's CREATING → ACTIVE
//!   2    Replication        each table       replicas' pending logs, elections (splits)
//!   3    StreamShards       each table       (follows 2: a split's shards; trimming)
//!   4    IndexPropagation   each table       the table's index queue, backfills
//!   5    IndexReplication   each table       the index partitions' replicas
//!   6    TtlSweep           each Region      the tables' expiry indexes
//!   7    ConsumerPolls      outside the lock the consumers' next poll times, for those
//!                                            with records to read (an idle consumer is
//!                                            due when a pass would next change anything)
//! ```
//!
//! An [`Agenda`] is read off the world: one line per kind that has work, with its due time
//! and its sequence number (its place in the list above), in `(due, seq)` order. The world
//! moves the clock by it ([`super::World::advance`], [`super::World::settle`]), and one
//! *pass* (`State::run_due`) runs every kind in sequence order: the world's kinds, then in
//! every Region each table's kinds, table by table in name order, then the Region's; the
//! consumers poll after the pass, outside the state's lock, because their handlers may
//! send requests of their own.
//!
//! **Adding a kind of timed work, or a fault that schedules some, is one edit here**: a
//! variant of [`Work`], its place in [`AGENDA`], and its arms in `Work::scope`, `next_due`,
//! `last_due` and one of `run_in_world`, `run_in_table`, `run_in_region` (and
//! `stops_the_clock` if it must run at its own due time). Nothing else lists the kinds. A
//! fault itself is a named operation (`world/faults.rs`); what it changes on the clock —
//! an election deadline, a replica that stops catching up — is read here like any other
//! due time.
//!
//! **Why the agenda is read, not kept.** Each piece already keeps its own due times, where
//! its module explains them: a replica's log of pending writes, a partition's election
//! deadline, a table's index queue, the TTL expiry index, the shipments between Regions. A
//! separate queue of events would have to be kept in step with every one of them on every
//! write, fault and heal (an AZ failure cancels a replica's catch-up; healing it restarts
//! it). Reading the agenda off the pieces cannot drift from them; it costs a walk over the
//! partitions when the clock moves, not on a request.
//!
//! **Why one pass runs everything due, and only some kinds stop the clock.** Most kinds are
//! *applied as of their due time* by whichever pass comes first at or after it: a replica
//! applies each pending write in order, a propagation is applied with its own timestamp.
//! So the clock can jump, and one pass at the end of an `advance` is the same as stepping
//! through every due time. Two kinds cannot be jumped over: a consumer's poll (its handler
//! sees the world as it is at the poll) and a shipment between Regions (it must meet the
//! background work due before it, in the receiving Region). For those
//! `Work::stops_the_clock` is true, and `advance` stops at each of their due times.
//!
//! Left out on purpose: work with no due time of its own (stream trimming runs in every
//! pass; a TTL sweep has no "last" — what it deletes depends on what is left), and a
//! priority between kinds due at the same instant other than the sequence above.

use super::State;
use crate::table::replication::background;
use crate::table::Store;

/// A kind of timed work. [`AGENDA`] lists every kind in the order a pass runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Work {
    /// Writes between the Regions of global tables, applied in the receiving Region at
    /// their due time ([`crate::global::replication`]).
    Shipments,
    /// A new table becomes `ACTIVE` after `WorldConfig::table_creation_ms`.
    TableActivation,
    /// The table's partitions: replication catch-up, elections, splits for size and heat
    /// ([`crate::table::replication`]).
    Replication,
    /// The stream's shards after a split (a parent closes, two children open) and the
    /// trimming of records past the retention period ([`crate::stream`]).
    StreamShards,
    /// Changes queued for global secondary indexes, and backfills ([`crate::index`]).
    IndexPropagation,
    /// The index partitions' own replication catch-up, elections and splits.
    IndexReplication,
    /// The TTL sweeper of a Region ([`crate::ttl::sweep`]); deletions go through the write
    /// path.
    TtlSweep,
    /// Stream consumers' polls ([`crate::stream::consumer`]), run by the world after a pass.
    ConsumerPolls,
}

/// Every kind of timed work, in the order one pass runs them: the index is the sequence
/// number that orders two kinds due at the same time.
pub(crate) const AGENDA: [Work; 8] = [
    Work::Shipments,
    Work::TableActivation,
    Work::Replication,
    Work::StreamShards,
    Work::IndexPropagation,
    Work::IndexReplication,
    Work::TtlSweep,
    Work::ConsumerPolls,
];

/// Where a kind's work lives, which decides how a pass reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// The whole world, once per pass, before the Regions.
    World,
    /// Each table of each Region.
    Table,
    /// Each Region, after its tables.
    Region,
    /// Outside the state's lock, after the pass (the world runs it).
    Outside,
}

impl Work {
    fn scope(self) -> Scope {
        match self {
            Work::Shipments => Scope::World,
            Work::TableActivation
            | Work::Replication
            | Work::StreamShards
            | Work::IndexPropagation
            | Work::IndexReplication => Scope::Table,
            Work::TtlSweep => Scope::Region,
            Work::ConsumerPolls => Scope::Outside,
        }
    }

    /// Whether the clock must stop at this kind's due times (see the module's essay).
    pub(crate) fn stops_the_clock(self) -> bool {
        matches!(self, Work::Shipments | Work::ConsumerPolls)
    }

    /// Whether the work lives outside the state (run by the world after a pass).
    pub(crate) fn outside_the_state(self) -> bool {
        self.scope() == Scope::Outside
    }

    /// When this kind's earliest pending work is due, if it has any. `polls` is the
    /// consumers' earliest poll (they live outside the state).
    fn next_due(self, state: &State, polls: Option<u64>) -> Option<u64> {
        let tables = || {
            state
                .all_tables()
                .into_iter()
                .flat_map(|(_, tables)| tables.values())
        };
        match self {
            Work::Shipments => crate::global::replication::next_due(state),
            Work::TableActivation => tables().filter_map(|t| t.active_due_ms).min(),
            Work::Replication => tables().filter_map(|t| store_next(&t.store)).min(),
            Work::StreamShards => None,
            Work::IndexPropagation => tables().filter_map(crate::index::next_due).min(),
            Work::IndexReplication => tables()
                .flat_map(|t| t.indexes.iter().filter_map(|i| store_next(&i.store)))
                .min(),
            Work::TtlSweep => state
                .all_tables()
                .iter()
                .filter_map(|(_, tables)| state.next_ttl_due(tables))
                .min(),
            Work::ConsumerPolls => polls,
        }
    }

    /// When the last of this kind's work already scheduled is due; `None` for kinds whose
    /// work is not scheduled ahead (TTL sweeps depend on what is left; polls never end).
    fn last_due(self, state: &State) -> Option<u64> {
        let tables = || {
            state
                .all_tables()
                .into_iter()
                .flat_map(|(_, tables)| tables.values())
        };
        match self {
            Work::Shipments => crate::global::replication::last_due(state),
            Work::TableActivation => tables().filter_map(|t| t.active_due_ms).max(),
            Work::Replication => tables().filter_map(|t| store_last(&t.store)).max(),
            Work::IndexPropagation => tables()
                .flat_map(|t| {
                    std::iter::once(t.index_queue.iter().map(|p| p.due_ms).max())
                        .chain(t.indexes.iter().map(|i| i.backfill_due_ms))
                })
                .flatten()
                .max(),
            Work::IndexReplication => tables()
                .flat_map(|t| t.indexes.iter().filter_map(|i| store_last(&i.store)))
                .max(),
            Work::StreamShards | Work::TtlSweep | Work::ConsumerPolls => None,
        }
    }

    /// Runs this kind's due work in one table (a [`Scope::Table`] kind). `splits` carries
    /// the splits [`Work::Replication`] made to [`Work::StreamShards`].
    fn run_in_table(
        self,
        table: &mut crate::table::Table,
        pass: &Pass,
        rng: &mut crate::rng::Rng,
        splits: &mut Vec<(u32, [u32; 2])>,
    ) {
        let now = pass.now_ms;
        match self {
            Work::TableActivation => {
                if table.active_due_ms.is_some_and(|d| d <= now) {
                    table.active_due_ms = None;
                    table.status = crate::types::TableStatus::Active;
                }
            }
            Work::Replication => {
                *splits = background(&mut table.store, now, pass.size_limit, rng);
            }
            Work::StreamShards => {
                if let Some(stream) = &mut table.stream_log {
                    for (parent, children) in splits.drain(..) {
                        stream.on_split(parent, children, now);
                    }
                    stream.trim(now, pass.retention_ms);
                }
            }
            // Propagations are applied as of their due time; the index partitions' own
            // replication then catches up to now.
            Work::IndexPropagation => crate::index::run_due(table, now, rng, pass.timing),
            Work::IndexReplication => {
                for index in &mut table.indexes {
                    background(&mut index.store, now, pass.size_limit, rng);
                }
            }
            Work::Shipments | Work::TtlSweep | Work::ConsumerPolls => {}
        }
    }

    /// Runs this kind's due work in the Region in place (a [`Scope::Region`] kind).
    fn run_in_region(self, state: &mut State) {
        if self == Work::TtlSweep {
            state.sweep_ttl();
        }
    }

    /// Runs this kind's due work across the world (a [`Scope::World`] kind).
    fn run_in_world(self, state: &mut State) {
        if self == Work::Shipments {
            crate::global::replication::deliver_due(state);
        }
    }
}

/// What one pass knows of the world while it runs the tables' work.
struct Pass {
    now_ms: u64,
    size_limit: usize,
    timing: crate::table::ReplicationTiming,
    retention_ms: u64,
}

/// When a store's earliest pending replication or election is due. An election that
/// cannot succeed (no live replica) is not pending work.
fn store_next(s: &Store) -> Option<u64> {
    let elections = s.partitions.iter().filter_map(|p| {
        p.election_due_ms
            .filter(|_| p.replicas.iter().any(|r| r.up))
    });
    s.next_due().into_iter().chain(elections).min()
}

/// When a store's last scheduled replication or election is due.
fn store_last(s: &Store) -> Option<u64> {
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
}

/// One line of an [`Agenda`]: a kind of work with something pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// When its earliest pending work is due (simulated ms).
    pub due_ms: u64,
    /// Its place in [`AGENDA`]: the order of kinds due at the same time.
    pub seq: usize,
    pub work: Work,
}

/// The timed work pending in a world, read off its pieces: one [`Line`] per kind with
/// work, in `(due, seq)` order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Agenda {
    pub lines: Vec<Line>,
    /// When the last of the work already scheduled is due, over every kind that knows.
    pub last_ms: Option<u64>,
}

impl Agenda {
    /// The agenda of `state`. `polls` gives the consumers' earliest poll that is due,
    /// told the earliest time a pass would change anything in the state (the state's own
    /// lines, and [`State::unscheduled_change`]): an idle consumer is due only then
    /// (`world/consumers.rs`).
    pub(crate) fn read(state: &State, polls: impl FnOnce(Option<u64>) -> Option<u64>) -> Agenda {
        let mut lines: Vec<Line> = AGENDA
            .iter()
            .enumerate()
            .filter(|(_, work)| !work.outside_the_state())
            .filter_map(|(seq, &work)| {
                work.next_due(state, None)
                    .map(|due_ms| Line { due_ms, seq, work })
            })
            .collect();
        let change = lines
            .iter()
            .map(|l| l.due_ms)
            .chain(state.unscheduled_change())
            .min();
        let polls = polls(change);
        lines.extend(
            AGENDA
                .iter()
                .enumerate()
                .filter(|(_, work)| work.outside_the_state())
                .filter_map(|(seq, &work)| {
                    work.next_due(state, polls)
                        .map(|due_ms| Line { due_ms, seq, work })
                }),
        );
        lines.sort_by_key(|l| (l.due_ms, l.seq));
        let last_ms = AGENDA.iter().filter_map(|w| w.last_due(state)).max();
        Agenda { lines, last_ms }
    }

    /// The earliest due time among the kinds `which` selects.
    pub(crate) fn next(&self, which: impl Fn(Work) -> bool) -> Option<u64> {
        self.lines.iter().find(|l| which(l.work)).map(|l| l.due_ms)
    }
}

impl State {
    /// The timed work pending in this world ([`Agenda`]); `polls` gives the consumers'
    /// earliest due poll ([`Agenda::read`]).
    pub(crate) fn agenda(&self, polls: impl FnOnce(Option<u64>) -> Option<u64>) -> Agenda {
        Agenda::read(self, polls)
    }

    /// The earliest time a pass would change something that no kind's due time shows:
    /// work a pass does whenever it finds it, not at a time of its own — a partition
    /// flagged for a split (too big, or hot for long enough), an election past its deadline
    /// even with no replica to win it (the pass gives it up), a follower to bring up to
    /// date from its leader (`Partition::anti_entropy`), and the first pass of each TTL
    /// sweep interval (it sweeps, and the interval counts as swept even if nothing was
    /// deletable). Stream trimming is left out: what it keeps depends only on the time of
    /// the last pass, not on how many passes came before. `None` if there is none.
    pub(crate) fn unscheduled_change(&self) -> Option<u64> {
        let now = self.now_ms;
        let limit = self.config.partition_size_limit;
        let regions = self.all_tables();
        let tables = || regions.iter().flat_map(|(_, tables)| tables.values());
        let flagged = tables()
            .flat_map(|t| std::iter::once(&t.store).chain(t.indexes.iter().map(|i| &i.store)))
            .flat_map(|s| &s.partitions)
            .filter_map(|p| {
                let now_due = p.bytes > limit || p.split_for_heat || p.anti_entropy_due();
                now_due
                    .then_some(now)
                    .into_iter()
                    .chain(p.election_due_ms)
                    .min()
            })
            .min();
        let interval = self.config.ttl_sweep_interval_s.max(1) * 1000;
        let sweeps = tables()
            .filter(|t| t.ttl.attribute.is_some() && t.ttl.sweeper.is_some())
            .map(|t| match t.ttl.last_sweep_ms {
                Some(last) if last / interval == now / interval => (now / interval + 1) * interval,
                _ => now,
            })
            .min();
        flagged.into_iter().chain(sweeps).min()
    }

    /// One pass: runs every kind of timed work due at or before the current time, in
    /// [`AGENDA`] order — the world's kinds, then in every Region each table's kinds (table
    /// by table, in name order) and the Region's. The consumers' polls are the world's to
    /// run after it ([`super::World`]), outside the lock.
    pub fn run_due(&mut self) {
        for work in AGENDA.into_iter().filter(|w| w.scope() == Scope::World) {
            work.run_in_world(self);
        }
        self.for_each_region(State::run_due_here);
    }

    /// [`State::run_due`]'s work in the Region in place.
    fn run_due_here(&mut self) {
        let pass = Pass {
            now_ms: self.now_ms,
            size_limit: self.config.partition_size_limit,
            timing: self.timing(),
            retention_ms: self.config.stream_retention_s * 1000,
        };
        let State { tables, rng, .. } = self;
        for table in tables.values_mut() {
            let mut splits = Vec::new();
            for work in AGENDA.into_iter().filter(|w| w.scope() == Scope::Table) {
                work.run_in_table(table, &pass, rng, &mut splits);
            }
        }
        for work in AGENDA.into_iter().filter(|w| w.scope() == Scope::Region) {
            work.run_in_region(self);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Line, Work};
    use crate::types::ScalarAttributeType;
    use crate::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType};
    use crate::{item, World, WorldConfig};
    use std::time::Duration;

    fn create(world: &World, name: &str) {
        world
            .client()
            .create_table()
            .table_name(name)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap();
    }

    #[test]
    fn the_agenda_lists_each_kind_with_work_in_due_order_and_empties_when_it_is_done() {
        let world = World::with_config(WorldConfig {
            seed: 5,
            replication_delay_ms: (40, 40),
            ..WorldConfig::default()
        });
        create(&world, "app");
        world
            .client()
            .put_item()
            .table_name("app")
            .set_item(Some(item! { "PK" => "a" }))
            .send()
            .unwrap();
        let agenda = world.agenda();
        assert_eq!(
            agenda.lines,
            vec![Line {
                due_ms: 40,
                seq: 2,
                work: Work::Replication
            }],
            "the slow follower's copy of the write is due after the replication delay"
        );
        assert_eq!(agenda.last_ms, Some(40));
        world.advance(Duration::from_millis(40));
        let agenda = world.agenda();
        assert!(agenda.lines.is_empty(), "nothing left: {:?}", agenda.lines);
        assert_eq!(agenda.last_ms, None);
    }

    #[test]
    fn two_kinds_due_together_are_ordered_by_their_place_on_the_agenda() {
        let world = World::with_config(WorldConfig {
            seed: 5,
            replication_delay_ms: (1_000, 1_000),
            table_creation_ms: 1_000,
            ..WorldConfig::default()
        });
        create(&world, "old");
        world.advance(Duration::from_millis(1_000));
        world
            .client()
            .put_item()
            .table_name("old")
            .set_item(Some(item! { "PK" => "a" }))
            .send()
            .unwrap();
        create(&world, "new");
        let kinds: Vec<(u64, Work)> = world
            .agenda()
            .lines
            .iter()
            .map(|l| (l.due_ms, l.work))
            .collect();
        assert_eq!(
            kinds,
            vec![(2_000, Work::TableActivation), (2_000, Work::Replication)]
        );
    }
}
