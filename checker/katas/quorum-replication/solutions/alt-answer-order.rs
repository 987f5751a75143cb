//! # Kata: quorum replication — an alternative solution
//!
//! The same rules, reached another way: the leader counts the replicas that could hold a write
//! (itself and each live follower) against the quorum, orders its followers by when they would
//! answer, and an election keeps a running list of the best candidates in one pass. No
//! allocation: candidates go in a fixed array.

use given::{Az, Delivery, Draw, Group, Replication, Unavailable, QUORUM, REPLICAS};

pub fn replication() -> Box<dyn Replication> {
    Box::new(AnswerOrder)
}

#[derive(Debug)]
pub struct AnswerOrder;

/// Up to three replicas, in AZ order.
struct Candidates {
    azs: [Az; REPLICAS],
    len: usize,
}

impl Candidates {
    fn new() -> Candidates {
        Candidates {
            azs: [Az::A; REPLICAS],
            len: 0,
        }
    }
    fn push(&mut self, az: Az) {
        self.azs[self.len] = az;
        self.len += 1;
    }
    fn clear(&mut self) {
        self.len = 0;
    }
    fn as_slice(&self) -> &[Az] {
        &self.azs[..self.len]
    }
}

/// How many replicas could hold a write now, counting the leader.
fn could_hold(group: &Group, leader: Az) -> usize {
    1 + Az::ALL
        .iter()
        .filter(|&&az| az != leader && group.replica(az).up)
        .count()
}

fn no_leader(group: &Group) -> Unavailable {
    match group.live() {
        n if n >= QUORUM => Unavailable::Electing,
        _ => Unavailable::NoQuorum,
    }
}

impl Replication for AnswerOrder {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        match group.leader {
            None => Err(no_leader(group)),
            Some(leader) if could_hold(group, leader) < QUORUM => Err(Unavailable::NoQuorum),
            Some(_) => Ok(()),
        }
    }

    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        let leader = group.leader.expect("writes go through the leader");
        // Earliest answer first: keep the followers whose answer time is the smallest so far.
        let mut first = Candidates::new();
        let mut first_at = u64::MAX;
        for az in Az::ALL {
            let r = group.replica(az);
            if az == leader || !r.up {
                continue;
            }
            if r.lag_ms < first_at {
                first_at = r.lag_ms;
                first.clear();
            }
            if r.lag_ms == first_at {
                first.push(az);
            }
        }
        let acker = draw.pick(first.as_slice());
        Az::ALL.map(|az| {
            let r = group.replica(az);
            match () {
                _ if az == leader || !r.up => Delivery::Skip,
                _ if Some(az) == acker => Delivery::Ack,
                _ => Delivery::Later,
            }
        })
    }

    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable> {
        match (consistent, group.leader) {
            (true, Some(leader)) => Ok(leader),
            (true, None) => Err(no_leader(group)),
            (false, _) => {
                let mut live = Candidates::new();
                for r in group.replicas.iter().filter(|r| r.up) {
                    live.push(r.az);
                }
                draw.pick(live.as_slice()).ok_or(Unavailable::NoLiveReplica)
            }
        }
    }

    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        if group.live() < QUORUM {
            return None;
        }
        let mut best = Candidates::new();
        let mut best_applied = 0;
        for r in group.replicas.iter().filter(|r| r.up) {
            if best.len == 0 || r.applied > best_applied {
                best.clear();
                best_applied = r.applied;
            }
            if r.applied == best_applied {
                best.push(r.az);
            }
        }
        draw.pick(best.as_slice())
    }
}
