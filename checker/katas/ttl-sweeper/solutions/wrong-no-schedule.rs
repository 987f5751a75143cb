//! Known-wrong: `next_due` left at `None` ("the engine calls sweep anyway"): a world with no
//! requests never sweeps.

use engine::AttributeValue;
use given::{ExpiryIndex, ItemKey, Sweep, TtlSweeper, FIVE_YEARS_S};

/// The sweeper the engine runs in your world: one value, shared by every table.
pub fn ttl_sweeper() -> Box<dyn TtlSweeper> {
    Box::new(Sweeper)
}

/// An exact index, never scheduled.
#[derive(Debug)]
pub struct Sweeper;

/// The expiry a TTL value holds: a Number of epoch seconds, zero or more, fraction dropped.
fn expiry(value: &AttributeValue) -> Option<u64> {
    let AttributeValue::N(n) = value else {
        return None;
    };
    let seconds: f64 = n.parse().ok()?;
    (seconds >= 0.0).then(|| seconds.floor() as u64)
}

/// Due at `now`: expired at least the delay ago, and not more than five years ago.
fn due(expiry: u64, now: u64, delay: u64) -> bool {
    expiry + delay <= now && expiry >= now.saturating_sub(FIVE_YEARS_S)
}

impl TtlSweeper for Sweeper {
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        if let Some(e) = old.and_then(expiry) {
            index.remove(&(e, key.clone()));
        }
        if let Some(e) = new.and_then(expiry) {
            index.insert((e, key));
        }
    }

    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        let (now, delay) = (sweep.now(), sweep.delay_s());
        let due_now: Vec<ItemKey> = index
            .iter()
            .take_while(|(e, _)| e + delay <= now)
            .filter(|(e, _)| due(*e, now, delay))
            .map(|(_, k)| k.clone())
            .collect();
        for key in &due_now {
            sweep.delete(key);
        }
    }

    fn next_due(&self, _index: &ExpiryIndex, _now_s: u64, _delay_s: u64) -> Option<u64> {
        None
    }
}
