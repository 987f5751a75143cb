//! # Secondary indexes
//!
//! A secondary index answers a question the table's key cannot: "orders by status", "a
//! customer by email". It holds a copy of some attributes of some items under another key.
//!
//! - A **global** secondary index (GSI) may use any top-level S/N/B attributes as its
//!   partition and sort key. It is *physically another partitioned table*, with its own
//!   partitions and its own capacity. It is maintained **asynchronously**: a table write
//!   commits first; the change reaches the index a little later (milliseconds, on the
//!   simulated clock). Reading a GSI right after a write can miss it — GSI reads are always
//!   eventually consistent.
//! - A **local** secondary index (LSI) keeps the table's partition key and sorts by another
//!   attribute. It lives with the table's partition, is updated in the same step as the
//!   table, and allows strongly consistent reads. It is declared with the table only.
//!
//! Both are **sparse**: an item that lacks an index key attribute is not in the index. An
//! index holds a *projection* of each item: `KEYS_ONLY` (table and index keys), `INCLUDE`
//! (plus named attributes) or `ALL`.
//!
//! ```text
//!  PutItem ──▶ table partition (quorum) ──ack──▶ caller
//!                  │
//!                  └─ change queued ──(delay)──▶ GSI partition: delete old entry if the
//!                                                 index key changed, put the new projection
//! ```
//!
//! **Propagation** — which index writes a table write causes, what each entry holds, what
//! each write costs — is the piece of [`propagate`], whose essay tells the rules (sparse
//! indexes, projections, 0, 1 or 2 writes sized by the entry) and what the engine keeps of
//! them. This file is the delivery: local index writes applied in the table write's step,
//! global ones queued ([`Propagation`]) and applied after a seeded delay, in order per
//! index, as of their due time (`apply_changes`, `run_due`; the world runs them as the
//! agenda's `IndexPropagation` work).
//!
//! **Back-pressure.** An index write costs index capacity. The model charges the GSI's
//! partitions when the table write is admitted (`admit_item_write` in [`crate::ops`], with
//! [`propagate::costs`]); if one has no capacity left, the *table* write is throttled — the
//! surprise the lesson warns about, where one badly designed index throttles the whole
//! table.
//!
//! **Backfill.** A GSI added to a table that already has items is `CREATING` and not
//! queryable until a backfill has copied every item in (each entering as a new item would,
//! through the propagator); then it is `ACTIVE`.
//!
//! **Item collections.** On a table with local secondary indexes, one partition key's items
//! and their local index entries (an *item collection*) must stay under 10 GB
//! (`WorldConfig::item_collection_size_limit`); a write that would grow a collection past it
//! fails with `ItemCollectionSizeLimitExceededException`, a shrinking write always succeeds.
//! The write path checks it before admission (`check_item_collection` in [`crate::write`]),
//! summing the collection's items and their entries in every local index (the entries the
//! propagator would put for them).
//!
//! Left out: index entries' storage overhead (100 bytes per entry) is not counted, in the
//! collection size or elsewhere; backfill writes are not charged to the index (DynamoDB
//! charges them).

pub mod propagate;

use std::collections::VecDeque;

use crate::rng::Rng;
use crate::table::key::{KeySchema, StoreKey};
use crate::table::{Index, IndexKind, Table};
use crate::types::IndexStatus;
use propagate::{EntryWrite, IndexChange};

/// A change on its way to a global secondary index: the writes of one table write to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Propagation {
    pub due_ms: u64,
    pub index: String,
    /// In order ([`propagate::IndexChange::writes`]).
    pub writes: Vec<EntryWrite>,
}

/// Applies index changes: local indexes at once, global ones queued for propagation after a
/// seeded delay.
pub fn apply_changes(
    table: &mut Table,
    changes: Vec<IndexChange>,
    now_ms: u64,
    rng: &mut Rng,
    delay_ms: (u64, u64),
    timing: crate::table::ReplicationTiming,
) {
    for change in changes {
        match change.kind {
            IndexKind::Local => {
                if let Some(index) = table.indexes.iter_mut().find(|i| i.name == change.index) {
                    apply_writes(index, change.writes, now_ms, rng, timing);
                }
            }
            IndexKind::Global => {
                // Changes to one index arrive in order: never before an earlier change.
                let earliest = table
                    .index_queue
                    .iter()
                    .rev()
                    .find(|p| p.index == change.index)
                    .map_or(0, |p| p.due_ms);
                let due = (now_ms + rng.between(delay_ms.0, delay_ms.1)).max(earliest);
                table.index_queue.push_back(Propagation {
                    due_ms: due,
                    index: change.index,
                    writes: change.writes,
                });
            }
        }
    }
}

/// Applies one change's writes to an index, in order. Deleting an entry that is not there
/// is no write at all.
fn apply_writes(
    index: &mut Index,
    writes: Vec<EntryWrite>,
    now_ms: u64,
    rng: &mut Rng,
    timing: crate::table::ReplicationTiming,
) {
    for write in writes {
        match write {
            EntryWrite::Delete(key) => {
                if index.store.current(&key).is_some() {
                    index.store.write(key, None, now_ms, rng, timing);
                }
            }
            EntryWrite::Put(key, entry) => {
                index
                    .store
                    .write_stored(key, Some(entry), now_ms, rng, timing);
            }
        }
    }
}

/// Applies every propagation due by `now` (in order), and finishes due backfills.
pub fn run_due(
    table: &mut Table,
    now_ms: u64,
    rng: &mut Rng,
    timing: crate::table::ReplicationTiming,
) {
    let mut queue = std::mem::take(&mut table.index_queue);
    let mut kept = VecDeque::new();
    while let Some(p) = queue.pop_front() {
        if p.due_ms > now_ms {
            kept.push_back(p);
            continue;
        }
        if let Some(index) = table.indexes.iter_mut().find(|i| i.name == p.index) {
            // Leaderless index partitions: the change waits (retried on the next tick).
            let blocked = p.writes.iter().map(EntryWrite::key).any(|k| {
                index
                    .store
                    .check_writable(index.store.locate(k.hash), now_ms)
                    .is_err()
            });
            if blocked {
                kept.push_back(Propagation {
                    due_ms: now_ms + 100,
                    ..p
                });
                continue;
            }
            // The change reaches the index at its due time (the clock may have jumped past it).
            apply_writes(index, p.writes, p.due_ms, rng, timing);
        }
    }
    table.index_queue = kept;
    let due: Vec<String> = table
        .indexes
        .iter()
        .filter(|i| {
            i.status == IndexStatus::Creating && i.backfill_due_ms.is_some_and(|d| d <= now_ms)
        })
        .map(|i| i.name.clone())
        .collect();
    for name in due {
        backfill(table, &name, now_ms, rng, timing);
    }
}

/// The earliest time index work is due.
pub fn next_due(table: &Table) -> Option<u64> {
    let queued = table.index_queue.iter().map(|p| p.due_ms).min();
    let backfills = table
        .indexes
        .iter()
        .filter_map(|i| {
            i.backfill_due_ms
                .filter(|_| i.status == IndexStatus::Creating)
        })
        .min();
    queued.into_iter().chain(backfills).min()
}

/// Copies every item of the table into a new index and makes it `ACTIVE`: each item enters
/// as the propagator puts a new item. Items whose index key attributes have the wrong type
/// are skipped, as DynamoDB's backfill does (their entries cannot be stored), and so are
/// items whose key for the index is empty (`""`, an empty binary) or too long for a key
/// (2,048 / 1,024 bytes): they are already in the table, where no write checked them against
/// a key that did not exist yet.
pub fn backfill(
    table: &mut Table,
    name: &str,
    now_ms: u64,
    rng: &mut Rng,
    timing: crate::table::ReplicationTiming,
) {
    let Some(index) = table.indexes.iter().find(|i| i.name == name) else {
        return;
    };
    let writes: Vec<EntryWrite> = table
        .store
        .partitions
        .iter()
        .filter_map(|p| p.leader_data())
        .flat_map(|d| d.values())
        .flat_map(|s| propagate::backfill_writes(index, table, s.item()))
        .filter(|w| valid_entry_key(&index.store.schema.pk, w.key()))
        .collect();
    let index = table
        .indexes
        .iter_mut()
        .find(|i| i.name == name)
        .expect("found above");
    apply_writes(index, writes, now_ms, rng, timing);
    index.status = IndexStatus::Active;
    index.backfill_due_ms = None;
}

/// Whether an entry key is one an index write could have made: non-empty values within the
/// key sizes ([`crate::table::key::check_key_value`]).
fn valid_entry_key(name: &str, key: &StoreKey) -> bool {
    crate::table::key::check_key_value(name, &key.pk, true).is_ok()
        && key
            .sk
            .as_ref()
            .is_none_or(|sk| crate::table::key::check_key_value(name, sk, false).is_ok())
}

/// Whether an index keeps the top-level attribute `name` of the items it holds (its keys,
/// the table's, its `INCLUDE` list, or anything for `ALL`).
pub fn projects(index: &Index, table: &KeySchema, name: &str) -> bool {
    propagate::keeps(&propagate::shape(index, table), name)
}
