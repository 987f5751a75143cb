//! Known-wrong: writes no shards at all, and hands every decision to the engine's own
//! `EngineShards`. It agrees with DynamoDB on every workload, so only the guard catches it:
//! the engine's piece refuses to answer while the learner's runs.

use engine::seams::EngineShards;
use given::{Change, Position, Shard, Shards, StreamShards};

/// "My" shards.
pub fn stream_shards() -> Box<dyn StreamShards> {
    Box::new(Borrowed)
}

/// The engine's piece, under another name.
#[derive(Debug)]
pub struct Borrowed;

impl StreamShards for Borrowed {
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]) {
        EngineShards.open_stream(shards, partitions)
    }

    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change) {
        EngineShards.append(shards, partition, change)
    }

    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]) {
        EngineShards.split(shards, parent, children)
    }

    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        EngineShards.trim(shard, now_ms, retention_ms)
    }

    fn iterator_start(&self, shard: &Shard, next_sequence: u64, position: Position) -> u64 {
        EngineShards.iterator_start(shard, next_sequence, position)
    }
}
