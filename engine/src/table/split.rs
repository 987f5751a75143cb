//! Partition splits.
//!
//! DynamoDB adds partitions in the background when a partition outgrows its size limit
//! (10 GB) or when its consumption stays high (*split for heat*). A split divides the
//! partition's hash range in two; each half takes the items whose hash falls in it, so an
//! item collection (one partition key) always stays whole, in sort-key order.
//!
//! The split point is the median hash of what matters: the stored items for a size split,
//! the observed traffic for a heat split. When everything sits on one hash — one giant item
//! collection, or a single hot key — no split point exists, and none is made: splitting
//! cannot help a single hot key, which is why write sharding exists.
//!
//! Before splitting, the model lets every follower catch up (the split is coordinated by
//! the partition's leader); the new partition's leader is in the same AZ as the old one.

use std::collections::BTreeMap;

use super::partition::Partition;
use super::Store;

impl Store {
    /// Splits partition `p` so that hashes `>= mid` move to a new partition. Returns the two
    /// children's ids, or `None` if `mid` does not fall strictly inside the range.
    pub fn split_at(&mut self, p: usize, mid: u64, now_ms: u64) -> Option<[u32; 2]> {
        if mid <= self.partitions[p].start || mid > self.partitions[p].end {
            return None;
        }
        let left_id = self.next_partition_id;
        let right_id = self.next_partition_id + 1;
        self.next_partition_id += 2;
        let mut old = self.partitions.remove(p);
        for r in &mut old.replicas {
            if r.up {
                r.flush();
            }
        }
        let leader = old.leader.unwrap_or(0);
        let mut left = Partition::new(left_id, old.start, mid - 1, leader);
        let mut right = Partition::new(right_id, mid, old.end, leader);
        for (i, r) in old.replicas.iter_mut().enumerate() {
            let data = std::mem::take(&mut r.data);
            let (mut lo, mut hi) = (BTreeMap::new(), BTreeMap::new());
            for (k, v) in data {
                if k.hash >= mid {
                    hi.insert(k, v);
                } else {
                    lo.insert(k, v);
                }
            }
            let pending = std::mem::take(&mut r.pending);
            for (child, data) in [(&mut left, lo), (&mut right, hi)] {
                let cr = &mut child.replicas[i];
                cr.data = data;
                cr.up = r.up;
                cr.extra_lag_ms = r.extra_lag_ms;
                cr.applied_seq = r.applied_seq;
                // Entries still in flight (to a replica that is down) follow their key.
                cr.pending = pending
                    .iter()
                    .filter(|e| child.start <= e.key.hash && e.key.hash <= child.end)
                    .cloned()
                    .collect();
            }
        }
        for child in [&mut left, &mut right] {
            child.seq = old.seq;
            child.leader = old.leader;
            child.election_due_ms = old.election_due_ms;
            child.recount();
        }
        self.partitions.insert(p, right);
        self.partitions.insert(p, left);
        self.splits.push((old.id, [left_id, right_id], now_ms));
        Some([left_id, right_id])
    }

    /// Splits partition `p` at the median hash of its items (a size split).
    pub fn split_for_size(&mut self, p: usize, now_ms: u64) -> Option<[u32; 2]> {
        let data = self.partitions[p].leader_data()?;
        let hashes: Vec<u64> = {
            let mut v: Vec<u64> = data.keys().map(|k| k.hash).collect();
            v.dedup();
            v
        };
        if hashes.len() < 2 {
            return None;
        }
        let mid = hashes[hashes.len() / 2];
        self.split_at(p, mid, now_ms)
    }

    /// Splits partition `p` at the weighted median of the hashes its recent traffic hit (a
    /// split for heat). A single hot key offers no split point.
    pub fn split_for_heat(&mut self, p: usize, now_ms: u64) -> Option<[u32; 2]> {
        let heat = std::mem::take(&mut self.partitions[p].load.heat);
        self.partitions[p].split_for_heat = false;
        if heat.len() < 2 {
            return None;
        }
        let total: f64 = heat.values().sum();
        let mut acc = 0.0;
        let mut mid = *heat.keys().last().expect("two keys");
        for (h, units) in &heat {
            acc += units;
            if acc >= total / 2.0 {
                mid = *h;
                break;
            }
        }
        // The median key itself goes right; make sure the left half is not empty.
        if mid == *heat.keys().next().expect("two keys") {
            mid = *heat.keys().nth(1).expect("two keys");
        }
        self.split_at(p, mid, now_ms)
    }
}

impl Partition {
    /// Recomputes item count and bytes from the leader's (or most advanced) copy.
    pub fn recount(&mut self) {
        let source = self.leader.unwrap_or_else(|| self.most_advanced());
        let data = &self.replicas[source].data;
        self.item_count = data.len();
        self.bytes = data.values().map(|s| s.size()).sum();
    }
}
