//! # The write path
//!
//! In DynamoDB a write to one item — a PutItem, an UpdateItem, a DeleteItem, one action of a
//! batch or a transaction, a TTL deletion, a write replicated from another Region — goes to
//! the leader of the partition that owns the item's key. The leader applies it, one follower
//! acknowledges it (a quorum of two of the three replicas), and then the write is durable;
//! the third replica catches up later. Everything a write sets off follows from that one
//! change of one item, and it follows in the same way whoever made the write:
//!
//! ```text
//!   commit(table, key, new item or none)
//!     │ Store::write        the leader applies it, quorum of 2, the third replica later
//!     │                     (nothing changed? then nothing below happens either)
//!     │ ttl::Ttl            the expiry index learns the item's new TTL (or its absence)
//!     │ index               local indexes change at once; a propagation to each global
//!     │                     index is queued, applied after a seeded delay
//!     │ stream::Stream      one record on the partition's shard (old and new images),
//!     │                     with the TTL service as its author for a TTL deletion
//!     ▼ (world)             a replica of a global table ships the change to the others
//! ```
//!
//! This module is that path, below the world: `apply` takes one table and the world's
//! clock, settings and generator, and knows nothing of Regions or requests. The world's
//! `State::commit_write` (`world/state.rs`) is the one door to it: the operations call it
//! after validation and admission, the TTL sweeper calls it for its deletions, and the
//! replication between Regions calls it to apply a write another Region made. The shipping
//! to other Regions is the world's, because it is about Regions: `apply` says what to ship.
//!
//! Two rules a write must pass before it is admitted also live here, because they are about
//! the write and not about a request: what it costs (`cost`: the larger of the item
//! before and after, in write units) and the item-collection limit of a table with local
//! secondary indexes (`check_item_collection`).
//!
//! **Why a write that changes nothing leaves no trace.** DynamoDB writes no stream record
//! for a PutItem that stores the item it replaces, and no index changes. The model compares
//! the stored item before and after and stops at the store write when they are equal. The
//! alternative — every side effect deciding for itself — would put the same comparison in
//! four places.
//!
//! **Why the fast path.** Most tables in a lesson have no index, no stream, no TTL and no
//! replica. For them `apply` is the store write alone, without reading the item back: the
//! benchmark's PutItem spends its time here.
//!
//! Left out on purpose: a write's latency (it takes no simulated time) and a leader that
//! fails between applying a write and acknowledging it (a write either commits whole or is
//! refused before it starts).

use std::sync::Arc;

use crate::error::{Exception, Result};
use crate::rng::Rng;
use crate::table::key::{highest_with, lowest_with, KeyValue, StoreKey};
use crate::table::partition::Stored;
use crate::table::{Index, IndexKind, ReplicationTiming, Store, Table};
use crate::value::{item_size, Item};

/// Who makes a write, as its stream record tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Author {
    /// An application's request, or a write replicated from another Region.
    Application,
    /// DynamoDB's TTL process, deleting an expired item: its stream record carries the
    /// service identity (`userIdentity` of type `Service`, principal `dynamodb.amazonaws.com`).
    TimeToLive,
}

/// What a write needs to know of the world it happens in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context {
    pub now_ms: u64,
    /// Simulated Unix time in seconds, stamped on the stream record.
    pub epoch_seconds: u64,
    /// How long the table's partitions take to replicate to the slow follower.
    pub timing: ReplicationTiming,
    /// The range the delay to a global secondary index is drawn from (ms).
    pub gsi_delay_ms: (u64, u64),
    /// The table is a replica of a global table: its changes are shipped to the others.
    pub global: bool,
    pub author: Author,
}

/// The result of [`apply`].
#[derive(Debug)]
pub(crate) struct Applied {
    /// The item before the write.
    pub prev: Option<Arc<Stored>>,
    /// For a replica of a global table whose item changed: the key and the item after the
    /// write (`None` for a delete), for the world to ship to the other Regions.
    pub ship: Option<(StoreKey, Option<Item>)>,
}

/// Applies one item write (or delete, for `None`) to `table`: the store write through the
/// partition leader, then the TTL index, the indexes and the stream, unless the write
/// changed nothing. The caller has validated and admitted the write: this cannot fail.
pub(crate) fn apply(
    table: &mut Table,
    key: StoreKey,
    new: Option<Item>,
    ctx: &Context,
    rng: &mut Rng,
) -> Applied {
    let side_effects = ctx.global
        || !table.indexes.is_empty()
        || table.stream_log.is_some()
        || table.ttl.attribute.is_some();
    if !side_effects {
        let prev = table.store.write(key, new, ctx.now_ms, rng, ctx.timing);
        return Applied { prev, ship: None };
    }
    let partition = table.store.partitions[table.store.locate(key.hash)].id;
    let prev = table
        .store
        .write(key.clone(), new, ctx.now_ms, rng, ctx.timing);
    let current = table.store.current_stored(&key).cloned();
    if prev.as_deref() == current.as_deref() {
        return Applied { prev, ship: None };
    }
    let (before, after) = (
        prev.as_deref().map(Stored::item),
        current.as_deref().map(Stored::item),
    );
    table.ttl.on_write(&key, before, after);
    if !table.indexes.is_empty() {
        let changes = crate::index::propagate::changes(table, before, current.as_ref());
        crate::index::apply_changes(
            table,
            changes,
            ctx.now_ms,
            rng,
            ctx.gsi_delay_ms,
            ctx.timing,
        );
    }
    if let Some(stream) = &mut table.stream_log {
        let by_ttl = ctx.author == Author::TimeToLive;
        stream.append(
            partition,
            prev.as_ref(),
            current.as_ref(),
            ctx.now_ms,
            ctx.epoch_seconds,
            by_ttl,
        );
    }
    let ship = ctx
        .global
        .then(|| (key, current.as_deref().map(|s| s.item().clone())));
    Applied { prev, ship }
}

/// Write units of a single-item write: the larger of the item before and after.
pub(crate) fn cost(old: Option<&Item>, new: Option<&Item>, transactional: bool) -> f64 {
    let bytes = old.map_or(0, item_size).max(new.map_or(0, item_size));
    crate::capacity::write_units(bytes, transactional)
}

/// A table with local secondary indexes keeps each item collection (one partition key's
/// items and their local index entries) under a size limit; a write that would grow one
/// past it fails. Shrinking writes are always allowed.
pub(crate) fn check_item_collection(
    table: &Table,
    key: &StoreKey,
    old: Option<&Item>,
    new: Option<&Item>,
    limit: usize,
) -> Result<()> {
    let lsis: Vec<&Index> = table
        .indexes
        .iter()
        .filter(|i| i.kind == IndexKind::Local)
        .collect();
    if lsis.is_empty() {
        return Ok(());
    }
    let footprint = |item: Option<&Item>| -> usize {
        item.map_or(0, |it| {
            item_size(it)
                + lsis
                    .iter()
                    .map(|i| crate::index::propagate::entry_size(i, table, it))
                    .sum::<usize>()
        })
    };
    let (before, after) = (footprint(old), footprint(new));
    if after <= before {
        return Ok(());
    }
    let collection = |store: &Store| -> usize {
        let lo = lowest_with(key.hash, &key.pk, None);
        let hi = highest_with(key.hash, &key.pk, Some(KeyValue::Max));
        store.partitions[store.locate(key.hash)]
            .current_range(lo, hi)
            .map(|(_, s)| s.size())
            .sum()
    };
    let size = collection(&table.store) + lsis.iter().map(|i| collection(&i.store)).sum::<usize>();
    if size - before.min(size) + after > limit {
        return Err(Exception::ItemCollectionSizeLimitExceeded {
            message: "Collection size exceeded.".to_string(),
        });
    }
    Ok(())
}
