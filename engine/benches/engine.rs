//! In-process speed of the engine's hot operations, next to a plain `BTreeMap` baseline
//! measured in the same run (issue 2, "Speed").
//!
//! Single thread, no network: each figure is what one `Client` achieves calling `send()` in
//! a loop — request validation, expression parsing and evaluation, capacity arithmetic, the
//! partitioned store and its three replicas included. Each operation is run 5 times for at
//! least 0.5 s and the best run is reported (the least disturbed by the rest of the machine).
//!
//! Between two batches of 1,000 requests, outside the timed region, the simulated clock moves
//! on by one second: the table's capacity (an on-demand table takes 4,000 writes and 12,000
//! reads per second at first) refills, so no request is throttled, and replication to the
//! slow follower that fell due is applied — that background work is the third replica's, not
//! the request's.
//!
//! Run: `cargo bench -p dynamodb-katas-engine --bench engine`
#![allow(clippy::disallowed_methods)] // wall-clock timing is the point of a benchmark

mod common;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProvisionedThroughput, ScalarAttributeType, StreamSpecification, StreamViewType,
};
use engine::{item, AttributeValue, Client, Item, World};

/// Items in the table the point operations work on.
const ITEMS: usize = 10_000;
/// Item collections of 10 items the Query bench reads.
const COLLECTIONS: usize = 1_000;
/// Operations between two looks at the clock.
const BATCH: usize = 1_000;
/// Timed runs per operation; the best is reported.
const RUNS: usize = 5;
/// Minimum length of one run.
const RUN_TIME: Duration = Duration::from_millis(500);

/// Operations per second of `op` (called with a running counter): the best of [`RUNS`] runs
/// of at least [`RUN_TIME`] each. `between` runs after each batch, outside the timing.
fn measure(mut op: impl FnMut(usize), mut between: impl FnMut()) -> f64 {
    let mut counter = 0usize;
    // Warm up caches and allocator.
    for _ in 0..BATCH {
        op(counter);
        counter += 1;
    }
    between();
    let mut best = 0.0f64;
    for _ in 0..RUNS {
        let mut busy = Duration::ZERO;
        let mut ops = 0usize;
        while busy < RUN_TIME {
            let start = Clock::now();
            for _ in 0..BATCH {
                op(counter);
                counter += 1;
            }
            busy += start.elapsed();
            ops += BATCH;
            between();
        }
        best = best.max(ops as f64 / busy.as_secs_f64());
    }
    best
}

/// The time a run is charged: the thread's own CPU time where Linux reports it
/// (`/proc/thread-self/schedstat`, nanoseconds on a CPU), else the wall clock. On a shared
/// machine other processes take the CPU away mid-run; wall time charges the operation for
/// that wait, CPU time does not (caches still suffer from neighbours, so figures still move a
/// little). `KATAS_BENCH_WALL=1` times by the wall clock anyway.
enum Clock {
    Cpu(u64),
    Wall(Instant),
}

impl Clock {
    fn now() -> Clock {
        if std::env::var_os("KATAS_BENCH_WALL").is_none() {
            if let Some(ns) = thread_cpu_ns() {
                return Clock::Cpu(ns);
            }
        }
        Clock::Wall(Instant::now())
    }

    fn elapsed(&self) -> Duration {
        match self {
            Clock::Cpu(start) => {
                Duration::from_nanos(thread_cpu_ns().unwrap_or(*start).saturating_sub(*start))
            }
            Clock::Wall(start) => start.elapsed(),
        }
    }
}

fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// An on-demand table `bench` keyed by `PK`/`SK` (both S).
fn table() -> (World, Client) {
    let world = World::new(1);
    let client = world.client();
    common::create_pk_sk_table(&client, "bench");
    (world, client)
}

/// An on-demand table `indexed` with two ALL-projection GSIs and a stream.
fn indexed_table() -> (World, Client) {
    let world = World::new(3);
    let client = world.client();
    client
        .create_table()
        .table_name("indexed")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI1PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI1SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI2PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .global_secondary_indexes(GlobalSecondaryIndex::new(
            "GSI1",
            vec![
                KeySchemaElement::new("GSI1PK", KeyType::Hash),
                KeySchemaElement::new("GSI1SK", KeyType::Range),
            ],
            Projection::all(),
        ))
        .global_secondary_indexes(GlobalSecondaryIndex::new(
            "GSI2",
            vec![KeySchemaElement::new("GSI2PK", KeyType::Hash)],
            Projection::all(),
        ))
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    (world, client)
}

/// A ~100-byte item (PK, SK, a counter, a version and some text).
fn user(pk: &str, sk: &str, version: i64) -> Item {
    item! {
        "PK" => pk,
        "SK" => sk,
        "n" => 0,
        "version" => version,
        "name" => "Ana Lovelace",
        "bio" => "x".repeat(52),
    }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

struct Row {
    name: &'static str,
    ops: f64,
    target: Option<f64>,
}

fn main() {
    let (world, client) = table();
    // One simulated second: capacity refills, due replication is applied.
    let tick = || world.advance(Duration::from_secs(1));
    let pks: Vec<String> = (0..ITEMS).map(|i| format!("USER#{i:05}")).collect();
    for (i, pk) in pks.iter().enumerate() {
        if i % BATCH == 0 {
            tick();
        }
        client
            .put_item()
            .table_name("bench")
            .set_item(Some(user(pk, "PROFILE", 0)))
            .send()
            .unwrap();
    }
    for c in 0..COLLECTIONS {
        if c % 100 == 0 {
            tick();
        }
        for i in 0..10 {
            client
                .put_item()
                .table_name("bench")
                .set_item(Some(user(
                    &format!("FEED#{c:04}"),
                    &format!("POST#{i:02}"),
                    0,
                )))
                .send()
                .unwrap();
        }
    }
    world.settle();
    let sample = engine::item_size(&user(&pks[0], "PROFILE", 0));
    let mut rows = Vec::new();

    // `cargo bench --bench engine -- get` runs only the operations whose key contains "get".
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |key: &str| only.as_deref().is_none_or(|o| key.contains(o));

    if wanted("get") {
        // GetItem: a strongly consistent read of one item among 10,000.
        let ops = measure(
            |i| {
                let out = client
                    .get_item()
                    .table_name("bench")
                    .key("PK", s(&pks[i % ITEMS]))
                    .key("SK", s("PROFILE"))
                    .consistent_read(true)
                    .send()
                    .unwrap();
                black_box(out);
            },
            tick,
        );
        rows.push(Row::new(
            "GetItem (strong, 1 of 10k)",
            ops,
            Some(1_000_000.0),
        ));
    }

    if wanted("put") {
        // PutItem with a condition: optimistic locking on `version`.
        let mut versions = vec![0i64; ITEMS];
        let ops = measure(
            |i| {
                let k = i % ITEMS;
                let v = versions[k];
                client
                    .put_item()
                    .table_name("bench")
                    .set_item(Some(user(&pks[k], "PROFILE", v + 1)))
                    .condition_expression("version = :v")
                    .expression_attribute_values(":v", AttributeValue::N(v.to_string()))
                    .send()
                    .unwrap();
                versions[k] = v + 1;
            },
            tick,
        );
        rows.push(Row::new(
            "PutItem (condition version = :v)",
            ops,
            Some(250_000.0),
        ));
    }

    if wanted("put_new") {
        // PutItem with attribute_not_exists on fresh keys (the table grows).
        let mut fresh = 0usize;
        let ops = measure(
            |_| {
                let pk = format!("NEW#{fresh:08}");
                fresh += 1;
                client
                    .put_item()
                    .table_name("bench")
                    .set_item(Some(user(&pk, "PROFILE", 0)))
                    .condition_expression("attribute_not_exists(PK)")
                    .send()
                    .unwrap();
            },
            tick,
        );
        rows.push(Row::new(
            "PutItem (attribute_not_exists, fresh)",
            ops,
            Some(250_000.0),
        ));
    }

    if wanted("update") {
        // UpdateItem: an atomic counter.
        let ops = measure(
            |i| {
                client
                    .update_item()
                    .table_name("bench")
                    .key("PK", s(&pks[i % ITEMS]))
                    .key("SK", s("PROFILE"))
                    .update_expression("SET n = n + :one")
                    .expression_attribute_values(":one", AttributeValue::N("1".into()))
                    .send()
                    .unwrap();
            },
            tick,
        );
        rows.push(Row::new("UpdateItem (SET n = n + :one)", ops, None));
    }

    if wanted("query") {
        // Query: one item collection of 10 items, one page.
        let feeds: Vec<String> = (0..COLLECTIONS).map(|c| format!("FEED#{c:04}")).collect();
        let page = |i: usize| {
            client
                .query()
                .table_name("bench")
                .key_condition_expression("PK = :pk")
                .expression_attribute_values(":pk", s(&feeds[i % COLLECTIONS]))
                .consistent_read(true)
                .send()
                .unwrap()
        };
        let ops = measure(
            |i| {
                let out = page(i);
                debug_assert_eq!(out.count(), 10);
                black_box(out);
            },
            tick,
        );
        rows.push(Row::new("Query (page of 10 items)", ops, Some(250_000.0)));
        // The same page, every item's `name` read through `items()`, as application code
        // does: the items are the stored ones, shared (`ops/items.rs`), not copies.
        let ops = measure(
            |i| {
                let out = page(i);
                for item in out.items() {
                    black_box(item.get("name"));
                }
            },
            tick,
        );
        rows.push(Row::new("Query (page of 10, each item read)", ops, None));
        // The same page taken as owned maps (`for item in out.items.unwrap()`): each item
        // copied, what every page cost when the field was a `Vec` of owned maps.
        let ops = measure(
            |i| {
                let out = page(i);
                for item in out.items.unwrap_or_default() {
                    black_box(item);
                }
            },
            tick,
        );
        rows.push(Row::new("Query (page of 10, items owned)", ops, None));
    }

    if wanted("put_gsi") {
        // PutItem on a table with two GSIs (ALL projection) and a stream: the index
        // propagation and stream records are part of the measured work (the simulated second
        // that applies the propagations is advanced inside the timing).
        let (gworld, gclient) = indexed_table();
        let ops = measure(
            |i| {
                gclient
                    .put_item()
                    .table_name("indexed")
                    .set_item(Some(item! {
                        "PK" => format!("ORDER#{}", i % ITEMS),
                        "SK" => "META",
                        "GSI1PK" => format!("STATUS#{}", i % 7),
                        "GSI1SK" => format!("2026-01-{:02}", i % 28 + 1),
                        "GSI2PK" => format!("EMAIL#{}@x.io", i % ITEMS),
                        "total" => i as i64,
                        "note" => "x".repeat(40),
                    }))
                    .send()
                    .unwrap();
                if i % BATCH == BATCH - 1 {
                    gworld.advance(Duration::from_secs(1));
                }
            },
            || {},
        );
        rows.push(Row::new(
            "PutItem (2 GSIs ALL + stream)",
            ops,
            Some(80_000.0),
        ));
    }

    let mut hour = None;
    if wanted("hour") {
        // One simulated hour of 1,000 writes/s on a 10-partition provisioned table.
        let hworld = World::new(7);
        let hclient = hworld.client();
        hclient
            .create_table()
            .table_name("hour")
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .provisioned_throughput(ProvisionedThroughput::new(1, 9_990))
            .send()
            .unwrap();
        let partitions = hworld.partitions("hour").unwrap().len();
        let start = Instant::now();
        let mut n = 0u64;
        for _second in 0..3600 {
            for _ in 0..1000 {
                hclient
                    .put_item()
                    .table_name("hour")
                    .set_item(Some(
                        item! { "PK" => format!("K#{}", n % 100_000), "v" => n },
                    ))
                    .send()
                    .unwrap();
                n += 1;
            }
            hworld.advance(Duration::from_secs(1));
        }
        let wall = start.elapsed();
        hour = Some((wall, partitions, n, hworld.request_totals().throttled));
    }

    if wanted("btreemap") {
        // Baseline: a BTreeMap of the same number of ~100-byte values.
        let mut map: BTreeMap<String, Vec<u8>> =
            pks.iter().map(|k| (k.clone(), vec![7u8; 100])).collect();
        let ops = measure(
            |i| {
                black_box(map.get(pks[i % ITEMS].as_str()));
            },
            || {},
        );
        rows.push(Row::new("BTreeMap<String, Vec<u8>>::get", ops, None));
        let ops = measure(
            |i| {
                let k = i % ITEMS;
                black_box(map.insert(pks[k].clone(), vec![(i & 0xff) as u8; 100]));
            },
            || {},
        );
        rows.push(Row::new("BTreeMap<String, Vec<u8>>::insert", ops, None));
    }

    println!();
    println!(
        "engine bench: single thread, {ITEMS} items of {sample} bytes, best of {RUNS} runs of >= {} ms",
        RUN_TIME.as_millis()
    );
    println!();
    println!(
        "| {:<38} | {:>12} | {:>10} | {:>4} |",
        "operation", "ops/s", "target", "met"
    );
    println!("|{:-<40}|{:->14}|{:->12}|{:->6}|", "", "", "", "");
    if let Some((wall, partitions, writes, throttled)) = hour {
        println!();
        println!(
            "one simulated hour of 1,000 writes/s ({writes} PutItem, {partitions} partitions, {throttled} throttled): {:.1} s wall (target < 30 s: {})",
            wall.as_secs_f64(),
            if wall.as_secs_f64() < 30.0 { "met" } else { "NOT met" }
        );
    }
    for row in &rows {
        let (target, met) = match row.target {
            Some(t) => (format_ops(t), if row.ops >= t { "yes" } else { "NO" }),
            None => ("-".to_string(), ""),
        };
        println!(
            "| {:<38} | {:>12} | {:>10} | {:>4} |",
            row.name,
            format_ops(row.ops),
            target,
            met
        );
    }
}

impl Row {
    fn new(name: &'static str, ops: f64, target: Option<f64>) -> Row {
        Row { name, ops, target }
    }
}

/// `1234567.8` → `1,234,568`.
fn format_ops(v: f64) -> String {
    let digits = format!("{:.0}", v);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
