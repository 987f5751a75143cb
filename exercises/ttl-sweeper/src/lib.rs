//! # Kata: TTL sweeper
//!
//! DynamoDB's TTL sweeper, the piece of the engine that deletes expired items: which values
//! are expiries, when an expired item is due, whether it is still expired when it goes —
//! task, contract and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use engine::AttributeValue;
#[allow(unused_imports)]
use given::{ExpiryIndex, ItemKey, Sweep, TtlSweeper, FIVE_YEARS_S};

// The trait, the index and the sweep handle are the engine's (`given` re-exports them):
//   ExpiryIndex = BTreeSet<(u64, ItemKey)>   (expiry in epoch seconds, item)
//   sweep.now(), sweep.delay_s(), sweep.ttl_value(&key), sweep.delete(&key)
// The engine calls on_write for every write that touches the TTL attribute, sweep at each
// sweep boundary, next_due to know when to sweep next.

/// The sweeper the engine runs in your world: one value, shared by every table.
pub fn ttl_sweeper() -> Box<dyn TtlSweeper> {
    Box::new(Sweeper)
}

/// Your sweeper. It may hold settings, but no state: what it keeps of a table goes in the
/// table's `ExpiryIndex`.
#[derive(Debug)]
pub struct Sweeper;

impl TtlSweeper for Sweeper {
    /// An item's TTL attribute before (`old`) and after (`new`) a write; `None`: absent.
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        // TODO: which values are expiries? Keep `index` in step.
        let _ = (index, key, old, new);
    }

    /// One sweep of the table: delete the items due now, through `sweep`.
    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        // TODO: what is due at sweep.now()? Is it still expired as the item is now?
        let _ = (index, sweep);
    }

    /// When (epoch seconds) the table next has an item to delete, if it has one waiting.
    fn next_due(&self, index: &ExpiryIndex, now_s: u64, delay_s: u64) -> Option<u64> {
        // TODO: the world sweeps at the first boundary at or after this time.
        let _ = (index, now_s, delay_s);
        None
    }
}
