//! # The partition router: which partition owns a key, and where a partition splits
//!
//! Every request DynamoDB receives names a primary key. Its *request router* hashes the
//! partition key — the partition key alone — and sends the request to the partition whose
//! range of the hash space holds that hash. Two consequences drive most data-modelling
//! advice: items that share a partition key share a hash, so an item collection always lives
//! on one partition, stored in sort-key order (what makes Query cheap); and nearby keys
//! (`customer#41`, `customer#42`) land far apart, so load spreads — unless one key is hot.
//!
//! ```text
//!  PutItem {PK: "customer#42", SK: "order#7"}
//!     │
//!     ▼  hash(partition key)            sort key: never part of the hash
//!  0x9f3a…                              ────────────────────────────────
//!     │  route(hash, ranges)
//!     ▼
//!  ┌ partition 1 ───────┬ partition 3 ─────────┬ partition 4 ─────────┐
//!  │ 0x0000… – 0x7fff…  │ 0x8000… – 0xbfff…    │ 0xc000… – 0xffff…    │
//!  └────────────────────┴──────▲───────────────┴──────────────────────┘
//!                              0x9f3a… lands here, beside customer#42's other items
//! ```
//!
//! When a partition grows past its size limit (10 GB; a test world scales it down) or stays
//! hot, DynamoDB splits it: the partition's hash range is cut in two, each half takes the
//! items whose hash falls in it. A cut is a *hash*, so it can never fall inside an item
//! collection; and when everything a partition holds (or all its traffic) sits on one hash,
//! no cut exists — which is why a single hot key cannot be split away and write sharding
//! exists.
//!
//! ## The seam
//!
//! [`PartitionRouter`] holds the decisions; the engine keeps the mechanics. The router
//! decides what a key hashes to ([`PartitionRouter::hash`]), which partition owns a hash
//! ([`PartitionRouter::route`]), and where a partition is cut
//! ([`PartitionRouter::split_for_size`], [`PartitionRouter::split_for_heat`]): it returns
//! the two halves' hash ranges, or `None` for no split. The engine then moves each replica's
//! items to the half whose range holds their hash (items `>= right.start` go right, the rest
//! left — the engine trusts the plan it is given), carries in-flight replication over,
//! renumbers the partitions and records the split. The engine's own router is
//! [`EngineRouter`]; a world runs another through
//! [`Pieces::router`](crate::seams::Pieces::router).
//!
//! The engine's path goes through the same trait object a learner's would: each
//! [`KeySchema`](super::key::KeySchema) carries the router of the world that made it, and
//! every store key, Query, index entry and split asks it.
//!
//! ## The engine's rules
//!
//! - **Hash**: FNV-1a-64 over the key's type tag byte (`b'S'`, `b'N'`, `b'B'`) followed by its
//!   bytes (UTF-8 for a string, the canonical decimal text for a number — `1.50` is `"1.5"`
//!   — the raw bytes for a binary), then the splitmix64 finalizer so that nearby keys spread
//!   over the whole space. DynamoDB's real hash is internal; this one is stable on every
//!   platform, so a test can name the partition a key lands on.
//! - **Route**: the partition whose range holds the hash; ranges are sorted by start,
//!   contiguous and cover `0..=u64::MAX`.
//! - **Split for size**: cut before the median item collection — the collections a
//!   partition holds, in hash order, the one at index `len / 2` starts the right half. Fewer
//!   than two collections: no split (one giant collection cannot be cut). DynamoDB does not
//!   publish its rule (the paper says a split point is chosen from the key distribution);
//!   the collection median is the model's choice (unverified), kept because every split a
//!   lesson shows is computed with it.
//! - **Split for heat**: cut at the weighted median of the traffic by hash (the first hash at
//!   which the running sum of units reaches half the total starts the right half; if that is
//!   the first hot hash, the second one does, so the left half is never empty). Fewer than
//!   two hot hashes: no split — the single hot key case.
//!
//! Left out on purpose: DynamoDB's real hash function, splits that isolate one item
//! collection of a table with local secondary indexes (it will not split those), and
//! partitions merging (the partition count never goes down).

use super::key::{splitmix_finalize, KeyValue};
use std::sync::Arc;

/// A replaceable partition router: the decisions of key placement and splitting.
///
/// Implementations must be deterministic: the same inputs give the same answer (a world's
/// run is replayed from its seed). They never see the items themselves, only hashes, counts
/// and sizes.
pub trait PartitionRouter {
    /// The partition hash of an item's key. `partition_key` is the key's partition key;
    /// `sort_key` is its sort key when the request names one — a GetItem or PutItem of a
    /// table with a sort key does, a Query never does (it names only the partition key).
    /// DynamoDB's hash depends on the partition key alone: a hash that reads the sort key
    /// scatters an item collection and a Query can no longer find it.
    fn hash(&self, partition_key: KeyBytes<'_>, sort_key: Option<KeyBytes<'_>>) -> u64;

    /// Which partition owns `hash`: an index into `partitions`, the store's hash ranges
    /// sorted by start (contiguous, together covering `0..=u64::MAX`, at least one). Called
    /// for every request: keep it cheap. (An index past the end is read as the last one.)
    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize;

    /// A partition holding more than the size limit: where to cut it. `partition` is its
    /// hash range; `collections` are the item collections it holds (one per distinct hash,
    /// in hash order, each with its item count and bytes; never empty). Returns the two
    /// halves `[left, right]` — `left` starting at `partition.start`, `right` ending at
    /// `partition.end`, `right.start == left.end + 1` — or `None` when no cut exists.
    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]>;

    /// A partition that stayed hot (at or above the heat threshold for the configured
    /// number of seconds): where to cut it. `heat` is the traffic the partition saw, as
    /// (hash, capacity units) in hash order, one entry per hash that was hit (possibly
    /// empty). Returns the two halves as for [`PartitionRouter::split_for_size`], or `None`.
    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]>;
}

/// The router a world runs, shared by every key schema of the world.
pub type Router = Arc<dyn PartitionRouter + Send + Sync>;

/// A contiguous, inclusive range of the hash space: what one partition owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HashRange {
    /// The first hash owned.
    pub start: u64,
    /// The last hash owned (inclusive).
    pub end: u64,
}

impl HashRange {
    /// The whole hash space.
    pub const ALL: HashRange = HashRange {
        start: 0,
        end: u64::MAX,
    };

    pub fn new(start: u64, end: u64) -> HashRange {
        HashRange { start, end }
    }

    /// True if `hash` falls in the range.
    pub fn contains(&self, hash: u64) -> bool {
        self.start <= hash && hash <= self.end
    }
}

/// One key value as the router sees it: its type tag and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyBytes<'a> {
    /// `b'S'` (string), `b'N'` (number) or `b'B'` (binary).
    pub tag: u8,
    /// UTF-8 for a string, the canonical decimal text for a number, the raw bytes for a
    /// binary.
    pub bytes: &'a [u8],
}

/// One item collection of a partition being split for size: all items of one partition
/// key (they share `hash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Collection {
    pub hash: u64,
    /// How many items the collection holds.
    pub items: usize,
    /// Their total size in bytes (as DynamoDB counts item sizes).
    pub bytes: usize,
}

/// The engine's own router (the rules in the module essay).
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineRouter;

impl PartitionRouter for EngineRouter {
    fn hash(&self, partition_key: KeyBytes<'_>, _sort_key: Option<KeyBytes<'_>>) -> u64 {
        crate::seams::guard::ROUTER.refuse();
        let mut h = FNV_OFFSET;
        for b in std::iter::once(&partition_key.tag).chain(partition_key.bytes) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        splitmix_finalize(h)
    }

    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        crate::seams::guard::ROUTER.refuse();
        // Sorted by start and covering the space: the last range starting at or below hash.
        partitions
            .partition_point(|r| r.start <= hash)
            .saturating_sub(1)
    }

    fn split_for_size(
        &self,
        partition: HashRange,
        collections: &[Collection],
    ) -> Option<[HashRange; 2]> {
        crate::seams::guard::ROUTER.refuse();
        if collections.len() < 2 {
            return None;
        }
        cut(partition, collections[collections.len() / 2].hash)
    }

    fn split_for_heat(&self, partition: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        crate::seams::guard::ROUTER.refuse();
        if heat.len() < 2 {
            return None;
        }
        let total: f64 = heat.iter().map(|(_, units)| units).sum();
        let mut acc = 0.0;
        let mut mid = heat[heat.len() - 1].0;
        for (h, units) in heat {
            acc += units;
            if acc >= total / 2.0 {
                mid = *h;
                break;
            }
        }
        // The median hash itself goes right; the left half must not be empty.
        if mid == heat[0].0 {
            mid = heat[1].0;
        }
        cut(partition, mid)
    }
}

/// The two halves of `range` when `mid` starts the right one, if `mid` falls strictly inside.
fn cut(range: HashRange, mid: u64) -> Option<[HashRange; 2]> {
    if mid <= range.start || mid > range.end {
        return None;
    }
    Some([
        HashRange::new(range.start, mid - 1),
        HashRange::new(mid, range.end),
    ])
}

/// Calls `f` with the router's view of a key value. A number's canonical text is written
/// into a buffer on the stack: this runs for every key of every request, and a heap string
/// per hash would cost more than the hash.
pub fn with_key_bytes<R>(value: &KeyValue, f: impl FnOnce(KeyBytes<'_>) -> R) -> R {
    match value {
        KeyValue::S(s) => f(KeyBytes {
            tag: b'S',
            bytes: s.as_bytes(),
        }),
        KeyValue::B(b) => f(KeyBytes {
            tag: b'B',
            bytes: b,
        }),
        KeyValue::N(n) => {
            use std::io::Write;
            let mut buf = [0u8; NUMBER_TEXT_MAX];
            let mut cursor = std::io::Cursor::new(&mut buf[..]);
            write!(cursor, "{n}").expect("a canonical number fits the buffer");
            let len = cursor.position() as usize;
            f(KeyBytes {
                tag: b'N',
                bytes: &buf[..len],
            })
        }
        // Never stored nor hashed (a query bound only); hashed as the text "MAX" under an
        // 'M' tag so it has some fixed place.
        KeyValue::Max => f(KeyBytes {
            tag: b'M',
            bytes: b"AX",
        }),
    }
}

/// FNV-1a-64's offset basis and prime.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
pub const FNV_PRIME: u64 = 0x0100_0000_01b3;
/// Room for the longest canonical number text: plain decimal of magnitudes from 1e-130 to
/// 9.99…e125 is at most a sign, "0.", 129 zeros and a digit (133 bytes).
const NUMBER_TEXT_MAX: usize = 160;
