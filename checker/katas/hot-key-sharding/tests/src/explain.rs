//! Explaining failures: what DynamoDB saw — which shard items `total` never read, which
//! partition was throttled and why, how a like's retries were spaced, which requests of which
//! clients lost a like — from the items, the partition metrics and the request log.

use std::collections::BTreeMap;

use engine::world::inspect::PartitionSecond;
use engine::world::log::RequestRecord;
use engine::{AttributeValue, Item};
use given::TABLE;
use katas_testkit::{fail, thousands};

use crate::learner::total;
use crate::scene::{Scene, Stats};

/// Write units one partition serves per second (the engine's default, DynamoDB's value).
const CEILING_WCU: f64 = 1000.0;

fn pk(item: &Item) -> String {
    match item.get("PK") {
        Some(AttributeValue::S(s)) => s.clone(),
        other => format!("{other:?}"),
    }
}

pub(crate) fn keys_list(items: &[Item]) -> String {
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

/// The table's items by the partition that holds them (their keys, quoted).
fn keys_by_partition(s: &Scene, items: &[Item]) -> BTreeMap<u32, Vec<String>> {
    let mut keys_on: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for item in items {
        if let Ok(p) = s.world.partition_of(TABLE, &item["PK"]) {
            keys_on
                .entry(p)
                .or_default()
                .push(format!("\"{}\"", pk(item)));
        }
    }
    keys_on
}

/// Fails with an explanation of why `total` returned `got` instead of `want`: which shard
/// items it never read, or whether likes were lost or doubled on the way in. `log` holds the
/// requests `increment` sent from concurrent clients, if it ran on a schedule (else empty).
pub(crate) fn explain_wrong_total(
    s: &Scene,
    post: &str,
    shards: u32,
    want: u64,
    got: u64,
    log: &[RequestRecord],
) -> ! {
    let call = format!("total(\"{post}\", {shards})");
    let items = s.items();
    let Some(attribute) = counting_attribute(&items, want) else {
        let held: u64 = items
            .iter()
            .flat_map(|i| i.iter().filter(|(k, _)| *k != "PK"))
            .filter_map(|(_, v)| v.as_number().and_then(|n| n.to_u64()))
            .sum();
        if held < want {
            fail(lost_likes_message(s, &call, want, got, held, &items, log));
        }
        fail(format!(
            "{call} returned {} but {} likes were recorded, and the shard items do not add up to \
             {} either (their numbers sum to {}): increment() doubled likes. Each like must be \
             stored exactly once — one successful write per like.\n{}",
            thousands(got),
            thousands(want),
            thousands(want),
            thousands(held),
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

/// Likes went missing on the way in: say how, from what `increment` sent.
fn lost_likes_message(
    s: &Scene,
    call: &str,
    want: u64,
    got: u64,
    held: u64,
    items: &[Item],
    log: &[RequestRecord],
) -> String {
    let sent = s.sent.borrow();
    let lost = format!(
        "{call} returned {} but {} likes were recorded, and the shard items hold only {}: {} \
         likes were lost on the way in.",
        thousands(got),
        thousands(want),
        thousands(held),
        thousands(want - held)
    );
    let keys_on = keys_by_partition(s, items);
    let witnesses = lost_updates(log);
    // Prefer a race on a partition that holds one item only: the log names partitions, not
    // items, and there the partition is the item.
    let witness = witnesses
        .iter()
        .find(|w| keys_on.get(&w.partition).is_some_and(|k| k.len() == 1))
        .or(witnesses.first());
    if let Some(w) = witness {
        let on = match keys_on.get(&w.partition).map(Vec::as_slice) {
            Some([key]) => format!("partition {} (it holds one item, PK = {key})", w.partition),
            _ => format!("partition {}", w.partition),
        };
        let line = |r: &RequestRecord, note: &str| {
            format!(
                "  #{:<6} client {}  {:<12} {note}",
                r.seq,
                r.client.unwrap_or(0),
                r.operation
            )
        };
        let other = w.other.client.unwrap_or(0);
        return format!(
            "{lost}\nincrement() reads the shard ({}) and writes the count back ({}): a \
             read-modify-write, and two requests are not one atomic step. Between one client's \
             read and its write, another client stored its like on the same shard, and the \
             write overwrote it with a count that never saw that like. From the request log, \
             on {on}:\n{}\n{}\n{}",
            w.read.operation,
            w.write.operation,
            line(w.read, "reads the count"),
            line(w.other, &format!("stores client {other}'s like")),
            line(
                w.write,
                &format!(
                    "writes the count it read at #{}: client {other}'s like is gone",
                    w.read.seq
                )
            ),
        );
    }
    if sent.read_then_put() && sent.eventual_reads > 0 {
        return format!(
            "{lost}\nincrement() reads the shard with an eventually consistent GetItem ({} of \
             its {} reads were) and writes the count back with PutItem: the read may be served by \
             a replica that has not received the previous like yet, and the PutItem then \
             writes a count without it. Even a strongly consistent read does not make \
             read-modify-write safe once two clients like at once.",
            thousands(sent.eventual_reads),
            thousands(sent.count("GetItem") + sent.count("BatchGetItem"))
        );
    }
    if sent.read_then_put() {
        return format!(
            "{lost}\nincrement() reads the shard (GetItem) and writes the count back (PutItem): \
             a read-modify-write, which is not atomic — a like stored between the read and the \
             write is overwritten."
        );
    }
    format!(
        "{lost} Each like must be stored exactly once — one successful write per like.\n{}",
        keys_list(items)
    )
}

/// One lost update seen in the request log: `read` by one client, then `other`'s write to
/// the same partition by another, then `write` by the first client.
struct LostUpdate<'a> {
    partition: u32,
    read: &'a RequestRecord,
    other: &'a RequestRecord,
    write: &'a RequestRecord,
}

/// Every read-then-write of a client that another client's write came between, on one
/// partition of the table (successful requests of scheduled clients only).
fn lost_updates(log: &[RequestRecord]) -> Vec<LostUpdate<'_>> {
    type Open<'a> = (&'a RequestRecord, Option<&'a RequestRecord>);
    let mut open: BTreeMap<(usize, u32), Open<'_>> = BTreeMap::new();
    let mut found = Vec::new();
    for r in log.iter().filter(|r| r.succeeded() && r.touches(TABLE)) {
        let Some(c) = r.client else { continue };
        let is_read = r.consistent_read.is_some();
        for &(_, p) in r.partitions.iter().filter(|(t, _)| &**t == TABLE) {
            if is_read {
                open.insert((c, p), (r, None));
                continue;
            }
            if let Some((read, Some(other))) = open.remove(&(c, p)) {
                found.push(LostUpdate {
                    partition: p,
                    read,
                    other,
                    write: r,
                });
            }
            for ((d, q), (_, other)) in open.iter_mut() {
                if *q == p && *d != c && other.is_none() {
                    *other = Some(r);
                }
            }
        }
    }
    found
}

/// The waits of a retry loop did not grow: show the most throttled like's attempts on the
/// clock (`waits` are its waits after each throttle).
pub(crate) fn flat_backoff_message(stats: &Stats, waits: &[u64]) -> String {
    const SHOWN: usize = 8;
    let log = &stats.max_throttles_log;
    let mut times: Vec<String> = log
        .iter()
        .take(SHOWN)
        .map(|r| format!("{:.3}\u{a0}s", r.at_ms as f64 / 1000.0))
        .collect();
    if log.len() > SHOWN {
        times.push("…".into());
    }
    let mut gaps: Vec<String> = waits
        .iter()
        .take(SHOWN)
        .map(|w| format!("{w}\u{a0}ms"))
        .collect();
    if waits.len() > SHOWN {
        gaps.push("…".into());
    }
    let same = waits.windows(2).all(|w| w[0] == w[1]);
    let partition = log
        .iter()
        .find(|r| r.throttled())
        .and_then(|r| r.partitions.first())
        .map_or(String::new(), |(_, p)| format!(" on partition {p}"));
    format!(
        "the waits between one like's throttled attempts do not grow: like #{} was throttled {} \
         times{partition}. The request log shows its attempts at {} on the simulated clock: it \
         waited {} between them{}. A fixed wait sends a throttled like back at the same pace \
         into a partition that is still over its {} WCU, and in a flash crowd every waiting \
         client does the same: the retries arrive as fast as they are throttled.",
        thousands(stats.max_throttles_like),
        stats.max_throttles,
        times.join(", "),
        gaps.join(", "),
        if same { " — the same every time" } else { "" },
        thousands(CEILING_WCU as u64),
    )
}

/// The failure message of a throttled partition: which partition, when, how hard, and why —
/// one key, or keys that landed on too few partitions — with the picture of the partitions.
pub(crate) fn hot_partition_message(
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
    let keys_on = keys_by_partition(s, &items);
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
        let (key_text, unused) = match keys.as_slice() {
            [one] => (
                format!("PK = {one}: one item on one partition"),
                format!("the call was given {shards} shards and used one key"),
            ),
            many => (
                format!(
                    "{} keys that all hash to partition {}",
                    many.len(),
                    worst.partition
                ),
                "a partition's ceiling holds for all the keys on it together".to_string(),
            ),
        };
        (
            "every increment hit the same partition key",
            format!(
                "All {} likes went to {key_text}, {load}, while the table's other {} partitions \
                 sat idle. One key is capped at {} writes a second however much capacity the \
                 table has: {unused}.",
                thousands(likes),
                partitions.saturating_sub(1),
                thousands(CEILING_WCU as u64),
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
                 holds {} of them ({}) and was {load}. A partition's {} WCU is shared by the \
                 keys it holds and the likes they get.",
                items.len(),
                keys_on.len(),
                worst.partition,
                on_worst.len(),
                on_worst.join(", "),
                thousands(CEILING_WCU as u64),
            ),
        )
    };
    format!(
        "partition {} was throttled {} times in second {} ({} WCU ceiling) — \
         {cause}.\n{story}\n\nLook at the picture: one bar per partition that took writes, \
         against its {} WCU ceiling. A bar pinned at the ceiling and marked THROTTLED while the \
         others are short or idle is a partition key that gets more than its share of the \
         likes.\n{}",
        worst.partition,
        thousands(worst.throttled_writes),
        worst.second,
        thousands(CEILING_WCU as u64),
        thousands(CEILING_WCU as u64),
        s.picture()
    )
}
