//! Partition splits: the mechanics.
//!
//! DynamoDB adds partitions in the background when a partition outgrows its size limit
//! (10 GB) or when its consumption stays high (*split for heat*). A split divides the
//! partition's hash range in two; each half takes the items whose hash falls in it, so an
//! item collection (one partition key) always stays whole, in sort-key order.
//!
//! Where to cut is the partition router's decision ([`super::router`]: the median item
//! collection for size, the weighted median of the traffic for heat, none when everything
//! sits on one hash). This file does the rest: it gives the router what the partition holds
//! (or the traffic it saw), takes the two halves back, and moves every replica's items and
//! in-flight replication to their half.
//!
//! Before splitting, the model lets every follower catch up (the split is coordinated by
//! the partition's leader); the new partition's leader is in the same AZ as the old one.

use std::collections::BTreeMap;

use super::partition::Partition;
use super::router::{Collection, HashRange};
use super::Store;

impl Store {
    /// Splits partition `p` into the two halves `plan` names, moving each item to the half
    /// whose range holds its hash (`>= right.start` goes right). The plan is the router's
    /// and is not second-guessed: a router whose halves leave a gap or overlap gets exactly
    /// the partitions it asked for. Returns the two children's ids.
    pub fn split_into(&mut self, p: usize, plan: [HashRange; 2], now_ms: u64) -> [u32; 2] {
        let [left_range, right_range] = plan;
        let mid = right_range.start;
        let left_id = self.next_partition_id;
        let right_id = self.next_partition_id + 1;
        self.next_partition_id += 2;
        let mut old = self.partitions.remove(p);
        self.ranges.remove(p);
        for r in &mut old.replicas {
            if r.up {
                r.flush();
            }
        }
        let leader = old.leader.unwrap_or(0);
        let mut left = Partition::new(left_id, left_range.start, left_range.end, leader);
        let mut right = Partition::new(right_id, right_range.start, right_range.end, leader);
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
            for (child, data, goes_right) in [(&mut left, lo, false), (&mut right, hi, true)] {
                let cr = &mut child.replicas[i];
                cr.data = data;
                cr.up = r.up;
                cr.extra_lag_ms = r.extra_lag_ms;
                cr.applied_seq = r.applied_seq;
                // Entries still in flight (to a replica that is down) follow their key.
                cr.pending = pending
                    .iter()
                    .filter(|e| (e.key.hash >= mid) == goes_right)
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
        self.ranges.insert(p, right_range);
        self.ranges.insert(p, left_range);
        self.splits.push((old.id, [left_id, right_id], now_ms));
        [left_id, right_id]
    }

    /// Splits partition `p`, grown past the size limit, where the router cuts it.
    pub fn split_for_size(&mut self, p: usize, now_ms: u64) -> Option<[u32; 2]> {
        let data = self.partitions[p].leader_data()?;
        let mut collections: Vec<Collection> = Vec::new();
        for (k, v) in data {
            match collections.last_mut() {
                Some(c) if c.hash == k.hash => {
                    c.items += 1;
                    c.bytes += v.size();
                }
                _ => collections.push(Collection {
                    hash: k.hash,
                    items: 1,
                    bytes: v.size(),
                }),
            }
        }
        if collections.is_empty() {
            return None;
        }
        let plan = self
            .schema
            .router
            .split_for_size(self.ranges[p], &collections)?;
        Some(self.split_into(p, plan, now_ms))
    }

    /// Splits partition `p`, hot for long enough, where the router cuts it by the hashes its
    /// recent traffic hit.
    pub fn split_for_heat(&mut self, p: usize, now_ms: u64) -> Option<[u32; 2]> {
        let heat = std::mem::take(&mut self.partitions[p].load.heat);
        self.partitions[p].split_for_heat = false;
        let heat: Vec<(u64, f64)> = heat.into_iter().collect();
        let plan = self.schema.router.split_for_heat(self.ranges[p], &heat)?;
        Some(self.split_into(p, plan, now_ms))
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
