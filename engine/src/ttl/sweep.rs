//! The sweeper: which expired items go, and when.
//!
//! DynamoDB deletes expired items in the background, "typically within a few days" — a
//! sweep, not an alarm clock. Inside, one process finds expired items and another deletes
//! them later, with a delete that is conditional on the item *still* being expired: an
//! update in between may have extended the TTL, or removed it, and that rescues the item.
//!
//! ## The piece: [`TtlSweeper`]
//!
//! The decisions are one replaceable piece of the engine (a seam, [`crate::seams`]): a
//! [`TtlSweeper`] is told of every write of a TTL attribute, keeps an [`ExpiryIndex`] of
//! what it has seen, and at each sweep decides what to delete. Its three methods:
//!
//! - [`on_write`](TtlSweeper::on_write) — an item's TTL attribute before and after a write
//!   (`None`: the item, or the attribute, is absent). The piece decides what is an expiry at
//!   all: a Number of epoch seconds (a fraction dropped — unverified, the plausible reading);
//!   not a String, not a negative number. Milliseconds are a Number too — of a date tens of
//!   thousands of years away, and such an item never expires; no unit is guessed. The piece
//!   keeps its index: the engine's removes the old entry and inserts the new one, so the
//!   index is always exact.
//! - [`sweep`](TtlSweeper::sweep) — at a sweep, with a [`Sweep`]: the time now, the
//!   world's delete delay, the TTL attribute of any item *as it is now*
//!   ([`Sweep::ttl_value`]), and the service's delete ([`Sweep::delete`]). An item is due
//!   when its expiry is at least the delay in the past — and not more than five years in
//!   the past ([`FIVE_YEARS_S`]): DynamoDB never deletes those (they are bad data, or
//!   another unit). What the piece deletes goes; so a piece whose index can be stale checks
//!   the item as it is now before it deletes it.
//! - [`next_due`](TtlSweeper::next_due) — when (epoch seconds) the piece next has something
//!   to delete, so that [`World::settle`](crate::World::settle), which runs background work
//!   until none is pending, knows TTL work is waiting and sweeps then.
//!
//! What stays with the engine, whatever the piece: *when* sweeps run (below), and the
//! delete's mechanics — through the ordinary write path, so indexes lose the item and the
//! stream gets a `REMOVE` record, with the service's identity (`userIdentity` = `Service`,
//! `dynamodb.amazonaws.com`), consuming no write capacity and never throttled. A piece
//! cannot delete any other way, so it cannot charge a user or sign a record as one.
//!
//! ## When sweeps run
//!
//! The model sweeps on fixed boundaries of simulated time, every `Sweeper::interval_ms`:
//!
//! ```text
//!  expiry        expiry + delay            next boundary
//!    │─────────────────│ deletable ─────────────│ deleted (REMOVE record, service identity)
//!    │ still returned by GetItem, Query, Scan ─────────────────────────────────────────────▶│
//!  ──┴──────┬──────────┴──────────┬─────────────┴──────────┬──────▶ simulated time
//!        boundary             boundary                 boundary     (every interval_ms)
//! ```
//!
//! A sweep runs at most once per interval, the first time the world's background work runs
//! in it (a request every millisecond does not sweep every millisecond), and the engine's
//! piece deletes everything deletable by then.
//!
//! Design decisions:
//! - Fixed boundaries, not a timer per item. An item is deleted at the first boundary after
//!   it becomes deletable, so many expiries share one sweep (as DynamoDB's batch deletions
//!   do), and the next time work is due is one computation over the expiry index
//!   ([`TtlSweeper::next_due`]) rather than a queue to keep in step with every write.
//! - The index is the piece's, but the table holds it. A piece is one `Arc` shared by every
//!   table of a world (and by two worlds run side by side), with no state of its own; each
//!   table's index lives in [`Ttl`] and is copied with the table (a new replica of a global
//!   table). The alternative — a piece object per table — would need a way to clone a
//!   learner's object.
//! - The delete is not conditional; [`Sweep::ttl_value`] is the condition's input. DynamoDB's
//!   deleter puts "still expired" in its condition; here the piece decides it, because that
//!   decision is the lesson. An index kept exact at every write (the engine's) has nothing to
//!   re-check; a lazy one (entries added, never removed) must.
//! - `next_due` is the piece's: only it knows which of its entries still count.
//!
//! Left out on purpose: the sweeper's own pace (DynamoDB deletes millions of expired items
//! over hours); here every deletable item of a table goes in one sweep.

use std::collections::BTreeSet;

use super::{ExpiryIndex, ItemKey, Ttl, FIVE_YEARS_S};
use crate::table::key::StoreKey;
use crate::table::Store;
use crate::value::AttributeValue;

/// The TTL sweeper piece: what is an expiry, what is due, what is still expired when it is
/// deleted. One value serves every table of a world; each table's [`ExpiryIndex`] is passed
/// in. The engine's own is `Pieces::default().ttl_sweeper`.
pub trait TtlSweeper: Send + Sync {
    /// One write of an item whose TTL attribute was or is present: its value before
    /// (`old`) and after (`new`) the write, `None` where the item or the attribute is
    /// absent (a put, an update, a user's delete, the sweeper's own delete). Keeps `index`
    /// in step as the piece chooses. Also called once per existing item, with `old = None`,
    /// when TTL is enabled on a table that holds items.
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    );

    /// One sweep of one table: deletes, through `sweep`, the items due now. Called at most
    /// once per sweep interval, only while TTL is enabled.
    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>);

    /// The earliest time (Unix epoch seconds) at which this table will have an item to
    /// delete, if it has any waiting; `now_s` is the time now, `delay_s` the world's delete
    /// delay. [`World::settle`](crate::World::settle) sweeps at the first boundary at or
    /// after it; a time too late, or `None`, leaves a settling world unswept until then.
    /// (Requests and the end of an `advance` sweep too, once per interval, whatever it says.)
    fn next_due(&self, index: &ExpiryIndex, now_s: u64, delay_s: u64) -> Option<u64>;
}

/// One sweep of one table, as a piece sees it: the time, the table's items as they are now,
/// and the service's delete.
#[derive(Debug)]
pub struct Sweep<'a> {
    now_s: u64,
    delay_s: u64,
    attribute: &'a str,
    store: &'a Store,
    deletes: Vec<StoreKey>,
    queued: BTreeSet<StoreKey>,
}

impl Sweep<'_> {
    /// The time of this sweep, in Unix epoch seconds (the world's clock).
    pub fn now(&self) -> u64 {
        self.now_s
    }

    /// The world's delete delay (`WorldConfig::ttl_delete_delay_s`): an item is deletable
    /// once its expiry is at least this many seconds in the past.
    pub fn delay_s(&self) -> u64 {
        self.delay_s
    }

    /// The TTL attribute of the item `key` as it is now (the partition leader's copy), or
    /// `None` if the item no longer exists or no longer has the attribute.
    pub fn ttl_value(&self, key: &ItemKey) -> Option<&AttributeValue> {
        self.store.current(&key.0)?.get(self.attribute)
    }

    /// Deletes the item `key` as DynamoDB's TTL process, when this sweep ends: a `REMOVE`
    /// stream record with the service's identity, no capacity consumed. Unconditional: it
    /// deletes what is there. A key with no item, or one already deleted in this sweep, is
    /// ignored.
    pub fn delete(&mut self, key: &ItemKey) {
        if self.store.current(&key.0).is_some() && self.queued.insert(key.0.clone()) {
            self.deletes.push(key.0.clone());
        }
    }
}

/// The engine's piece: an exact expiry index (one entry per item with a valid expiry,
/// updated at every write), so a sweep deletes its due entries without re-reading them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EngineSweeper;

impl TtlSweeper for EngineSweeper {
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        crate::seams::guard::TTL_SWEEPER.refuse();
        let mut entry = (0, key);
        if let Some(e) = old.and_then(expiry) {
            entry.0 = e;
            index.remove(&entry);
        }
        if let Some(e) = new.and_then(expiry) {
            entry.0 = e;
            index.insert(entry);
        }
    }

    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        crate::seams::guard::TTL_SWEEPER.refuse();
        let (now, delay) = (sweep.now(), sweep.delay_s());
        let floor = now.saturating_sub(FIVE_YEARS_S);
        let due: Vec<ItemKey> = index
            .iter()
            .take_while(|(e, _)| e + delay <= now)
            .filter(|(e, _)| *e >= floor)
            .map(|(_, k)| k.clone())
            .collect();
        // The deletes come back through `on_write` (old = the expiry, new = None), which
        // removes the entries.
        for key in &due {
            sweep.delete(key);
        }
    }

    fn next_due(&self, index: &ExpiryIndex, now_s: u64, delay_s: u64) -> Option<u64> {
        crate::seams::guard::TTL_SWEEPER.refuse();
        let floor = now_s.saturating_sub(FIVE_YEARS_S);
        let earliest = index.iter().map(|(e, _)| *e).find(|e| *e >= floor)?;
        Some(earliest + delay_s)
    }
}

/// The expiry (epoch seconds) a TTL attribute's value holds, if it is one: a non-negative
/// Number, its fraction dropped (DynamoDB documents epoch seconds, not fractions: dropping
/// them is the plausible reading, unverified). Values of 10^15 s and more — beyond any date
/// DynamoDB could reach — are not kept as expiries: they would never be due.
fn expiry(value: &AttributeValue) -> Option<u64> {
    match value {
        AttributeValue::N(n) => {
            let number = crate::value::Number::parse(n).ok()?;
            if number.is_negative() {
                return None;
            }
            let whole = number.to_f64_lossy().floor();
            (whole < 1e15).then_some(whole as u64)
        }
        _ => None,
    }
}

/// The sweeper's settings (from `WorldConfig`): the mechanics the engine keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sweeper {
    /// Simulated ms between sweep boundaries (at least one second).
    pub interval_ms: u64,
    /// Seconds after expiry before an item is deletable.
    pub delay_s: u64,
    /// Unix time (seconds) of simulated time zero.
    pub epoch0_s: u64,
}

impl Sweeper {
    /// Sweeps one table at simulated `now_ms`, if this interval has not been swept yet:
    /// the keys of the items its piece deletes now, in the order it deleted them.
    pub fn sweep(&self, ttl: &mut Ttl, store: &Store, now_ms: u64) -> Vec<StoreKey> {
        let Ttl {
            attribute: Some(attribute),
            sweeper: Some(piece),
            expiries,
            last_sweep_ms,
            ..
        } = ttl
        else {
            return Vec::new();
        };
        let interval_ms = self.interval_ms;
        if last_sweep_ms.is_some_and(|l| l / interval_ms == now_ms / interval_ms) {
            return Vec::new();
        }
        *last_sweep_ms = Some(now_ms);
        let mut sweep = Sweep {
            now_s: self.epoch(now_ms),
            delay_s: self.delay_s,
            attribute,
            store,
            deletes: Vec::new(),
            queued: BTreeSet::new(),
        };
        piece.sweep(expiries, &mut sweep);
        sweep.deletes
    }

    /// When the sweeper next has something to delete from this table (simulated ms), if
    /// anything is waiting.
    pub fn next_due(&self, ttl: &Ttl, now_ms: u64) -> Option<u64> {
        ttl.attribute.as_ref()?; // TTL disabled: nothing will be deleted
        let piece = ttl.sweeper.as_ref()?;
        let deletable_s = piece.next_due(&ttl.expiries, self.epoch(now_ms), self.delay_s)?;
        let deletable_ms = deletable_s
            .saturating_sub(self.epoch0_s)
            .saturating_mul(1000);
        let at = deletable_ms.max(now_ms + 1);
        Some(at.div_ceil(self.interval_ms) * self.interval_ms)
    }

    /// Unix time (seconds) at simulated `now_ms`.
    fn epoch(&self, now_ms: u64) -> u64 {
        self.epoch0_s + now_ms / 1000
    }
}
