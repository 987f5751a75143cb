//! # Quorum replication: three replicas, one leader, a write acknowledged at two
//!
//! DynamoDB promises two things about a write that returned HTTP 200: it is durable, and a
//! strongly consistent read made after it sees it. It promises less to an eventually
//! consistent read (the default): it may return older data, and replicas converge "usually
//! within one second". Both promises come from how each partition is stored.
//!
//! Inside (the 2022 USENIX paper, `dynamodb-semantics.md` §9.2), a partition is a
//! *replication group*: replicas in different Availability Zones, one of them the
//! **leader**. Only the leader takes writes and serves strongly consistent reads; any replica
//! may serve an eventually consistent one. The leader appends a write to its log, sends it
//! to the others, and acknowledges it once a **quorum — two of the three — has it
//! durably**. The third replica gets it a little later. When the leader is lost, the group
//! elects a new one (Multi-Paxos), and the partition takes no writes until it has.
//!
//! ```text
//!   PutItem ──▶ leader (az-a)  log entry #7 ──────────────────▶ 200 once 2 of 3 have #7
//!                 ├──▶ follower az-b   applies #7 now     (the quorum peer: it answered first)
//!                 └──▶ follower az-c   applies #7 later   (in flight: now + delay + its lag)
//!
//!   GetItem, ConsistentRead=true  ──▶ the leader              sees #7
//!   GetItem (eventually consistent) ──▶ any live replica, drawn   az-c may not have #7 yet
//!
//!   az-a fails ──▶ no leader for election_timeout_ms: writes and strong reads get a 500
//!             ──▶ election: the most advanced live replica leads (az-b, which has #7)
//! ```
//!
//! Why the new leader must be the *most advanced* live replica: every acknowledged write is
//! on the leader and on one follower that had every earlier entry too (a follower applies
//! the log in order). Lose one AZ and at least one replica holding each acknowledged write
//! is still up; the live replica that has applied the most holds all of them. Elect another
//! — the lowest-numbered, or a random one — and writes the caller was told had succeeded
//! are gone. For the same reason an election needs a majority of the group up (two of
//! three): one replica alone may be the one that never had the last writes, so a partition
//! with two replicas lost elects nobody and serves only eventually consistent reads until an
//! AZ comes back. A leader that keeps its AZ while both followers are lost stays leader — it
//! has every write, so its strong reads are right — but takes no write: no quorum can form.
//!
//! ## The piece: [`Replication`]
//!
//! The decisions are one replaceable piece (a seam, [`crate::seams::Pieces::replication`],
//! written by a learner in the Build-it kata `quorum-replication`). Each is a pure function
//! of a [`Group`] — the partition's three replicas as the leader sees them now — and, where
//! there is a choice to make, a seeded [`Draw`]:
//!
//! | method | asked | answers |
//! |---|---|---|
//! | [`accept_write`](Replication::accept_write) | before a write is admitted | `Ok`, or why the partition cannot take it ([`Unavailable`]) |
//! | [`replicate`](Replication::replicate) | for a write it accepted | per replica a [`Delivery`]: applied now and acknowledging, sent to arrive later, or not sent |
//! | [`serve_read`](Replication::serve_read) | for each read of the partition | the replica that serves it |
//! | [`elect`](Replication::elect) | when a leaderless partition's election is due | the new leader, or nobody |
//!
//! The engine's own piece is [`QuorumReplication`]; every table and index partition of a
//! world runs the piece its [`Store`] was made with, and the engine's path
//! goes through the same trait object a learner's does.
//!
//! What stays the engine's, whatever the piece says — the *mechanics*: the log and its
//! sequence numbers; applying a delivery (a replica that acknowledges first receives every
//! entry it missed, since it cannot acknowledge #7 without #1–#6; an entry in flight arrives
//! at now + the drawn replication delay + the replica's injected lag, never before an
//! earlier one); repairing a follower that came back from a failed AZ from the leader
//! (anti-entropy, in `background`); the election deadline a fault sets; the errors a
//! client gets. The engine carries a decision out as far as physics allows and does not
//! second-guess it: a delivery to a replica whose AZ is down is lost (and the write is
//! still acknowledged, if the piece said so), a read sent to a replica that is down gets a
//! 500, a leader elected in a failed AZ is no leader.
//!
//! **Why a [`Draw`] handle and not numbers drawn in advance.** The world has one seeded
//! generator; each pick draws from it exactly when a choice is made — one number per pick,
//! none when there is nothing to pick from — as the engine drew before this seam existed, so
//! a world replays bit for bit as it did. Two worlds from one seed stay in step for as long
//! as their pieces pick among the same candidates; the hidden tests compare every decision.
//!
//! ## The engine's rules
//!
//! - **Accepting a write**: refused while the partition has no leader — `Electing` if at
//!   least two replicas are up (an election is coming), else `NoQuorum` (none can be held)
//!   — and while the leader has no live follower (`NoQuorum`). Either is a retryable
//!   `InternalServerError` (HTTP 500) for the client.
//! - **Replicating**: the quorum peer is the live follower that answers first — the one with
//!   the least injected lag, a tie drawn (`draw.pick`) among them in AZ order. It applies
//!   now. Every other live follower gets the entry later. A follower that is down is not
//!   sent it (it is repaired from the leader when its AZ heals).
//! - **Serving a read**: strongly consistent → the leader (while there is none, `Electing`
//!   or `NoQuorum` as for a write); eventually consistent → one live replica drawn among all live ones in AZ order
//!   (`NoLiveReplica` when none is up). A lagging replica is drawn as often as the others:
//!   that is how eventual reads are stale.
//! - **Electing**: nobody with fewer than two replicas up; otherwise the live replica that
//!   has applied the highest sequence number, a tie drawn among them in AZ order. Entries
//!   still in flight do not count: an entry on its way is not one the replica holds.
//!
//! Which of these are DynamoDB's documented behaviour and which the model's: documented —
//! durability of an acknowledged write, strong reads from the leader seeing every earlier
//! write, stale eventual reads, the 500 a strong read can get during a network issue
//! (`dynamodb-semantics.md` §9.1). From the paper — three replicas in three AZs, leader-only
//! writes and strong reads, the 2-of-3 write quorum, Multi-Paxos elections (hence the
//! majority), any replica serving eventual reads (§9.2); what DynamoDB does with two of a
//! partition's AZs lost is not documented (unverified: the model follows Paxos). The model's own choices
//! (unverified): the fastest follower as the quorum peer, a uniform draw for eventual
//! reads, the election timeout (`WorldConfig::election_timeout_ms`, 2 s) and the replication
//! delay (`WorldConfig::replication_delay_ms`, 1–20 ms).
//!
//! ## Timed work
//!
//! This file also holds what replication does *later*, when the world's background work
//! runs at simulated time `now` (the agenda's `Replication` and `IndexReplication` kinds
//! call `background` for every table's store and every global index's store):
//!
//! ```text
//!  background(store, now)
//!    1. catch up   every live replica applies its entries due by now, in sequence order;
//!                  anti-entropy then repairs what a replica missed while it was down
//!    2. elect      every partition whose election is due asks the piece for a leader
//!    3. split      partitions over the size limit, or marked hot by capacity enforcement,
//!                  are split (table/split.rs), with what steps 1 and 2 left them
//! ```
//!
//! Design decision: elections run in the background pass, not at the moment of the fault,
//! because the timeout is the lesson (a partition is briefly unavailable, then serves
//! again); the fault only sets `election_due_ms`. An election that ends without a leader
//! (the piece elected nobody, or a replica that is down) waits for an AZ to heal, which
//! schedules another: until then nothing can change the answer, and a retry on a timer
//! would keep a settling world busy for nothing.
//!
//! Left out on purpose: leader leases and heartbeats (the timeout is a fixed setting), votes
//! and terms (the model knows every replica's state and asks the piece directly), log
//! replicas, a write's latency and a leader failing between applying a write and
//! acknowledging it, failure detection that asks peers before electing, and replicas that
//! come back with a diverged log (a replica only ever holds a prefix of the leader's
//! history).

use super::partition::{Partition, AZ_NAMES};
use super::Store;
use crate::error::Exception;
use crate::rng::Rng;

/// One of the three availability zones. Replica `i` of every partition lives in AZ `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Az {
    A,
    B,
    C,
}

impl Az {
    pub const ALL: [Az; 3] = [Az::A, Az::B, Az::C];

    /// The AZ's place in a partition's replicas (0, 1, 2).
    pub fn index(self) -> usize {
        match self {
            Az::A => 0,
            Az::B => 1,
            Az::C => 2,
        }
    }

    /// `az-a`, `az-b`, `az-c`.
    pub fn name(self) -> &'static str {
        AZ_NAMES[self.index()]
    }
}

impl std::fmt::Display for Az {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One replica of a partition as the piece sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaState {
    pub az: Az,
    /// False while the replica's AZ is down (or the replica was stopped).
    pub up: bool,
    /// The sequence number of the last log entry this replica has applied (durably holds).
    /// Entries apply in order, so it holds every entry up to this one.
    pub applied: u64,
    /// Entries sent to it that it has not applied yet. Some may have arrived already: a
    /// replica applies what has arrived when it is read and at each background pass.
    pub in_flight: usize,
    /// Extra replication delay injected by `World::lag_replica` (ms): this replica answers
    /// the leader that much later than the others.
    pub lag_ms: u64,
}

/// A partition's replication group as the leader sees it now: the input of every decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    /// The partition's id ("partition 3" in metrics and messages).
    pub partition: u32,
    /// The simulated time (ms since the world began).
    pub now_ms: u64,
    /// The leader's AZ; `None` while the partition has no leader (an election is due, or
    /// cannot be held). In [`Replication::replicate`] it is always the replica that takes
    /// the write.
    pub leader: Option<Az>,
    /// The sequence number of the last entry the leader (or the last leader) accepted.
    pub last_seq: u64,
    /// The three replicas, in AZ order (`replicas[az.index()]`).
    pub replicas: [ReplicaState; 3],
}

impl Group {
    /// The replica in `az`.
    pub fn replica(&self, az: Az) -> &ReplicaState {
        &self.replicas[az.index()]
    }

    /// How many replicas are up.
    pub fn live(&self) -> usize {
        self.replicas.iter().filter(|r| r.up).count()
    }
}

/// What happens to one accepted write at one replica ([`Replication::replicate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Applied now; this replica acknowledges the write with the leader (the quorum).
    Ack,
    /// Sent now, applied when it arrives: after the world's replication delay plus the
    /// replica's lag, and never before an entry sent to it earlier.
    Later,
    /// Not sent. A replica that is down misses the write; it is repaired from the leader
    /// when its AZ heals.
    Skip,
}

/// Why a partition cannot do what was asked: the client gets a retryable
/// `InternalServerError` (HTTP 500) with a message saying which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unavailable {
    /// The partition has no leader, and an election is due (at least two replicas are up).
    Electing,
    /// Fewer than two replicas can take part: no write can be acknowledged by two of three,
    /// and no leader can be elected.
    NoQuorum,
    /// No replica of the partition is up.
    NoLiveReplica,
}

impl Unavailable {
    /// The client's error for partition `group`.
    pub(crate) fn exception(self, group: &Group) -> Exception {
        let p = group.partition;
        let message = match self {
            Unavailable::Electing => {
                format!("Internal server error (partition {p} is electing a new leader; retry)")
            }
            Unavailable::NoQuorum => {
                let up = group.live();
                let verb = if up == 1 { "is" } else { "are" };
                format!(
                    "Internal server error (partition {p} cannot reach a quorum: only {up} of 3 replicas {verb} up)"
                )
            }
            Unavailable::NoLiveReplica => {
                format!("Internal server error (partition {p} has no live replica)")
            }
        };
        Exception::InternalServerError { message }
    }
}

/// The world's seeded generator, lent to one decision. Each [`Draw::pick`] draws one number
/// from it — none when there is nothing to pick from.
#[derive(Debug)]
pub struct Draw<'a> {
    rng: &'a mut Rng,
    picks: u32,
}

impl<'a> Draw<'a> {
    pub(crate) fn new(rng: &'a mut Rng) -> Draw<'a> {
        Draw { rng, picks: 0 }
    }

    /// One of `among`, drawn uniformly (`None` if `among` is empty, drawing nothing). List
    /// the candidates in AZ order: the draw picks a position, so the same draw over the
    /// same candidates in another order picks another replica.
    pub fn pick(&mut self, among: &[Az]) -> Option<Az> {
        if among.is_empty() {
            return None;
        }
        self.picks += 1;
        Some(among[self.rng.below(among.len() as u64) as usize])
    }

    /// How many numbers this decision has drawn so far.
    pub fn picks(&self) -> u32 {
        self.picks
    }
}

/// The replication piece: the decisions of quorum replication for one partition at a time
/// ([`crate::seams::Pieces::replication`]). Implementations must be pure: the same group and
/// the same draws give the same answer (a world replays from its seed), with no state of
/// their own and no clock but `group.now_ms`.
pub trait Replication: Send + Sync {
    /// Whether the partition can take a write now. Asked before the write's capacity is
    /// taken; `Err` refuses it with a retryable 500. A write this accepts is acknowledged
    /// (HTTP 200) once [`Replication::replicate`] has placed it.
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable>;

    /// Where an accepted write goes: one [`Delivery`] per replica, in AZ order. The
    /// leader's own slot (`group.leader`, always `Some` here) is not read — the leader
    /// applies the write itself. The write is acknowledged with whichever replicas this
    /// makes hold it now: the leader and each `Ack` that reaches a live replica.
    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3];

    /// The replica that serves one read of the partition, strongly consistent or not.
    /// `Err` fails the read with a retryable 500.
    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable>;

    /// The partition has no leader and its election is due (`election_timeout_ms` after the
    /// leader was lost, or at once when an AZ heals): the new leader, or `None` to leave the
    /// partition without one until an AZ heals. Answered before the new leader applies
    /// anything: entries still in flight to it are dropped, and it leads with what it has
    /// applied.
    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az>;
}

impl std::fmt::Debug for dyn Replication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Replication")
    }
}

/// The engine's piece: DynamoDB's quorum replication as this model has it (the rules are
/// in the module's essay).
#[derive(Clone, Copy, Debug, Default)]
pub struct QuorumReplication;

impl Replication for QuorumReplication {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        crate::seams::guard::REPLICATION.refuse();
        let Some(leader) = group.leader else {
            return Err(leaderless(group));
        };
        let follower_up = group.replicas.iter().any(|r| r.az != leader && r.up);
        if follower_up {
            Ok(())
        } else {
            Err(Unavailable::NoQuorum)
        }
    }

    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        crate::seams::guard::REPLICATION.refuse();
        let leader = group.leader;
        let followers = || {
            group
                .replicas
                .iter()
                .filter(move |r| Some(r.az) != leader && r.up)
        };
        // The follower that answers first: the least lag; a tie is drawn.
        let fastest = followers().map(|r| r.lag_ms).min();
        let mut tied = [Az::A; 3];
        let mut n = 0;
        for r in followers().filter(|r| Some(r.lag_ms) == fastest) {
            tied[n] = r.az;
            n += 1;
        }
        let peer = draw.pick(&tied[..n]);
        let mut plan = [Delivery::Skip; 3];
        for r in followers() {
            plan[r.az.index()] = if Some(r.az) == peer {
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
        crate::seams::guard::REPLICATION.refuse();
        if consistent {
            return group.leader.ok_or_else(|| leaderless(group));
        }
        let mut live = [Az::A; 3];
        let mut n = 0;
        for r in group.replicas.iter().filter(|r| r.up) {
            live[n] = r.az;
            n += 1;
        }
        draw.pick(&live[..n]).ok_or(Unavailable::NoLiveReplica)
    }

    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        crate::seams::guard::REPLICATION.refuse();
        if group.live() < 2 {
            return None; // no majority: no election can end
        }
        let live = || group.replicas.iter().filter(|r| r.up);
        let best = live().map(|r| r.applied).max()?;
        let mut tied = [Az::A; 3];
        let mut n = 0;
        for r in live().filter(|r| r.applied == best) {
            tied[n] = r.az;
            n += 1;
        }
        draw.pick(&tied[..n])
    }
}

/// Why a partition without a leader cannot serve a write or a strong read: an election is
/// coming if a majority is up, else there is no quorum to hold one.
fn leaderless(group: &Group) -> Unavailable {
    if group.live() >= 2 {
        Unavailable::Electing
    } else {
        Unavailable::NoQuorum
    }
}

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
    let piece = std::sync::Arc::clone(&store.replication);
    for p in &mut store.partitions {
        if p.election_due_ms.is_some_and(|due| due <= now) {
            elect(p, now, &*piece, rng);
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

/// Holds the election of `p`: the piece names the new leader; a leader that is down, or
/// none, leaves the partition without one until an AZ heals.
fn elect(p: &mut Partition, now: u64, piece: &dyn Replication, rng: &mut Rng) {
    let group = p.group(now);
    let winner = piece.elect(&group, &mut Draw::new(rng));
    p.election_due_ms = None;
    let Some(winner) = winner.map(Az::index).filter(|&i| p.replicas[i].up) else {
        return;
    };
    // Entries still in flight to the winner came from the deposed leader; the new leader
    // starts from what it has applied.
    p.replicas[winner].pending.clear();
    p.seq = p.seq.max(p.replicas[winner].applied_seq);
    p.leader = Some(winner);
}
