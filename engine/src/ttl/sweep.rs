//! The sweeper: when TTL deletions happen.
//!
//! DynamoDB deletes expired items in the background, "typically within a few days" — a
//! sweep, not an alarm clock. The model sweeps on fixed boundaries of simulated time, every
//! `Sweeper::interval_ms`, and at each boundary deletes the items whose expiry is at least
//! `Sweeper::delay_s` in the past (and not more than five years in the past; see
//! [`Ttl::due`]):
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
//! in it (a request every millisecond does not sweep every millisecond), and deletes
//! everything deletable by then. The sweeper decides *what* to delete; the
//! world deletes it through the ordinary write path (as the service, no capacity consumed),
//! so indexes and streams see an ordinary delete.
//!
//! Design decision: fixed boundaries, not a timer per item. An item is deleted at the first
//! boundary after it becomes deletable, so many expiries share one sweep (as DynamoDB's
//! batch deletions do), and the next time work is due is one computation over the expiry
//! index (`Sweeper::next_due`) rather than a queue to keep in step with every write.
//!
//! Left out on purpose: the sweeper's own pace (DynamoDB deletes millions of expired items
//! over hours); here every deletable item of a table goes in one sweep.

use super::Ttl;
use crate::table::key::StoreKey;

/// The sweeper's settings (from `WorldConfig`).
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
    /// Sweeps one table's expiry index at simulated `now_ms`, if this interval has not been
    /// swept yet: the keys of the items to delete now, in expiry order.
    pub fn sweep(&self, ttl: &mut Ttl, now_ms: u64) -> Vec<StoreKey> {
        if ttl.attribute.is_none() {
            return Vec::new();
        }
        let interval_ms = self.interval_ms;
        if ttl
            .last_sweep_ms
            .is_some_and(|l| l / interval_ms == now_ms / interval_ms)
        {
            return Vec::new();
        }
        ttl.last_sweep_ms = Some(now_ms);
        ttl.due(self.epoch(now_ms), self.delay_s)
    }

    /// When the sweeper next has something to delete from this table (simulated ms), if
    /// anything is waiting.
    pub fn next_due(&self, ttl: &Ttl, now_ms: u64) -> Option<u64> {
        ttl.attribute.as_ref()?; // TTL disabled: nothing will be deleted
        let expiry = ttl.earliest(self.epoch(now_ms))?;
        let deletable_ms = (expiry + self.delay_s)
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
