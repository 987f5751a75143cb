//! # Time to Live
//!
//! TTL lets items expire: name a top-level attribute, store in it the time (as epoch
//! **seconds**, a Number) after which the item may go, and DynamoDB deletes it some time
//! later — free of charge, without consuming write capacity.
//!
//! "Some time later" is the lesson: deletion is a background sweep, not an alarm clock.
//! DynamoDB documents "typically within 48 hours" (now "a few days"). Until the sweep gets
//! to it, an expired item is still returned by GetItem, Query and Scan, so applications
//! filter (`#ttl > :now`). An item is eligible when its TTL attribute is a Number of epoch
//! seconds in the past — but not more than five years in the past (a guard against values
//! in the wrong unit or bad data). Milliseconds look like a date far in the future, so such
//! items never expire.
//!
//! A TTL deletion is an ordinary delete for indexes (entries removed) and streams (a
//! `REMOVE` record), marked in the stream with the service's identity
//! (`{"type": "Service", "principalId": "dynamodb.amazonaws.com"}`).
//!
//! The model keeps, per table, an index of items by expiry time ([`ExpiryIndex`]), so the
//! sweeper never scans the table. The sweeper runs every `ttl_sweep_interval_s` of simulated
//! time and deletes items expired for at least `ttl_delete_delay_s`.
//!
//! Where it lives: this file keeps a table's TTL state ([`Ttl`]: the setting, the expiry
//! index, the sweeper piece running it) and feeds every write to the piece; [`sweep`] is the
//! piece itself — the [`TtlSweeper`] trait (what is an expiry, what is
//! due, what is still expired when it is deleted), the engine's implementation of it, and
//! the mechanics the engine keeps (when a sweep runs, the service's delete). The world runs
//! the sweeper with its other background work and deletes through the ordinary write path,
//! so indexes and streams see an ordinary delete.

pub mod sweep;

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::table::key::StoreKey;
use crate::value::{AttributeValue, Item};
use sweep::TtlSweeper;

/// A table's TTL configuration and its sweeper's bookkeeping.
#[derive(Clone, Default)]
pub struct Ttl {
    pub attribute: Option<String>,
    /// Simulated ms of the last enable/disable (one change per hour is allowed).
    pub last_change_ms: Option<u64>,
    /// The sweeper's expiry index: kept by the piece ([`TtlSweeper::on_write`]), held here
    /// so that it lives and is copied with its table.
    pub expiries: ExpiryIndex,
    /// When the sweeper last ran (simulated ms).
    pub last_sweep_ms: Option<u64>,
    /// The sweeper piece running this table's TTL while it is enabled (the world's
    /// [`Pieces::ttl_sweeper`](crate::seams::Pieces::ttl_sweeper)).
    pub sweeper: Option<Arc<dyn TtlSweeper>>,
}

impl std::fmt::Debug for Ttl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ttl")
            .field("attribute", &self.attribute)
            .field("last_change_ms", &self.last_change_ms)
            .field("expiries", &self.expiries.len())
            .field("last_sweep_ms", &self.last_sweep_ms)
            .finish_non_exhaustive()
    }
}

impl Ttl {
    /// Enables TTL on `attribute`, run by `sweeper`, which is told of every item the table
    /// already holds (`items`, in the store's order) as if each had just been written.
    pub fn enable<'a>(
        &mut self,
        attribute: &str,
        sweeper: Arc<dyn TtlSweeper>,
        items: impl Iterator<Item = (&'a StoreKey, &'a Item)>,
    ) {
        self.expiries.clear();
        self.attribute = Some(attribute.to_string());
        for (key, item) in items {
            if let Some(value) = item.get(attribute) {
                sweeper.on_write(&mut self.expiries, ItemKey(key.clone()), None, Some(value));
            }
        }
        self.sweeper = Some(sweeper);
    }

    /// Disables TTL: the index and the piece go.
    pub fn disable(&mut self) {
        self.attribute = None;
        self.expiries.clear();
        self.sweeper = None;
    }

    /// Tells the sweeper of one item's change (`None`: no item). A write where neither
    /// image has the TTL attribute is not the sweeper's business and is not passed on.
    pub fn on_write(&mut self, key: &StoreKey, old: Option<&Item>, new: Option<&Item>) {
        let (Some(attr), Some(sweeper)) = (&self.attribute, &self.sweeper) else {
            return;
        };
        let old = old.and_then(|o| o.get(attr));
        let new = new.and_then(|n| n.get(attr));
        if old.is_none() && new.is_none() {
            return;
        }
        sweeper.on_write(&mut self.expiries, ItemKey(key.clone()), old, new);
    }
}

/// What a sweeper keeps of a table: (expiry in epoch seconds, item) pairs, in expiry order.
/// The engine's piece keeps exactly one entry per item whose TTL attribute is a valid
/// expiry; another piece may keep what it likes (stale entries included) — the engine only
/// stores it with the table and hands it back.
pub type ExpiryIndex = BTreeSet<(u64, ItemKey)>;

/// Names one item of a table for the sweeper: its primary key, ordered as the table orders
/// keys. Opaque on purpose (a piece needs to compare, store and hand it back, not to build
/// one); [`ItemKey::partition_key`] and [`ItemKey::sort_key`] read it, and it prints as
/// `pk` or `pk / sk`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemKey(pub(crate) StoreKey);

impl ItemKey {
    /// The item's partition key value.
    pub fn partition_key(&self) -> AttributeValue {
        self.0.pk.to_attribute()
    }

    /// The item's sort key value, if the table has a sort key.
    pub fn sort_key(&self) -> Option<AttributeValue> {
        self.0.sk.as_ref().map(|k| k.to_attribute())
    }
}

impl std::fmt::Display for ItemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = |v: AttributeValue| match v {
            AttributeValue::S(s) | AttributeValue::N(s) => s,
            other => format!("{other:?}"),
        };
        write!(f, "{}", text(self.partition_key()))?;
        if let Some(sk) = self.sort_key() {
            write!(f, " / {}", text(sk))?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for ItemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ItemKey({self})")
    }
}

/// Items expired more than five years ago are never deleted.
pub const FIVE_YEARS_S: u64 = 5 * 365 * 24 * 3600;
