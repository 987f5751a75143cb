//! What a stream consumer observes, pinned: every batch it is handed — at which simulated
//! time, from which shard, which records with which sequence numbers, event names,
//! creation times and keys — over workloads that mix writes at odd times, long idle
//! stretches, partition splits, TTL deletions, a failing handler that bisects and gives
//! up, seeded redelivery, a consumer starting at `LATEST` mid-way, and a handler that
//! writes to a second table whose stream has a consumer of its own.
//!
//! The pinned fingerprints were taken before idle polls stopped costing work (the agenda
//! used to stop at every poll of every consumer); they must not move when the clock's
//! stepping changes, because a consumer must not be able to tell.
mod common;

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, EventSourceMapping, KeySchemaElement, KeyType, Record,
    ScalarAttributeType, StartingPosition, StreamSpecification, StreamViewType,
    TimeToLiveSpecification,
};
use engine::{item, Client, World, WorldConfig};

type Trace = Arc<Mutex<String>>;

fn stream_table(c: &Client, name: &str) {
    c.create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send()
        .unwrap();
}

/// One line per record handed to consumer `tag`: the simulated time of the delivery, the
/// batch's size and the record.
fn note(world: &World, trace: &Trace, tag: &str, batch: &[Record]) {
    let now = world.now().as_millis();
    let mut t = trace.lock().unwrap();
    for r in batch {
        let key = |name: &str| {
            r.keys()
                .get(name)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default()
        };
        let n = r
            .new_image()
            .and_then(|i| i.get("n"))
            .and_then(|v| v.as_n().ok())
            .cloned()
            .unwrap_or_default();
        writeln!(
            t,
            "{tag} @{now} [{}] {} {:?} {} {}/{} n={n} ttl={}",
            batch.len(),
            r.sequence_number(),
            r.event_name(),
            r.dynamodb.approximate_creation_date_time,
            key("PK"),
            key("SK"),
            r.is_ttl_delete()
        )
        .unwrap();
    }
}

/// A stable fingerprint of a trace (FNV-1a: the same on every platform and toolchain).
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Splits, a `LATEST` consumer joining mid-way, a handler that maintains a view table
/// (whose own stream feeds a third consumer), writes at odd times and idle stretches.
fn splits_and_a_view() -> String {
    let world = World::with_config(WorldConfig {
        seed: 11,
        partition_size_limit: 500,
        ..WorldConfig::default()
    });
    let c = world.client();
    stream_table(&c, "app");
    stream_table(&c, "view");
    let trace: Trace = Arc::default();
    let (w, t, view) = (world.clone(), trace.clone(), world.client());
    world
        .subscribe(
            "app",
            EventSourceMapping {
                batch_size: 7,
                ..Default::default()
            },
            move |batch: &[Record]| {
                note(&w, &t, "main", batch);
                for r in batch {
                    let pk = r.keys()["PK"].as_s().unwrap().clone();
                    view.put_item()
                        .table_name("view")
                        .set_item(Some(item! { "PK" => "VIEW", "SK" => pk }))
                        .send()
                        .map_err(|e| e.to_string())?;
                }
                Ok::<(), String>(())
            },
        )
        .unwrap();
    let (w, t) = (world.clone(), trace.clone());
    world
        .subscribe(
            "view",
            EventSourceMapping {
                poll_interval: Duration::from_millis(400),
                ..Default::default()
            },
            move |batch: &[Record]| {
                note(&w, &t, "view", batch);
                Ok::<(), String>(())
            },
        )
        .unwrap();
    for i in 0..240u64 {
        let key = format!("K{}", i % 13);
        put(
            &c,
            item! { "PK" => key.as_str(), "SK" => "v", "n" => i, "pad" => "x".repeat(120) },
        );
        if i == 100 {
            let (w, t) = (world.clone(), trace.clone());
            world
                .subscribe(
                    "app",
                    EventSourceMapping {
                        starting_position: StartingPosition::Latest,
                        poll_interval: Duration::from_millis(130),
                        ..Default::default()
                    },
                    move |batch: &[Record]| {
                        note(&w, &t, "late", batch);
                        Ok::<(), String>(())
                    },
                )
                .unwrap();
        }
        match i % 40 {
            0 => world.advance(Duration::from_millis(333)),
            17 => world.advance(Duration::from_secs(600)),
            29 => world.advance(Duration::from_millis(1)),
            _ => {}
        }
    }
    world.advance(Duration::from_secs(3 * 3600));
    put(&c, item! { "PK" => "after", "SK" => "idle", "n" => 1 });
    world.settle();
    assert!(
        !world.partition_splits("app").unwrap().is_empty(),
        "the workload must split a partition"
    );
    let text = trace.lock().unwrap().clone();
    format!("{text}hash {}\n", world.trace_hash())
}

/// TTL deletions swept while a consumer polls, with writes between sweeps and the clock
/// moved in steps that do not divide the sweep interval.
fn ttl_sweeps() -> String {
    let world = World::with_config(WorldConfig {
        seed: 5,
        ttl_sweep_interval_s: 600,
        ttl_delete_delay_s: 120,
        ..WorldConfig::default()
    });
    let c = world.client();
    stream_table(&c, "app");
    c.update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "expires"))
        .send()
        .unwrap();
    let trace: Trace = Arc::default();
    let (w, t) = (world.clone(), trace.clone());
    world
        .subscribe(
            "app",
            EventSourceMapping {
                poll_interval: Duration::from_millis(300),
                ..Default::default()
            },
            move |batch: &[Record]| {
                note(&w, &t, "ttl", batch);
                Ok::<(), String>(())
            },
        )
        .unwrap();
    for i in 0..60u64 {
        let now = world.epoch_seconds();
        put(
            &c,
            item! { "PK" => format!("S{}", i % 9), "SK" => "s", "n" => i, "expires" => now + (i % 5) * 97 },
        );
        world.advance(Duration::from_millis(7_919 * (i % 4 + 1)));
        if i % 20 == 19 {
            world.advance(Duration::from_secs(2 * 3600 + 7));
        }
    }
    world.settle();
    let text = trace.lock().unwrap().clone();
    format!("{text}hash {}\n", world.trace_hash())
}

/// A handler that fails on some records: bisected batches, retries that run out, seeded
/// redelivery, a poll interval that does not divide a second, subscribed off the grid.
fn failures_and_redelivery() -> String {
    let world = World::new(23);
    let c = world.client();
    stream_table(&c, "app");
    world.advance(Duration::from_millis(37));
    let trace: Trace = Arc::default();
    let (w, t) = (world.clone(), trace.clone());
    world
        .subscribe(
            "app",
            EventSourceMapping {
                batch_size: 8,
                maximum_retry_attempts: 2,
                bisect_batch_on_function_error: true,
                poll_interval: Duration::from_millis(170),
                redelivery_probability: 0.25,
                ..Default::default()
            },
            move |batch: &[Record]| {
                note(&w, &t, "fail", batch);
                let poisoned = batch.iter().any(|r| {
                    r.new_image()
                        .and_then(|i| i.get("n"))
                        .is_some_and(|n| n.as_n().is_ok_and(|n| n.ends_with('3')))
                });
                if poisoned {
                    Err("poison record".to_string())
                } else {
                    Ok(())
                }
            },
        )
        .unwrap();
    for i in 0..90u64 {
        put(
            &c,
            item! { "PK" => format!("P{}", i % 4), "SK" => format!("{i}"), "n" => i },
        );
        if i % 9 == 0 {
            world.advance(Duration::from_millis(211 * (i % 5 + 1)));
        }
        if i == 45 {
            world.advance(Duration::from_secs(24 * 3600));
        }
    }
    world.settle();
    world.advance(Duration::from_secs(5));
    let text = trace.lock().unwrap().clone();
    let stats = world.consumer_stats(0).unwrap();
    format!("{text}{stats:?}\nhash {}\n", world.trace_hash())
}

/// An item that becomes deletable in a sweep interval the sweeper already swept (with
/// nothing to delete then), and a write later in that interval: the item must wait for the
/// next interval, as it did when the clock stopped at every poll.
fn a_sweep_interval_already_swept() -> String {
    let world = World::with_config(WorldConfig {
        seed: 2,
        ttl_sweep_interval_s: 600,
        ttl_delete_delay_s: 0,
        ..WorldConfig::default()
    });
    let c = world.client();
    stream_table(&c, "app");
    c.update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "expires"))
        .send()
        .unwrap();
    let trace: Trace = Arc::default();
    let (w, t) = (world.clone(), trace.clone());
    world
        .subscribe(
            "app",
            EventSourceMapping::default(),
            move |batch: &[Record]| {
                note(&w, &t, "swept", batch);
                Ok::<(), String>(())
            },
        )
        .unwrap();
    let start = world.epoch_seconds();
    put(
        &c,
        item! { "PK" => "X", "SK" => "s", "n" => 1, "expires" => start + 900 },
    );
    world.advance(Duration::from_secs(1_000));
    put(&c, item! { "PK" => "Y", "SK" => "s", "n" => 2 });
    world.advance(Duration::from_secs(1_000));
    let text = trace.lock().unwrap().clone();
    format!("{text}hash {}\n", world.trace_hash())
}

#[test]
fn what_consumers_observe_is_pinned() {
    let scenes = [
        ("splits_and_a_view", splits_and_a_view()),
        ("ttl_sweeps", ttl_sweeps()),
        ("failures_and_redelivery", failures_and_redelivery()),
        (
            "a_sweep_interval_already_swept",
            a_sweep_interval_already_swept(),
        ),
    ];
    if let Some(dir) = std::env::var_os("KATAS_TRACE_DIR") {
        for (name, text) in &scenes {
            std::fs::write(std::path::Path::new(&dir).join(name), text).unwrap();
        }
    }
    let got: Vec<(&str, usize, u64)> = scenes
        .iter()
        .map(|(name, text)| (*name, text.lines().count(), fnv(text)))
        .collect();
    let pinned: Vec<(&str, usize, u64)> = vec![
        ("splits_and_a_view", 396, 4028730982427110159),
        ("ttl_sweeps", 88, 15573154287597441233),
        ("failures_and_redelivery", 161, 8236168648285634688),
        ("a_sweep_interval_already_swept", 4, 11561335384725302853),
    ];
    assert_eq!(
        got, pinned,
        "what a consumer observes changed (set KATAS_TRACE_DIR to write the traces out)"
    );
}
