//! # Known-wrong: a partition without a leader still takes writes
//!
//! Only the quorum is checked: with two replicas up the write is accepted, leader or not. During
//! an election there is nobody to order the writes.

use given::{Az, Delivery, Draw, Group, Replication, Unavailable, QUORUM};

/// The replication the engine runs in your world: one value, shared by every partition.
pub fn replication() -> Box<dyn Replication> {
    Box::new(Quorum)
}

/// Quorum replication, DynamoDB's way.
#[derive(Debug)]
pub struct Quorum;

/// Why a partition without a leader can neither write nor serve a strong read.
fn leaderless(group: &Group) -> Unavailable {
    if group.live() >= QUORUM {
        Unavailable::Electing
    } else {
        Unavailable::NoQuorum
    }
}

/// The live followers of `leader`, in AZ order.
fn live_followers(group: &Group, leader: Az) -> Vec<Az> {
    group
        .replicas
        .iter()
        .filter(|r| r.up && r.az != leader)
        .map(|r| r.az)
        .collect()
}

impl Replication for Quorum {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        let Some(leader) = group.leader else {
            return if group.live() >= QUORUM {
                Ok(())
            } else {
                Err(Unavailable::NoQuorum)
            };
        };
        if live_followers(group, leader).is_empty() {
            return Err(Unavailable::NoQuorum);
        }
        Ok(())
    }

    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        let leader = group.leader.expect("a write goes through a leader");
        let followers = live_followers(group, leader);
        // The follower that answers first: the least injected lag; a tie is drawn.
        let fastest = followers.iter().map(|&az| group.replica(az).lag_ms).min();
        let tied: Vec<Az> = followers
            .iter()
            .copied()
            .filter(|&az| Some(group.replica(az).lag_ms) == fastest)
            .collect();
        let peer = draw.pick(&tied);
        let mut plan = [Delivery::Skip; 3];
        for az in followers {
            plan[az.index()] = if Some(az) == peer {
                Delivery::Ack
            } else {
                Delivery::Later
            };
        }
        plan
    }

    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable> {
        if consistent {
            return group.leader.ok_or_else(|| leaderless(group));
        }
        let live: Vec<Az> = group
            .replicas
            .iter()
            .filter(|r| r.up)
            .map(|r| r.az)
            .collect();
        draw.pick(&live).ok_or(Unavailable::NoLiveReplica)
    }

    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        if group.live() < QUORUM {
            return None;
        }
        let best = group
            .replicas
            .iter()
            .filter(|r| r.up)
            .map(|r| r.applied)
            .max()?;
        let tied: Vec<Az> = group
            .replicas
            .iter()
            .filter(|r| r.up && r.applied == best)
            .map(|r| r.az)
            .collect();
        draw.pick(&tied)
    }
}
