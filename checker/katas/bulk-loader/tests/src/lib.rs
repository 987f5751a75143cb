//! Hidden tests of the `bulk-loader` kata.
//!
//! Each test builds a fresh world with the kata's table (`catalogue`, key `isbn`, provisioned
//! on one partition: 10 WCU where the loader must be throttled, 20 RCU for the reader, 900 WCU
//! where nothing may be throttled), calls the learner's function and judges it from the
//! outside: what it returned, what the table holds afterwards (a strongly consistent Scan) and
//! what the request log says it sent — each call's operation, simulated ms, units and error —
//! with the partition's per-second metrics for how many writes or reads were refused.
//!
//! Every call of the learner's code runs as client 0 of a two-client schedule
//! ([`World::concurrently`]) whose client 1 is a watchdog: between the learner's requests it
//! looks at the clock and the request count, and ends the test with a message when one
//! simulated millisecond holds more requests than the feed has chunks (a retry loop that
//! never advances the clock would otherwise spin forever), or when the call sent more requests
//! than the test allows in all (a missing table retried with backoff). The schedule is drawn
//! from the seed, so a verdict replays.
//!
//! - `loads_in_chunks_of_25`: 262 books, two of ~300 KB, at 900 WCU (no throttle): all stored
//!   exactly, BatchWriteItem only, no call refused, at most 11 calls.
//! - `retries_unprocessed_items`: 240 books of < 1 KB at 10 WCU: `Ok`, every book stored.
//! - `waits_grow_exponentially`: the same load; from the request log, the gap before each
//!   retry is at least half of its backoff step (the n-th since the chunk began or since the
//!   last call that wrote something, whichever is smaller) and at most 2 s.
//! - `waits_are_jittered`: the same load; the waits are not all whole backoff steps.
//! - `refuses_an_oversized_item`: 20 small books load; then a 410 KB item at position 41 of
//!   60: `Err`, and no request sent.
//! - `returns_other_errors`: no table: `Err(ResourceNotFoundException)` within 3 requests.
//! - `reads_every_key_back`: 250 ISBNs (repeats, 12 unknown) at 20 RCU: one entry per ISBN, in
//!   order, `None` exactly for the unknown; BatchGetItem only, no call refused, backoff as
//!   above.
//! - `box_set_is_all_or_nothing`: a set of 12 written whole by one TransactWriteItems; a set of
//!   40 whose 30th volume exists, and a set whose own ISBN exists: `Err`, nothing written,
//!   the existing book unchanged.
//! - `racing_box_sets_one_wins`: two clients add sets sharing a volume, 8 times on the seeded
//!   schedule: exactly one `Ok` each time, the winner's set whole, nothing of the loser's.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ProvisionedThroughput,
    ScalarAttributeType,
};
use engine::world::log::RequestRecord;
use engine::world::schedule::yield_now;
use engine::{AttributeValue, Client, Error, Item, World};
use given::{
    item_size, Jitter, BASE_DELAY, KEY, MAX_BATCH_GET, MAX_BATCH_WRITE, MAX_DELAY, MAX_ITEM_BYTES,
    TABLE,
};
use katas_testkit::{fail, run, seeded, thousands, Failure, Rng};
use learner::{add_box_set, load, read_books};

katas_testkit::learner! {
    /// Writes every item of the feed.
    fn load(client: &Client, items: Vec<Item>, jitter: &mut Jitter) -> Result<(), Error>;
    /// One entry per ISBN asked, in order.
    fn read_books(client: &Client, isbns: &[String], jitter: &mut Jitter)
        -> Result<Vec<Option<Item>>, Error>;
    /// The set and its volumes, all or nothing.
    fn add_box_set(client: &Client, set: Item, volumes: Vec<Item>) -> Result<(), Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("loads_in_chunks_of_25", loads_in_chunks_of_25),
        seeded("retries_unprocessed_items", retries_unprocessed_items),
        seeded("waits_grow_exponentially", waits_grow_exponentially),
        seeded("waits_are_jittered", waits_are_jittered),
        seeded("refuses_an_oversized_item", refuses_an_oversized_item),
        seeded("returns_other_errors", returns_other_errors),
        seeded("reads_every_key_back", reads_every_key_back),
        seeded("box_set_is_all_or_nothing", box_set_is_all_or_nothing),
        seeded("racing_box_sets_one_wins", racing_box_sets_one_wins),
    ]);
}

/// Write capacity of the tables where the loader must be throttled.
const SMALL_WCU: i64 = 10;
/// Read capacity of the reader's table.
const SMALL_RCU: i64 = 20;
/// Capacity of the tables where nothing should be throttled (one partition: 300 / 3,000 +
/// 900 / 1,000 = 1).
const AMPLE_RCU: i64 = 300;
const AMPLE_WCU: i64 = 900;

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Nothing is throttled: the feed is 11 full calls, each at most 25 items.
fn loads_in_chunks_of_25(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, AMPLE_RCU, AMPLE_WCU);
    let mut feed: Vec<Item> = (0..262).map(|n| small_book(&mut rng, n)).collect();
    for n in [rng.below(120), 130 + rng.below(120)] {
        let blurb = 290_000 + rng.below(20_000) as usize;
        feed[n as usize] = book(&mut rng, n, blurb);
    }
    let call = "load(262 books, two of them about 300 KB)";
    let (result, sent) = s.watched(call, Guard::for_feed(feed.len()), |c, j| {
        load(c, feed.clone(), j)
    });
    let writes = only(call, &sent, "BatchWriteItem");
    if let Err(e) = result {
        let refused = writes
            .iter()
            .find(|r| r.error == Some("ValidationException"));
        match refused {
            Some(r) => fail(format!(
                "{call} failed: {} was refused — {}. A BatchWriteItem takes at most {MAX_BATCH_WRITE} put or delete requests (and at \
                 most 16 MB); a call with more is refused whole, and none of its items is \
                 written. Its requests: {}",
                name(r),
                error_text(&e),
                show_all(&writes)
            )),
            None => fail(format!(
                "{call} failed on a table of {AMPLE_WCU} WCU where nothing needs to be \
                 throttled: {}. Its requests: {}",
                error_text(&e),
                show_all(&writes)
            )),
        }
    }
    s.expect_stored(call, &feed, &writes);
    let chunks = feed.len().div_ceil(MAX_BATCH_WRITE);
    let throttled = writes.iter().any(|r| r.throttled());
    if writes.len() > chunks && !throttled {
        fail(format!(
            "{call} stored every book, with {} BatchWriteItem calls: {} books fit in {chunks} \
             calls of {MAX_BATCH_WRITE}, and none of its calls was throttled. A call costs a \
             round trip whatever it carries: one that carries fewer than it could makes the \
             load longer. Its requests: {}",
            writes.len(),
            feed.len(),
            show_all(&writes)
        ));
    }
}

/// The 240 books of the throttled load, and what `load` did with them.
struct ThrottledLoad {
    scene: Scene,
    feed: Vec<Item>,
    result: Result<(), Error>,
    writes: Vec<RequestRecord>,
    call: String,
}

/// 240 books of 0.3–0.9 KB (1 WCU each) onto a table of 10 WCU.
fn throttled_load(seed: u64) -> ThrottledLoad {
    let mut rng = Rng::new(seed);
    let scene = Scene::new(seed, AMPLE_RCU, SMALL_WCU);
    let feed: Vec<Item> = (0..240).map(|n| small_book(&mut rng, n)).collect();
    let call = format!("load(240 books of under 1 KB) on a table of {SMALL_WCU} WCU");
    let (result, sent) = scene.watched(&call, Guard::for_feed(feed.len()), |c, j| {
        load(c, feed.clone(), j)
    });
    let writes = only(&call, &sent, "BatchWriteItem");
    ThrottledLoad {
        scene,
        feed,
        result,
        writes,
        call,
    }
}

/// Every book of a throttled load is stored: nothing left in UnprocessedItems, no chunk given
/// up after a call that failed whole.
fn retries_unprocessed_items(seed: u64) {
    let t = throttled_load(seed);
    if let Err(e) = &t.result {
        let last = t.writes.last();
        let throttled = last.is_some_and(RequestRecord::throttled);
        if throttled {
            let r = last.expect("a last request");
            fail(format!(
                "{} failed: its {} was refused with {}, and the load gave up. {}The table's \
                 {SMALL_WCU} WCU of that second were spent. A BatchWriteItem fails only when it \
                 could write nothing at all — then every item it carried is unprocessed, exactly as if they \
                 had come back in UnprocessedItems. They are not written yet, and the second's \
                 capacity returns when the clock moves: the load is not over.",
                t.call,
                name(r),
                r.error.unwrap_or("an error"),
                t.scene.second_text(r.at_ms / 1000, &t.writes),
            ));
        }
        fail(format!(
            "{} failed: {}. Its requests: {}",
            t.call,
            error_text(e),
            show_all(&t.writes)
        ));
    }
    t.scene.expect_stored(&t.call, &t.feed, &t.writes);
    let units: f64 = t.writes.iter().map(|r| r.write_units).sum();
    if units > t.feed.len() as f64 {
        fail(format!(
            "{} stored every book, but its calls wrote {units} WCU for {} books of 1 WCU each: \
             {} writes of items that were already stored. What a call wrote is written: sent \
             again, it is written and paid for again. Only what came back in UnprocessedItems \
             (or every item of a call refused whole) is still unwritten. Its requests: {}",
            t.call,
            t.feed.len(),
            units - t.feed.len() as f64,
            show_all(&t.writes)
        ));
    }
}

/// The waits before retries grow: at least half of each backoff step, at most 2 s.
fn waits_grow_exponentially(seed: u64) {
    let t = throttled_load(seed);
    if let Err(e) = &t.result {
        fail(format!(
            "{} failed ({}): this test judges the waits of a load that completes — see \
             retries_unprocessed_items first.",
            t.call,
            error_text(e)
        ));
    }
    check_backoff(&t.call, &t.scene, &t.writes);
}

/// The waits are drawn from the Jitter: not all whole backoff steps.
fn waits_are_jittered(seed: u64) {
    let t = throttled_load(seed);
    if let Err(e) = &t.result {
        fail(format!(
            "{} failed ({}): this test judges the waits of a load that completes — see \
             retries_unprocessed_items first.",
            t.call,
            error_text(e)
        ));
    }
    let waits: Vec<u64> = waits_of(&t.writes).iter().map(|w| w.ms).collect();
    if waits.len() < 12 {
        fail(format!(
            "{} waited only {} times before a retry: on a table of {SMALL_WCU} WCU, 240 \
             items need about 24 seconds of capacity, and many retries. Its requests: {}",
            t.call,
            waits.len(),
            show_all(&t.writes)
        ));
    }
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    for w in &waits {
        *counts.entry(*w).or_default() += 1;
    }
    let steps: BTreeSet<u64> = (1..=8).map(step_ms).collect();
    let whole_steps = waits.iter().all(|w| steps.contains(w));
    if whole_steps || counts.len() <= 3 {
        let shown: Vec<String> = counts
            .iter()
            .map(|(ms, n)| format!("{} ms ×{n}", thousands(*ms)))
            .collect();
        fail(format!(
            "{} waited {} times before a retry, and every wait was {}: {}. \
             Without jitter, every loader that was throttled in the same second retries at \
             the same simulated millisecond, and is throttled together again: only a wait with \
             a random part (jitter) spreads their retries apart.",
            t.call,
            waits.len(),
            if counts.len() == 1 {
                "the same".to_string()
            } else {
                format!("one of {} durations", counts.len())
            },
            shown.join(", ")
        ));
    }
}

/// A 410 KB item at position 41 of 60: the load refuses the feed before any request.
fn refuses_an_oversized_item(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, AMPLE_RCU, AMPLE_WCU);
    // A feed without a large item first: the loader loads at all.
    let fine: Vec<Item> = (200..220).map(|n| small_book(&mut rng, n)).collect();
    let call = "load(20 books of under 1 KB)";
    let (result, sent) = s.watched(call, Guard::for_feed(fine.len()), |c, j| {
        load(c, fine.clone(), j)
    });
    if let Err(e) = result {
        fail(format!(
            "{call} failed on a table of {AMPLE_WCU} WCU where nothing needs to be throttled: \
             {}. Its requests: {}",
            error_text(&e),
            show_all(&sent)
        ));
    }
    s.expect_stored(call, &fine, &sent);
    let mut feed: Vec<Item> = (0..60).map(|n| small_book(&mut rng, n)).collect();
    feed[40] = book(&mut rng, 40, 0);
    let base = item_size(&feed[40]);
    feed[40] = book(&mut rng, 40, 410_000 - base);
    let big = isbn(&feed[40]);
    let size = item_size(&feed[40]);
    let call = format!(
        "load(60 books; the 41st, {big}, is {} bytes)",
        thousands(size as i64)
    );
    let (result, sent) = s.watched(&call, Guard::for_feed(feed.len()), |c, j| {
        load(c, feed.clone(), j)
    });
    let written: Vec<&RequestRecord> = sent.iter().filter(|r| r.write_units > 0.0).collect();
    let units: f64 = written.iter().map(|r| r.write_units).sum();
    match result {
        Ok(()) => fail(format!(
            "{call} returned Ok, but {big} is over DynamoDB's item limit of {} bytes (400 KB): \
             it can never be stored, and the feed is not loaded: a caller told Ok believes it \
             is. Its requests: {}",
            thousands(MAX_ITEM_BYTES as i64),
            show_all(&sent)
        )),
        Err(e) if !sent.is_empty() => {
            let refused = sent.iter().find(|r| r.error == Some("ValidationException"));
            fail(format!(
                "{call} returned an error ({}), but only after sending {} request(s){}: {} of \
                 them wrote {} WCU — {} books of under 1 KB — before the oversized one was \
                 found{}. DynamoDB refuses a \
                 whole BatchWriteItem that holds an item over 400 KB, and the chunks before it \
                 are already in the table: the feed is half loaded. Every item's size is known \
                 before the first request.",
                error_text(&e),
                sent.len(),
                if units > 0.0 {
                    ""
                } else {
                    " (none wrote anything)"
                },
                written.len(),
                units,
                units,
                match refused {
                    Some(r) => format!(" (then {} was refused with ValidationException)", name(r)),
                    None => String::new(),
                }
            ))
        }
        Err(_) => {}
    }
}

/// No table: the error comes back at once, not retried.
fn returns_other_errors(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::without_table(seed);
    let feed: Vec<Item> = (0..30).map(|n| small_book(&mut rng, n)).collect();
    let call = "load(30 books) with no catalogue table";
    let guard = Guard {
        same_ms: 6,
        total: 6,
        items: 0,
    };
    let (result, sent) = s.watched(call, guard, |c, j| load(c, feed.clone(), j));
    match result {
        Ok(()) => fail(format!(
            "{call} returned Ok, but the table does not exist: every request failed. Its \
             requests: {}",
            show_all(&sent)
        )),
        Err(e) if e.code() != Some("ResourceNotFoundException") => fail(format!(
            "{call} returned {}, not the ResourceNotFoundException DynamoDB answered: the \
             caller learns what went wrong only from the error DynamoDB gave. Its requests: {}",
            error_text(&e),
            show_all(&sent)
        )),
        Err(_) if sent.len() > 3 => fail(format!(
            "{call} returned the ResourceNotFoundException only after {} requests: no wait \
             brings a missing table back. Only a throttle \
             (ProvisionedThroughputExceededException, ThrottlingException) goes away with \
             time; every other error is the same on the next try. Its requests: {}",
            sent.len(),
            show_all(&sent)
        )),
        Err(_) => {}
    }
}

/// 250 ISBNs, some twice, a dozen unknown, read back from a table of 20 RCU.
fn reads_every_key_back(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, SMALL_RCU, AMPLE_WCU);
    let books: Vec<Item> = (0..230).map(|n| small_book(&mut rng, n)).collect();
    s.fill(&books);
    let mut asked: Vec<String> = books.iter().map(isbn).collect();
    for n in 0..12 {
        asked.push(isbn_for(10_000 + n));
    }
    for _ in 0..8 {
        let again = asked[rng.below(230) as usize].clone();
        asked.push(again);
    }
    shuffle(&mut rng, &mut asked);
    let by_isbn: BTreeMap<String, &Item> = books.iter().map(|b| (isbn(b), b)).collect();
    let distinct: BTreeSet<&String> = asked.iter().collect();
    let call = format!(
        "read_books({} ISBNs: {} distinct, 12 not in the catalogue) on a table of {SMALL_RCU} \
         RCU",
        asked.len(),
        distinct.len()
    );
    let guard = Guard::for_feed(distinct.len().div_ceil(MAX_BATCH_GET) * MAX_BATCH_WRITE);
    let (result, sent) = s.watched(&call, guard, |c, j| read_books(c, &asked, j));
    let reads = only(&call, &sent, "BatchGetItem");
    let got = match result {
        Ok(got) => got,
        Err(e) => {
            let refused = reads
                .iter()
                .find(|r| r.error == Some("ValidationException"));
            let why = match refused {
                Some(r) if error_text(&e).contains("duplicates") => format!(
                    " {} was refused: the same ISBN is asked more than once, and one \
                     BatchGetItem must not hold a key twice, however often the caller asks \
                     for it.",
                    name(r)
                ),
                Some(r) => format!(
                    " {} was refused with ValidationException: at most {MAX_BATCH_GET} keys \
                     per call, each once.",
                    show(r)
                ),
                None => match reads.last() {
                    Some(r) if r.throttled() => format!(
                        " Its last request, {}, could read nothing: in second {} the table's \
                         {SMALL_RCU} RCU were spent. Then every key it carried is unprocessed: \
                         not read yet, not missing.",
                        show(r),
                        r.at_ms / 1000
                    ),
                    _ => String::new(),
                },
            };
            fail(format!(
                "{call} failed: {}.{why} Its requests: {}",
                error_text(&e),
                show_all(&reads)
            ))
        }
    };
    if got.len() != asked.len() {
        fail(format!(
            "{call} returned {} entries: one per ISBN asked ({}), in the order asked, repeats \
             included.",
            got.len(),
            asked.len()
        ));
    }
    let units: f64 = reads.iter().map(|r| r.read_units).sum();
    for (i, (isbn_asked, entry)) in asked.iter().zip(&got).enumerate() {
        let want = by_isbn.get(isbn_asked).copied();
        if let Some(g) = entry.as_ref().filter(|g| isbn(g) != *isbn_asked) {
            fail(format!(
                "{call} returned for {isbn_asked} (entry {}) the item of another book: {}. \
                 {isbn_asked} is {}. BatchGetItem returns the items it found in no particular \
                 order and leaves missing ones out, so the n-th item of a response need not be \
                 the n-th key asked: only an item's own key attribute says which key it answers.",
                i + 1,
                show_item(g),
                match want {
                    Some(w) => format!("in the catalogue as {}", show_item(w)),
                    None => "not in the catalogue (its entry is None)".to_string(),
                }
            ));
        }
        match (want, entry) {
            (Some(w), Some(g)) if w == g => {}
            (None, None) => {}
            (Some(_), None) => {
                let missing = asked
                    .iter()
                    .zip(&got)
                    .filter(|(a, g)| by_isbn.contains_key(*a) && g.is_none())
                    .count();
                fail(format!(
                    "{call} returned None for {isbn_asked} (entry {}), which is in the \
                     catalogue — and None for {missing} of the asked books that are. Its \
                     {} BatchGetItem call(s) read {} RCU in all; at {SMALL_RCU} RCU a second \
                     (0.5 per eventually consistent read of a small item), one call of 100 \
                     keys reads about 40 and hands the rest back in UnprocessedKeys. {}A key \
                     in UnprocessedKeys was not read: it is not a book missing from the \
                     catalogue. Its requests: {}",
                    i + 1,
                    reads.len(),
                    units,
                    s.read_refusals_text(&reads),
                    show_all(&reads)
                ));
            }
            (None, Some(g)) => fail(format!(
                "{call} returned an item for {isbn_asked} (entry {}), which is not in the \
                 catalogue: {}. BatchGetItem leaves missing items out of its responses; an ISBN \
                 whose item did not come back is None.",
                i + 1,
                show_item(g)
            )),
            (Some(w), Some(g)) => fail(format!(
                "{call} returned for {isbn_asked} (entry {}) the item {}; the catalogue's is {}. \
                 BatchGetItem returns the items it found in no particular order, and leaves \
                 missing ones out: an item's position in the response says nothing of which key \
                 it answers, its own `isbn` does.",
                i + 1,
                show_item(g),
                show_item(w)
            )),
        }
    }
    check_backoff(&call, &s, &reads);
}

/// A set written whole; two sets refused whole, the existing book untouched.
fn box_set_is_all_or_nothing(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, AMPLE_RCU, AMPLE_WCU);
    // A set of 12, into an empty catalogue.
    let (set, volumes) = box_set(&mut rng, 1, 12);
    let call = "add_box_set(a set of 12 volumes)";
    let mut all = vec![set.clone()];
    all.extend(volumes.iter().cloned());
    let (result, sent) = s.watched(call, Guard::calls(20), |c, _| {
        add_box_set(c, set.clone(), volumes.clone())
    });
    if let Err(e) = result {
        fail(format!(
            "{call} failed on an empty catalogue: {}. Its requests: {}",
            error_text(&e),
            show_all(&sent)
        ));
    }
    check_one_transaction(call, &sent, all.len());
    s.expect_stored(call, &all, &sent);

    // A set of 40 whose 30th volume is already in the catalogue.
    let (set, volumes) = box_set(&mut rng, 2, 40);
    let taken = rng_book(&mut rng, isbn(&volumes[29]));
    s.fill(std::slice::from_ref(&taken));
    let call = format!(
        "add_box_set(a set of 40 volumes whose 30th, {}, is already in the catalogue)",
        isbn(&taken)
    );
    let (result, sent) = s.watched(&call, Guard::calls(20), |c, _| {
        add_box_set(c, set.clone(), volumes.clone())
    });
    let mut refused = vec![set.clone()];
    refused.extend(volumes.iter().cloned());
    s.expect_refused(&call, result, &sent, &refused, &taken, &all);

    // A set whose own ISBN is already in the catalogue.
    let (set, volumes) = box_set(&mut rng, 3, 6);
    let taken_set = rng_book(&mut rng, isbn(&set));
    s.fill(std::slice::from_ref(&taken_set));
    let call = format!(
        "add_box_set(a set of 6 volumes whose own ISBN, {}, is already in the catalogue)",
        isbn(&set)
    );
    let (result, sent) = s.watched(&call, Guard::calls(20), |c, _| {
        add_box_set(c, set.clone(), volumes.clone())
    });
    let mut refused = vec![set.clone()];
    refused.extend(volumes.iter().cloned());
    s.expect_refused(&call, result, &sent, &refused, &taken_set, &all);
}

/// Two clients add box sets that share a volume, at the same moment, 8 times.
fn racing_box_sets_one_wins(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed, AMPLE_RCU, AMPLE_WCU);
    for round in 0..8u64 {
        let (set_a, mut volumes_a) = box_set(&mut rng, 100 + 2 * round, 4);
        let (set_b, volumes_b) = box_set(&mut rng, 101 + 2 * round, 4);
        // Both publishers list the same volume: the 4th volume of A is B's 2nd.
        volumes_a[3] = {
            let mut v = volumes_b[1].clone();
            v.insert("box_set".into(), AttributeValue::S(isbn(&set_a)));
            v.insert(
                "title".into(),
                AttributeValue::S(format!("{} (A's edition)", title(&v))),
            );
            v
        };
        let from = s.next_seq();
        let sets = [(set_a, volumes_a), (set_b, volumes_b)];
        let results: Vec<Result<(), Error>> = s
            .world
            .concurrently(seed ^ (round + 1).wrapping_mul(0x9E37))
            .run(2, |i, client| {
                add_box_set(&client, sets[i].0.clone(), sets[i].1.clone())
            });
        let sent = s.requests_since(from);
        let by_client = |i: usize| -> String {
            let mine: Vec<RequestRecord> = sent
                .iter()
                .filter(|r| r.client == Some(i))
                .cloned()
                .collect();
            show_all(&mine)
        };
        let shared = isbn(&sets[1].1[1]);
        let ok: Vec<usize> = (0..2).filter(|i| results[*i].is_ok()).collect();
        let all_of = |i: usize| -> Vec<Item> {
            let mut v = vec![sets[i].0.clone()];
            v.extend(sets[i].1.iter().cloned());
            v
        };
        match ok.as_slice() {
            [winner] => {
                let loser = 1 - winner;
                let stored = s.stored();
                for item in all_of(*winner) {
                    if stored.get(&isbn(&item)) != Some(&item) {
                        fail(format!(
                            "Round {}: client {winner}'s add_box_set returned Ok and client \
                             {loser}'s an error, but the catalogue does not hold the winner's {} \
                             as written: it holds {}. Client {winner}'s requests: {}; client \
                             {loser}'s: {}",
                            round + 1,
                            isbn(&item),
                            stored
                                .get(&isbn(&item))
                                .map_or("nothing".to_string(), show_item),
                            by_client(*winner),
                            by_client(loser)
                        ));
                    }
                }
                for item in all_of(loser) {
                    let key = isbn(&item);
                    if key != shared && stored.contains_key(&key) {
                        fail(format!(
                            "Round {}: client {loser}'s add_box_set returned an error, yet its \
                             {key} is in the catalogue: a refused set must write nothing. \
                             Client {loser}'s requests: {}",
                            round + 1,
                            by_client(loser)
                        ));
                    }
                }
            }
            [] => fail(format!(
                "Round {}: both add_box_set calls failed ({}; {}), though each set could have \
                 been written had the other not been there: one of the two must win. Client \
                 0's requests: {}; client 1's: {}",
                round + 1,
                error_text(results[0].as_ref().expect_err("failed")),
                error_text(results[1].as_ref().expect_err("failed")),
                by_client(0),
                by_client(1)
            )),
            _ => {
                let stored = s.stored();
                fail(format!(
                    "Round {}: both add_box_set calls returned Ok, though both sets list the \
                     volume {shared}: the catalogue now holds {} under it, and the other \
                     set lists a volume that is not its own. Client 0's requests: {}; client \
                     1's: {}. {}",
                    round + 1,
                    stored.get(&shared).map_or("nothing".to_string(), show_item),
                    by_client(0),
                    by_client(1),
                    race_cause(&sent)
                ))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Judging
// ---------------------------------------------------------------------------------------

/// Why both of two racing add_box_set calls succeeded, from their requests: a check that came
/// before the other's write (the interleaving), one that came after it and still found nothing
/// (an eventually consistent read), or no check at all.
fn race_cause(sent: &[RequestRecord]) -> String {
    let first = |client: usize, read: bool| {
        sent.iter()
            .find(|r| r.client == Some(client) && r.operation.contains("Get") == read)
    };
    let fix = "Only a condition that a write carries itself is decided by DynamoDB \
               atomically with that write.";
    let (Some(check0), Some(check1)) = (first(0, true), first(1, true)) else {
        return format!(
            "Neither write carried a condition, so the second replaced what the first had \
             written. {fix}"
        );
    };
    // The client whose check came last, and the other's write.
    let (late, early) = if check0.seq > check1.seq {
        (0, 1)
    } else {
        (1, 0)
    };
    let late_check = if late == 0 { check0 } else { check1 };
    match first(early, false) {
        Some(write) if write.seq < late_check.seq => format!(
            "Client {late}'s check, {}, came after client {early}'s {} had written, yet client \
             {late} wrote too: {} A check and a write are two requests; whatever the check \
             reads, the write cannot rely on it. {fix}",
            name(late_check),
            name(write),
            if late_check.consistent_read == Some(true) {
                "the read was strongly consistent, so the check was not what let it through."
            } else {
                "an eventually consistent read can be served by a replica that has not \
                 received that write yet (replication takes milliseconds)."
            }
        ),
        _ => format!(
            "A check first (is any ISBN taken?) and a write after it leave a gap: both clients \
             checked ({} and {}) before either wrote. {fix}",
            name(check0),
            name(check1)
        ),
    }
}

/// One wait before a retry, read from the request log.
struct Wait {
    ms: u64,
    /// The request it preceded.
    before: RequestRecord,
    /// Its place among the waits since the chunk began (a request right after another, with no
    /// wait, starts a new chunk) or since the last request that did some work, whichever is
    /// smaller: the step it must at least match half of.
    n: u32,
}

/// The backoff step before the n-th retry, in ms.
fn step_ms(n: u32) -> u64 {
    let base = BASE_DELAY.as_millis() as u64;
    (base << (n - 1).min(16)).min(MAX_DELAY.as_millis() as u64)
}

/// The waits between consecutive requests of a call, with their places in a chain of retries.
fn waits_of(requests: &[RequestRecord]) -> Vec<Wait> {
    let mut out = Vec::new();
    let mut since_chunk = 0u32;
    let mut since_work = 0u32;
    for pair in requests.windows(2) {
        let (prev, next) = (&pair[0], &pair[1]);
        let gap = next.at_ms - prev.at_ms;
        let worked = prev.succeeded() && prev.read_units + prev.write_units > 0.0;
        if gap == 0 {
            since_chunk = 0;
            since_work = 0;
            continue;
        }
        since_chunk += 1;
        since_work = if worked { 1 } else { since_work + 1 };
        out.push(Wait {
            ms: gap,
            before: next.clone(),
            n: since_chunk.min(since_work),
        });
    }
    out
}

/// Every wait is at least half its step and at most MAX_DELAY.
fn check_backoff(call: &str, s: &Scene, requests: &[RequestRecord]) {
    let waits = waits_of(requests);
    let max = MAX_DELAY.as_millis() as u64;
    for (i, w) in waits.iter().enumerate() {
        let floor = step_ms(w.n) / 2;
        let earlier: Vec<String> = waits[..i]
            .iter()
            .rev()
            .take_while(|p| p.n < w.n || w.n == 1)
            .take(w.n as usize - 1)
            .map(|p| format!("{} ms", thousands(p.ms)))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if w.ms < floor {
            let second = w.before.at_ms / 1000;
            fail(format!(
                "{call}: {} came {} ms after the request before it — retry {} of its chunk in \
                 a row that found nothing done{}. With exponential backoff from BASE_DELAY \
                 (50 ms), capped at MAX_DELAY (2 s), that retry's step is {} ms, so the wait \
                 must be at least {} ms (half the step, the rest jitter). {}Retries that do \
                 not wait longer each time keep knocking on a second whose capacity is \
                 spent.",
                show(&w.before),
                thousands(w.ms),
                w.n,
                if earlier.is_empty() {
                    String::new()
                } else {
                    format!(" (the waits before it: {})", earlier.join(", "))
                },
                thousands(step_ms(w.n)),
                thousands(floor),
                s.second_text(second, requests),
            ));
        }
        if w.ms > max {
            fail(format!(
                "{call}: {} came {} ms after the request before it: the backoff is capped at \
                 MAX_DELAY = 2 s. A longer wait only delays the load.",
                show(&w.before),
                thousands(w.ms)
            ));
        }
    }
}

/// Fails unless every request is `operation` on the table.
fn only(call: &str, sent: &[RequestRecord], operation: &str) -> Vec<RequestRecord> {
    if let Some(other) = sent.iter().find(|r| r.operation != operation) {
        fail(format!(
            "{call} sent {}: only {operation} is needed here (one call carries up to {}). Its \
             requests: {}",
            show(other),
            if operation == "BatchGetItem" {
                "100 keys"
            } else {
                "25 puts"
            },
            show_all(sent)
        ));
    }
    sent.to_vec()
}

/// Fails unless the call was one TransactWriteItems (and nothing else wrote).
fn check_one_transaction(call: &str, sent: &[RequestRecord], items: usize) {
    let writes: Vec<&RequestRecord> = sent
        .iter()
        .filter(|r| r.operation != "GetItem" && r.operation != "BatchGetItem")
        .filter(|r| r.operation != "TransactGetItems")
        .collect();
    let transactions = writes
        .iter()
        .filter(|r| r.operation == "TransactWriteItems")
        .count();
    if transactions != 1 || writes.len() != 1 {
        let batch = writes.iter().any(|r| r.operation != "TransactWriteItems");
        fail(format!(
            "{call} wrote the set's {items} items with {}. {} Its requests: {}",
            show_all(&writes.iter().map(|r| (*r).clone()).collect::<Vec<_>>()),
            if batch {
                "A batch (or a PutItem per item) writes each item on its own: a shopper can see \
                 the set before its volumes, and a failure halfway leaves half a set. Only \
                 a transaction is all or nothing."
            } else {
                "One TransactWriteItems takes up to 100 actions (25 until 2022), and each \
                 is atomic on its own: several transactions are not one."
            },
            show_all(sent)
        ));
    }
}

// ---------------------------------------------------------------------------------------
// The world
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
    seed: u64,
    /// The table's provisioned write capacity (0 without a table).
    wcu: i64,
}

/// When the watchdog stops a call: more than `same_ms` requests in one simulated ms, or more
/// than `total` in all.
#[derive(Clone, Copy)]
struct Guard {
    same_ms: u64,
    total: u64,
    /// The items of the feed (0 for a call that is not a load).
    items: usize,
}

impl Guard {
    /// A feed of `items`: its chunks and three more in one ms; 60 requests per chunk in all.
    fn for_feed(items: usize) -> Guard {
        let chunks = items.div_ceil(MAX_BATCH_WRITE) as u64;
        Guard {
            same_ms: chunks + 3,
            total: 60 * chunks + 100,
            items,
        }
    }

    fn calls(n: u64) -> Guard {
        Guard {
            same_ms: n,
            total: n,
            items: 0,
        }
    }
}

impl Scene {
    fn without_table(seed: u64) -> Scene {
        // The nightly feed lands on a table the day's traffic used: nothing saved for a burst
        // (a table new to the world would be born with its burst bucket full, and would take a
        // whole chunk past its throughput).
        let world = World::with_config(engine::WorldConfig {
            seed,
            new_table_buckets_full: false,
            ..engine::WorldConfig::default()
        });
        let client = world.client();
        Scene {
            world,
            client,
            seed,
            wcu: 0,
        }
    }

    fn new(seed: u64, rcu: i64, wcu: i64) -> Scene {
        let s = Scene {
            wcu,
            ..Scene::without_table(seed)
        };
        s.client
            .create_table()
            .table_name(TABLE)
            .billing_mode(BillingMode::Provisioned)
            .provisioned_throughput(ProvisionedThroughput::new(rcu, wcu))
            .attribute_definitions(AttributeDefinition::new(KEY, ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new(KEY, KeyType::Hash))
            .send()
            .expect("the tests' table");
        s
    }

    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }

    /// Runs `f` as client 0 of a schedule whose client 1 watches for a loop that never waits
    /// (see the module docs); returns its result and the requests it sent.
    fn watched<T: Send>(
        &self,
        call: &str,
        guard: Guard,
        f: impl FnOnce(&Client, &mut Jitter) -> T + Send,
    ) -> (T, Vec<RequestRecord>) {
        let from = self.next_seq();
        let done = AtomicBool::new(false);
        let mut jitter = Jitter::new(self.seed ^ 0x6A09_E667_F3BC_C908);
        let learner: Box<dyn FnOnce(Client) -> Option<T> + Send + '_> = Box::new(|client| {
            let out = f(&client, &mut jitter);
            done.store(true, Ordering::SeqCst);
            Some(out)
        });
        let watchdog: Box<dyn FnOnce(Client) -> Option<T> + Send + '_> = Box::new(|_| {
            let (mut ms, mut at_ms_start) = (self.world.now(), from);
            loop {
                yield_now();
                if done.load(Ordering::SeqCst) {
                    return None;
                }
                let (now, requests) = (self.world.now(), self.next_seq());
                if now != ms {
                    ms = now;
                    at_ms_start = requests;
                }
                if requests - at_ms_start > guard.same_ms {
                    self.spinning(call, from, at_ms_start, now);
                }
                if requests - from > guard.total {
                    self.too_many(call, from, guard);
                }
            }
        });
        let mut results = self
            .world
            .run_concurrently(self.seed ^ 0x5BE0_CD19, vec![learner, watchdog]);
        let out = results.swap_remove(0).expect("the learner's body returns");
        (out, self.requests_since(from))
    }

    /// The watchdog's verdict on a loop that does not advance the clock.
    fn spinning(&self, call: &str, from: u64, at_ms_start: u64, now: Duration) -> ! {
        let sent = self.requests_since(from);
        let same: Vec<RequestRecord> = sent
            .iter()
            .filter(|r| r.seq >= at_ms_start)
            .cloned()
            .collect();
        let first = same.first().map_or(String::new(), show);
        let last = same.last().map_or(String::new(), show);
        let refused = same.iter().filter(|r| r.throttled()).count();
        fail(format!(
            "{call} sent {} requests at the same simulated moment, {} ms — {first} to {last} \
             — and {refused} of them were refused whole as throttled. The simulated clock \
             moves only when your code moves it — nothing sleeps on its own: a retry sent at \
             once lands in the same second, whose capacity is spent, and is refused again — \
             forever. The test stopped the loop. {}",
            same.len(),
            thousands(now.as_millis() as i64),
            self.second_text(now.as_millis() as u64 / 1000, &sent)
        ))
    }

    /// The watchdog's verdict on a call that sent more requests than the test allows.
    fn too_many(&self, call: &str, from: u64, guard: Guard) -> ! {
        let sent = self.requests_since(from);
        let errors: BTreeSet<&str> = sent.iter().filter_map(|r| r.error).collect();
        let only_throttles = errors.iter().all(|e| {
            matches!(
                *e,
                "ProvisionedThroughputExceededException" | "ThrottlingException"
            )
        });
        let units: f64 = sent.iter().map(|r| r.write_units + r.read_units).sum();
        let why = if only_throttles && guard.items > 0 && units > guard.items as f64 {
            format!(
                "It kept writing: its calls wrote {units} WCU in all, for a feed of {} items of \
                 1 WCU each — items already written were written (and paid for) again. Only what \
                 came back in UnprocessedItems (or every item of a call refused whole) is \
                 still unwritten, and at {} WCU a second a chunk of 25 does not fit in one \
                 second: sent whole each time, it never lands.",
                guard.items, self.wcu
            )
        } else {
            let errors: Vec<&str> = errors.into_iter().collect();
            format!(
                "Its errors: {}. A wait cures a throttle; it does not bring a missing table \
                 back.",
                if errors.is_empty() {
                    "none".to_string()
                } else {
                    errors.join(", ")
                }
            )
        };
        fail(format!(
            "{call} sent more than {} requests without returning: the test stopped it. {why} Its \
             requests: {}",
            guard.total,
            show_all(&sent)
        ))
    }

    /// What the partition did in one second (partition metrics) and how many of the call's
    /// requests fell in it.
    fn second_text(&self, second: u64, requests: &[RequestRecord]) -> String {
        let metrics = self
            .world
            .partition_metrics(TABLE, None)
            .unwrap_or_default();
        let here: Vec<_> = metrics.iter().filter(|m| m.second == second).collect();
        let wcu: f64 = here.iter().map(|m| m.consumed_write).sum();
        let rcu: f64 = here.iter().map(|m| m.consumed_read).sum();
        let refused_writes: u64 = here.iter().map(|m| m.throttled_writes).sum();
        let refused_reads: u64 = here.iter().map(|m| m.throttled_reads).sum();
        let spent = if refused_reads > 0 || (rcu > 0.0 && wcu == 0.0) {
            format!("spent {rcu} RCU and refused {refused_reads} reads")
        } else {
            format!("spent {wcu} WCU and refused {refused_writes} writes")
        };
        let in_second: Vec<&RequestRecord> = requests
            .iter()
            .filter(|r| r.at_ms / 1000 == second)
            .collect();
        let whole = in_second.iter().filter(|r| r.throttled()).count();
        format!(
            "In second {second} the partition {spent} (partition metrics); the call sent {} \
             request(s) in that second, {whole} of them refused whole as throttled. ",
            in_second.len()
        )
    }

    /// How many reads the partition refused, per second, while the reader ran.
    fn read_refusals_text(&self, reads: &[RequestRecord]) -> String {
        let seconds: BTreeSet<u64> = reads.iter().map(|r| r.at_ms / 1000).collect();
        let metrics = self
            .world
            .partition_metrics(TABLE, None)
            .unwrap_or_default();
        let refused: Vec<String> = metrics
            .iter()
            .filter(|m| seconds.contains(&m.second) && m.throttled_reads > 0)
            .map(|m| format!("{} in second {}", m.throttled_reads, m.second))
            .collect();
        if refused.is_empty() {
            String::new()
        } else {
            format!(
                "The partition refused reads (partition metrics): {}; a refused key comes back in \
                 UnprocessedKeys — or, when a call could read nothing, the call fails with \
                 ProvisionedThroughputExceededException. ",
                refused.join(", ")
            )
        }
    }

    /// Writes the test's own items (never throttled: the fill runs on the ample write
    /// capacity, a second per 800 WCU).
    fn fill(&self, items: &[Item]) {
        let mut spent = 0;
        for item in items {
            let wcu = item_size(item).div_ceil(1024);
            if spent + wcu > 800 {
                self.world.advance(Duration::from_secs(1));
                spent = 0;
            }
            spent += wcu;
            self.client
                .put_item()
                .table_name(TABLE)
                .set_item(Some(item.clone()))
                .send()
                .expect("the tests' fill");
        }
        // Every replica has every book before the learner's (eventually consistent) reads.
        self.world.settle();
    }

    /// The catalogue as the leader has it, by ISBN (a strongly consistent Scan, a second per
    /// page so the reads are never throttled).
    fn stored(&self) -> BTreeMap<String, Item> {
        self.world.settle();
        let mut out = BTreeMap::new();
        let mut start: Option<Item> = None;
        loop {
            self.world.advance(Duration::from_secs(1));
            let page = self
                .client
                .scan()
                .table_name(TABLE)
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .expect("the tests' Scan");
            for item in page.items() {
                out.insert(isbn(item), item.clone());
            }
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                return out;
            }
        }
    }

    /// Fails unless every item of `expected` is stored exactly as given.
    fn expect_stored(&self, call: &str, expected: &[Item], sent: &[RequestRecord]) {
        let stored = self.stored();
        let missing: Vec<&Item> = expected
            .iter()
            .filter(|i| !stored.contains_key(&isbn(i)))
            .collect();
        if !missing.is_empty() {
            let units: f64 = sent.iter().map(|r| r.write_units).sum();
            let partial: Vec<&RequestRecord> = sent
                .iter()
                .filter(|r| r.succeeded() && r.write_units > 0.0)
                .collect();
            let first = partial.first().map_or(0, |r| r.at_ms / 1000);
            let examples: Vec<String> = missing.iter().take(3).map(|i| isbn(i)).collect();
            let batches = sent
                .iter()
                .filter(|r| r.operation == "BatchWriteItem")
                .count();
            let why = if batches > 0 && self.wcu == SMALL_WCU {
                format!(
                    "Its {batches} BatchWriteItem calls wrote {units} WCU in all — at \
                     {SMALL_WCU} WCU a second, a call of 25 small items writes about 10 and \
                     returns the rest in UnprocessedItems, and the call still succeeds. {}An Ok \
                     BatchWriteItem has written only what it did not hand back.",
                    self.second_text(first, sent)
                )
            } else {
                format!(
                    "Its requests wrote {units} WCU in all. An Ok BatchWriteItem has written \
                     only what it did not hand back in UnprocessedItems."
                )
            };
            fail(format!(
                "{call} returned Ok, but {} of the {} items are not in the table (for example \
                 {}). {why} Its requests: {}",
                missing.len(),
                expected.len(),
                examples.join(", "),
                show_all(sent)
            ));
        }
        for item in expected {
            let got = &stored[&isbn(item)];
            if got != item {
                Failure::compare(
                    format!(
                        "{call}: the item {} is not stored as given (attribute by attribute \
                         below). A put request carries the whole item, unchanged.",
                        isbn(item)
                    ),
                    item_text(item),
                    item_text(got),
                )
                .raise();
            }
        }
    }

    /// Fails unless a refused set returned an error, wrote nothing, and left `taken` as it was.
    fn expect_refused(
        &self,
        call: &str,
        result: Result<(), Error>,
        sent: &[RequestRecord],
        set: &[Item],
        taken: &Item,
        before: &[Item],
    ) {
        let stored = self.stored();
        let key = isbn(taken);
        if stored.get(&key) != Some(taken) {
            fail(format!(
                "{call} {}, and the book that was already in the catalogue under {key} is now \
                 {} (was {}). {} A write can carry its own condition, and in a \
                 transaction a condition that fails cancels the whole transaction. Its \
                 requests: {}",
                if result.is_ok() {
                    "returned Ok"
                } else {
                    "returned an error"
                },
                stored.get(&key).map_or("gone".to_string(), show_item),
                show_item(taken),
                if sent.iter().any(|r| r.operation == "TransactWriteItems") {
                    "A Put without a condition replaces the item with the same key, in a \
                     transaction too."
                } else {
                    "A put replaces the item with the same key — and a batch has no \
                     conditions to stop it."
                },
                show_all(sent)
            ));
        }
        let written: Vec<String> = set
            .iter()
            .map(isbn)
            .filter(|k| *k != key && stored.contains_key(k))
            .collect();
        if !written.is_empty() {
            let committed: Vec<RequestRecord> = sent
                .iter()
                .filter(|r| r.succeeded() && r.write_units > 0.0)
                .cloned()
                .collect();
            fail(format!(
                "{call} {}, but {} of the set's {} items are in the catalogue (for example {}): \
                 {} wrote them before the taken ISBN was found{}. The set must appear whole or \
                 not at all: only a transaction (up to 100 actions) is, and only a condition \
                 stops a Put from replacing a taken ISBN. Its requests: {}",
                if result.is_ok() {
                    "returned Ok"
                } else {
                    "returned an error"
                },
                written.len(),
                set.len(),
                written.first().expect("one written"),
                show_all(&committed),
                if committed
                    .iter()
                    .any(|r| r.operation == "TransactWriteItems")
                {
                    " — each transaction is atomic on its own, not the set split over several"
                } else {
                    ""
                },
                show_all(sent)
            ));
        }
        if result.is_ok() {
            fail(format!(
                "{call} returned Ok, but the set was not written: the caller must learn that \
                 it was refused, and Ok tells it the set is in the catalogue. Its requests: {}",
                show_all(sent)
            ));
        }
        for item in before {
            if stored.get(&isbn(item)) != Some(item) {
                fail(format!(
                    "{call}: the first set's {} changed; a refused set touches nothing.",
                    isbn(item)
                ));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Books and sets
// ---------------------------------------------------------------------------------------

fn isbn_for(n: u64) -> String {
    format!("978-1-{:05}-{:03}-{}", 40_000 + n, (n * 37) % 1000, n % 10)
}

fn isbn(item: &Item) -> String {
    match item.get(KEY) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => "(no isbn)".to_string(),
    }
}

fn title(item: &Item) -> String {
    match item.get("title") {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    }
}

/// A blurb that keeps a book under 1 KB (1 WCU).
fn small_blurb(rng: &mut Rng) -> usize {
    200 + rng.below(600) as usize
}

const WORDS: [&str; 8] = [
    "tide", "lantern", "orchard", "glass", "winter", "atlas", "ember", "quiet",
];

fn small_book(rng: &mut Rng, n: u64) -> Item {
    let blurb = small_blurb(rng);
    book(rng, n, blurb)
}

fn book(rng: &mut Rng, n: u64, blurb: usize) -> Item {
    rng_book_with(rng, isbn_for(n), blurb)
}

/// A book with a given ISBN (someone else's edition of a volume, say).
fn rng_book(rng: &mut Rng, isbn: String) -> Item {
    let blurb = small_blurb(rng);
    let mut b = rng_book_with(rng, isbn, blurb);
    b.insert(
        "title".into(),
        AttributeValue::S(format!("{} (already listed)", title(&b))),
    );
    b
}

fn rng_book_with(rng: &mut Rng, isbn: String, blurb: usize) -> Item {
    let w = |rng: &mut Rng| WORDS[rng.below(WORDS.len() as u64) as usize];
    let title = format!("The {} of {}", w(rng), w(rng));
    let text = format!("{title}: a story of {} and {}. ", w(rng), w(rng));
    Item::from([
        (KEY.to_string(), AttributeValue::S(isbn)),
        ("kind".to_string(), AttributeValue::S("BOOK".into())),
        ("title".to_string(), AttributeValue::S(title)),
        (
            "author".to_string(),
            AttributeValue::S(format!("A. {}", w(rng))),
        ),
        (
            "price_cents".to_string(),
            AttributeValue::N((500 + rng.below(4_000)).to_string()),
        ),
        (
            "blurb".to_string(),
            AttributeValue::S(text.repeat(blurb / text.len() + 1)[..blurb].to_string()),
        ),
    ])
}

/// A box set (ISBN from `n`) and its `volumes`.
fn box_set(rng: &mut Rng, n: u64, volumes: usize) -> (Item, Vec<Item>) {
    let set_isbn = isbn_for(50_000 + n);
    let vols: Vec<Item> = (0..volumes as u64)
        .map(|v| {
            let mut b = small_book(rng, 60_000 + n * 100 + v);
            b.insert("box_set".into(), AttributeValue::S(set_isbn.clone()));
            b
        })
        .collect();
    let set = Item::from([
        (KEY.to_string(), AttributeValue::S(set_isbn)),
        ("kind".to_string(), AttributeValue::S("BOX_SET".into())),
        (
            "title".to_string(),
            AttributeValue::S(format!("Box set {n}")),
        ),
        (
            "volumes".to_string(),
            AttributeValue::L(vols.iter().map(|v| AttributeValue::S(isbn(v))).collect()),
        ),
    ]);
    (set, vols)
}

fn shuffle(rng: &mut Rng, v: &mut [String]) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

// ---------------------------------------------------------------------------------------
// Showing things
// ---------------------------------------------------------------------------------------

/// `BatchWriteItem #12 at 1,050 ms (10 WCU)`, `… (ProvisionedThroughputExceededException)`.
fn show(r: &RequestRecord) -> String {
    let what = match r.error {
        Some(e) => e.to_string(),
        None if r.write_units > 0.0 => format!("{} WCU", r.write_units),
        None if r.read_units > 0.0 => format!("{} RCU", r.read_units),
        None => "no units".to_string(),
    };
    format!(
        "{} #{} at {} ms ({what})",
        r.operation,
        r.seq,
        thousands(r.at_ms as i64)
    )
}

/// `BatchWriteItem #12 at 1,050 ms`.
fn name(r: &RequestRecord) -> String {
    format!(
        "{} #{} at {} ms",
        r.operation,
        r.seq,
        thousands(r.at_ms as i64)
    )
}

/// Every request, or the first 12 and the last 4 of a long list.
fn show_all(requests: &[RequestRecord]) -> String {
    if requests.is_empty() {
        return "no request".to_string();
    }
    if requests.len() <= 16 {
        return requests.iter().map(show).collect::<Vec<_>>().join(", ");
    }
    let head: Vec<String> = requests[..12].iter().map(show).collect();
    let tail: Vec<String> = requests[requests.len() - 4..].iter().map(show).collect();
    format!(
        "{}, … ({} more) …, {}",
        head.join(", "),
        requests.len() - 16,
        tail.join(", ")
    )
}

/// `978-… "The tide of glass" (BOOK, 612 bytes)`.
fn show_item(item: &Item) -> String {
    let kind = match item.get("kind") {
        Some(AttributeValue::S(k)) => k.as_str(),
        _ => "?",
    };
    format!(
        "{} \"{}\" ({kind}, {} bytes)",
        isbn(item),
        title(item),
        thousands(item_size(item) as i64)
    )
}

/// One attribute per line, names sorted; long strings shortened.
fn item_text(item: &Item) -> String {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let mut v = engine::value::value_to_json(&item[name]).to_string();
            if v.len() > 80 {
                let head: String = v.chars().take(60).collect();
                v = format!("{head}… ({} bytes)", v.len());
            }
            format!("{name}: {v}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_text(e: &Error) -> String {
    format!(
        "{}: \"{}\"",
        e.code().unwrap_or("an error"),
        e.message().unwrap_or_default()
    )
}
