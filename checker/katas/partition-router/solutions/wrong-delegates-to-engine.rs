//! Known-wrong: writes no router at all, and hands every question to the engine's own
//! `EngineRouter`. It agrees with DynamoDB on every key and split, so only the guard catches
//! it: the engine's piece refuses to answer while the learner's runs.

use engine::seams::EngineRouter;
use given::{BoxedRouter, Collection, HashRange, KeyBytes, PartitionRouter};

/// "My" router.
pub fn router() -> BoxedRouter {
    Box::new(MyRouter)
}

struct MyRouter;

impl PartitionRouter for MyRouter {
    fn hash(&self, partition_key: KeyBytes<'_>, sort_key: Option<KeyBytes<'_>>) -> u64 {
        EngineRouter.hash(partition_key, sort_key)
    }

    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        EngineRouter.route(hash, partitions)
    }

    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]> {
        EngineRouter.split_for_size(partition, collections)
    }

    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        EngineRouter.split_for_heat(partition, heat)
    }
}
