//! Hidden tests of the `hot-key-sharding` kata.
//!
//! Each test builds a fresh world with the kata's table (`given::TABLE`, partition key `PK`,
//! provisioned 1,000 RCU / 40,000 WCU: 41 partitions), sends likes through the learner's
//! `increment` on the simulated clock, and judges the result from the outside only:
//!
//! - `total_reads_every_shard`: `total` returns exactly the likes recorded, reads with at
//!   most one request per shard and never a Scan, and keeps posts apart. When the total is too
//!   low, the test finds out *which* shard items `total` never read by nudging each one and
//!   watching whether the total moves.
//! - `spreads_a_viral_burst`: 2,500 likes a second for 2 s over 20 shards; no partition is
//!   throttled in any second (`partition_metrics`) and the total is exact.
//! - `retries_throttled_writes`: 6,000 likes in one second over 4 shards must be throttled;
//!   every like must still be stored exactly once, by retrying with backoff on the clock, and
//!   the waits between one like's attempts (the simulated time between its requests in the
//!   request log) must grow.
//! - `returns_other_errors`: with the table missing, `increment` must hand
//!   `ResourceNotFoundException` back after a request or two instead of retrying it. The
//!   call runs on the engine's schedule next to a watchdog client, which creates the table
//!   once `increment` has sent too many requests, so a retry-everything loop ends.
//! - `counts_concurrent_likes`: eight clients like one post at once, interleaved request by
//!   request in an order drawn from the seed (`World::concurrently`); no like may be lost,
//!   which a read-modify-write (GetItem, then PutItem) does.
//! - `advises_from_the_throttling_reasons`: four throttles of the test's own writes (a hot
//!   key on a big provisioned table, a short table, a hot key on demand, a short index) go
//!   to `advise`, which must tell the key from the capacity, and name the table or index,
//!   from the error's throttling reasons — the first two share exception and message.

mod advice;
mod explain;
mod scene;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use engine::error::ProvideErrorMetadata;
use engine::world::schedule::yield_now;
use engine::{Client, Error};
use given::{Advice, TABLE};
use katas_testkit::{check_eq, fail, run, seeded, thousands};
use learner::{increment, total};

use explain::{explain_wrong_total, flat_backoff_message, hot_partition_message};
use scene::{create_table, waits_after_throttles, Scene};

/// More throttled attempts than this for one like means the retry loop barely waits.
const MAX_THROTTLES_PER_LIKE: u64 = 100;
/// Waits one like needs before the test judges whether they grow.
const MIN_WAITS_TO_JUDGE_BACKOFF: usize = 3;
/// Requests one `increment` may send to a table that does not exist.
const MAX_REQUESTS_ON_MISSING_TABLE: u64 = 3;
/// Requests after which the watchdog of `returns_other_errors` creates the missing table, to
/// end a loop that retries every error (well past the limit, so the failure shows the loop).
const WATCHDOG_CREATES_TABLE_AFTER: u64 = 12;

katas_testkit::learner! {
    /// Records like number `n` of `post`, spread over `shards` items.
    fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error>;
    /// Every like of `post` so far.
    fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error>;
    /// What a throttling error tells the on-call (`None` for other errors).
    fn advise(error: &Error) -> Option<Advice>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("total_reads_every_shard", total_reads_every_shard),
        seeded("spreads_a_viral_burst", spreads_a_viral_burst),
        seeded("retries_throttled_writes", retries_throttled_writes),
        seeded("returns_other_errors", returns_other_errors),
        seeded("counts_concurrent_likes", counts_concurrent_likes),
        seeded(
            "advises_from_the_throttling_reasons",
            advice::advises_from_the_throttling_reasons,
        ),
    ]);
}

/// A post's likes, counted over 8 shards at a gentle 200 likes/s: `total` must return every
/// one of them, read each shard at most once, never Scan, and not mix two posts.
fn total_reads_every_shard(seed: u64) {
    let s = Scene::new(seed);
    let shards = 8;
    match total(&s.client, "post-1", shards) {
        Ok(0) => {}
        Ok(n) => fail(format!(
            "total(\"post-1\", {shards}) returned {n} for a post nobody has liked yet — it \
             should be 0"
        )),
        Err(e) if e.message().unwrap_or_default().starts_with("TODO") => {
            fail(format!("total(\"post-1\", {shards}) failed: {e}"))
        }
        Err(e) => fail(format!(
            "total(\"post-1\", {shards}) failed on a post nobody has liked yet: {e}\n\
             A shard item nobody wrote to does not exist yet: GetItem returns no item, which \
             counts as 0."
        )),
    }

    s.drive("post-1", shards, 997, 200);
    s.world.settle();
    let items = s.items();
    if items.len() > shards as usize {
        fail(format!(
            "increment() wrote {} different items for post-1 with shards = {shards}: a post's \
             likes must go to at most {shards} shard keys, or total() cannot know where to read \
             them\n{}",
            items.len(),
            explain::keys_list(&items)
        ));
    }

    let before = s.world.request_totals();
    let got = total(&s.client, "post-1", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-1\", {shards}) failed: {e}")));
    let after = s.world.request_totals();
    if got != 997 {
        explain_wrong_total(&s, "post-1", shards, 997, got, &[]);
    }
    let count = |op: &str| {
        after.by_operation.get(op).copied().unwrap_or(0)
            - before.by_operation.get(op).copied().unwrap_or(0)
    };
    if count("Scan") > 0 {
        fail(format!(
            "total(\"post-1\", {shards}) sent {} Scan request(s): a Scan reads every item of the \
             table — every post's counters — to find 8 items whose keys you already know. \
             A read by key reads only the items it names.",
            count("Scan")
        ));
    }
    let requests = after.requests - before.requests;
    if requests > u64::from(shards) {
        fail(format!(
            "total(\"post-1\", {shards}) sent {requests} requests for {shards} shards: more \
             requests than there are shards to read, and each one is paid for"
        ));
    }

    // A second post: its likes must not show up in the first post's total.
    s.drive("post-2", shards, 303, 200);
    s.world.settle();
    let p1 = total(&s.client, "post-1", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-1\", {shards}) failed: {e}")));
    check_eq(
        997,
        p1,
        format!(
            "after 303 likes of post-2, total(\"post-1\", {shards}) changed: each post needs its \
             own shard keys, and post-2's likes landed on keys post-1's total reads"
        ),
    );
    let p2 = total(&s.client, "post-2", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-2\", {shards}) failed: {e}")));
    check_eq(
        303,
        p2,
        format!("total(\"post-2\", {shards}) after 303 likes of post-2"),
    );
}

/// The viral post: 2,500 likes a second for 2 s, 20 shards. One partition serves 1,000 WCU a
/// second, so one key cannot take it; 20 keys spread over the table's partitions can.
fn spreads_a_viral_burst(seed: u64) {
    let s = Scene::new(seed);
    let (shards, likes) = (20, 5_000);
    let stats = s.drive("post-1", shards, likes, 2_500);
    let metrics = s
        .world
        .partition_metrics(TABLE, None)
        .unwrap_or_else(|e| fail(format!("cannot read partition metrics: {e}")));
    if let Some(worst) = metrics.iter().max_by_key(|m| m.throttled_writes) {
        if worst.throttled_writes > 0 {
            fail(hot_partition_message(
                &s, shards, likes, &stats, &metrics, worst,
            ));
        }
    }
    s.world.settle();
    let got = total(&s.client, "post-1", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-1\", {shards}) failed: {e}")));
    if got != likes {
        explain_wrong_total(&s, "post-1", shards, likes, got, &[]);
    }
}

/// A flash crowd: 6,000 likes within one second on 4 shards — more than four partitions take
/// in a second, so writes are throttled whatever the keys. Every like must be stored anyway,
/// exactly once, by retrying with a backoff that grows, on the simulated clock.
fn retries_throttled_writes(seed: u64) {
    let s = Scene::new(seed);
    let (shards, likes) = (4, 6_000);
    let stats = s.drive("post-1", shards, likes, 6_000);
    if stats.max_throttles > MAX_THROTTLES_PER_LIKE {
        fail(format!(
            "like #{} was throttled {} times before it went through: the retry loop barely waits. \
             Each attempt on a partition that is already over its ceiling only adds load, and \
             the ceiling is per second: only time on the simulated clock gives the partition \
             capacity again.",
            thousands(stats.max_throttles_like),
            thousands(stats.max_throttles)
        ));
    }
    // Doubling makes the longest wait at least twice the shortest (jitter or not, once a like
    // has waited three times); a fixed wait keeps them equal.
    let waits = waits_after_throttles(&stats.max_throttles_log);
    let (shortest, longest) = (waits.iter().min(), waits.iter().max());
    if let (Some(&shortest), Some(&longest)) = (shortest, longest) {
        if waits.len() >= MIN_WAITS_TO_JUDGE_BACKOFF && longest < 2 * shortest.max(1) {
            fail(flat_backoff_message(&stats, &waits));
        }
    }
    s.world.settle();
    let got = total(&s.client, "post-1", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-1\", {shards}) failed: {e}")));
    if got != likes {
        explain_wrong_total(&s, "post-1", shards, likes, got, &[]);
    }
}

/// The table is gone (deleted by mistake, a wrong name in the configuration): `increment`
/// gets `ResourceNotFoundException`, which no wait can fix, and must return it rather than
/// retry. The call runs next to a watchdog client on the engine's schedule: once `increment`
/// has sent more than a few requests, the watchdog creates the table, so that a loop that
/// retries every error ends (and the test can say what it did) instead of spinning forever.
fn returns_other_errors(seed: u64) {
    let s = Scene::without_table(seed);
    let (post, shards, n) = ("post-1", 4, 0);
    let done = AtomicBool::new(false);
    let created_at = Mutex::new(None);
    let learner = |client: Client| {
        let result = increment(&client, post, shards, n);
        done.store(true, Ordering::SeqCst);
        result
    };
    let world = s.world.clone();
    let watchdog = |client: Client| {
        while !done.load(Ordering::SeqCst) {
            if world.request_totals().requests > WATCHDOG_CREATES_TABLE_AFTER {
                *created_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(client.world().now());
                create_table(&client)
                    .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
                return;
            }
            yield_now();
        }
    };
    let mut results = s
        .world
        .concurrently(seed)
        .run_each::<Option<Result<(), Error>>>(vec![
            Box::new(|client| Some(learner(client))),
            Box::new(|client| {
                watchdog(client);
                None
            }),
        ]);
    let result = results
        .swap_remove(0)
        .expect("the learner's body returns its result");
    let log: Vec<_> = s
        .world
        .request_log()
        .into_iter()
        .filter(|r| r.client == Some(0))
        .collect();
    let created_at = created_at.into_inner().unwrap_or_else(|e| e.into_inner());
    let call = format!("increment(\"{post}\", {shards}, {n})");
    if let Some(at) = created_at {
        let missing: Vec<_> = log.iter().filter(|r| r.error.is_some()).collect();
        let spent = missing.last().map_or(0, |r| r.at_ms) - missing.first().map_or(0, |r| r.at_ms);
        let errors: Vec<&str> = missing.iter().filter_map(|r| r.error).collect();
        let error = errors.first().copied().unwrap_or("an error");
        fail(format!(
            "{call} was sent to a table that does not exist and kept retrying: the request log \
             shows {} requests from it that failed ({}{}) over {:.1} s of simulated time, and it \
             only {} once the test created the table at {:.1} s. A missing table does not \
             appear by waiting — nor does any error but a throttle go away.",
            thousands(missing.len() as u64),
            error,
            if errors.iter().all(|e| *e == error) {
                ", every one"
            } else {
                ", and others"
            },
            spent as f64 / 1000.0,
            match result {
                Ok(()) => "returned",
                Err(_) => "stopped",
            },
            at.as_secs_f64()
        ));
    }
    match result {
        Ok(()) => fail(format!(
            "{call} returned Ok, but the table {TABLE} does not exist: its write was refused \
             with ResourceNotFoundException and the like was not stored, while Ok tells the \
             caller it was."
        )),
        Err(Error::ResourceNotFoundException(_)) => {}
        Err(e) if e.message().unwrap_or_default().starts_with("TODO") => {
            fail(format!("{call} failed: {e}"))
        }
        Err(e) => fail(format!(
            "{call} on a table that does not exist returned {}: {e}\nThe write got \
             ResourceNotFoundException; a caller told anything else cannot tell a missing \
             table from a bug in the request.",
            e.code().unwrap_or("an unnamed error")
        )),
    }
    let requests = log.len() as u64;
    if requests > MAX_REQUESTS_ON_MISSING_TABLE {
        fail(format!(
            "{call} sent {requests} requests to a table that does not exist before it returned \
             ResourceNotFoundException: only a throttle passes with time, every other error comes \
             back the same on each attempt."
        ));
    }
}

/// Eight clients like one post at once (8 × 40 likes over 4 shards), their requests admitted
/// one at a time in an order drawn from the seed. Each single-item write is atomic on the
/// partition leader, so an `ADD` loses nothing; a GetItem followed by a PutItem of the count
/// it read overwrites any like another client stored in between.
fn counts_concurrent_likes(seed: u64) {
    const CLIENTS: u64 = 8;
    const PER_CLIENT: u64 = 40;
    let s = Scene::new(seed);
    let (post, shards, likes) = ("post-1", 4, CLIENTS * PER_CLIENT);
    let results = s
        .world
        .concurrently(seed)
        .run(CLIENTS as usize, |i, client| {
            for k in 0..PER_CLIENT {
                let n = k * CLIENTS + i as u64;
                if let Err(e) = increment(&client, post, shards, n) {
                    return Err((n, e));
                }
            }
            Ok(())
        });
    for (i, result) in results.into_iter().enumerate() {
        if let Err((n, e)) = result {
            fail(format!(
                "increment(\"{post}\", {shards}, {n}) from client {i} of {CLIENTS} concurrent \
                 clients failed: {e}{}",
                if e.is_throttling() {
                    "\nA throttled request did nothing, so it is safe to send again, and a \
                     throttle passes with time on the simulated clock."
                } else {
                    ""
                }
            ));
        }
    }
    let log = s.world.request_log();
    s.sent.borrow_mut().note(&log);
    s.world.settle();
    let got = total(&s.client, post, shards)
        .unwrap_or_else(|e| fail(format!("total(\"{post}\", {shards}) failed: {e}")));
    if got != likes {
        explain_wrong_total(&s, post, shards, likes, got, &log);
    }
}
