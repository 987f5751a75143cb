//! The capacity story of the lessons: per-partition ceilings, hot keys, adaptive capacity,
//! burst, on-demand's 2× peak, and throttled requests that change nothing.
mod common;

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ProvisionedThroughput, PutRequest,
    ScalarAttributeType, WriteRequest,
};
use engine::{item, Client, World, WorldConfig};

fn provisioned(world: &World, rcu: i64, wcu: i64) -> Client {
    let c = world.client();
    c.create_table()
        .table_name("tbl")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(rcu, wcu))
        .send()
        .unwrap();
    c
}

/// Sends `per_second` single-item writes each second for `seconds` seconds, the key of the
/// n-th write chosen by `key`; returns (succeeded, throttled) per second.
fn drive(
    world: &World,
    c: &Client,
    per_second: usize,
    seconds: usize,
    key: impl Fn(usize) -> String,
) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut n = 0;
    for _ in 0..seconds {
        let (mut ok, mut throttled) = (0, 0);
        for _ in 0..per_second {
            let r = c
                .update_item()
                .table_name("tbl")
                .key("id", s(&key(n)))
                .update_expression("ADD hits :one")
                .expression_attribute_values(":one", n_("1"))
                .send();
            match r {
                Ok(_) => ok += 1,
                Err(e) if e.is_throttling() => throttled += 1,
                Err(e) => panic!("unexpected error {e}"),
            }
            n += 1;
        }
        out.push((ok, throttled));
        world.advance(Duration::from_secs(1));
    }
    out
}

fn n_(v: &str) -> engine::AttributeValue {
    n(v)
}

#[test]
fn a_hot_key_is_capped_at_the_partition_ceiling_whatever_the_table_capacity() {
    let world = World::new(3);
    let c = provisioned(&world, 100, 4000);
    assert_eq!(
        world.partitions("tbl").unwrap().len(),
        5,
        "ceil(100/3000 + 4000/1000) = 5 partitions"
    );
    let seconds = drive(&world, &c, 1500, 10, |_| "GLOBAL_COUNTER".to_string());
    for (second, (ok, throttled)) in seconds.iter().enumerate() {
        assert_eq!(
            *ok, 1000,
            "second {second}: one partition serves 1,000 writes/s, no more"
        );
        assert_eq!(
            *throttled, 500,
            "second {second}: the other 500 are throttled"
        );
    }
    let picture = world.render_partitions("tbl", 10).unwrap();
    assert!(picture.contains("THROTTLED"), "{picture}");
}

#[test]
fn the_same_load_spread_over_shard_keys_is_not_throttled() {
    let world = World::new(3);
    let c = provisioned(&world, 100, 4000);
    let seconds = drive(&world, &c, 1500, 10, |n| format!("COUNTER#{}", n % 10));
    assert!(
        seconds.iter().all(|(ok, t)| *ok == 1500 && *t == 0),
        "{seconds:?}"
    );
    assert_eq!(world.request_totals().throttled, 0);
}

#[test]
fn a_throttled_write_changes_nothing() {
    let world = world_with_empty_buckets(3);
    let c = provisioned(&world, 100, 1);
    // 1 WCU table, nothing saved yet: the first write of the second goes through, the next
    // is throttled.
    c.put_item()
        .table_name("tbl")
        .set_item(Some(item! { "id" => "a", "v" => 1 }))
        .send()
        .unwrap();
    let e = c
        .put_item()
        .table_name("tbl")
        .set_item(Some(item! { "id" => "b", "v" => 2 }))
        .send()
        .unwrap_err();
    assert!(
        e.as_service_error()
            .is_some_and(PutItemError::is_provisioned_throughput_exceeded_exception),
        "{e:?}"
    );
    assert!(e.is_retryable());
    world.advance(Duration::from_secs(1));
    let got = c
        .get_item()
        .table_name("tbl")
        .key("id", s("b"))
        .consistent_read(true)
        .send()
        .unwrap();
    assert_eq!(got.item(), None);
}

#[test]
fn adaptive_capacity_lends_a_busy_partition_the_tables_unused_capacity() {
    // The AWS example: 400 WCU over 4 partitions (100 each); one partition taking 150 WCU/s
    // is served, because the other partitions leave capacity unused.
    let world = World::with_config(WorldConfig {
        seed: 5,
        partition_size_limit: 6 * 1024,
        ..WorldConfig::default()
    });
    let c = provisioned(&world, 100, 400);
    let pad = "x".repeat(900);
    for i in 0..40 {
        c.put_item()
            .table_name("tbl")
            .set_item(Some(
                item! { "id" => format!("fill-{i}"), "pad" => pad.as_str() },
            ))
            .send()
            .unwrap();
    }
    world.advance(Duration::from_secs(1));
    let partitions = world.partitions("tbl").unwrap().len();
    assert!(
        partitions >= 4,
        "40 KB in 6 KB partitions: split to {partitions}"
    );
    // Each partition's share is now 400 / partitions ≤ 100 WCU, yet one hot key gets 150.
    let seconds = drive(&world, &c, 150, 5, |_| "hot".to_string());
    assert!(seconds.iter().all(|s| *s == (150, 0)), "{seconds:?}");
    // But not more than the table: 450/s on one key is held to 400 once the burst saved in
    // quiet seconds is spent.
    let seconds = drive(&world, &c, 450, 5, |_| "hot".to_string());
    assert!(seconds[3..].iter().all(|s| *s == (400, 50)), "{seconds:?}");
}

#[test]
fn burst_capacity_serves_a_spike_from_saved_seconds() {
    // A table born with an empty bucket, to watch it fill: idle for 10 s, 10 × 100 WCU saved.
    let world = world_with_empty_buckets(9);
    let c = provisioned(&world, 100, 100);
    world.advance(Duration::from_secs(10));
    let spike = drive(&world, &c, 300, 1, |n| format!("k{n}"));
    assert_eq!(spike[0], (300, 0), "100 provisioned + 200 from burst");
    // Sustained overload drains the bucket: within seconds it is back to about 100/s.
    let later = drive(&world, &c, 300, 10, |n| format!("k{n}"));
    let last = later.last().unwrap();
    assert!(
        last.0 <= 110,
        "after the burst is spent, about the provisioned rate: {later:?}"
    );
}

#[test]
fn on_demand_serves_twice_its_previous_peak_and_throttles_beyond() {
    let world = World::new(11);
    let c = world.client();
    c.create_table()
        .table_name("tbl")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    // A new on-demand table takes 4,000 writes/s at once …
    let first = drive(&world, &c, 4000, 1, |n| format!("k{n}"));
    assert_eq!(first[0], (4000, 0));
    // … and beyond that, twice its previous peak: 8,000 now, not 9,000.
    let second = drive(&world, &c, 9000, 1, |n| format!("x{n}"));
    assert_eq!(second[0].0, 8000);
    let e = c
        .put_item()
        .table_name("tbl")
        .set_item(Some(item! { "id" => "hot" }))
        .send()
        .err();
    // (the new second started: this one passes)
    assert!(e.is_none());
}

#[test]
fn on_demand_hot_key_throttles_as_throttling_exception() {
    let world = World::new(11);
    let c = world.client();
    c.create_table()
        .table_name("tbl")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    // One key: past its partition's 1,000 WCU and the second of headroom above it.
    let mut last_err = None;
    for _ in 0..2200 {
        if let Err(e) = c
            .put_item()
            .table_name("tbl")
            .set_item(Some(item! { "id" => "one" }))
            .send()
        {
            last_err = Some(e);
        }
    }
    assert!(
        matches!(
            last_err.as_ref().and_then(SdkError::as_service_error),
            Some(PutItemError::ThrottlingException(_))
        ),
        "{last_err:?}"
    );
}

#[test]
fn batch_write_returns_throttled_writes_as_unprocessed_items() {
    // Nothing saved yet (a new table's full bucket would take the whole batch).
    let world = world_with_empty_buckets(13);
    let c = provisioned(&world, 100, 5);
    let writes: Vec<WriteRequest> = (0..20)
        .map(|i| {
            WriteRequest::builder()
                .put_request(
                    PutRequest::builder()
                        .set_item(Some(item! { "id" => format!("k{i}") }))
                        .build()
                        .unwrap(),
                )
                .build()
        })
        .collect();
    let out = c
        .batch_write_item()
        .request_items("tbl", writes)
        .send()
        .unwrap();
    let unprocessed = out
        .unprocessed_items()
        .and_then(|u| u.get("tbl"))
        .map_or(0, Vec::len);
    assert_eq!(
        unprocessed, 15,
        "5 WCU: 5 writes this second, 15 come back unprocessed"
    );
}

#[test]
fn partition_count_follows_the_formula() {
    for (rcu, wcu, expected) in [
        (1, 1, 1),
        (1500, 500, 1),
        (3000, 1000, 2),
        (1, 3990, 4),
        (100, 4000, 5),
        (9000, 1, 4),
    ] {
        let world = World::new(1);
        provisioned(&world, rcu, wcu);
        assert_eq!(
            world.partitions("tbl").unwrap().len(),
            expected,
            "{rcu} RCU + {wcu} WCU"
        );
    }
}

#[test]
fn a_size_split_keeps_every_item_and_its_sort_order() {
    let world = World::with_config(WorldConfig {
        seed: 2,
        partition_size_limit: 20 * 1024,
        ..WorldConfig::default()
    });
    let c = world.client();
    c.create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::N))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .provisioned_throughput(ProvisionedThroughput::new(1000, 1000))
        .send()
        .unwrap();
    let pad = "x".repeat(300);
    for user in 0..20 {
        for order in 0..10 {
            c.put_item()
                .table_name("app")
                .set_item(Some(
                    item! { "PK" => format!("USER#{user}"), "SK" => order, "pad" => pad.as_str() },
                ))
                .send()
                .unwrap();
        }
        world.advance(Duration::from_secs(1));
    }
    world.settle();
    let parts = world.partitions("app").unwrap();
    assert!(
        parts.len() > 1,
        "60+ KB in a 20 KB-limit world must have split"
    );
    assert!(!world.partition_splits("app").unwrap().is_empty());
    assert_eq!(parts.iter().map(|p| p.item_count).sum::<usize>(), 200);
    for user in 0..20 {
        let page = c
            .query()
            .table_name("app")
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s(&format!("USER#{user}")))
            .consistent_read(true)
            .send()
            .unwrap();
        let sks: Vec<String> = page
            .items()
            .iter()
            .map(|i| i["SK"].as_n().unwrap().clone())
            .collect();
        assert_eq!(
            sks,
            (0..10).map(|i| i.to_string()).collect::<Vec<_>>(),
            "USER#{user}"
        );
    }
}

#[test]
fn split_for_heat_divides_a_hot_partition_but_never_a_single_hot_key() {
    let config = WorldConfig {
        seed: 4,
        split_for_heat_after_s: 5,
        ..WorldConfig::default()
    };
    // Many keys, all on one partition's worth of load: the partition splits.
    let world = World::with_config(config.clone());
    let c = provisioned(&world, 1, 990);
    assert_eq!(world.partitions("tbl").unwrap().len(), 1);
    drive(&world, &c, 950, 8, |n| format!("user-{}", n % 50));
    assert!(
        world.partitions("tbl").unwrap().len() >= 2,
        "sustained heat over many keys splits"
    );
    // One key: no split point exists.
    let world = World::with_config(config);
    let c = provisioned(&world, 1, 990);
    drive(&world, &c, 950, 8, |_| "GLOBAL_COUNTER".to_string());
    assert_eq!(
        world.partitions("tbl").unwrap().len(),
        1,
        "splitting cannot help a single hot key"
    );
}

#[test]
fn per_second_metrics_show_the_leader_and_the_replica_lag() {
    let world = World::new(21);
    let c = provisioned(&world, 100, 1000);
    let p = world.partition_of("tbl", &s("k")).unwrap();
    let leader = world.leader_az("tbl", p).unwrap().unwrap();
    let slow = engine::world::faults::Az::ALL
        .into_iter()
        .find(|az| *az != leader)
        .unwrap();
    world
        .lag_replica("tbl", p, slow, Duration::from_secs(30))
        .unwrap();
    drive(&world, &c, 10, 3, |_| "k".to_string());
    let seconds: Vec<_> = world
        .partition_metrics("tbl", None)
        .unwrap()
        .into_iter()
        .filter(|m| m.partition == p)
        .collect();
    assert_eq!(seconds.len(), 3);
    assert!(seconds
        .iter()
        .all(|m| m.leader.is_some() && m.consumed_write == 10.0));
    assert!(
        seconds.last().unwrap().replica_lag_writes >= 20,
        "the slow follower is 30 s behind: {seconds:?}"
    );
}

#[test]
fn read_and_write_burst_are_banked_at_their_own_allocation() {
    // 300 RCU and 10 WCU, idle 20 s: the read bucket holds 20 × 300 RCU, the write bucket
    // 20 × 10 WCU. The first request after the idle time is a write; it must not bank the
    // read bucket at the write allocation (20 × 10 = 200 RCU).
    let world = World::new(3);
    let c = provisioned(&world, 300, 10);
    world.advance(Duration::from_secs(20));
    let _ = c
        .put_item()
        .table_name("tbl")
        .item("id", s("w"))
        .send()
        .unwrap();
    // 1,500 strongly consistent reads of a missing key in that second: 1 RCU each, 300 from the
    // allocation and 1,200 from the read bucket (6,000 saved).
    let mut throttled = 0;
    for i in 0..1_500 {
        let r = c
            .get_item()
            .table_name("tbl")
            .key("id", s(&format!("r{i}")))
            .consistent_read(true)
            .send();
        match r {
            Ok(_) => {}
            Err(e) if e.is_throttling() => throttled += 1,
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    assert_eq!(throttled, 0, "the read bucket holds 20 s of 300 RCU");
}
