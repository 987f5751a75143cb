//! # Kata: stream shards — another correct route
//!
//! Sequence numbers ten apart, a parent closed at its own last record, retention and
//! LATEST computed another way: what a reader sees is the same.

use given::{Change, Position, Shard, Shards, StreamShards};

/// The piece the engine runs in your world: one value, shared by every stream.
pub fn stream_shards() -> Box<dyn StreamShards> {
    Box::new(MyShards)
}

/// Stream shards, DynamoDB's way.
#[derive(Debug)]
pub struct MyShards;

/// Room between two sequence numbers: any increasing scheme reads the same to a consumer.
const STEP: u64 = 10;

/// The open shard of `partition`.
fn open_shard_of(shards: &Shards<'_>, partition: u32) -> Option<usize> {
    shards
        .list()
        .iter()
        .position(|s| s.partition == partition && s.is_open())
}

impl StreamShards for MyShards {
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]) {
        for &p in partitions {
            let start = shards.next_sequence();
            shards.open(p, None, start);
        }
    }

    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change) {
        // One counter for the stream: numbers increase in every shard, and across a split.
        let seq = shards.next_sequence();
        shards.set_next_sequence(seq + STEP);
        if let Some(shard) = open_shard_of(shards, partition) {
            shards.push(shard, seq, change);
        }
    }

    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]) {
        let next = shards.next_sequence();
        let closed = open_shard_of(shards, parent);
        if let Some(p) = closed {
            // Closed at its own last record (or where it began, if it got none).
            let s = &shards.list()[p];
            let end = s
                .records
                .last()
                .map_or(s.starting_sequence_number, |(seq, _, _)| *seq);
            shards.close(p, end);
        }
        for c in children {
            shards.open(c, closed, next);
        }
    }

    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        // Kept: written at most `retention_ms` ago. Records are oldest first.
        shard
            .records
            .partition_point(|(_, written, _)| written + retention_ms < now_ms)
    }

    fn iterator_start(&self, shard: &Shard, next_sequence: u64, position: Position) -> u64 {
        match position {
            Position::TrimHorizon => shard.trimmed_before.max(shard.starting_sequence_number),
            // The counter is above every number given, in this shard or any other.
            Position::Latest => next_sequence,
            Position::At(seq) => seq,
            Position::After(seq) => seq + 1,
        }
    }
}
