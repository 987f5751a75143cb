//! # Streams
//!
//! A DynamoDB stream is a change log of a table: one record per item-level change —
//! `INSERT`, `MODIFY` or `REMOVE` — with the item's key and, depending on the view type, its
//! new image, its old image, or both. Records are kept for 24 hours.
//!
//! Records live in **shards**. Each table partition writes to its own shard, so the records
//! of one item are in the order of its modifications, while records of items in different
//! partitions have no order between them. When a partition splits, its shard is closed and
//! two child shards open, each naming the parent; a reader finishes a parent before its
//! children to keep each item's order.
//!
//! ```text
//!  partition 0 ──▶ shard-0000 [INSERT k1][MODIFY k1][REMOVE k7] ─ closed at split
//!                     ├──▶ shard-0002 (parent shard-0000) [MODIFY k1] …
//!                     └──▶ shard-0003 (parent shard-0000) [INSERT k9] …
//!  partition 1 ──▶ shard-0001 [INSERT k2] …
//! ```
//!
//! Guarantees modelled: every change appears exactly once in the stream, in modification
//! order per item; a write that changes nothing and a failed conditional write write no
//! record; a transaction's records appear after it commits; TTL deletions appear as
//! `REMOVE` with the service's `userIdentity`. Sequence numbers increase within a shard.
//!
//! Readers use shard iterators (`TRIM_HORIZON`, `LATEST`, `AT_SEQUENCE_NUMBER`,
//! `AFTER_SEQUENCE_NUMBER`), which expire after 15 minutes; reading records older than the
//! retention period fails with `TrimmedDataAccessException`.
//!
//! Where a record goes, its sequence number, what a split does to the shards, what retention
//! drops and where each iterator starts are one replaceable piece, [`shards::StreamShards`]
//! (a seam; its rules and what stays with the engine are in [`shards`]). This file keeps the
//! records themselves: which changes make one, and what a reader sees of it.
//!
//! Left out: the 4-hour shard rollover and the limit of two concurrent readers per shard.

pub mod consumer;
pub mod shards;

pub use shards::{EngineShards, Piece, Position, Shard, Shards, StreamShards};

use std::sync::Arc;

use crate::table::key::KeySchema;
use crate::table::partition::Stored;
use crate::types::StreamViewType;
use crate::value::{item_size, Item};

/// `INSERT`, `MODIFY` or `REMOVE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OperationType {
    Insert,
    Modify,
    Remove,
}

impl OperationType {
    pub fn as_str(&self) -> &'static str {
        match self {
            OperationType::Insert => "INSERT",
            OperationType::Modify => "MODIFY",
            OperationType::Remove => "REMOVE",
        }
    }
}

/// Who made a change, when it was not the application (TTL deletes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// `Service`.
    pub r#type: String,
    /// `dynamodb.amazonaws.com`.
    pub principal_id: String,
}

/// The DynamoDB part of a stream record (the SDK's `StreamRecord`).
#[derive(Clone, Debug, PartialEq)]
pub struct StreamRecord {
    /// Epoch seconds of the change, rounded down.
    pub approximate_creation_date_time: u64,
    pub keys: Item,
    pub new_image: Option<Item>,
    pub old_image: Option<Item>,
    pub sequence_number: String,
    pub size_bytes: u64,
    pub stream_view_type: StreamViewType,
}

/// One stream record (the SDK's `Record`).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub event_id: String,
    pub event_name: OperationType,
    pub event_version: String,
    pub event_source: String,
    pub aws_region: String,
    pub user_identity: Option<Identity>,
    pub dynamodb: StreamRecord,
}

impl Record {
    pub fn event_name(&self) -> OperationType {
        self.event_name
    }
    pub fn keys(&self) -> &Item {
        &self.dynamodb.keys
    }
    pub fn new_image(&self) -> Option<&Item> {
        self.dynamodb.new_image.as_ref()
    }
    pub fn old_image(&self) -> Option<&Item> {
        self.dynamodb.old_image.as_ref()
    }
    pub fn sequence_number(&self) -> &str {
        &self.dynamodb.sequence_number
    }
    /// Whether DynamoDB's TTL process made this change.
    pub fn is_ttl_delete(&self) -> bool {
        self.user_identity
            .as_ref()
            .is_some_and(|i| i.principal_id == TTL_PRINCIPAL)
    }
}

/// A change as the stream keeps it: the stored images are shared with the table (no copy per
/// write); the `Record` a reader sees is built when it is read.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub event_name: OperationType,
    pub old: Option<Arc<Stored>>,
    pub new: Option<Arc<Stored>>,
    pub ttl: bool,
    pub epoch_seconds: u64,
    pub size_bytes: u64,
}

/// A table's stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    pub arn: String,
    pub label: String,
    pub view_type: StreamViewType,
    pub shards: Vec<Shard>,
    /// The next sequence number (shared by the stream's shards, so numbers increase).
    pub next_sequence: u64,
    pub next_shard: u32,
    /// Set when the stream was disabled: no more records.
    pub disabled: bool,
    /// When the stream was enabled (simulated ms): DescribeStream's
    /// `CreationRequestDateTime`.
    pub created_ms: u64,
    /// The piece that files this stream's records in shards ([`shards`]).
    pub piece: Piece,
}

impl Stream {
    /// A new stream on a table whose partitions are `partitions`, its shards opened by
    /// `piece`.
    pub fn new(
        arn: String,
        label: String,
        view_type: StreamViewType,
        partitions: &[u32],
        now_ms: u64,
        piece: Arc<dyn StreamShards>,
    ) -> Stream {
        let mut stream = Stream {
            arn,
            label,
            view_type,
            shards: Vec::new(),
            next_sequence: SEQUENCE_BASE,
            next_shard: 0,
            disabled: false,
            created_ms: now_ms,
            piece: Piece(piece),
        };
        let piece = stream.piece.0.clone();
        piece.open_stream(&mut Shards::new(&mut stream, now_ms), partitions);
        stream
    }

    /// Disables the stream: no more records, and every open shard is closed at its last
    /// record, so DescribeStream shows each with an `EndingSequenceNumber` (as the service
    /// does once a stream is disabled); a shard that never had a record ends where it began.
    pub fn disable(&mut self) {
        self.disabled = true;
        for s in &mut self.shards {
            if s.ending_sequence_number.is_none() {
                let last = s.records.last().map_or(s.starting_sequence_number, |r| r.0);
                s.ending_sequence_number = Some(last);
            }
        }
    }

    /// The parent partition split: the piece closes its shard and opens the children's.
    pub fn on_split(&mut self, parent: u32, children: [u32; 2], now_ms: u64) {
        if self.disabled {
            // Its shards are all closed; a disabled stream gets no new ones.
            return;
        }
        let piece = self.piece.0.clone();
        piece.split(&mut Shards::new(self, now_ms), parent, children);
    }

    /// Makes the record of one change, and has the piece file it in a shard.
    pub fn append(
        &mut self,
        partition: u32,
        old: Option<&Arc<Stored>>,
        new: Option<&Arc<Stored>>,
        now_ms: u64,
        epoch_seconds: u64,
        ttl: bool,
    ) {
        if self.disabled {
            return;
        }
        let event_name = match (old, new) {
            (None, Some(_)) => OperationType::Insert,
            (Some(_), Some(_)) => OperationType::Modify,
            (Some(_), None) => OperationType::Remove,
            (None, None) => return,
        };
        let size = match self.view_type {
            StreamViewType::KeysOnly => 0,
            StreamViewType::NewImage => new.map_or(0, |s| s.size()),
            StreamViewType::OldImage => old.map_or(0, |s| s.size()),
            StreamViewType::NewAndOldImages => {
                new.map_or(0, |s| s.size()) + old.map_or(0, |s| s.size())
            }
        };
        let change = Change {
            event_name,
            old: old.cloned(),
            new: new.cloned(),
            ttl,
            epoch_seconds,
            size_bytes: size.max(1) as u64,
        };
        let piece = self.piece.0.clone();
        piece.append(&mut Shards::new(self, now_ms), partition, change);
    }

    /// The record a reader sees for one change (keys from the table's key schema).
    pub fn record(&self, seq: u64, change: &Change, schema: &KeySchema) -> Record {
        let image = change.new.as_ref().or(change.old.as_ref());
        let keys = image
            .map(|s| schema.key_attributes_of(s))
            .unwrap_or_default();
        let (new_image, old_image) = match self.view_type {
            StreamViewType::KeysOnly => (None, None),
            StreamViewType::NewImage => (change.new.as_ref().map(|s| s.item().clone()), None),
            StreamViewType::OldImage => (None, change.old.as_ref().map(|s| s.item().clone())),
            StreamViewType::NewAndOldImages => (
                change.new.as_ref().map(|s| s.item().clone()),
                change.old.as_ref().map(|s| s.item().clone()),
            ),
        };
        let size_bytes = change.size_bytes + item_size(&keys) as u64;
        Record {
            event_id: format!("{seq:032x}"),
            event_name: change.event_name,
            event_version: "1.1".to_string(),
            event_source: "aws:dynamodb".to_string(),
            aws_region: region_of_arn(&self.arn).to_string(),
            user_identity: change.ttl.then(|| Identity {
                r#type: "Service".to_string(),
                principal_id: TTL_PRINCIPAL.to_string(),
            }),
            dynamodb: StreamRecord {
                approximate_creation_date_time: change.epoch_seconds,
                keys,
                new_image,
                old_image,
                sequence_number: format_sequence(seq),
                size_bytes,
                stream_view_type: self.view_type.clone(),
            },
        }
    }

    /// Drops the records the piece says retention trims (a prefix of each shard).
    pub fn trim(&mut self, now_ms: u64, retention_ms: u64) {
        let piece = self.piece.0.clone();
        for shard in &mut self.shards {
            let cut = piece
                .trim(shard, now_ms, retention_ms)
                .min(shard.records.len());
            if cut > 0 {
                shard.trimmed_before = shard.records[cut - 1].0 + 1;
                shard.records.drain(..cut);
            }
        }
        // A closed shard with nothing left and older than retention disappears.
        self.shards.retain(|s| {
            s.ending_sequence_number.is_none() || !s.records.is_empty() || s.trimmed_before == 0
        });
    }
}

/// The Region an ARN names (`arn:aws:dynamodb:<region>:…`): a stream record's `awsRegion`.
fn region_of_arn(arn: &str) -> &str {
    arn.split(':').nth(3).unwrap_or(crate::table::REGION)
}

/// Sequence numbers are shown as 21-digit strings, as DynamoDB's are at least.
pub fn format_sequence(seq: u64) -> String {
    format!("{seq:021}")
}

/// The first sequence number of every stream (21 digits when formatted).
pub const SEQUENCE_BASE: u64 = 100_000_000_000_000_000;
/// The principal of TTL deletions in stream records.
pub const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";
