//! Replication between the replicas of a global table, and last-writer-wins.
//!
//! Every write committed in one Region's replica is shipped to each other replica
//! (`on_commit`) and applied there after a seeded delay (`deliver_due`). A shipment
//! carries what a `NEW_AND_OLD_IMAGES` stream record carries — the key and the new image (or
//! none, for a delete) — plus the write's *version*: its timestamp and Region, and the
//! version it replaced in its own Region.
//!
//! Design decision: shipments are taken at commit, beside the stream record, into one
//! world-wide queue ordered by due time — not read back out of the stream's shards. The
//! shards' lineage (splits, parents before children) and trimming would add nothing to what
//! replication teaches; what matters is kept: a write ships only after it commits, one
//! shipment per write, per-link order, and a Region that is down holds its shipments.

use std::collections::{BTreeMap, BTreeSet};

use super::region::Region;
use super::{ConflictingWrite, ReplicationConflict};
use crate::table::key::StoreKey;
use crate::value::Item;
use crate::world::State;

/// A write's timestamp: simulated microseconds, then the Region that made it.
///
/// Compared as a pair, so that every replica, looking only at two writes, agrees which is
/// later — there is no shared counter between Regions to ask. Ties of time (two Regions
/// writing in the same simulated instant, common here since requests take no time) go to
/// the Region whose name sorts **last** (`us-east-1` beats `eu-west-1`): any fixed order of
/// Region names would do; the point is that it is total and the same everywhere.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Stamp {
    pub micros: u64,
    pub region: Region,
}

/// What a replica knows of the last write of one item.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Version {
    pub stamp: Stamp,
    /// The version this write replaced in its own Region (`None`: the item did not exist
    /// there, or was written before the table became global).
    pub prev: Option<Stamp>,
}

/// One write on its way from one replica to another.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shipment {
    pub table: String,
    pub from: Region,
    pub to: Region,
    /// Simulated ms the write was made at, and when it is due at `to`.
    pub written_ms: u64,
    pub due_ms: u64,
    pub key: StoreKey,
    /// The new image, `None` for a delete.
    pub item: Option<Item>,
    pub version: Version,
}

/// The replication state of one global table.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GlobalTable {
    /// The Regions holding a replica.
    pub regions: BTreeSet<Region>,
    /// Each replica's version of each item written since the table became global
    /// (deletes included: a tombstone must still beat an older write arriving late).
    pub versions: BTreeMap<(Region, StoreKey), Version>,
    /// The last timestamp each Region gave (a Region's writes get increasing timestamps).
    pub clocks: BTreeMap<Region, u64>,
    /// The due time of the last shipment per (from, to) link (a link delivers in order).
    pub last_due: BTreeMap<(Region, Region), u64>,
    /// Conflicts detected so far, oldest first, each once.
    pub conflicts: Vec<ReplicationConflict>,
    /// (key, winner, loser) of the conflicts listed, so each is listed once.
    pub seen: BTreeSet<(StoreKey, Stamp, Stamp)>,
}

/// After a committed write in the Region in place: stamps it and ships it to every other
/// replica. A replicated write being applied (`replaying`) is not shipped again.
pub(crate) fn on_commit(state: &mut State, table: &str, key: &StoreKey, item: Option<Item>) {
    let State {
        regions,
        rng,
        config,
        now_ms,
        ..
    } = state;
    if regions.replaying {
        return;
    }
    let here = regions.here.clone();
    let Some(g) = regions.global.get_mut(table) else {
        return;
    };
    if !g.regions.contains(&here) {
        return; // a table of the same name that is not a replica
    }
    let now = *now_ms;
    let slot = (here.clone(), key.clone());
    let prev = g.versions.get(&slot).map(|v| v.stamp.clone());
    let clock = g.clocks.entry(here.clone()).or_insert(0);
    // The write's time, raised if needed so that it is later than the Region's previous
    // write and than the version it replaces (which may be a replicated write stamped in
    // the same instant by a Region whose name sorts later).
    let mut micros = now.saturating_mul(1000).max(*clock + 1);
    if let Some(p) = &prev {
        if (micros, &here) <= (p.micros, &p.region) {
            micros = p.micros + 1;
        }
    }
    *clock = micros;
    let version = Version {
        stamp: Stamp {
            micros,
            region: here.clone(),
        },
        prev,
    };
    g.versions.insert(slot, version.clone());
    let (lo, hi) = config.global_replication_delay_ms;
    for to in g.regions.iter().filter(|r| **r != here) {
        let link = (here.clone(), to.clone());
        let lag = regions.link_lag_ms.get(&link).copied().unwrap_or(0);
        let drawn = now + rng.between(lo, hi) + lag;
        let last = g.last_due.entry(link).or_insert(0);
        let due = drawn.max(*last);
        *last = due;
        let seq = regions.next_shipment;
        regions.next_shipment += 1;
        regions.in_flight.insert(
            (due, seq),
            Shipment {
                table: table.to_string(),
                from: here.clone(),
                to: to.clone(),
                written_ms: now,
                due_ms: due,
                key: key.clone(),
                item: item.clone(),
                version: version.clone(),
            },
        );
    }
}

/// Whether a shipment can be delivered now: due, and both its Regions up.
fn deliverable(state: &State, s: &Shipment) -> bool {
    s.due_ms <= state.now_ms && state.regions.is_up(&s.from) && state.regions.is_up(&s.to)
}

/// Applies every shipment that has arrived, in due order, each under last-writer-wins.
pub(crate) fn deliver_due(state: &mut State) {
    let now = state.now_ms;
    let ready: Vec<(u64, u64)> = state
        .regions
        .in_flight
        .range(..(now + 1, 0))
        .filter(|(_, s)| deliverable(state, s))
        .map(|(k, _)| *k)
        .collect();
    if ready.is_empty() {
        return;
    }
    let was = state.regions.here.clone();
    for k in ready {
        let s = state.regions.in_flight.remove(&k).expect("listed above");
        state.enter(&s.to);
        apply(state, s);
    }
    state.enter(&was);
}

/// Applies one shipment to the replica in place: the later version wins; a write that
/// neither saw the other is a conflict, recorded with its loser.
fn apply(state: &mut State, s: Shipment) {
    let to = s.to.clone();
    let Some(g) = state.regions.global.get(&s.table) else {
        return;
    };
    if !g.regions.contains(&to) || !state.tables.contains_key(&s.table) {
        return; // the replica was removed while the write was on its way
    }
    let current = g.versions.get(&(to.clone(), s.key.clone())).cloned();
    let incoming = &s.version;
    let wins = current.as_ref().is_none_or(|c| incoming.stamp > c.stamp);
    // Concurrent: neither write's author had seen the other (each replaced something older
    // than the other). `None < Some(_)`: an author who saw no item saw neither.
    let concurrent = current.as_ref().is_some_and(|c| {
        incoming.prev.as_ref() < Some(&c.stamp) && c.prev.as_ref() < Some(&incoming.stamp)
    });
    let here_item = state
        .tables
        .get(&s.table)
        .and_then(|t| t.store.current(&s.key))
        .cloned();
    if let Some(c) = current.filter(|_| concurrent) {
        let mine = ConflictingWrite::new(&c.stamp, here_item.clone());
        let theirs = ConflictingWrite::new(&incoming.stamp, s.item.clone());
        let (winner, loser) = if wins { (theirs, mine) } else { (mine, theirs) };
        let both_deletes = winner.item.is_none() && loser.item.is_none();
        let schema = state.tables[&s.table].schema().clone();
        let key_item = schema.key_item(&s.key);
        let now = state.now_ms;
        let g = state.regions.global.get_mut(&s.table).expect("checked");
        let (ws, ls) = if wins {
            (incoming.stamp.clone(), c.stamp.clone())
        } else {
            (c.stamp.clone(), incoming.stamp.clone())
        };
        if !both_deletes && g.seen.insert((s.key.clone(), ws, ls)) {
            g.conflicts.push(ReplicationConflict {
                table: s.table.clone(),
                key: key_item,
                winner,
                loser,
                detected_in: to.clone(),
                detected_at: std::time::Duration::from_millis(now),
            });
        }
    }
    if !wins {
        return;
    }
    // A replicated write is charged to the replica like any write (replicated write
    // units); it is never refused — DynamoDB would slow replication down instead — so a
    // replica short of capacity shows the throttles in its metrics and applies it anyway.
    let units = crate::write::cost(here_item.as_ref(), s.item.as_ref(), false);
    let _ = state.admit_write(&s.table, s.key.hash, units);
    state.regions.replaying = true;
    state.commit_write(&s.table, s.key.clone(), s.item.clone());
    state.regions.replaying = false;
    let g = state.regions.global.get_mut(&s.table).expect("checked");
    g.versions.insert((to, s.key), s.version);
}

/// When the next deliverable shipment is due.
pub(crate) fn next_due(state: &State) -> Option<u64> {
    state
        .regions
        .in_flight
        .values()
        .filter(|s| state.regions.is_up(&s.from) && state.regions.is_up(&s.to))
        .map(|s| s.due_ms)
        .next()
}

/// When the last deliverable shipment is due.
pub(crate) fn last_due(state: &State) -> Option<u64> {
    state
        .regions
        .in_flight
        .values()
        .rev()
        .filter(|s| state.regions.is_up(&s.from) && state.regions.is_up(&s.to))
        .map(|s| s.due_ms)
        .next()
}
