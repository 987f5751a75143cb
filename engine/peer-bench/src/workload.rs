//! The workloads, written once for both stores.
//!
//! A side (the engine, the peer) is a [`Side`]: it loads the same data set and performs
//! operation `i` of a [`Workload`] in its own API. The items and keys of every workload are built
//! here, generically over [`Attrs`] (implemented for each store's item type), so the two sides
//! cannot drift apart in what they store; each side converts nothing at run time.
//!
//! Data set (both sides, before any timing):
//!
//! ```text
//! table  key        items                                          read by
//! bench  PK, SK     10,000 users  USER#00000 / PROFILE  (~100 B)   GetItem, PutItem, UpdateItem
//!                   1,000 feeds × 10  FEED#0000 / POST#00          Query
//!                   BATCH#00000 / ITEM, written as it goes         BatchWriteItem
//! scan   PK         1,000 items, category = i % 10                 Scan with a filter
//! orders PK, SK     written as it goes; GSI1 (status, date) and    PutItem with 2 GSIs
//!        + 2 GSIs   GSI2 (email), both projecting ALL
//! ```
//!
//! Each side keeps its own state (the versions it wrote, its clock): the engine runs more
//! operations than the peer in the same time, so after the first timed run their tables differ
//! in counters and versions, never in shape. The probe that compares them runs first, from
//! the same state on both sides.

use std::collections::BTreeMap;

/// Users in table `bench`.
pub const USERS: usize = 10_000;
/// Item collections of 10 posts in table `bench`.
pub const FEEDS: usize = 1_000;
/// Posts per feed: one Query page.
pub const POSTS: usize = 10;
/// Items in table `scan`.
pub const SCAN_ITEMS: usize = 1_000;
/// Distinct `category` values in table `scan`: a Scan's filter keeps one in this many.
pub const CATEGORIES: usize = 10;
/// Writes in one BatchWriteItem (its maximum).
pub const BATCH_WRITES: usize = 25;
/// Distinct keys BatchWriteItem and the GSI puts cycle through.
pub const WRITE_KEYS: usize = 10_000;

/// One measured operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    Get,
    ConditionalPut,
    Update,
    Query,
    BatchWrite,
    Scan,
    PutWithGsis,
}

impl Workload {
    pub const ALL: [Workload; 7] = [
        Workload::Get,
        Workload::ConditionalPut,
        Workload::Update,
        Workload::Query,
        Workload::BatchWrite,
        Workload::Scan,
        Workload::PutWithGsis,
    ];

    /// The name a command line selects it by.
    pub fn key(self) -> &'static str {
        match self {
            Workload::Get => "get",
            Workload::ConditionalPut => "put",
            Workload::Update => "update",
            Workload::Query => "query",
            Workload::BatchWrite => "batch",
            Workload::Scan => "scan",
            Workload::PutWithGsis => "put_gsi",
        }
    }

    /// What the printed table calls it.
    pub fn label(self) -> &'static str {
        match self {
            Workload::Get => "GetItem (strong, 1 of 10k)",
            Workload::ConditionalPut => "PutItem, condition `version = :v`",
            Workload::Update => "UpdateItem, `SET n = n + :one`",
            Workload::Query => "Query, one page of 10 items (strong)",
            Workload::BatchWrite => "BatchWriteItem of 25 puts",
            Workload::Scan => "Scan of 1,000 items, filter keeps 100",
            Workload::PutWithGsis => "PutItem, 2 GSIs (ALL), index caught up",
        }
    }

    /// Capacity units one operation takes, about: the engine's side moves its simulated clock
    /// on by a second per 1,000 of them, so its capacity refills and nothing is throttled.
    pub fn units(self) -> usize {
        match self {
            Workload::BatchWrite => BATCH_WRITES,
            // 1,000 items of ~100 bytes, eventually consistent: 100 KB / 8 KB.
            Workload::Scan => 13,
            _ => 1,
        }
    }
}

/// What an operation returned, in a form both stores share: compared once per workload
/// before any timing, so the ratios compare the same work.
#[derive(Debug, PartialEq, Eq)]
pub struct Seen {
    /// Items returned (Query, Scan), or 1 for a single item found.
    pub count: usize,
    /// Items read before a filter (Scan), else `count`.
    pub scanned: usize,
    /// The items returned (for a write, the item read back after it), in the store's order
    /// for Query, sorted by key for Scan (the stores scan in different orders).
    pub items: Vec<Row>,
}

/// An item as text: name → `S:…` / `N:…`.
pub type Row = BTreeMap<String, String>;

impl Seen {
    pub fn items(count: usize, scanned: usize, items: Vec<Row>) -> Seen {
        Seen {
            count,
            scanned,
            items,
        }
    }
    pub fn one(item: Option<Row>) -> Seen {
        let items: Vec<Row> = item.into_iter().collect();
        Seen::items(items.len(), items.len(), items)
    }
}

/// A store under test.
pub trait Side: Sized {
    /// The store with the data set loaded (see the module's table).
    fn load() -> Self;
    /// Operation `i` of `w`. With `probe`, also what it returned (a write reads its item
    /// back; a put into the indexed table reads it back through GSI2 once the index holds
    /// it); without, nothing is converted and the result is dropped.
    fn op(&mut self, w: Workload, i: usize, probe: bool) -> Option<Seen>;
}

/// An item type being built: each store's `HashMap<String, AttributeValue>`.
pub trait Attrs: Sized {
    fn empty() -> Self;
    fn s(self, name: &str, value: String) -> Self;
    fn n(self, name: &str, value: i64) -> Self;
}

/// Each store's item as a [`Row`] (the stores hold only strings and numbers here).
pub trait ToRow {
    fn to_row(&self) -> Row;
}

pub fn user_pk(k: usize) -> String {
    format!("USER#{k:05}")
}
pub fn feed_pk(c: usize) -> String {
    format!("FEED#{c:04}")
}
pub const PROFILE: &str = "PROFILE";

/// A user (~100 bytes): the item GetItem reads and the conditional PutItem rewrites.
pub fn user<A: Attrs>(k: usize, version: i64) -> A {
    A::empty()
        .s("PK", user_pk(k))
        .s("SK", PROFILE.to_string())
        .n("n", 0)
        .n("version", version)
        .s("name", "Ana Lovelace".to_string())
        .s("bio", "x".repeat(52))
}

/// Post `p` of feed `c`.
pub fn post<A: Attrs>(c: usize, p: usize) -> A {
    A::empty()
        .s("PK", feed_pk(c))
        .s("SK", format!("POST#{p:02}"))
        .n("likes", (c * POSTS + p) as i64)
        .s("title", format!("Post {p} of feed {c}"))
        .s("body", "y".repeat(40))
}

/// Write `j` of batch `i`.
pub fn batch_item<A: Attrs>(i: usize, j: usize) -> A {
    A::empty()
        .s("PK", batch_pk(i, j))
        .s("SK", "ITEM".to_string())
        .n("batch", i as i64)
        .s("note", "z".repeat(60))
}
pub fn batch_pk(i: usize, j: usize) -> String {
    format!("BATCH#{:05}", (i * BATCH_WRITES + j) % WRITE_KEYS)
}

/// Item `k` of table `scan`.
pub fn scan_item<A: Attrs>(k: usize) -> A {
    A::empty()
        .s("PK", format!("ITEM#{k:04}"))
        .n("category", (k % CATEGORIES) as i64)
        .s("note", "w".repeat(60))
}

/// Order `i` of the indexed table: both GSIs' keys set, so each put writes both indexes.
pub fn order<A: Attrs>(i: usize) -> A {
    A::empty()
        .s("PK", format!("ORDER#{}", i % WRITE_KEYS))
        .s("SK", "META".to_string())
        .s("GSI1PK", format!("STATUS#{}", i % 7))
        .s("GSI1SK", format!("2026-01-{:02}", i % 28 + 1))
        .s("GSI2PK", order_email(i))
        .n("total", i as i64)
        .s("note", "x".repeat(40))
}
pub fn order_email(i: usize) -> String {
    format!("EMAIL#{}@x.io", i % WRITE_KEYS)
}

/// The item of memory row `k`: about 90 bytes (the issue's item).
pub fn memory_item<A: Attrs>(k: usize) -> A {
    A::empty()
        .s("PK", format!("USER#{k:06}"))
        .s("SK", PROFILE.to_string())
        .n("n", (k % 1000) as i64)
        .s("name", "Ana Lovelace".to_string())
        .s("bio", "x".repeat(45))
}

/// Every item of the data set (the module's table) before any timing, as `put(table, item)`.
pub fn data_set<A: Attrs>(mut put: impl FnMut(&str, A)) {
    for k in 0..USERS {
        put("bench", user(k, 0));
    }
    for c in 0..FEEDS {
        for p in 0..POSTS {
            put("bench", post(c, p));
        }
    }
    for k in 0..SCAN_ITEMS {
        put("scan", scan_item(k));
    }
}

/// Sorted by key attributes, for results whose order the stores do not share.
pub fn sorted(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort_by(|a, b| (a.get("PK"), a.get("SK")).cmp(&(b.get("PK"), b.get("SK"))));
    rows
}

/// [`Attrs`] and [`ToRow`] for a store's `HashMap<String, AttributeValue>` whose
/// `AttributeValue` has `S(String)` and `N(String)` variants (both stores' do).
macro_rules! store_item {
    ($item:ty, $value:ident) => {
        impl $crate::workload::Attrs for $item {
            fn empty() -> Self {
                <$item>::new()
            }
            fn s(mut self, name: &str, value: String) -> Self {
                self.insert(name.to_string(), $value::S(value));
                self
            }
            fn n(mut self, name: &str, value: i64) -> Self {
                self.insert(name.to_string(), $value::N(value.to_string()));
                self
            }
        }

        impl $crate::workload::ToRow for $item {
            fn to_row(&self) -> $crate::workload::Row {
                self.iter()
                    .map(|(name, value)| {
                        let text = match value {
                            $value::S(s) => format!("S:{s}"),
                            $value::N(n) => format!("N:{n}"),
                            other => panic!("no {other:?} in the data set"),
                        };
                        (name.clone(), text)
                    })
                    .collect()
            }
        }
    };
}
pub(crate) use store_item;
