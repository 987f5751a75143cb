//! # Index propagation: from one table write to the writes of each index
//!
//! A secondary index is fed by the table: every write of an item — a PutItem, an UpdateItem,
//! a DeleteItem, one action of a batch or a transaction, a TTL deletion — is a change from an
//! item before (`old`, or none) to an item after (`new`, or none), and each index turns that
//! change into writes of its own entries. What those writes are follows from two questions
//! asked of both images: does the item carry the index's key (all of its key attributes), and
//! what does the index keep of it (its projection)?
//!
//! ```text
//!   old item            new item            the index writes           units (each ≥ 1)
//!   ─────────────────   ─────────────────   ────────────────────────   ───────────────────
//!   no index key        no index key        nothing (sparse)           0
//!   no index key        index key K         put K                      new entry's size
//!   index key K         no index key        delete K                   old entry's size
//!   index key K         index key K'≠K      delete K, put K'           old's + new entry's
//!   index key K         index key K         put K (update in place)    new entry's size
//!                                            — only if the entry changed; else nothing
//! ```
//!
//! - **Sparse.** An item is in an index only if it has every key attribute of the index (the
//!   partition key, and the sort key if the index has one), each of the type the index
//!   declares. The rest of the table is simply not there: no entry under an empty or null
//!   key. (A table write that gives an index key attribute another type is refused —
//!   `ValidationException` — but a backfill meets items written before the index existed,
//!   and skips those: they stay out of the index, and leave it without a write.)
//! - **Projection.** An entry always holds the table's key attributes and the index's key
//!   attributes; `KEYS_ONLY` holds nothing else, `INCLUDE` adds the named non-key attributes
//!   the item has, `ALL` holds the whole item.
//! - **Units.** Each index write is one write of the *entry*, rounded up to 1 KB: a delete
//!   the size of the entry it removes, a put the size of the entry it stores — not the
//!   table item's size, which is why a narrow projection makes index writes cheap. A change
//!   of index key is two writes (delete the old entry, put the new one), so two charges; an
//!   update that changes only attributes the index does not keep leaves the entry as it is
//!   and costs the index nothing. (DynamoDB documents 0, 1 or 2 writes per index and
//!   sizes them by the index entry; that an unchanged entry costs nothing follows from its
//!   list of when writes happen, and that an in-place update is sized by the new entry is
//!   the model's reading — both unverified.)
//!
//! ## The piece: [`IndexPropagator`]
//!
//! These rules are one replaceable piece of the engine (a seam, [`crate::seams`]): an
//! [`IndexPropagator`] answers, for one index ([`IndexShape`]: its key, the table's key, its
//! projection) and one change (`old`, `new`), with the index writes to make, in order
//! ([`IndexWrite`]: a delete or a put, under an [`IndexKey`], with its units). It is a pure
//! function of its arguments; the engine's own is `Pieces::default().index_propagator`.
//!
//! What stays with the engine, whatever the piece answers:
//!
//! - **When it asks.** Before a table write is admitted (`costs`: the units and the index
//!   partitions they fall on), and again when it commits (`changes`: the entries to write);
//!   for each item copied by a backfill (`old = None`); and for each item of a table with
//!   local indexes, to size its item collection. The answers must agree, which a pure piece
//!   does by construction.
//! - **Back-pressure.** Each global index's units are taken from the index partitions its
//!   writes fall on, through the admission piece, before the table write happens; one
//!   partition short of capacity throttles the *table* write with
//!   `ProvisionedThroughputExceededException` (the index wording), and nothing is written
//!   anywhere. Local indexes are charged to the table. A transaction's index writes cost
//!   twice the units (the piece answers for a plain write).
//! - **Delivery.** A local index is written at once, in the table write's step. A global
//!   index's writes for one table write travel together, after a seeded delay
//!   (`WorldConfig::gsi_propagation_delay_ms`), never before an earlier change to the same
//!   index: applied in order, as of their due time, delete and put in the order the piece
//!   gave them. An index partition without a leader holds them back.
//! - **What cannot be stored.** A write whose key is not a key of the index — a missing or
//!   extra sort key, a value of another type than the index declares (a NULL, say) — has no
//!   place in it: the engine drops it at commit (its units were charged all the same).
//!
//! Design decisions:
//! - Per index and per table write, not per item. The piece sees one index at a time: the
//!   rules never look across indexes, and a piece is shorter for it.
//! - The piece answers with writes and units, and the engine applies and charges them. The
//!   alternative — the piece writing into the index — would let it reach past its concept
//!   (into capacity, delivery order, replication) and make two worlds' runs incomparable.
//! - Entries and keys borrow from the images ([`Cow`], `&AttributeValue`): an `ALL` entry
//!   is the new item itself, shared with the table's copy, and a key is the item's own
//!   attributes. Copying them for every index of every write would slow the write path
//!   (the benchmark's PutItem has two `ALL` indexes).
//! - Local indexes go through the same piece: their rules are the same, only delivery and
//!   who pays differ, and one rule lives in one place.
//!
//! Left out on purpose: the 100 bytes of overhead DynamoDB adds to each index entry for its
//! storage (not counted here, in sizes or units), and the `ThrottlingReasons` of newer API
//! versions, which name the index that refused (the message names none; the index's
//! partition metrics show which one throttled).

use std::borrow::Cow;
use std::sync::Arc;

use crate::capacity::write_units;
use crate::table::key::{KeySchema, KeyValue, StoreKey};
use crate::table::partition::Stored;
use crate::table::{Index, IndexKind, Table};
use crate::types::{ProjectionType, ScalarAttributeType};
use crate::value::{item_size, AttributeValue, Item};

/// The index propagation piece: one table change, one index, the index writes it causes.
/// One value serves every table and index of a world; it keeps no state.
pub trait IndexPropagator: Send + Sync {
    /// The writes to `index` that a table write from `old` to `new` causes (`None`: no item
    /// before — a new item — or after — a delete), in the order they apply, each with its
    /// write units as a plain write. Empty when the index is not affected.
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>>;
}

/// An index as a propagator sees it: whose key it is keyed by, and what it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexShape<'a> {
    /// The index's name.
    pub name: &'a str,
    /// The index's partition key attribute.
    pub partition_key: KeyAttribute<'a>,
    /// The index's sort key attribute, if it has one.
    pub sort_key: Option<KeyAttribute<'a>>,
    /// The table's partition key attribute (every entry carries it).
    pub table_partition_key: &'a str,
    /// The table's sort key attribute, if the table has one (every entry carries it).
    pub table_sort_key: Option<&'a str>,
    /// What the index keeps besides the keys: nothing, the named attributes, or everything.
    pub projection: ProjectionType,
    /// For `INCLUDE`, the non-key attributes the index keeps (empty otherwise).
    pub non_key_attributes: &'a [String],
}

/// A key attribute of an index: its name and the type its values have (`S`, `N` or `B`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyAttribute<'a> {
    pub name: &'a str,
    pub attribute_type: ScalarAttributeType,
}

impl KeyAttribute<'_> {
    /// Whether `value` is of this attribute's type: a key value of the index.
    pub fn accepts(&self, value: &AttributeValue) -> bool {
        matches!(
            (value, &self.attribute_type),
            (AttributeValue::S(_), &ScalarAttributeType::S)
                | (AttributeValue::N(_), &ScalarAttributeType::N)
                | (AttributeValue::B(_), &ScalarAttributeType::B)
        )
    }
}

/// Where an entry sits in an index: its values of the index's key attributes. (The engine
/// adds the table key of the item written: entries of different items may share an index
/// key.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexKey<'a> {
    /// The value of the index's partition key attribute.
    pub partition: &'a AttributeValue,
    /// The value of the index's sort key attribute (`None` for an index without one).
    pub sort: Option<&'a AttributeValue>,
}

/// One write to an index.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexWrite<'a> {
    /// Removes the item's entry stored under `key`.
    Delete { key: IndexKey<'a>, units: f64 },
    /// Stores `entry` as the item's entry under `key`, replacing one already there.
    /// `Cow::Borrowed(new)` stores the new item itself (what `ALL` keeps) without a copy.
    Put {
        key: IndexKey<'a>,
        entry: Cow<'a, Item>,
        units: f64,
    },
}

impl IndexWrite<'_> {
    /// The write units this write costs.
    pub fn units(&self) -> f64 {
        match self {
            IndexWrite::Delete { units, .. } | IndexWrite::Put { units, .. } => *units,
        }
    }

    /// The index key it writes under.
    pub fn key(&self) -> &IndexKey<'_> {
        match self {
            IndexWrite::Delete { key, .. } | IndexWrite::Put { key, .. } => key,
        }
    }
}

/// The propagator a table runs (the world's
/// [`Pieces::index_propagator`](crate::seams::Pieces::index_propagator)), carried by the
/// table so that every path that writes it — requests, TTL deletes, backfills, replication
/// from other Regions — asks the same piece.
#[derive(Clone)]
pub struct Propagator(pub Arc<dyn IndexPropagator>);

impl std::fmt::Debug for Propagator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Propagator")
    }
}

/// The engine's piece: DynamoDB's rules as this model has them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EnginePropagator;

impl IndexPropagator for EnginePropagator {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        crate::seams::guard::INDEX_PROPAGATOR.refuse();
        let before = old.and_then(|o| key_of(index, o).map(|k| (o, k)));
        let after = new.and_then(|n| key_of(index, n).map(|k| (n, k)));
        let put = |item: &'a Item, key| {
            let entry = project(index, item);
            let units = write_units(item_size(&entry), false);
            IndexWrite::Put { key, entry, units }
        };
        let delete = |item: &Item, key| IndexWrite::Delete {
            key,
            units: write_units(projected_size(index, item), false),
        };
        match (before, after) {
            (None, None) => Vec::new(),
            (Some((o, ok)), None) => vec![delete(o, ok)],
            (None, Some((n, nk))) => vec![put(n, nk)],
            (Some((o, ok)), Some((n, nk))) if ok == nk => {
                if same_projection(index, o, n) {
                    Vec::new() // nothing the index holds changed
                } else {
                    vec![put(n, nk)]
                }
            }
            (Some((o, ok)), Some((n, nk))) => vec![delete(o, ok), put(n, nk)],
        }
    }
}

/// The item's index key, if it carries every key attribute of the index, each of the type
/// the index declares.
fn key_of<'a>(index: &IndexShape<'_>, item: &'a Item) -> Option<IndexKey<'a>> {
    let value = |key: &KeyAttribute<'_>| item.get(key.name).filter(|v| key.accepts(v));
    let partition = value(&index.partition_key)?;
    let sort = match &index.sort_key {
        Some(key) => Some(value(key)?),
        None => None,
    };
    Some(IndexKey { partition, sort })
}

/// Whether the index keeps attribute `name` (of an item that is in it).
pub(crate) fn keeps(index: &IndexShape<'_>, name: &str) -> bool {
    match &index.projection {
        ProjectionType::All => true,
        kind => {
            name == index.table_partition_key
                || Some(name) == index.table_sort_key
                || name == index.partition_key.name
                || Some(name) == index.sort_key.as_ref().map(|k| k.name)
                || (*kind == ProjectionType::Include
                    && index.non_key_attributes.iter().any(|a| a == name))
        }
    }
}

/// What the index keeps of `item`: the item itself for `ALL`, else a copy of the kept
/// attributes.
fn project<'a>(index: &IndexShape<'_>, item: &'a Item) -> Cow<'a, Item> {
    match index.projection {
        ProjectionType::All => Cow::Borrowed(item),
        _ => Cow::Owned(
            item.iter()
                .filter(|(name, _)| keeps(index, name))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
    }
}

/// The size of what the index keeps of `item`, without building it.
fn projected_size(index: &IndexShape<'_>, item: &Item) -> usize {
    match index.projection {
        ProjectionType::All => item_size(item),
        _ => item
            .iter()
            .filter(|(name, _)| keeps(index, name))
            .map(|(name, v)| name.len() + v.size())
            .sum(),
    }
}

/// Whether the index keeps the same of `old` and `new`.
fn same_projection(index: &IndexShape<'_>, old: &Item, new: &Item) -> bool {
    match index.projection {
        ProjectionType::All => old == new,
        _ => {
            // By name, not by walking both maps side by side: a `HashMap`'s order is its own.
            let kept = |item: &Item| item.keys().filter(|n| keeps(index, n)).count();
            kept(old) == kept(new)
                && old
                    .iter()
                    .filter(|(n, _)| keeps(index, n))
                    .all(|(n, v)| new.get(n) == Some(v))
        }
    }
}

// ---------------------------------------------------------------------------------------
// The engine's side of the seam: asking the piece, and turning its answers into entries.
// ---------------------------------------------------------------------------------------

/// `index` of a table keyed by `table`, as the piece sees it.
pub(crate) fn shape<'a>(index: &'a Index, table: &'a KeySchema) -> IndexShape<'a> {
    let schema = &index.store.schema;
    IndexShape {
        name: &index.name,
        partition_key: KeyAttribute {
            name: &schema.pk,
            attribute_type: schema.pk_type.clone(),
        },
        sort_key: schema.sk.as_ref().map(|(name, t)| KeyAttribute {
            name,
            attribute_type: t.clone(),
        }),
        table_partition_key: &table.pk,
        table_sort_key: table.sk_name(),
        projection: index.projection_type(),
        non_key_attributes: index.projection.non_key_attributes(),
    }
}

/// The index's own key for an [`IndexKey`] the piece gave, with the table key of the item
/// written (`base`), or `None` when it is not a key of this index (see the essay: such a
/// write is dropped).
fn store_key(
    schema: &KeySchema,
    key: &IndexKey<'_>,
    base: &Arc<(KeyValue, Option<KeyValue>)>,
) -> Option<StoreKey> {
    let pk = KeyValue::from_attribute(key.partition, schema.pk_type.clone())?;
    let sk = match (&schema.sk, key.sort) {
        (Some((_, t)), Some(v)) => Some(KeyValue::from_attribute(v, t.clone())?),
        (None, None) => None,
        _ => return None,
    };
    let mut store_key = schema.store_key(pk, sk);
    store_key.base = Some(Arc::clone(base));
    Some(store_key)
}

/// The table key of an item (`None` if the item lacks it, which a stored item never does).
fn table_key(table: &KeySchema, item: &Item) -> Option<Arc<(KeyValue, Option<KeyValue>)>> {
    let pk = KeyValue::from_attribute(item.get(&table.pk)?, table.pk_type.clone())?;
    let sk = match &table.sk {
        Some((name, t)) => Some(KeyValue::from_attribute(item.get(name)?, t.clone())?),
        None => None,
    };
    Some(Arc::new((pk, sk)))
}

/// One write to an index's store, as the engine applies it.
#[derive(Clone, Debug, PartialEq)]
pub enum EntryWrite {
    Delete(StoreKey),
    Put(StoreKey, Arc<Stored>),
}

impl EntryWrite {
    pub fn key(&self) -> &StoreKey {
        match self {
            EntryWrite::Delete(k) | EntryWrite::Put(k, _) => k,
        }
    }
}

/// What a table write does to one index, ready to apply.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexChange {
    pub index: String,
    pub kind: IndexKind,
    /// In the order the piece gave them; writes that cannot be stored are left out.
    pub writes: Vec<EntryWrite>,
}

/// The entries to write for one index: the piece's answer with the engine's keys, an entry
/// that borrows the new item sharing its stored copy (`new_stored`).
fn entry_writes(
    index: &Index,
    table: &KeySchema,
    writes: Vec<IndexWrite<'_>>,
    item: &Item,
    new_stored: Option<&Arc<Stored>>,
) -> Vec<EntryWrite> {
    let Some(base) = table_key(table, item) else {
        return Vec::new();
    };
    let schema = &index.store.schema;
    writes
        .into_iter()
        .filter_map(|w| match w {
            IndexWrite::Delete { key, .. } => {
                store_key(schema, &key, &base).map(EntryWrite::Delete)
            }
            IndexWrite::Put { key, entry, .. } => {
                let key = store_key(schema, &key, &base)?;
                let stored = match (entry, new_stored) {
                    (Cow::Borrowed(e), Some(s)) if std::ptr::eq(e, s.item()) => Arc::clone(s),
                    (entry, _) => Stored::new(entry.into_owned()),
                };
                Some(EntryWrite::Put(key, stored))
            }
        })
        .collect()
}

/// The index changes a committed table write from `old` to `new` causes (`new_stored`: the
/// table's stored copy of `new`).
pub fn changes(table: &Table, old: Option<&Item>, new: Option<&Arc<Stored>>) -> Vec<IndexChange> {
    let schema = table.schema();
    let piece = &*table.propagator.0;
    let new_item = new.map(|s| s.item());
    let Some(item) = new_item.or(old) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for index in &table.indexes {
        let writes = piece.propagate(&shape(index, schema), old, new_item);
        if writes.is_empty() {
            continue;
        }
        let writes = entry_writes(index, schema, writes, item, new);
        if writes.is_empty() {
            continue;
        }
        out.push(IndexChange {
            index: index.name.clone(),
            kind: index.kind,
            writes,
        });
    }
    out
}

/// What a table write will cost one index, before anything is written (admission).
#[derive(Clone, Debug, PartialEq)]
pub struct IndexCost {
    pub index: String,
    pub kind: IndexKind,
    /// Partition hashes of the index writes, in order (a write with no hash — a key that is
    /// not a key value — is charged in `units` but falls on no partition).
    pub hashes: Vec<u64>,
    pub units: f64,
}

/// The cost of a table write from `old` to `new` for every index it writes to.
pub fn costs(table: &Table, old: Option<&Item>, new: Option<&Item>) -> Vec<IndexCost> {
    let schema = table.schema();
    let piece = &*table.propagator.0;
    let mut out = Vec::new();
    for index in &table.indexes {
        let writes = piece.propagate(&shape(index, schema), old, new);
        if writes.is_empty() {
            continue;
        }
        let ik = &index.store.schema;
        out.push(IndexCost {
            index: index.name.clone(),
            kind: index.kind,
            hashes: writes
                .iter()
                .filter_map(|w| ik.attribute_hash(w.key().partition, w.key().sort))
                .collect(),
            units: writes.iter().map(IndexWrite::units).sum(),
        });
    }
    out
}

/// The entries a backfill copies into `index` for `item` (what the piece puts for a new
/// item).
pub(crate) fn backfill_writes(index: &Index, table: &Table, item: &Item) -> Vec<EntryWrite> {
    let schema = table.schema();
    let writes = table
        .propagator
        .0
        .propagate(&shape(index, schema), None, Some(item));
    entry_writes(index, schema, writes, item, None)
}

/// The bytes `item` adds to `index` (the entry the piece would put for it as a new item):
/// the item-collection limit's measure of a local index.
pub(crate) fn entry_size(index: &Index, table: &Table, item: &Item) -> usize {
    let writes = table
        .propagator
        .0
        .propagate(&shape(index, table.schema()), None, Some(item));
    writes
        .iter()
        .map(|w| match w {
            IndexWrite::Put { entry, .. } => item_size(entry),
            IndexWrite::Delete { .. } => 0,
        })
        .sum()
}
