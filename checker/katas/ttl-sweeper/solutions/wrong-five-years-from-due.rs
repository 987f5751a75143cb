//! Known-wrong: the five-year guard measured from the item's due time (expiry + delay) rather
//! than from its expiry, so an item just over five years old at the sweep, by less than the
//! delay, is deleted. (Written from the README, as a learner would read rule 2.)

use engine::AttributeValue;
use given::{ExpiryIndex, ItemKey, Sweep, TtlSweeper, FIVE_YEARS_S};

/// The sweeper the engine runs in your world: one value, shared by every table.
pub fn ttl_sweeper() -> Box<dyn TtlSweeper> {
    Box::new(Sweeper)
}

/// An exact expiry index: the old entry out, the new one in, at every write.
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
    expiry + delay <= now && expiry + delay >= now.saturating_sub(FIVE_YEARS_S)
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

    fn next_due(&self, index: &ExpiryIndex, now_s: u64, delay_s: u64) -> Option<u64> {
        let floor = now_s.saturating_sub(FIVE_YEARS_S);
        let (e, _) = index.iter().find(|(e, _)| *e >= floor)?;
        Some(e + delay_s)
    }
}
