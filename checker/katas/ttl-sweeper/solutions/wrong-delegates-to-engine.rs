//! Known-wrong: writes no sweeper at all, and hands every call to the engine's own (the one
//! `Pieces::default()` holds). It agrees with DynamoDB on every sweep, so only the guard
//! catches it: the engine's piece refuses to answer while the learner's runs.

use std::sync::Arc;

use engine::seams::Pieces;
use engine::AttributeValue;
use given::{ExpiryIndex, ItemKey, Sweep, TtlSweeper};

/// "My" sweeper.
pub fn ttl_sweeper() -> Box<dyn TtlSweeper> {
    Box::new(Sweeper {
        engines: Pieces::default().ttl_sweeper,
    })
}

/// The engine's sweeper, under another name.
struct Sweeper {
    engines: Arc<dyn TtlSweeper>,
}

impl TtlSweeper for Sweeper {
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        self.engines.on_write(index, key, old, new);
    }

    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        self.engines.sweep(index, sweep);
    }

    fn next_due(&self, index: &ExpiryIndex, now_s: u64, delay_s: u64) -> Option<u64> {
        self.engines.next_due(index, now_s, delay_s)
    }
}
