//! # Kata: stream shards — known wrong: LATEST starts at the oldest record kept, so it returns what was written before it

use given::{Change, Position, Shard, Shards, StreamShards};

/// The piece the engine runs in your world: one value, shared by every stream.
pub fn stream_shards() -> Box<dyn StreamShards> {
    Box::new(MyShards)
}

/// Stream shards, DynamoDB's way.
#[derive(Debug)]
pub struct MyShards;

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
        shards.set_next_sequence(seq + 1);
        if let Some(shard) = open_shard_of(shards, partition) {
            shards.push(shard, seq, change);
        }
    }

    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]) {
        let next = shards.next_sequence();
        let closed = open_shard_of(shards, parent);
        if let Some(p) = closed {
            let start = shards.list()[p].starting_sequence_number;
            shards.close(p, next.saturating_sub(1).max(start));
        }
        for c in children {
            shards.open(c, closed, next);
        }
    }

    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        let horizon = now_ms.saturating_sub(retention_ms);
        shard
            .records
            .iter()
            .take_while(|(_, written, _)| *written < horizon)
            .count()
    }

    fn iterator_start(&self, shard: &Shard, next_sequence: u64, position: Position) -> u64 {
        match position {
            Position::TrimHorizon | Position::Latest => {
                let _ = next_sequence;
                shard.trimmed_before.max(shard.starting_sequence_number)
            }
            Position::At(seq) => seq,
            Position::After(seq) => seq + 1,
        }
    }
}
