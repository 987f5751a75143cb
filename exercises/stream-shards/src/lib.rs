//! # Kata: stream shards
//!
//! DynamoDB Streams' shards, the piece of the engine that files each change record: which
//! shard it goes to, its sequence number, what a partition split does to the shards, which
//! records retention drops, where each kind of iterator starts — task, contract and rules in
//! `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use given::{Change, Position, Shard, Shards, StreamShards, RETENTION_MS, SEQUENCE_BASE};

// The trait and its types are the engine's (`given` re-exports them):
//   shards.list() -> &[Shard]   (in the order opened; an index names a shard)
//   shards.open(partition, parent: Option<usize>, starting_sequence) -> usize
//   shards.close(index, ending_sequence), shards.push(index, sequence, change)
//   shards.next_sequence(), shards.set_next_sequence(n)   (the stream's counter)
//   Shard { partition, parent_shard_id, records: Vec<(seq, written_ms, Change)>,
//           starting_sequence_number, ending_sequence_number, trimmed_before }, shard.is_open()

/// The piece the engine runs in your world: one value, shared by every stream.
pub fn stream_shards() -> Box<dyn StreamShards> {
    Box::new(MyShards)
}

/// Your piece. It may hold settings, but no state: what it keeps lives in the stream.
#[derive(Debug)]
pub struct MyShards;

impl StreamShards for MyShards {
    /// A stream was enabled on a table with these partitions.
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]) {
        // TODO: which shards does a new stream have?
        let _ = (shards, partitions);
    }

    /// One change record of an item stored in `partition`.
    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change) {
        // TODO: which shard, which sequence number?
        let _ = (shards, partition, change);
    }

    /// Partition `parent` split into `children`.
    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]) {
        // TODO: what happens to the parent's shard, and which shards open?
        let _ = (shards, parent, children);
    }

    /// How many of the shard's oldest records retention drops now.
    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        // TODO: which records are older than the retention period?
        let _ = (shard, now_ms, retention_ms);
        0
    }

    /// The sequence number an iterator starts at (it returns the records from it on).
    fn iterator_start(&self, shard: &Shard, next_sequence: u64, position: Position) -> u64 {
        // TODO: TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER.
        let _ = (shard, next_sequence, position);
        0
    }
}
