//! Hidden tests of the `hot-key-sharding` kata.
//!
//! Each test builds a fresh world with the kata's table (`likes`, partition key `PK`,
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
//!   every like must still be stored exactly once, by retrying with backoff on the clock.

use std::collections::BTreeMap;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::world::inspect::PartitionSecond;
use engine::{AttributeValue, Client, Item, World};
use katas_testkit::{check_eq, fail, run, seeded, thousands};
use learner::{increment, total};

const TABLE: &str = "likes";
/// Write units one partition serves per second (the engine's default, DynamoDB's value).
const CEILING_WCU: f64 = 1000.0;
/// More throttled attempts than this for one like means the retry loop barely waits.
const MAX_THROTTLES_PER_LIKE: u64 = 100;

katas_testkit::learner! {
    /// Records like number `n` of `post`, spread over `shards` items.
    fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), engine::Error>;
    /// Every like of `post` so far.
    fn total(client: &Client, post: &str, shards: u32) -> Result<u64, engine::Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("total_reads_every_shard", total_reads_every_shard),
        seeded("spreads_a_viral_burst", spreads_a_viral_burst),
        seeded("retries_throttled_writes", retries_throttled_writes),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

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
        Err(e) if e.message().starts_with("TODO") => {
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
            keys_list(&items)
        ));
    }

    let before = s.world.request_totals();
    let got = total(&s.client, "post-1", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-1\", {shards}) failed: {e}")));
    let after = s.world.request_totals();
    if got != 997 {
        explain_wrong_total(&s, "post-1", shards, 997, got);
    }
    let count = |op: &str| {
        after.by_operation.get(op).copied().unwrap_or(0)
            - before.by_operation.get(op).copied().unwrap_or(0)
    };
    if count("Scan") > 0 {
        fail(format!(
            "total(\"post-1\", {shards}) sent {} Scan request(s): a Scan reads every item of the \
             table — every post's counters — to find 8 items whose keys you already know. \
             Read the shard keys directly: one GetItem per shard, or one BatchGetItem.",
            count("Scan")
        ));
    }
    let requests = after.requests - before.requests;
    if requests > u64::from(shards) {
        fail(format!(
            "total(\"post-1\", {shards}) sent {requests} requests for {shards} shards: read each \
             shard once (one GetItem per shard, or one BatchGetItem for all of them)"
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
             own shard keys (put the post id in the key, e.g. \"post-1#COUNTER#3\")"
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
        explain_wrong_total(&s, "post-1", shards, likes, got);
    }
}

/// A flash crowd: 6,000 likes within one second on 4 shards — more than four partitions take
/// in a second, so writes are throttled whatever the keys. Every like must be stored anyway,
/// exactly once, by retrying with backoff on the simulated clock.
fn retries_throttled_writes(seed: u64) {
    let s = Scene::new(seed);
    let (shards, likes) = (4, 6_000);
    let stats = s.drive("post-1", shards, likes, 6_000);
    if stats.max_throttles > MAX_THROTTLES_PER_LIKE {
        fail(format!(
            "like #{} was throttled {} times before it went through: the retry loop barely waits. \
             Each attempt on a partition that is already over its ceiling only adds load; back \
             off exponentially on the simulated clock (e.g. 50 ms, 100 ms, 200 ms …, capped).",
            thousands(stats.max_throttles_like),
            thousands(stats.max_throttles)
        ));
    }
    s.world.settle();
    let got = total(&s.client, "post-1", shards)
        .unwrap_or_else(|e| fail(format!("total(\"post-1\", {shards}) failed: {e}")));
    if got != likes {
        explain_wrong_total(&s, "post-1", shards, likes, got);
    }
}

// ---------------------------------------------------------------------------------------
// The scene: a world with the kata's table, and a load driver
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

/// What a load run observed.
struct Stats {
    /// Most throttled requests sent during one call of `increment`, and that like's number.
    max_throttles: u64,
    max_throttles_like: u64,
    /// Simulated seconds the load was scheduled to take, and what storing it took.
    scheduled_s: f64,
    took_s: f64,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .provisioned_throughput(ProvisionedThroughput::new(1_000, 40_000))
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        Scene { world, client }
    }

    /// Sends `likes` likes of `post`, like `n` arriving at `n / per_second` seconds after the
    /// start on the simulated clock (or at once, if the learner's backoff already moved the
    /// clock past that moment). Fails the test on the first like `increment` does not store.
    fn drive(&self, post: &str, shards: u32, likes: u64, per_second: u64) -> Stats {
        let start_ms = self.world.now().as_millis() as u64;
        let mut stats = Stats {
            max_throttles: 0,
            max_throttles_like: 0,
            scheduled_s: likes as f64 / per_second as f64,
            took_s: 0.0,
        };
        for n in 0..likes {
            let due = start_ms + n * 1000 / per_second;
            let now = self.world.now().as_millis() as u64;
            if now < due {
                self.world.advance(Duration::from_millis(due - now));
            }
            let before = self.world.request_totals();
            let sent = increment(&self.client, post, shards, n);
            let after = self.world.request_totals();
            if let Err(e) = sent {
                let advice = if e.is_throttling() {
                    "\nA throttled write did nothing, so it is safe to send again: catch it \
                     (error.is_throttling()), wait on the simulated clock \
                     (client.world().advance(..)), and retry — backing off exponentially — \
                     until it goes through."
                } else {
                    ""
                };
                fail(format!(
                    "increment(\"{post}\", {shards}, {n}) failed at {:.3} s on the simulated \
                     clock: {e}{advice}",
                    self.world.now().as_secs_f64()
                ));
            }
            if after.requests == before.requests {
                fail(format!(
                    "increment(\"{post}\", {shards}, {n}) returned Ok but sent no request to the \
                     table: the like was not stored. Write it to one shard item with UpdateItem \
                     (ADD a number attribute)."
                ));
            }
            let throttles = after.throttled - before.throttled;
            if throttles > stats.max_throttles {
                stats.max_throttles = throttles;
                stats.max_throttles_like = n;
            }
        }
        stats.took_s = (self.world.now().as_millis() as u64 - start_ms) as f64 / 1000.0;
        stats
    }

    /// Every item of the table, read by the test (strongly consistent Scan, every page).
    fn items(&self) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(TABLE)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not scan the table: {e}")));
            items.extend(page.items().iter().cloned());
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return items,
            }
        }
    }

    /// The table's partitions with any load, as the engine draws them.
    fn picture(&self) -> String {
        let seconds = self.world.now().as_secs() + 1;
        let full = self
            .world
            .render_partitions(TABLE, seconds)
            .unwrap_or_default();
        let mut idle = 0;
        let mut out = String::new();
        for line in full.lines() {
            if line.contains(" 0 WCU/s peak") && !line.contains("THROTTLED") {
                idle += 1;
            } else {
                out.push_str(&without_reads(line));
                out.push('\n');
            }
        }
        if idle > 0 {
            out.push_str(&format!("  … and {idle} partitions without writes\n"));
        }
        out
    }
}

/// A partition line of the picture without its read bar (this kata is about writes), so it
/// fits a terminal: `… WCU/s peak ! │···│   1 RCU/s peak  items …` → `… WCU/s peak !  items …`.
fn without_reads(line: &str) -> String {
    let Some(peak) = line.find("WCU/s peak") else {
        return line.to_string();
    };
    let after_writes = peak + "WCU/s peak".len();
    let Some(reads_end) = line.find("RCU/s peak").map(|i| i + "RCU/s peak".len()) else {
        return line.to_string();
    };
    let throttled_mark = line[after_writes..]
        .split('│')
        .next()
        .unwrap_or("")
        .trim_end();
    let rest: Vec<&str> = line[reads_end..].split_whitespace().collect();
    format!(
        "{}{throttled_mark}  {}",
        &line[..after_writes],
        rest.join(" ")
    )
}

// ---------------------------------------------------------------------------------------
// Explaining failures
// ---------------------------------------------------------------------------------------

fn pk(item: &Item) -> String {
    match item.get("PK") {
        Some(AttributeValue::S(s)) => s.clone(),
        other => format!("{other:?}"),
    }
}

fn keys_list(items: &[Item]) -> String {
    let mut keys: Vec<String> = items.iter().map(pk).collect();
    keys.sort_by_key(|k| (k.len(), k.clone()));
    let keys: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
    format!("keys written: {}", keys.join(", "))
}

/// The number attribute whose sum over `items` is `want`, if there is one: the attribute the
/// learner counts likes in.
fn counting_attribute(items: &[Item], want: u64) -> Option<String> {
    let mut sums: BTreeMap<&str, u64> = BTreeMap::new();
    for item in items {
        for (name, value) in item {
            if name == "PK" {
                continue;
            }
            if let Some(n) = value.as_number().and_then(|n| n.to_u64()) {
                *sums.entry(name).or_insert(0) += n;
            }
        }
    }
    sums.into_iter()
        .find(|(_, sum)| *sum == want)
        .map(|(name, _)| name.to_string())
}

fn count_in(item: &Item, attribute: &str) -> u64 {
    item.get(attribute)
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_u64())
        .unwrap_or(0)
}

/// Fails with an explanation of why `total` returned `got` instead of `want`: which shard
/// items it never read, or whether likes were lost or doubled on the way in.
fn explain_wrong_total(s: &Scene, post: &str, shards: u32, want: u64, got: u64) -> ! {
    let call = format!("total(\"{post}\", {shards})");
    let items = s.items();
    let Some(attribute) = counting_attribute(&items, want) else {
        let held: u64 = items
            .iter()
            .flat_map(|i| i.iter().filter(|(k, _)| *k != "PK"))
            .filter_map(|(_, v)| v.as_number().and_then(|n| n.to_u64()))
            .sum();
        fail(format!(
            "{call} returned {} but {} likes were recorded, and the shard items do not add up to \
             {} either (their numbers sum to {}): increment() {} likes. Each like must be stored \
             exactly once — one successful write per like.\n{}",
            thousands(got),
            thousands(want),
            thousands(want),
            thousands(held),
            if held < want { "lost" } else { "doubled" },
            keys_list(&items)
        ))
    };
    if got > want {
        fail(format!(
            "{call} returned {} but {} likes were recorded — the shard items hold exactly {}, so \
             total() counts some shard more than once",
            thousands(got),
            thousands(want),
            thousands(want)
        ));
    }
    // Nudge each shard item by a million and see whether the total notices.
    const NUDGE: u64 = 1_000_000;
    let mut unread = Vec::new();
    for item in &items {
        let nudge = |by: &str| {
            s.client
                .update_item()
                .table_name(TABLE)
                .key("PK", item["PK"].clone())
                .update_expression("ADD #n :by")
                .expression_attribute_names("#n", attribute.as_str())
                .expression_attribute_values(":by", AttributeValue::N(by.into()))
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not inspect a shard: {e}")));
            s.world.settle();
        };
        nudge(&NUDGE.to_string());
        let seen = total(&s.client, post, shards);
        nudge(&format!("-{NUDGE}"));
        if seen == Ok(got) {
            unread.push(item);
        }
    }
    if unread.is_empty() {
        fail(format!(
            "{call} returned {} but {} likes were recorded, yet it reads every shard item: check \
             how it adds them up",
            thousands(got),
            thousands(want)
        ));
    }
    let described: Vec<String> = unread
        .iter()
        .map(|i| {
            format!(
                "PK = \"{}\" ({} likes)",
                pk(i),
                thousands(count_in(i, &attribute))
            )
        })
        .collect();
    fail(format!(
        "{call} returned {} but {} likes were recorded: total() never read the shard item{} {}. \
         Every shard increment() writes to must be read back — read exactly the shard keys \
         increment() chooses from.\n{}",
        thousands(got),
        thousands(want),
        if unread.len() == 1 { "" } else { "s" },
        described.join(", "),
        keys_list(&items)
    ))
}

/// The failure message of a throttled partition: which partition, when, how hard, and why —
/// one key, or keys that landed on too few partitions.
fn hot_partition_message(
    s: &Scene,
    shards: u32,
    likes: u64,
    stats: &Stats,
    metrics: &[PartitionSecond],
    worst: &PartitionSecond,
) -> String {
    let on_worst_partition = || metrics.iter().filter(|m| m.partition == worst.partition);
    let throttled_here: u64 = on_worst_partition().map(|m| m.throttled_writes).sum();
    let pinned_seconds = on_worst_partition()
        .filter(|m| m.consumed_write >= CEILING_WCU * 0.99)
        .count();
    let items = s.items();
    let mut keys_on: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for item in &items {
        if let Ok(p) = s.world.partition_of(TABLE, &item["PK"]) {
            keys_on
                .entry(p)
                .or_default()
                .push(format!("\"{}\"", pk(item)));
        }
    }
    let partitions = s.world.partitions(TABLE).map(|p| p.len()).unwrap_or(0);
    let load = format!(
        "pinned at {} WCU for {pinned_seconds} seconds ({} throttled writes); the {}-second \
         burst took {:.1} s of simulated time to store",
        thousands(CEILING_WCU as u64),
        thousands(throttled_here),
        stats.scheduled_s,
        stats.took_s
    );
    let (cause, story) = if keys_on.len() <= 1 {
        let keys = keys_on.values().next().cloned().unwrap_or_default();
        let key_text = match keys.as_slice() {
            [one] => format!("PK = {one}: one item on one partition"),
            many => format!(
                "{} keys that all hash to partition {}",
                many.len(),
                worst.partition
            ),
        };
        (
            "every increment hit the same partition key",
            format!(
                "All {} likes went to {key_text}, {load}, while the table's other {} partitions \
                 sat idle. One key is capped at {} writes a second however much capacity the \
                 table has. Spread the likes over `shards` keys (e.g. \"post-1#COUNTER#0\" … \
                 \"post-1#COUNTER#{}\") and sum them on read.",
                thousands(likes),
                partitions.saturating_sub(1),
                thousands(CEILING_WCU as u64),
                shards - 1
            ),
        )
    } else {
        let on_worst = keys_on.get(&worst.partition).cloned().unwrap_or_default();
        let cause = if items.len() < shards as usize {
            "your likes use fewer keys than `shards`"
        } else if on_worst.len() > 1 {
            "too many of your shard keys share one partition"
        } else {
            "one shard key takes more writes than its partition serves"
        };
        (
            cause,
            format!(
                "Your likes went to {} keys (shards = {shards}) on {} partitions; partition {} \
                 holds {} of them ({}) and was {load}. Use all `shards` keys and give each an \
                 even share of the likes.",
                items.len(),
                keys_on.len(),
                worst.partition,
                on_worst.len(),
                on_worst.join(", ")
            ),
        )
    };
    format!(
        "partition {} was throttled {} times in second {} ({} WCU ceiling) — \
         {cause}.\n{story}\n\n{}",
        worst.partition,
        thousands(worst.throttled_writes),
        worst.second,
        thousands(CEILING_WCU as u64),
        s.picture()
    )
}
