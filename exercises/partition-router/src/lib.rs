//! The partition-router kata: your partition router (see README.md). The tests run every key
//! and every split of their worlds through the router `router()` returns. Until you write
//! them, the four methods give placeholder answers: every key on one hash, no split.

use given::{BoxedRouter, Collection, HashRange, KeyBytes, PartitionRouter};

/// Your router, handed to the engine (`Pieces { router, .. }`).
pub fn router() -> BoxedRouter {
    Box::new(MyRouter)
}

struct MyRouter;

impl PartitionRouter for MyRouter {
    fn hash(&self, partition_key: KeyBytes<'_>, sort_key: Option<KeyBytes<'_>>) -> u64 {
        let _ = (partition_key, sort_key);
        0 // TODO: the partition hash of the key (every key on one hash, for now)
    }

    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        let _ = (hash, partitions);
        0 // TODO: the index of the range that holds `hash` (always the first, for now)
    }

    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]> {
        let _ = (partition, collections);
        None // TODO: the two halves, cut before the median item collection
    }

    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        let _ = (partition, heat);
        None // TODO: the two halves, cut at the weighted median of the traffic
    }
}
