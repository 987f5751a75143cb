//! The TTL sweeper seam: a world runs the sweeper it is given.
mod common;

use std::time::Duration;

use common::*;
use engine::seams::{ExpiryIndex, ItemKey, Pieces, Sweep, TtlSweeper};
use engine::ttl::FIVE_YEARS_S;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use engine::types::{OperationType, ShardIteratorType};
use engine::{item, AttributeValue, Client, World, WorldConfig};
use std::sync::Arc;

/// Every stream record of `app`, as one line each: event, key, time, identity.
fn stream_lines(c: &Client) -> Vec<String> {
    let arns = c.list_streams().table_name("app").send().unwrap();
    let arn = arns.streams()[0].stream_arn().unwrap().to_string();
    let d = c.describe_stream().stream_arn(&arn).send().unwrap();
    let mut out = Vec::new();
    for shard in d.stream_description().unwrap().shards() {
        let mut it = c
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard.shard_id().unwrap())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .unwrap()
            .shard_iterator()
            .map(str::to_string);
        while let Some(i) = it {
            let page = c.get_records().shard_iterator(i).send().unwrap();
            if page.records().is_empty() {
                break;
            }
            for r in page.records() {
                let dd = &r.dynamodb;
                out.push(format!(
                    "{:?} {:?} {:?} {:?} {}",
                    r.event_name,
                    dd.keys.get("PK"),
                    dd.approximate_creation_date_time,
                    r.user_identity.as_ref().map(|u| u.principal_id.clone()),
                    dd.sequence_number
                ));
            }
            it = page.next_shard_iterator().map(str::to_string);
        }
    }
    out
}

fn ttl_table(world: &World) -> Client {
    let c = world.client();
    c.create_table()
        .table_name("app")
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
    c
}

/// A seeded TTL workload: puts with expiries of every kind, TTL enabled on existing items,
/// extensions and removals racing the sweeps, user deletes.
fn ttl_workload(world: &World) {
    let c = ttl_table(world);
    let now = world.epoch_seconds();
    put(&c, item! { "PK" => "pre", "SK" => "0", "exp" => now + 10 });
    c.update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "exp"))
        .send()
        .unwrap();
    for i in 0..400u64 {
        let now = world.epoch_seconds();
        let key = format!("K{}", i % 37);
        let exp = match i % 9 {
            0 => item! { "PK" => key.as_str(), "SK" => "v", "exp" => now + 5 * 60 },
            1 => item! { "PK" => key.as_str(), "SK" => "v", "exp" => now + 3 * 3600 },
            2 => item! { "PK" => key.as_str(), "SK" => "v", "exp" => "soon" },
            3 => item! { "PK" => key.as_str(), "SK" => "v", "exp" => (now + 60) * 1000 },
            4 => item! { "PK" => key.as_str(), "SK" => "v", "exp" => now - 6 * 365 * 86400 },
            5 => item! { "PK" => key.as_str(), "SK" => "v" },
            6 => item! { "PK" => key.as_str(), "SK" => "v", "exp" => now - 86400 },
            _ => item! { "PK" => key.as_str(), "SK" => "v", "exp" => now + i * 40 },
        };
        if i % 13 == 12 {
            c.delete_item()
                .table_name("app")
                .key("PK", s(&key))
                .key("SK", s("v"))
                .send()
                .unwrap();
        } else {
            put(&c, exp);
        }
        world.advance(Duration::from_secs(97));
    }
    world.settle();
}

/// The removes of a world's stream after the workload, and its trace hash.
fn run(pieces: Pieces) -> (Vec<String>, u64) {
    let world = World::with_pieces(
        WorldConfig {
            seed: 5,
            ..WorldConfig::default()
        },
        pieces,
    );
    ttl_workload(&world);
    let removes = stream_lines(&world.client())
        .into_iter()
        .filter(|l| l.starts_with(&format!("{:?}", OperationType::Remove)))
        .collect();
    (removes, world.trace_hash())
}

fn pieces(sweeper: impl TtlSweeper + 'static) -> Pieces {
    Pieces::default().with_ttl_sweeper(Arc::new(sweeper))
}

/// A sweeper that keeps every expiry it is told of (never removing one) and re-checks the
/// item at delete time: another route to the engine's deletions.
struct Lazy;

fn seconds(v: &AttributeValue) -> Option<u64> {
    match v {
        AttributeValue::N(n) => n
            .parse::<f64>()
            .ok()
            .filter(|f| *f >= 0.0 && *f < 1e15)
            .map(|f| f as u64),
        _ => None,
    }
}

fn deletable(e: u64, now: u64, delay: u64) -> bool {
    e + delay <= now && e >= now.saturating_sub(FIVE_YEARS_S)
}

impl TtlSweeper for Lazy {
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        _old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        if let Some(e) = new.and_then(seconds) {
            index.insert((e, key));
        }
    }
    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        let (now, delay) = (sweep.now(), sweep.delay_s());
        let seen: Vec<(u64, ItemKey)> = index
            .iter()
            .take_while(|(e, _)| e + delay <= now)
            .cloned()
            .collect();
        for (e, key) in seen {
            if e < now.saturating_sub(FIVE_YEARS_S) {
                continue; // too old: kept, never due
            }
            index.remove(&(e, key.clone()));
            if sweep
                .ttl_value(&key)
                .and_then(seconds)
                .is_some_and(|c| deletable(c, now, delay))
            {
                sweep.delete(&key);
            }
        }
    }
    fn next_due(&self, index: &ExpiryIndex, now: u64, delay: u64) -> Option<u64> {
        let floor = now.saturating_sub(FIVE_YEARS_S);
        index
            .iter()
            .map(|(e, _)| *e)
            .find(|e| *e >= floor)
            .map(|e| e + delay)
    }
}

/// The lazy sweeper without the re-check: trusts what it saw at write time.
struct Trusting;

impl TtlSweeper for Trusting {
    fn on_write(
        &self,
        index: &mut ExpiryIndex,
        key: ItemKey,
        old: Option<&AttributeValue>,
        new: Option<&AttributeValue>,
    ) {
        Lazy.on_write(index, key, old, new);
    }
    fn sweep(&self, index: &mut ExpiryIndex, sweep: &mut Sweep<'_>) {
        let (now, delay) = (sweep.now(), sweep.delay_s());
        let due: Vec<(u64, ItemKey)> = index
            .iter()
            .filter(|(e, _)| deletable(*e, now, delay))
            .cloned()
            .collect();
        for entry in due {
            sweep.delete(&entry.1);
            index.remove(&entry);
        }
    }
    fn next_due(&self, index: &ExpiryIndex, now: u64, delay: u64) -> Option<u64> {
        Lazy.next_due(index, now, delay)
    }
}

#[test]
fn a_world_runs_the_engines_sweeper_by_default() {
    let (removes, hash) = run(Pieces::default());
    let plain = World::with_config(WorldConfig {
        seed: 5,
        ..WorldConfig::default()
    });
    ttl_workload(&plain);
    let plain_removes: Vec<String> = stream_lines(&plain.client())
        .into_iter()
        .filter(|l| l.starts_with(&format!("{:?}", OperationType::Remove)))
        .collect();
    assert_eq!((removes, hash), (plain_removes, plain.trace_hash()));
}

#[test]
fn another_route_to_the_same_deletions_gives_the_same_run() {
    let (engine, hash) = run(Pieces::default());
    let ttl_deletes = engine
        .iter()
        .filter(|l| l.contains("dynamodb.amazonaws.com"))
        .count();
    assert!(
        ttl_deletes > 10,
        "the workload exercises the sweeper ({ttl_deletes} TTL deletes)"
    );
    let (lazy, lazy_hash) = run(pieces(Lazy));
    assert_eq!(lazy, engine, "same REMOVE records, same order");
    assert_eq!(lazy_hash, hash);
}

#[test]
fn a_sweeper_that_trusts_stale_expiries_deletes_rescued_items() {
    let (engine, _) = run(Pieces::default());
    let (trusting, _) = run(pieces(Trusting));
    let service = |lines: &[String]| {
        lines
            .iter()
            .filter(|l| l.contains("dynamodb.amazonaws.com"))
            .count()
    };
    let users = |lines: &[String]| lines.len() - service(lines);
    assert!(
        service(&trusting) > service(&engine),
        "{} vs {}",
        service(&trusting),
        service(&engine)
    );
    // Fewer user deletes, if anything: some items the user deleted were gone already.
    assert!(users(&trusting) <= users(&engine));
}

#[test]
fn a_sweeper_that_never_deletes_leaves_expired_items() {
    struct Never;
    impl TtlSweeper for Never {
        fn on_write(
            &self,
            _: &mut ExpiryIndex,
            _: ItemKey,
            _: Option<&AttributeValue>,
            _: Option<&AttributeValue>,
        ) {
        }
        fn sweep(&self, _: &mut ExpiryIndex, _: &mut Sweep<'_>) {}
        fn next_due(&self, _: &ExpiryIndex, _: u64, _: u64) -> Option<u64> {
            None
        }
    }
    let (never, _) = run(pieces(Never));
    assert!(
        never.iter().all(|l| !l.contains("dynamodb.amazonaws.com")),
        "no TTL delete"
    );
    assert!(!never.is_empty(), "the user's deletes are still there");
}
