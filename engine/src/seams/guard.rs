//! # The learner's piece must be the learner's
//!
//! A Build-it kata asks a learner to write one seam's piece; its hidden tests run the same
//! workload through the engine's piece and through the learner's and compare. A piece that
//! only wraps the engine's own (`TokenBucket`, `EngineRouter`, `QuorumReplication`,
//! `Pieces::default().admission`, …) would agree with it on every input and pass without a
//! line of the concept written. This module makes that fail, with a message that says so:
//!
//! ```text
//!  hidden test ──► Learners<dyn Admission> ──enter ADMISSION──► the learner's bucket
//!                                                                   │ calls
//!                                                                   ▼
//!                               TokenBucket::admit ── ADMISSION.refuse() ── panics:
//!                               "your piece called the engine's own TokenBucket …"
//! ```
//!
//! - Each seam has one [`Mark`] (a static here): how many calls into a learner's piece of
//!   that seam are running now, on any thread.
//! - [`Learners`] wraps the learner's piece; every call into it (and its construction) holds
//!   the mark. The hidden tests hand the world `Learners::new(learner::piece)`, never the
//!   learner's box itself.
//! - Each of the engine's own pieces calls `refuse()` on its seam's mark first: while the mark
//!   is held, it panics instead of answering. The test kit reports the panic as the test's
//!   failure, so the learner reads why.
//!
//! Design decision: one counter per *seam*, not one mark for "inside learner code". The
//! engine hands a learner's piece callbacks (`Sweep::delete` writes through the table,
//! `Draw::pick` draws from the world's generator), and those run the engine's pieces of
//! *other* seams (a sweep's delete is routed by the router). Those must keep working; only the
//! engine's piece of the seam the learner is writing is refused.
//!
//! Design decision: a process-wide counter, not a thread-local one. A thread-local mark is
//! escaped by sending the question to a helper thread that asks the engine's piece and sends
//! the answer back while the learner's call waits; with a process-wide count that helper's
//! call is refused too. The cost is that a process must not run the engine's piece of a seam
//! on one thread while a learner's piece of the same seam runs on another: the Build-it
//! hidden tests run their two worlds one after the other (the test kit runs tests one at a
//! time), and nothing else in the engine enters a mark.
//!
//! Cost on the engine's own path: one relaxed atomic load per call of one of its pieces, on a
//! cache line no one writes while no learner's piece runs — nothing a benchmark can see next
//! to the work of the piece itself.
//!
//! What it does not stop, on purpose: a learner who copies the engine's source into their
//! piece (they had to read it, which is half the lesson); a helper thread that calls the
//! engine's piece *between* the learner's calls, on inputs it guessed in advance; and calling
//! the engine's building blocks that the seams export for learners (`splitmix_finalize`,
//! `KeyAttribute::accepts`, `ExpiryIndex`, …), which is allowed.
//!
//! A new seam takes four steps (all additive): a `pub static` [`Mark`] below, `refuse()` at
//! the top of every method of the engine's piece, an `impl Trait for Learners<dyn Trait>`
//! that forwards every method under [`Learners::hold`], and a [`Seam`] impl for `dyn Trait`
//! naming the mark. The Build-it kata's hidden tests then build their world with
//! `Learners::new(learner::piece)`.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::capacity::admission::{Admission, Ask, Closing, Decision};
use crate::index::propagate::{IndexPropagator, IndexShape, IndexWrite};
use crate::table::replication::{Az, Delivery, Draw, Group, Replication, Unavailable};
use crate::table::router::{Collection, HashRange, KeyBytes, PartitionRouter};
use crate::ttl::sweep::{Sweep, TtlSweeper};
use crate::ttl::{ExpiryIndex, ItemKey};
use crate::{AttributeValue, Item};

/// How many calls into a learner's piece of one seam are running now (all threads).
#[derive(Debug)]
pub struct Mark {
    /// The engine's piece of this seam, as a learner would name it in their code.
    piece: &'static str,
    /// What the seam is, in the lesson's words.
    seam: &'static str,
    depth: AtomicUsize,
}

impl Mark {
    /// A mark for the seam `seam` whose engine piece is called `piece`.
    pub const fn new(piece: &'static str, seam: &'static str) -> Mark {
        Mark {
            piece,
            seam,
            depth: AtomicUsize::new(0),
        }
    }

    /// Holds the mark until the returned value is dropped (also when unwinding).
    pub fn enter(&'static self) -> Inside {
        self.depth.fetch_add(1, Ordering::SeqCst);
        Inside(self)
    }

    /// Whether a learner's piece of this seam is running.
    pub fn held(&self) -> bool {
        self.depth.load(Ordering::Relaxed) != 0
    }

    /// Called first by the engine's own piece: panics, saying why, while a learner's piece
    /// of this seam is running.
    #[track_caller]
    pub fn refuse(&self) {
        if self.held() {
            panic!("{}", self.message());
        }
    }

    /// What the learner reads when their piece called the engine's.
    pub fn message(&self) -> String {
        format!(
            "your piece called the engine's own {} (directly, through Pieces::default() or \
             through another world). This kata asks you to write {} yourself: the engine's \
             piece is what the hidden tests compare yours with, so it refuses to answer while \
             yours runs. Compute the answer in your code (the README's contract says how).",
            self.piece, self.seam
        )
    }
}

/// The mark held; dropping it releases it.
#[derive(Debug)]
pub struct Inside(&'static Mark);

impl Drop for Inside {
    fn drop(&mut self) {
        self.0.depth.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The admission seam's mark (the engine's piece: `TokenBucket`).
pub static ADMISSION: Mark = Mark::new("TokenBucket", "a partition's admission bucket");
/// The partition router's mark (`EngineRouter`).
pub static ROUTER: Mark = Mark::new("EngineRouter", "the partition router");
/// The TTL sweeper's mark (the engine's sweeper).
pub static TTL_SWEEPER: Mark = Mark::new("TTL sweeper", "the TTL sweeper");
/// The index propagator's mark (the engine's propagator).
pub static INDEX_PROPAGATOR: Mark = Mark::new("index propagator", "index propagation");
/// Quorum replication's mark (`QuorumReplication`).
pub static REPLICATION: Mark = Mark::new("QuorumReplication", "quorum replication");

/// A seam's trait object type, and the mark its learner's piece holds.
pub trait Seam {
    /// The seam's mark.
    fn mark() -> &'static Mark;
}

impl Seam for dyn Admission {
    fn mark() -> &'static Mark {
        &ADMISSION
    }
}
impl Seam for dyn PartitionRouter + Send + Sync {
    fn mark() -> &'static Mark {
        &ROUTER
    }
}
impl Seam for dyn TtlSweeper {
    fn mark() -> &'static Mark {
        &TTL_SWEEPER
    }
}
impl Seam for dyn IndexPropagator {
    fn mark() -> &'static Mark {
        &INDEX_PROPAGATOR
    }
}
impl Seam for dyn Replication {
    fn mark() -> &'static Mark {
        &REPLICATION
    }
}

/// A learner's piece, every call into it holding its seam's [`Mark`]. It implements the
/// seam's trait, so it goes into [`Pieces`](super::Pieces) and is called like the piece.
pub struct Learners<P: ?Sized + Seam> {
    piece: Box<P>,
}

impl<P: ?Sized + Seam> Learners<P> {
    /// The piece `make` returns (the learner's constructor, run under the mark too).
    pub fn new(make: impl FnOnce() -> Box<P>) -> Learners<P> {
        let _inside = P::mark().enter();
        Learners { piece: make() }
    }

    /// Runs `call` on the learner's piece with the mark held.
    pub fn hold<R>(&self, call: impl FnOnce(&P) -> R) -> R {
        let _inside = P::mark().enter();
        call(&self.piece)
    }
}

impl<P: ?Sized + Seam> std::fmt::Debug for Learners<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Learners")
            .field("seam", &P::mark().seam)
            .finish_non_exhaustive()
    }
}

impl Admission for Learners<dyn Admission> {
    fn bank(&self, closing: &Closing) -> f64 {
        self.hold(|p| p.bank(closing))
    }

    fn admit(&self, ask: &Ask) -> Decision {
        self.hold(|p| p.admit(ask))
    }
}

impl PartitionRouter for Learners<dyn PartitionRouter + Send + Sync> {
    fn hash(&self, partition_key: KeyBytes<'_>, sort_key: Option<KeyBytes<'_>>) -> u64 {
        self.hold(|p| p.hash(partition_key, sort_key))
    }

    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        self.hold(|p| p.route(hash, partitions))
    }

    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]> {
        self.hold(|p| p.split_for_size(partition, collections))
    }

    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        self.hold(|p| p.split_for_heat(partition, heat))
    }
}

impl TtlSweeper for Learners<dyn TtlSweeper> {
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        self.hold(|p| p.on_write(index, key, old, new))
    }

    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        self.hold(|p| p.sweep(index, sweep))
    }

    fn next_due(&self, index: &ExpiryIndex, now_s: u64, delay_s: u64) -> Option<u64> {
        self.hold(|p| p.next_due(index, now_s, delay_s))
    }
}

impl IndexPropagator for Learners<dyn IndexPropagator> {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        self.hold(|p| p.propagate(index, old, new))
    }
}

impl Replication for Learners<dyn Replication> {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        self.hold(|p| p.accept_write(group))
    }

    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        self.hold(|p| p.replicate(group, draw))
    }

    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable> {
        self.hold(|p| p.serve_read(group, consistent, draw))
    }

    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        self.hold(|p| p.elect(group, draw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A mark of its own: the seams' marks are process-wide, and the engine's other tests run
    // its pieces on parallel threads.
    static TEST: Mark = Mark::new("TestPiece", "the test seam");

    fn engines_piece() -> u32 {
        TEST.refuse();
        7
    }

    #[test]
    fn the_engines_piece_refuses_only_while_a_learners_piece_runs() {
        assert_eq!(engines_piece(), 7);
        let delegating = || {
            let _inside = TEST.enter();
            engines_piece()
        };
        let err = std::panic::catch_unwind(delegating).unwrap_err();
        let text = err.downcast_ref::<String>().unwrap();
        assert!(text.contains("engine's own TestPiece"), "{text}");
        // Released while unwinding: the engine's piece answers again.
        assert!(!TEST.held());
        assert_eq!(engines_piece(), 7);
    }

    #[test]
    fn a_helper_thread_is_refused_while_the_learners_call_waits() {
        static HELPER: Mark = Mark::new("HelperPiece", "the helper seam");
        let _inside = HELPER.enter();
        let asked = std::thread::spawn(|| HELPER.refuse()).join();
        assert!(asked.is_err());
    }
}
