//! # Kata: quorum replication
//!
//! DynamoDB's quorum replication, the piece of the engine that decides, for each partition,
//! whether it takes a write, which replicas the write goes to, which replica serves a read and
//! who leads after a failure — task, contract and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use given::{Az, Delivery, Draw, Group, ReplicaState, Replication, Unavailable, QUORUM};

// The trait and its types are the engine's (`given` re-exports them):
//   group.leader: Option<Az>, group.replicas[az.index()]: ReplicaState { az, up, applied,
//   in_flight, lag_ms }, group.replica(az), group.live()
//   draw.pick(&candidates) -> Option<Az>   (one pick per choice, candidates in AZ order)

/// The replication the engine runs in your world: one value, shared by every partition.
pub fn replication() -> Box<dyn Replication> {
    Box::new(Quorum)
}

/// Your piece. It may hold settings, but no state.
#[derive(Debug)]
pub struct Quorum;

impl Replication for Quorum {
    /// Can this partition take a write now?
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        // TODO: who takes writes, and how many replicas must be able to hold one?
        let _ = group;
        Ok(())
    }

    /// Where an accepted write goes: one Delivery per replica, in AZ order.
    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        // TODO: which follower acknowledges with the leader, and what about the other one?
        let _ = (group, draw);
        [Delivery::Skip; 3]
    }

    /// The replica that serves one read.
    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable> {
        // TODO: a strongly consistent read, and an eventually consistent one.
        let _ = (group, consistent, draw);
        Ok(Az::A)
    }

    /// The partition has no leader and holds its election: who leads now?
    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        // TODO: which replica can lead without losing an acknowledged write?
        let _ = (group, draw);
        None
    }
}
