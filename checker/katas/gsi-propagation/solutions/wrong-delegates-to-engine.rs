//! Known-wrong: writes no propagator at all, and asks the engine's own (the one
//! `Pieces::default()` holds) from a helper thread, so that no call of the engine's piece is
//! on the learner's own stack. It agrees with DynamoDB on every write, so only the guard
//! catches it: the mark is process-wide, and the engine's piece refuses to answer on any
//! thread while the learner's runs.

use engine::seams::Pieces;
use engine::Item;
use given::{IndexPropagator, IndexShape, IndexWrite};

/// "My" propagator.
pub fn propagator() -> Box<dyn IndexPropagator> {
    Box::new(Propagator)
}

/// The engine's propagator, asked on another thread.
#[derive(Debug)]
pub struct Propagator;

impl IndexPropagator for Propagator {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        std::thread::scope(|s| {
            s.spawn(|| {
                Pieces::default()
                    .index_propagator
                    .propagate(index, old, new)
            })
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
        })
    }
}
