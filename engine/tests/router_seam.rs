//! The partition router seam: the engine's own path goes through the router a world is built
//! with, and a world with another router places and splits by it.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use engine::seams::{Collection, EngineRouter, HashRange, KeyBytes, PartitionRouter, Pieces};
use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::{item, Client, World, WorldConfig};

/// The engine's router, counting how often each decision is asked of it.
#[derive(Default)]
struct Counting {
    hash: AtomicUsize,
    route: AtomicUsize,
    size: AtomicUsize,
    heat: AtomicUsize,
}

impl PartitionRouter for Counting {
    fn hash(&self, pk: KeyBytes<'_>, sk: Option<KeyBytes<'_>>) -> u64 {
        self.hash.fetch_add(1, Ordering::Relaxed);
        EngineRouter.hash(pk, sk)
    }
    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        self.route.fetch_add(1, Ordering::Relaxed);
        EngineRouter.route(hash, partitions)
    }
    fn split_for_size(&self, p: HashRange, c: &[Collection]) -> Option<[HashRange; 2]> {
        self.size.fetch_add(1, Ordering::Relaxed);
        EngineRouter.split_for_size(p, c)
    }
    fn split_for_heat(&self, p: HashRange, heat: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        self.heat.fetch_add(1, Ordering::Relaxed);
        EngineRouter.split_for_heat(p, heat)
    }
}

/// Places every key by its first byte and never splits.
struct FirstByteNeverSplits;

impl PartitionRouter for FirstByteNeverSplits {
    fn hash(&self, pk: KeyBytes<'_>, _sk: Option<KeyBytes<'_>>) -> u64 {
        u64::from(pk.bytes[0]) << 56
    }
    fn route(&self, hash: u64, partitions: &[HashRange]) -> usize {
        partitions
            .iter()
            .position(|r| r.contains(hash))
            .unwrap_or(0)
    }
    fn split_for_size(&self, _: HashRange, _: &[Collection]) -> Option<[HashRange; 2]> {
        None
    }
    fn split_for_heat(&self, _: HashRange, _: &[(u64, f64)]) -> Option<[HashRange; 2]> {
        None
    }
}

fn config(seed: u64) -> WorldConfig {
    WorldConfig {
        seed,
        partition_size_limit: 20 * 1024,
        split_for_heat_after_s: 5,
        ..WorldConfig::default()
    }
}

fn table(c: &Client, name: &str, rcu: i64, wcu: i64) {
    c.create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::N))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .provisioned_throughput(ProvisionedThroughput::new(rcu, wcu))
        .send()
        .unwrap();
}

/// 40 users with 3 to 9 orders of 300 bytes each (a size split or several in a 20 KB world),
/// then 8 seconds of hot writes over 50 keys (a split for heat).
fn workload(world: &World) {
    let c = world.client();
    table(&c, "orders", 1000, 500);
    table(&c, "hot", 1, 990);
    let pad = "x".repeat(300);
    for user in 0..40 {
        for order in 0..(user % 7 + 3) {
            c.put_item()
                .table_name("orders")
                .set_item(Some(
                    item! { "PK" => format!("USER#{user}"), "SK" => order, "pad" => pad.as_str() },
                ))
                .send()
                .unwrap();
        }
        world.advance(Duration::from_millis(700));
    }
    for second in 0..8 {
        for i in 0..950 {
            let _ = c
                .put_item()
                .table_name("hot")
                .set_item(Some(
                    item! { "PK" => format!("user-{}", i % 50), "SK" => second },
                ))
                .send();
        }
        world.advance(Duration::from_secs(1));
    }
    world.settle();
}

#[test]
fn the_engine_asks_its_router_through_the_seam_and_behaves_the_same() {
    let counting = Arc::new(Counting::default());
    let through = World::with_pieces(
        config(3),
        Pieces {
            router: counting.clone(),
            ..Pieces::default()
        },
    );
    workload(&through);
    let plain = World::with_config(config(3));
    workload(&plain);
    assert_eq!(through.trace_hash(), plain.trace_hash());
    assert_eq!(
        through.partition_splits("orders").unwrap(),
        plain.partition_splits("orders").unwrap()
    );
    assert!(plain.partition_splits("orders").unwrap().len() >= 2);
    assert_eq!(plain.partition_splits("hot").unwrap().len(), 1);
    for (what, n) in [
        ("hash", &counting.hash),
        ("route", &counting.route),
        ("split_for_size", &counting.size),
        ("split_for_heat", &counting.heat),
    ] {
        assert!(n.load(Ordering::Relaxed) > 0, "{what} was never asked");
    }
}

#[test]
fn a_world_with_another_router_places_and_splits_by_it() {
    let world = World::with_pieces(
        config(3),
        Pieces {
            router: Arc::new(FirstByteNeverSplits),
            ..Pieces::default()
        },
    );
    workload(&world);
    let engine = World::with_config(config(3));
    workload(&engine);
    // No split: the table keeps its one partition, past the size limit, and every item.
    assert!(world.partition_splits("orders").unwrap().is_empty());
    assert!(world.partition_splits("hot").unwrap().is_empty());
    let parts = world.partitions("orders").unwrap();
    assert_eq!(parts.len(), 1);
    assert_eq!(
        parts[0].item_count,
        engine
            .partitions("orders")
            .unwrap()
            .iter()
            .map(|p| p.item_count)
            .sum::<usize>()
    );
    // Every key hashes to its first byte: 'U' << 56.
    assert_eq!(parts[0].hash_range, (0, u64::MAX));
    let c = world.client();
    let page = c
        .query()
        .table_name("orders")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("USER#9"))
        .send()
        .unwrap();
    let sks: Vec<&str> = page
        .items()
        .iter()
        .map(|i| i["SK"].as_n().unwrap().as_str())
        .collect();
    assert_eq!(sks, ["0", "1", "2", "3", "4"]);
    // A table of 4,000 WCU starts with 5 partitions (ceil(4,000 / 1,000 + 1 / 3,000)). This
    // router places every "USER#…" by 'U' = 0x55, in the second fifth of the hash space
    // (partition 1); the engine's hash spreads the users over all five.
    let wide = World::with_pieces(
        config(3),
        Pieces {
            router: Arc::new(FirstByteNeverSplits),
            ..Pieces::default()
        },
    );
    let c = wide.client();
    table(&c, "wide", 1, 4000);
    let engine_wide = World::with_config(config(3));
    table(&engine_wide.client(), "wide", 1, 4000);
    assert_eq!(wide.partitions("wide").unwrap().len(), 5);
    let mut mine = std::collections::BTreeSet::new();
    let mut theirs = std::collections::BTreeSet::new();
    for user in 0..40 {
        let key = s(&format!("USER#{user}"));
        mine.insert(wide.partition_of("wide", &key).unwrap());
        theirs.insert(engine_wide.partition_of("wide", &key).unwrap());
    }
    assert_eq!(mine.into_iter().collect::<Vec<_>>(), [1]);
    assert_eq!(theirs.len(), 5);
}
