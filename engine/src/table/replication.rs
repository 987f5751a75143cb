//! Replication on the clock: followers catching up, elections, and the store's other timed
//! work.
//!
//! [`partition`](super::partition) says how a write is replicated: the leader gives it the
//! next sequence number, the faster follower applies it at once (the quorum of two that
//! acknowledges it), the slower follower receives it after a seeded delay. This file is the
//! part that happens *later*, when the world's background work runs at simulated time
//! `now` (`run_due` in `world/state.rs` calls `background` for every table's store and
//! every global index's store, in every Region):
//!
//! ```text
//!  background(store, now)
//!    1. catch up   every live replica applies its pending entries due by now, in sequence
//!                  order; anti-entropy then repairs what a replica missed while it was down
//!    2. elect      every partition whose election is due gets a leader (see below)
//!    3. split      partitions over the size limit, or marked hot by capacity enforcement,
//!                  are split (table/split.rs), with what steps 1 and 2 left them
//! ```
//!
//! **Elections.** A leader lost to a fault (`fail_az`, `stop_leader`) leaves its partition
//! without a leader for `election_timeout_ms`; writes and strong reads of it fail with a
//! retryable 500 meanwhile. Then `elect` picks the *most advanced* live replica — the one
//! that has applied the highest sequence number — breaking ties with the world's seed. That
//! choice is what keeps acknowledged writes: each was applied by the leader and one
//! follower that had applied every earlier entry, so after one AZ is lost, some live
//! replica holds every acknowledged write, and the most advanced one does. Electing any
//! live replica instead would lose writes the caller was told had succeeded. A partition
//! with no live replica stays without a leader until an AZ is healed.
//!
//! Design decision: elections run in the background pass, not at the moment of the fault,
//! because the timeout is the lesson (a partition is briefly unavailable, then serves
//! again); the fault only sets `election_due_ms`.
//!
//! Left out on purpose: leader leases and heartbeats (the timeout is a fixed setting), votes
//! and terms (the model knows every replica's state and picks the winner directly), and
//! replicas that come back with a diverged log (a replica only ever holds a prefix of the
//! leader's history).

use super::partition::Partition;
use super::Store;
use crate::rng::Rng;

/// Background work of one store due by `now`: replication catch-up, elections, splits.
/// Returns the splits made, as (parent partition id, child ids), for the stream's shards.
pub(crate) fn background(
    store: &mut Store,
    now: u64,
    size_limit: usize,
    rng: &mut Rng,
) -> Vec<(u32, [u32; 2])> {
    let mut splits = Vec::new();
    store.catch_up(now);
    for p in &mut store.partitions {
        if p.election_due_ms.is_some_and(|due| due <= now) {
            elect(p, rng);
        }
    }
    let mut i = 0;
    while i < store.partitions.len() {
        let (too_big, hot) = (
            store.partitions[i].bytes > size_limit,
            store.partitions[i].split_for_heat,
        );
        let split = if too_big {
            store.split_for_size(i, now)
        } else if hot {
            store.split_for_heat(i, now)
        } else {
            None
        };
        match split {
            Some(children) => splits.push((store.splits.last().map_or(0, |s| s.0), children)),
            None => i += 1,
        }
    }
    splits
}

/// Elects the most advanced live replica (ties broken by the seed). It has every
/// acknowledged write: each write was acknowledged by the leader and one follower that had
/// applied every earlier entry.
pub(crate) fn elect(p: &mut Partition, rng: &mut Rng) {
    let best = p
        .replicas
        .iter()
        .filter(|r| r.up)
        .map(|r| r.applied_seq)
        .max();
    let Some(best) = best else {
        return; // nobody to elect until a replica comes back
    };
    let candidates: Vec<usize> = (0..3)
        .filter(|&i| p.replicas[i].up && p.replicas[i].applied_seq == best)
        .collect();
    let winner = candidates[rng.below(candidates.len() as u64) as usize];
    // Entries still in flight to the winner came from the deposed leader; the new leader
    // starts from what it has applied, which includes every acknowledged write.
    p.replicas[winner].pending.clear();
    p.seq = p.seq.max(p.replicas[winner].applied_seq);
    p.leader = Some(winner);
    p.election_due_ms = None;
}
