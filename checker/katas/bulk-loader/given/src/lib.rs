//! # The given part of the kata: the bulk loader
//!
//! What the tests and your code share: the table's name and key, DynamoDB's limits for batches
//! and transactions, the backoff constants, and the jitter generator your retries draw from.
//! It is not yours to change — the checker and grading always build your `src/lib.rs` against
//! this copy (`checker/katas/bulk-loader/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

use std::time::Duration;

use engine::{Error, Item};

/// The table the tests create for you: `catalogue`, partition key `isbn` (string), no sort
/// key, provisioned capacity (each test says how much; the load tests give it **10 WCU**).
///
/// A book is `{isbn, kind: "BOOK", title, author, price_cents (number), blurb}`; a box set
/// is `{isbn, kind: "BOX_SET", title, volumes (a list of the volumes' ISBNs)}` and each of
/// its volumes a book with one more attribute, `box_set` (the set's ISBN).
pub const TABLE: &str = "catalogue";

/// The table's partition key attribute.
pub const KEY: &str = "isbn";

/// Put and delete requests one BatchWriteItem takes. DynamoDB: 25 (a 26th is a
/// ValidationException for the whole call).
pub const MAX_BATCH_WRITE: usize = 25;

/// Bytes one BatchWriteItem request may carry. DynamoDB: 16 MB. With items of at most
/// [`MAX_ITEM_BYTES`], 25 of them are at most 10 MB: the count is the limit that binds.
pub const MAX_BATCH_WRITE_BYTES: usize = 16 * 1024 * 1024;

/// Keys one BatchGetItem takes. DynamoDB: 100 (no key twice in one call).
pub const MAX_BATCH_GET: usize = 100;

/// Actions one TransactWriteItems takes. DynamoDB: 100 (25 until September 2022).
pub const MAX_TRANSACT_ITEMS: usize = 100;

/// The largest item DynamoDB stores: 400 KB = 409,600 bytes, attribute names included.
pub const MAX_ITEM_BYTES: usize = 409_600;

/// The first backoff step: the wait before the first retry is between half of it and all of
/// it.
pub const BASE_DELAY: Duration = Duration::from_millis(50);

/// The longest backoff step: the waits stop doubling here.
pub const MAX_DELAY: Duration = Duration::from_secs(2);

/// The size of an item as DynamoDB counts it (every attribute name's bytes plus its value's),
/// the size [`MAX_ITEM_BYTES`] limits. The SDK has no such function; this is the service's
/// rule, computed by the engine.
pub fn item_size(item: &Item) -> usize {
    engine::item_size(item)
}

/// The error `load` returns for an item DynamoDB can never store (over [`MAX_ITEM_BYTES`]):
/// a `ValidationException` naming the item, as the service words it.
pub fn item_too_large(isbn: &str, size: usize) -> Error {
    Error::validation(format!(
        "Item size has exceeded the maximum allowed size: the item with isbn = {isbn} is {size} \
         bytes, over {MAX_ITEM_BYTES}"
    ))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/bulk-loader/README.md)"
    ))
}

/// A seeded random generator for the jitter of your backoff (SplitMix64): the same seed gives
/// the same waits, so a failing run replays exactly. The tests hand you one; there is no
/// `rand` in this workspace, and no wall clock.
#[derive(Clone, Debug)]
pub struct Jitter {
    state: u64,
    draws: u64,
}

impl Jitter {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Jitter {
        Jitter {
            state: seed,
            draws: 0,
        }
    }

    /// A duration drawn uniformly between `low` and `high` (both included), to the
    /// millisecond. `between(d / 2, d)` is the "equal jitter" wait of a backoff step `d`.
    pub fn between(&mut self, low: Duration, high: Duration) -> Duration {
        let (lo, hi) = (low.as_millis() as u64, high.as_millis() as u64);
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        Duration::from_millis(lo + self.next_u64() % (hi - lo + 1))
    }

    /// How many durations this generator has drawn.
    pub fn draws(&self) -> u64 {
        self.draws
    }

    fn next_u64(&mut self) -> u64 {
        self.draws += 1;
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
