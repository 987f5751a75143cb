//! Partitions and their replicas: the storage.
//!
//! A partition owns a contiguous range of the hash space and is stored three times, once in
//! each availability zone. One replica is the *leader*: it takes every write and serves
//! strongly consistent reads; the others follow. How a write is replicated, which replica
//! serves a read and who leads after a failure are the replication piece's decisions
//! ([`super::replication`], whose essay is the concept's); this file holds what they act
//! on and carries their answers out.
//!
//! ```text
//!            write ──▶ leader (AZ a) ──────────────▶ ack once 2 of 3 have it
//!                        │  log entry #n
//!                        ├──▶ follower (AZ b)   applied now   (the quorum peer)
//!                        └──▶ follower (AZ c)   applied at now + delay  (pending)
//! ```
//!
//! Replication is a log: every write gets the partition's next sequence number, and each
//! follower applies entries strictly in sequence order, so a follower is always a *prefix*
//! of the leader's history — stale, never wrong.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;

use super::key::StoreKey;
use super::replication::{Az, Delivery, Group, ReplicaState};
use crate::capacity::admission::PartitionLoad;
use std::sync::Arc;

use crate::value::{item_size, Item};

/// An item as stored: shared by the replicas that hold it (a write is copied once, not three
/// times), with its size computed once (reads and queries charge by size).
#[derive(PartialEq)]
pub struct Stored {
    item: Item,
    size: usize,
}

/// The item's attributes print in name order, so a world's fingerprint
/// ([`World::trace_hash`](crate::World::trace_hash)) does not depend on `HashMap` order.
impl std::fmt::Debug for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stored")
            .field("item", &crate::value::SortedMap(&self.item))
            .field("size", &self.size)
            .finish()
    }
}

impl Stored {
    pub fn new(item: Item) -> Arc<Stored> {
        let size = item_size(&item);
        Arc::new(Stored { item, size })
    }

    /// The item's size in bytes (as DynamoDB counts it).
    pub fn size(&self) -> usize {
        self.size
    }

    pub fn item(&self) -> &Item {
        &self.item
    }

    /// The item, owned (cloned unless this was the last reference).
    pub fn into_item(this: Arc<Stored>) -> Item {
        match Arc::try_unwrap(this) {
            Ok(stored) => stored.item,
            Err(shared) => shared.item.clone(),
        }
    }
}

impl std::ops::Deref for Stored {
    type Target = Item;
    fn deref(&self) -> &Item {
        &self.item
    }
}

/// The data of one replica: store key → stored item.
pub type Data = BTreeMap<StoreKey, Arc<Stored>>;

/// The three availability zones, by index.
pub const AZ_NAMES: [&str; 3] = ["az-a", "az-b", "az-c"];

/// One copy of a partition's data.
#[derive(Clone, Debug)]
pub struct Replica {
    /// Index into [`AZ_NAMES`].
    pub az: usize,
    pub data: Data,
    /// Log entries sent to this replica but not applied yet, in sequence order.
    pub pending: VecDeque<Pending>,
    /// The last sequence number applied here.
    pub applied_seq: u64,
    /// False while the replica's AZ is down or the replica is stopped.
    pub up: bool,
    /// Extra replication delay (ms) injected by a `lag_replica` fault.
    pub extra_lag_ms: u64,
}

/// A replicated write on its way to one follower.
#[derive(Clone, Debug)]
pub struct Pending {
    pub due_ms: u64,
    pub seq: u64,
    pub key: StoreKey,
    pub item: Option<Arc<Stored>>,
}

impl Replica {
    fn new(az: usize) -> Replica {
        Replica {
            az,
            data: BTreeMap::new(),
            pending: VecDeque::new(),
            applied_seq: 0,
            up: true,
            extra_lag_ms: 0,
        }
    }

    /// Applies every pending entry due at or before `now`.
    pub fn catch_up(&mut self, now_ms: u64) {
        if !self.up {
            return;
        }
        while let Some(front) = self.pending.front() {
            if front.due_ms > now_ms {
                break;
            }
            if front.seq != self.applied_seq + 1 {
                // A gap: this replica missed entries while it was down. Like a Raft
                // follower whose log does not match, it refuses the rest and waits to be
                // brought up to date from the leader (`anti_entropy`).
                self.pending.clear();
                break;
            }
            let entry = self.pending.pop_front().expect("front exists");
            self.apply(entry);
        }
    }

    /// Applies every pending entry, whatever its due time (the replica is now in sync).
    pub fn flush(&mut self) {
        while let Some(entry) = self.pending.pop_front() {
            if entry.seq != self.applied_seq + 1 {
                self.pending.clear();
                break;
            }
            self.apply(entry);
        }
    }

    fn apply(&mut self, entry: Pending) {
        match entry.item {
            Some(item) => {
                self.data.insert(entry.key, item);
            }
            None => {
                self.data.remove(&entry.key);
            }
        }
        self.applied_seq = entry.seq;
    }

    /// How far behind the leader's sequence this replica is.
    pub fn lag_entries(&self, leader_seq: u64) -> u64 {
        leader_seq.saturating_sub(self.applied_seq)
    }
}

/// One partition: a hash range, three replicas, a leader.
#[derive(Clone, Debug)]
pub struct Partition {
    /// Stable within a table: "partition 3" in metrics and messages.
    pub id: u32,
    /// First hash this partition owns.
    pub start: u64,
    /// Last hash this partition owns (inclusive).
    pub end: u64,
    pub replicas: Vec<Replica>,
    /// Index of the leader replica, `None` during an election.
    pub leader: Option<usize>,
    /// Sequence number of the last write the leader accepted.
    pub seq: u64,
    /// Items and bytes held (as the leader sees them).
    pub item_count: usize,
    pub bytes: usize,
    /// Capacity meters and per-second history.
    pub load: PartitionLoad,
    /// When the current election (no leader) ends, in simulated ms.
    pub election_due_ms: Option<u64>,
    /// Set when sustained load calls for a split (done by background work).
    pub split_for_heat: bool,
}

impl Partition {
    pub fn new(id: u32, start: u64, end: u64, leader: usize) -> Partition {
        Partition {
            id,
            start,
            end,
            replicas: (0..3).map(Replica::new).collect(),
            leader: Some(leader),
            seq: 0,
            item_count: 0,
            bytes: 0,
            load: PartitionLoad::default(),
            election_due_ms: None,
            split_for_heat: false,
        }
    }

    pub fn owns(&self, hash: u64) -> bool {
        self.start <= hash && hash <= self.end
    }

    /// The leader's copy, if the partition has a leader.
    pub fn leader_data(&self) -> Option<&Data> {
        self.leader.map(|l| &self.replicas[l].data)
    }

    /// The data as the replica at `index` sees it after applying what has arrived by `now`.
    pub fn replica_data(&mut self, index: usize, now_ms: u64) -> &Data {
        self.replicas[index].catch_up(now_ms);
        &self.replicas[index].data
    }

    /// The authoritative current value of a key (the leader's, or — while no leader is
    /// elected — the most advanced replica's). Used by writes to read the item they replace.
    pub fn current(&self, key: &StoreKey) -> Option<&Item> {
        self.current_stored(key).map(|s| s.item())
    }

    /// The current items between two store keys (inclusive), as stored.
    pub fn current_range(
        &self,
        lo: StoreKey,
        hi: StoreKey,
    ) -> Box<dyn Iterator<Item = (&StoreKey, &Arc<Stored>)> + '_> {
        if lo > hi {
            return Box::new(std::iter::empty());
        }
        let source = self.leader.unwrap_or_else(|| self.most_advanced());
        Box::new(self.replicas[source].data.range(lo..=hi))
    }

    /// [`Partition::current`], as stored (with its size).
    pub fn current_stored(&self, key: &StoreKey) -> Option<&Arc<Stored>> {
        let source = self.leader.unwrap_or_else(|| self.most_advanced());
        self.replicas[source].data.get(key)
    }

    /// The replica with the highest applied sequence number (ties: lowest AZ).
    pub fn most_advanced(&self) -> usize {
        let mut best = 0;
        for (i, r) in self.replicas.iter().enumerate() {
            if r.applied_seq > self.replicas[best].applied_seq {
                best = i;
            }
        }
        best
    }

    /// The partition as the replication piece sees it at `now_ms`.
    pub fn group(&self, now_ms: u64) -> Group {
        let replica = |i: usize| {
            let r = &self.replicas[i];
            ReplicaState {
                az: Az::ALL[i],
                up: r.up,
                applied: r.applied_seq,
                in_flight: r.pending.len(),
                lag_ms: r.extra_lag_ms,
            }
        };
        Group {
            partition: self.id,
            now_ms,
            leader: self.leader.map(|i| Az::ALL[i]),
            last_seq: self.seq,
            replicas: [replica(0), replica(1), replica(2)],
        }
    }

    /// Writes `item` (or deletes, for `None`) through replica `leader`, carrying out the
    /// piece's `plan` ([`super::replication::Replication::replicate`]): each `Ack` that
    /// reaches a live follower applies now, each `Later` arrives at `now + delay` plus the
    /// follower's lag. Returns the previous value.
    pub fn replicate(
        &mut self,
        key: StoreKey,
        item: Option<Arc<Stored>>,
        now_ms: u64,
        leader: usize,
        plan: [Delivery; 3],
        slow_delay_ms: u64,
    ) -> Option<Arc<Stored>> {
        self.seq += 1;
        let seq = self.seq;
        for (i, delivery) in plan.into_iter().enumerate() {
            if i == leader || !self.replicas[i].up {
                // A replica that is down misses the message, whatever the plan said; it
                // catches up from the leader when it comes back (see `anti_entropy`).
                continue;
            }
            match delivery {
                Delivery::Ack => {
                    // A follower must hold every earlier entry before it can acknowledge
                    // this one: apply what is in flight, and copy from the leader if it
                    // missed entries while it was away.
                    self.replicas[i].flush();
                    if self.replicas[i].applied_seq + 1 != seq {
                        self.sync_from(leader, i);
                    }
                    self.replicas[i].apply(Pending {
                        due_ms: now_ms,
                        seq,
                        key: key.clone(),
                        item: item.clone(),
                    });
                }
                Delivery::Later => {
                    let replica = &mut self.replicas[i];
                    // Entries arrive in log order: never before an earlier entry.
                    let earliest = replica.pending.back().map_or(0, |p| p.due_ms);
                    let due = (now_ms + slow_delay_ms + replica.extra_lag_ms).max(earliest);
                    replica.pending.push_back(Pending {
                        due_ms: due,
                        seq,
                        key: key.clone(),
                        item: item.clone(),
                    });
                }
                Delivery::Skip => {}
            }
        }
        let leader_replica = &mut self.replicas[leader];
        leader_replica.applied_seq = seq;
        let old = match item {
            Some(item) => {
                self.bytes += item.size();
                leader_replica.data.insert(key, item)
            }
            None => leader_replica.data.remove(&key),
        };
        if let Some(old_item) = &old {
            self.bytes = self.bytes.saturating_sub(old_item.size());
        }
        self.item_count = leader_replica.data.len();
        old
    }

    /// Copies the leader's data to replica `i` (a replica that missed log entries while it
    /// was down catches up from a snapshot rather than replaying what it never received).
    pub fn sync_from_leader(&mut self, i: usize) {
        if let Some(leader) = self.leader {
            self.sync_from(leader, i);
        }
    }

    /// Copies replica `source`'s data to replica `i`.
    fn sync_from(&mut self, source: usize, i: usize) {
        if source == i {
            return;
        }
        let data = self.replicas[source].data.clone();
        let seq = self.replicas[source].applied_seq;
        let replica = &mut self.replicas[i];
        replica.data = data;
        replica.applied_seq = seq;
        replica.pending.clear();
    }

    /// Brings every live follower that has fallen behind with nothing in flight up to the
    /// leader (a healed replica, or one that missed messages while down).
    pub fn anti_entropy(&mut self) {
        for i in 0..self.replicas.len() {
            if self.behind_without_log(i) {
                self.sync_from_leader(i);
            }
        }
    }

    /// Whether [`Partition::anti_entropy`] has a follower to bring up to date.
    pub fn anti_entropy_due(&self) -> bool {
        (0..self.replicas.len()).any(|i| self.behind_without_log(i))
    }

    /// Replica `i` is a live follower behind the leader with no pending log to catch up by.
    fn behind_without_log(&self, i: usize) -> bool {
        let Some(leader) = self.leader else {
            return false;
        };
        let r = &self.replicas[i];
        i != leader
            && r.up
            && r.pending.is_empty()
            && r.applied_seq < self.replicas[leader].applied_seq
    }

    /// Items of one store-key range of the leader or a replica, in order.
    pub fn range<'a>(
        data: &'a Data,
        from: Bound<&StoreKey>,
        to: Bound<&StoreKey>,
    ) -> impl DoubleEndedIterator<Item = (&'a StoreKey, &'a Arc<Stored>)> + 'a {
        data.range::<StoreKey, _>((from.cloned(), to.cloned()))
    }
}
