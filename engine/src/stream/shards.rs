//! # Stream shards: where a change record goes, its number, and how long it stays
//!
//! A stream is cut into shards so that it can grow with its table: each table partition
//! writes its changes to one open shard, in the order the partition applies them, so every
//! record of one item is in one shard, in modification order — and records of items in
//! different partitions have no order between them. Four rules make a reader's job possible:
//!
//! - **One open shard per partition.** A record goes to the open shard of the partition
//!   that stores the item (never to a closed one, never to another partition's).
//! - **Sequence numbers increase.** Each record gets a number larger than every number given
//!   before it in the stream; so within a shard numbers increase, and a child's numbers are
//!   above its parent's. A shard's `SequenceNumberRange` starts at or below its first record
//!   and, once closed, ends at or above its last.
//! - **Lineage on a split.** When a partition splits, its shard is closed (it takes no more
//!   records and gets an `EndingSequenceNumber`) and one shard opens per child partition,
//!   each naming the closed one as its `ParentShardId`. A reader that finishes the parent
//!   before its children reads every item's changes in order.
//! - **Retention.** Records older than the retention period (24 hours, DynamoDB's) are
//!   trimmed; one exactly that old is still kept. An iterator that points below what is
//!   kept fails with `TrimmedDataAccessException`.
//!
//! ```text
//!  partition 1 ──▶ shard A  #1 #2 #4 ─ closed at #5 (the split)
//!                    ├──▶ shard C (parent A)   #6 #8 …     partition 3
//!                    └──▶ shard D (parent A)   #7 …        partition 4
//!  partition 2 ──▶ shard B  #3 #5 #9 …                     (numbers: one counter)
//!
//!  one shard:    [trimmed…] #14 #15 #16 #17 ▏ (next)
//!                            ▲       ▲   ▲   ▲
//!                TRIM_HORIZON   AT #16 │   LATEST: only records written from now on
//!                                AFTER #16
//! ```
//!
//! Iterators: `TRIM_HORIZON` starts at the oldest record kept, `LATEST` just after the newest
//! (it returns only what is written later), `AT_SEQUENCE_NUMBER` at the named record,
//! `AFTER_SEQUENCE_NUMBER` at the record after it.
//!
//! ## The piece: [`StreamShards`]
//!
//! These decisions are one replaceable piece of the engine (a seam, [`crate::seams`]): a
//! [`StreamShards`] opens a new stream's shards, files each change record in a shard with
//! its sequence number, reshapes the shard tree at a split, says how many of a shard's
//! oldest records retention drops, and says where an iterator of each type starts. It keeps
//! no state of its own: one value serves every stream of a world, and what it must remember
//! (the shards, their records, the stream's sequence counter) lives in the stream, reached
//! through [`Shards`].
//!
//! What stays with the engine, whatever the piece decides:
//!
//! - **Storage and names.** The engine stores shards and records, names a shard when the
//!   piece opens one (`shardId-<opened, ms>-<counter>`, so ids sort in opening order) and
//!   drops the records retention trims; a closed shard with nothing left goes.
//! - **The record.** Which changes make a record at all (a write that changes nothing, or a
//!   failed condition, makes none), its event name, images, size and `userIdentity`; the
//!   piece files a [`Change`] it is given.
//! - **The wire.** DescribeStream, GetShardIterator and GetRecords: the 21-digit form of a
//!   sequence number, pages of at most 1,000 records or 1 MB, iterators that expire after 15
//!   minutes, `TrimmedDataAccessException` for an iterator below what a shard keeps, no
//!   `NextShardIterator` once a closed shard is read to its end.
//! - **When.** Splits and trims run as the world's background work; a disabled stream gets
//!   no records and no new shards, and its open shards are closed at their last record.
//!
//! Design decisions:
//! - The piece writes through [`Shards`], not into the vector. The alternative — handing it
//!   `&mut Vec<Shard>` — would let it invent shard ids or rewrite a record's content; the
//!   view lets it decide placement, numbers and lineage and nothing else.
//! - The counter is the stream's, set by the piece. Sequence numbers are the piece's choice
//!   (the engine's counts up by one; any increasing scheme reads the same to a consumer), and
//!   a piece cannot keep state, so the stream keeps the next number for it. Consumers
//!   subscribed at `LATEST` start at that number.
//! - Retention answers a count, not a list: a shard's records are oldest first, so what a
//!   trim drops is always a prefix.
//!
//! Left out on purpose: the roughly four-hourly rollover of shards DynamoDB does without a
//! split (unverified in its timing), and a split with a single child.

use std::sync::Arc;

use super::{Change, Stream};

/// The stream-shards piece: placement, numbering, lineage, retention and iterator starts of
/// one stream's shards. One value serves every stream of a world; it keeps no state. The
/// engine's own is `Pieces::default().stream_shards` ([`EngineShards`]).
pub trait StreamShards: Send + Sync {
    /// A stream was enabled on a table whose partitions are `partitions`: open its shards.
    /// The stream's counter starts at [`SEQUENCE_BASE`](super::SEQUENCE_BASE).
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]);

    /// One change record of an item stored in `partition`: file it in a shard, with its
    /// sequence number, and move the counter on.
    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change);

    /// Partition `parent` split into `children`: reshape the shard tree.
    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]);

    /// How many of `shard`'s oldest records retention drops now: the time is `now_ms`
    /// (simulated ms), the retention period `retention_ms`. Each record is
    /// `(sequence number, simulated ms written, change)`, oldest first.
    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize;

    /// The sequence number an iterator of this kind starts at on `shard`: GetRecords then
    /// returns the shard's records numbered at or after it. `next_sequence` is the stream's
    /// counter. Below the shard's `trimmed_before`, the engine answers
    /// `TrimmedDataAccessException`.
    fn iterator_start(&self, shard: &Shard, next_sequence: u64, position: Position) -> u64;
}

/// Where a reader asked an iterator to start (GetShardIterator's `ShardIteratorType`, with
/// its `SequenceNumber` parsed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// `TRIM_HORIZON`: the oldest record still kept.
    TrimHorizon,
    /// `LATEST`: after the newest record, so only records written later.
    Latest,
    /// `AT_SEQUENCE_NUMBER`: the record with this number.
    At(u64),
    /// `AFTER_SEQUENCE_NUMBER`: the record after the one with this number.
    After(u64),
}

/// One shard: the records of one partition between two splits.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    pub shard_id: String,
    pub parent_shard_id: Option<String>,
    /// The partition whose changes this shard carries.
    pub partition: u32,
    /// (sequence number, simulated ms, change) of each record, oldest first.
    pub records: Vec<(u64, u64, Change)>,
    pub starting_sequence_number: u64,
    /// Set when the shard was closed (its partition split).
    pub ending_sequence_number: Option<u64>,
    /// Sequence numbers below this were trimmed (retention).
    pub trimmed_before: u64,
}

impl Shard {
    /// Whether the shard still takes records (no `EndingSequenceNumber`).
    pub fn is_open(&self) -> bool {
        self.ending_sequence_number.is_none()
    }
}

/// One stream's shards as a piece changes them: read them, open and close shards, file
/// records, keep the stream's sequence counter.
#[derive(Debug)]
pub struct Shards<'a> {
    stream: &'a mut Stream,
    now_ms: u64,
}

impl<'a> Shards<'a> {
    pub(crate) fn new(stream: &'a mut Stream, now_ms: u64) -> Shards<'a> {
        Shards { stream, now_ms }
    }

    /// The time now (simulated ms): a record filed now is written at this time.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The stream's shards, in the order they were opened (an index names one).
    pub fn list(&self) -> &[Shard] {
        &self.stream.shards
    }

    /// The stream's counter: the piece's next sequence number.
    pub fn next_sequence(&self) -> u64 {
        self.stream.next_sequence
    }

    /// Sets the stream's counter.
    pub fn set_next_sequence(&mut self, next: u64) {
        self.stream.next_sequence = next;
    }

    /// Opens a shard for `partition`, continuing `parent` (an index into [`list`](Self::list))
    /// if it has one, its range starting at `starting_sequence`; the engine names it. Returns
    /// its index.
    pub fn open(&mut self, partition: u32, parent: Option<usize>, starting_sequence: u64) -> usize {
        let stream = &mut *self.stream;
        let parent_shard_id = parent
            .and_then(|p| stream.shards.get(p))
            .map(|p| p.shard_id.clone());
        let shard_id = format!("shardId-{:020}-{:08x}", self.now_ms, stream.next_shard);
        stream.next_shard += 1;
        stream.shards.push(Shard {
            shard_id,
            parent_shard_id,
            partition,
            records: Vec::new(),
            starting_sequence_number: starting_sequence,
            ending_sequence_number: None,
            trimmed_before: 0,
        });
        stream.shards.len() - 1
    }

    /// Closes shard `index` at `ending_sequence` (its `EndingSequenceNumber`).
    pub fn close(&mut self, index: usize, ending_sequence: u64) {
        if let Some(s) = self.stream.shards.get_mut(index) {
            s.ending_sequence_number = Some(ending_sequence);
        }
    }

    /// Files `change` in shard `index` as its newest record, numbered `sequence`, written now.
    pub fn push(&mut self, index: usize, sequence: u64, change: Change) {
        if let Some(s) = self.stream.shards.get_mut(index) {
            s.records.push((sequence, self.now_ms, change));
        }
    }
}

/// The piece a stream runs (the world's
/// [`Pieces::stream_shards`](crate::seams::Pieces::stream_shards)), carried by the stream so
/// that every path that writes it — requests, TTL deletes, replication from other Regions,
/// splits and trims — asks the same piece.
#[derive(Clone)]
pub struct Piece(pub Arc<dyn StreamShards>);

impl std::fmt::Debug for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamShards")
    }
}

/// Two streams are equal by content; the piece they run is not compared.
impl PartialEq for Piece {
    fn eq(&self, _: &Piece) -> bool {
        true
    }
}

/// The engine's piece: DynamoDB's rules as this model has them.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineShards;

/// The open shard of `partition`, if it has one.
fn open_shard_of(shards: &Shards<'_>, partition: u32) -> Option<usize> {
    shards
        .list()
        .iter()
        .position(|s| s.partition == partition && s.is_open())
}

impl StreamShards for EngineShards {
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]) {
        for &p in partitions {
            let start = shards.next_sequence();
            shards.open(p, None, start);
        }
    }

    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change) {
        // One counter for the whole stream: numbers increase across shards too, so a
        // child's records are numbered above its parent's.
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
            // The range ends at the last number given before the split (a shard that got
            // none ends where it began).
            let start = shards.list()[p].starting_sequence_number;
            shards.close(p, next.saturating_sub(1).max(start));
        }
        for c in children {
            shards.open(c, closed, next);
        }
    }

    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        let horizon = now_ms.saturating_sub(retention_ms);
        shard.records.partition_point(|(_, at, _)| *at < horizon)
    }

    fn iterator_start(&self, shard: &Shard, next_sequence: u64, position: Position) -> u64 {
        match position {
            Position::TrimHorizon => shard.trimmed_before.max(shard.starting_sequence_number),
            Position::Latest => shard
                .records
                .last()
                .map_or(next_sequence, |(seq, _, _)| seq + 1),
            Position::At(seq) => seq,
            Position::After(seq) => seq.saturating_add(1),
        }
    }
}
