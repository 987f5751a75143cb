//! # Kata: stream shards — known wrong: records go to the open shard with the fewest records, to spread the load, whatever their partition

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
        // Keep the shards even: the open shard holding the fewest records takes the next one.
        let _ = partition;
        let least = (0..shards.list().len())
            .filter(|&i| shards.list()[i].is_open())
            .min_by_key(|&i| shards.list()[i].records.len());
        if let Some(shard) = least {
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
            Position::TrimHorizon => shard.trimmed_before.max(shard.starting_sequence_number),
            Position::Latest => shard
                .records
                .last()
                .map_or(next_sequence, |(seq, _, _)| seq + 1),
            Position::At(seq) => seq,
            Position::After(seq) => seq + 1,
        }
    }
}
