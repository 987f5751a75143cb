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
//! **Back-pressure.** An index write costs index capacity: 0 units when the item is in the
//! index neither before nor after, 1 write when it enters, leaves, or a projected attribute
//! changes, 2 when its index key changes (delete + put). The model charges the GSI's
//! partition when the table write is admitted; if that partition has no capacity left, the
//! *table* write is throttled — the surprise the lesson warns about, where one badly
//! designed index throttles the whole table.
//!
//! **Backfill.** A GSI added to a table that already has items is `CREATING` and not
//! queryable until a backfill has copied every item in; then it is `ACTIVE`.
//!
//! **Item collections.** On a table with local secondary indexes, one partition key's items
//! and their local index entries (an *item collection*) must stay under 10 GB
//! (`WorldConfig::item_collection_size_limit`); a write that would grow a collection past it
//! fails with `ItemCollectionSizeLimitExceededException`, a shrinking write always succeeds.
//! The write path checks it before admission (`check_item_collection` in [`crate::write`]),
//! summing the collection's items and their projections in every local index.
//!
//! Left out: index entries' storage overhead (100 bytes per entry) is not counted, in the
//! collection size or elsewhere.

use std::collections::VecDeque;

use crate::capacity::write_units;
use std::sync::Arc;

use crate::rng::Rng;
use crate::table::key::{KeySchema, KeyValue, StoreKey};
use crate::table::partition::Stored;
use crate::table::{Index, IndexKind, Table};
use crate::types::{IndexStatus, ProjectionType};
use crate::value::{item_size, AttributeValue, Item};

/// A change on its way to a global secondary index.
#[derive(Clone, Debug, PartialEq)]
pub struct Propagation {
    pub due_ms: u64,
    pub index: String,
    /// The entry to remove (the item's old index key), if any.
    pub remove: Option<StoreKey>,
    /// The entry to put, if any.
    pub put: Option<(StoreKey, Option<Arc<Stored>>)>,
}

/// The index entry key of an item, if the item carries the index's key attributes.
pub fn entry_key(index: &KeySchema, table: &KeySchema, item: &Item) -> Option<StoreKey> {
    let pk = KeyValue::from_attribute(item.get(&index.pk)?, index.pk_type)?;
    let sk = match &index.sk {
        Some((name, t)) => Some(KeyValue::from_attribute(item.get(name)?, *t)?),
        None => None,
    };
    let tpk = KeyValue::from_attribute(item.get(&table.pk)?, table.pk_type)?;
    let tsk = match &table.sk {
        Some((name, t)) => Some(KeyValue::from_attribute(item.get(name)?, *t)?),
        None => None,
    };
    let mut key = index.store_key(pk, sk);
    key.base = Some(std::sync::Arc::new((tpk, tsk)));
    Some(key)
}

/// The attributes of `item` an index keeps.
pub fn project(index: &Index, table: &KeySchema, item: &Item) -> Item {
    match index.projection_type() {
        ProjectionType::All => item.clone(),
        kind => {
            let schema = &index.store.schema;
            item.iter()
                .filter(|(name, _)| {
                    table.is_key_attribute(name)
                        || schema.is_key_attribute(name)
                        || (kind == ProjectionType::Include
                            && index
                                .projection
                                .non_key_attributes()
                                .iter()
                                .any(|a| a == *name))
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        }
    }
}

/// What a table write does to one index.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexChange {
    pub index: String,
    pub kind: IndexKind,
    pub remove: Option<StoreKey>,
    /// The entry's key, and the entry itself (built only when the write is committed).
    pub put: Option<(StoreKey, Option<Arc<Stored>>)>,
    /// Index write units this costs (0, 1 or 2 writes, each rounded to 1 KB).
    pub units: f64,
}

/// An item's projection into an index, without copying it when the index holds everything.
enum Projected<'a> {
    Whole(&'a Item),
    Part(Item),
}

impl Projected<'_> {
    fn item(&self) -> &Item {
        match self {
            Projected::Whole(i) => i,
            Projected::Part(i) => i,
        }
    }
}

fn projected<'a>(index: &Index, table: &KeySchema, item: &'a Item) -> Projected<'a> {
    match index.projection_type() {
        ProjectionType::All => Projected::Whole(item),
        _ => Projected::Part(project(index, table, item)),
    }
}

/// The index changes a table write from `old` to `new` causes, with their costs. With
/// `new_stored` (at commit), the entries are built too — an `ALL` entry shares the table's
/// stored item.
pub fn changes(
    table: &Table,
    old: Option<&Item>,
    new: Option<&Item>,
    new_stored: Option<&Arc<Stored>>,
) -> Vec<IndexChange> {
    let schema = table.schema();
    let mut out = Vec::new();
    for index in &table.indexes {
        let old_entry = old.and_then(|o| {
            entry_key(&index.store.schema, schema, o).map(|k| (k, projected(index, schema, o)))
        });
        let new_entry = new.and_then(|n| {
            entry_key(&index.store.schema, schema, n).map(|k| (k, projected(index, schema, n)))
        });
        let entry = |p: Projected<'_>| {
            new_stored.map(|stored| match p {
                Projected::Whole(_) => stored.clone(),
                Projected::Part(item) => Stored::new(item),
            })
        };
        let (remove, put, units) = match (old_entry, new_entry) {
            (None, None) => continue,
            (Some((ok, oi)), None) => (Some(ok), None, write_units(item_size(oi.item()), false)),
            (None, Some((nk, ni))) => {
                let u = write_units(item_size(ni.item()), false);
                (None, Some((nk, entry(ni))), u)
            }
            (Some((ok, oi)), Some((nk, ni))) => {
                if ok == nk {
                    if oi.item() == ni.item() {
                        continue; // nothing the index holds changed
                    }
                    let u = write_units(item_size(ni.item()), false);
                    (None, Some((nk, entry(ni))), u)
                } else {
                    let u = write_units(item_size(oi.item()), false)
                        + write_units(item_size(ni.item()), false);
                    (Some(ok), Some((nk, entry(ni))), u)
                }
            }
        };
        out.push(IndexChange {
            index: index.name.clone(),
            kind: index.kind,
            remove,
            put,
            units,
        });
    }
    out
}

/// What a table write will cost one index, computed without building entries (admission
/// runs this before anything is written).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexCost {
    pub index: String,
    pub kind: IndexKind,
    /// Partition hashes of the index entries removed and put.
    pub hashes: Vec<u64>,
    pub units: f64,
}

/// The index key attribute values of `item` for `index`, if it is in the index.
fn index_key<'a>(
    index: &KeySchema,
    item: &'a Item,
) -> Option<(&'a AttributeValue, Option<&'a AttributeValue>)> {
    let typed = |name: &str, t: crate::types::ScalarAttributeType| {
        let v = item.get(name)?;
        let ok = matches!(
            (v, t),
            (AttributeValue::S(_), crate::types::ScalarAttributeType::S)
                | (AttributeValue::N(_), crate::types::ScalarAttributeType::N)
                | (AttributeValue::B(_), crate::types::ScalarAttributeType::B)
        );
        ok.then_some(v)
    };
    let pk = typed(&index.pk, index.pk_type)?;
    let sk = match &index.sk {
        Some((name, t)) => Some(typed(name, *t)?),
        None => None,
    };
    Some((pk, sk))
}

/// Size of an item's projection into an index, without building it.
fn projected_size(index: &Index, table: &KeySchema, item: &Item) -> usize {
    match index.projection_type() {
        ProjectionType::All => item_size(item),
        kind => item
            .iter()
            .filter(|(name, _)| kept(index, table, kind, name))
            .map(|(name, v)| name.len() + v.size())
            .sum(),
    }
}

fn kept(index: &Index, table: &KeySchema, kind: ProjectionType, name: &str) -> bool {
    table.is_key_attribute(name)
        || index.store.schema.is_key_attribute(name)
        || (kind == ProjectionType::Include
            && index
                .projection
                .non_key_attributes()
                .iter()
                .any(|a| a == name))
}

/// Whether the projections of `old` and `new` into an index are equal.
fn same_projection(index: &Index, table: &KeySchema, old: &Item, new: &Item) -> bool {
    match index.projection_type() {
        ProjectionType::All => old == new,
        kind => {
            // By name, not by walking both maps side by side: a `HashMap`'s order is its own.
            let kept_in = |item: &Item| item.keys().filter(|n| kept(index, table, kind, n)).count();
            kept_in(old) == kept_in(new)
                && old
                    .iter()
                    .filter(|(n, _)| kept(index, table, kind, n))
                    .all(|(n, v)| new.get(n) == Some(v))
        }
    }
}

/// The cost of a table write from `old` to `new` for every index it changes (0, 1 or 2
/// index writes, each rounded to 1 KB), with the index partitions it touches.
pub fn costs(table: &Table, old: Option<&Item>, new: Option<&Item>) -> Vec<IndexCost> {
    let schema = table.schema();
    let mut out = Vec::new();
    for index in &table.indexes {
        let ik = &index.store.schema;
        let old_key = old.and_then(|o| index_key(ik, o).map(|k| (o, k)));
        let new_key = new.and_then(|n| index_key(ik, n).map(|k| (n, k)));
        let hash = |k: (&AttributeValue, Option<&AttributeValue>)| ik.attribute_hash(k.0, k.1);
        let size = |item: &Item| write_units(projected_size(index, schema, item), false);
        let (hashes, units) = match (old_key, new_key) {
            (None, None) => continue,
            (Some((o, ok)), None) => (vec![hash(ok)], size(o)),
            (None, Some((n, nk))) => (vec![hash(nk)], size(n)),
            (Some((o, ok)), Some((n, nk))) => {
                if ok == nk {
                    if same_projection(index, schema, o, n) {
                        continue;
                    }
                    (vec![hash(nk)], size(n))
                } else {
                    (vec![hash(ok), hash(nk)], size(o) + size(n))
                }
            }
        };
        out.push(IndexCost {
            index: index.name.clone(),
            kind: index.kind,
            hashes: hashes.into_iter().flatten().collect(),
            units,
        });
    }
    out
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
                    apply_entry(index, change.remove, change.put, now_ms, rng, timing);
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
                    remove: change.remove,
                    put: change.put,
                });
            }
        }
    }
}

fn apply_entry(
    index: &mut Index,
    remove: Option<StoreKey>,
    put: Option<(StoreKey, Option<Arc<Stored>>)>,
    now_ms: u64,
    rng: &mut Rng,
    timing: crate::table::ReplicationTiming,
) {
    if let Some(key) = remove {
        if index.store.current(&key).is_some() {
            index.store.write(key, None, now_ms, rng, timing);
        }
    }
    if let Some((key, Some(entry))) = put {
        index
            .store
            .write_stored(key, Some(entry), now_ms, rng, timing);
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
            let blocked = [p.remove.as_ref(), p.put.as_ref().map(|(k, _)| k)]
                .into_iter()
                .flatten()
                .any(|k| {
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
            apply_entry(index, p.remove, p.put, p.due_ms, rng, timing);
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

/// Copies every item of the table into a new index and makes it `ACTIVE`. Items whose index
/// key attributes have the wrong type are skipped, as DynamoDB's backfill does.
pub fn backfill(
    table: &mut Table,
    name: &str,
    now_ms: u64,
    rng: &mut Rng,
    timing: crate::table::ReplicationTiming,
) {
    let schema = table.schema().clone();
    let items: Vec<Item> = table
        .store
        .partitions
        .iter()
        .filter_map(|p| p.leader_data())
        .flat_map(|d| d.values().map(|s| s.item().clone()))
        .collect();
    let Some(index) = table.indexes.iter_mut().find(|i| i.name == name) else {
        return;
    };
    for item in items {
        if let Some(key) = entry_key(&index.store.schema, &schema, &item) {
            let entry = project(index, &schema, &item);
            index.store.write(key, Some(entry), now_ms, rng, timing);
        }
    }
    index.status = IndexStatus::Active;
    index.backfill_due_ms = None;
}
