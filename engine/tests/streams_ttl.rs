//! Streams, TTL and stream consumers as the lessons tell them.
mod common;

use engine::error::SdkError;
use engine::operation::get_records::GetRecordsError;
use engine::operation::put_item::PutItemError;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, EventSourceMapping, KeySchemaElement, KeyType, OperationType,
    Put, Record, ScalarAttributeType, ShardIteratorType, StreamSpecification, StreamViewType,
    TimeToLiveSpecification, TransactWriteItem,
};
use engine::{item, Client, World, WorldConfig};

fn table_with_stream(world: &World, view: StreamViewType) -> Client {
    let c = world.client();
    c.create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(view))
        .send()
        .unwrap();
    c
}

/// The ARN of the first stream ListStreams names.
fn first_stream(out: engine::operation::list_streams::ListStreamsOutput) -> String {
    out.streams()[0].stream_arn().unwrap().to_string()
}

/// Reads every record of the stream, parents before children.
fn read_all(c: &Client) -> Vec<Record> {
    let arn = first_stream(c.list_streams().table_name("app").send().unwrap());
    let d = c.describe_stream().stream_arn(&arn).send().unwrap();
    let mut out = Vec::new();
    for shard in d.stream_description().unwrap().shards() {
        let mut it = Some(
            c.get_shard_iterator()
                .stream_arn(&arn)
                .shard_id(shard.shard_id().unwrap())
                .shard_iterator_type(ShardIteratorType::TrimHorizon)
                .send()
                .unwrap()
                .shard_iterator()
                .unwrap()
                .to_string(),
        );
        while let Some(i) = it {
            let page = c.get_records().shard_iterator(i).send().unwrap();
            if page.records().is_empty() {
                break;
            }
            out.extend(page.records().iter().cloned());
            it = page.next_shard_iterator().map(str::to_string);
        }
    }
    out
}

#[test]
fn records_follow_each_change_with_the_images_of_the_view_type() {
    let world = World::new(1);
    let c = table_with_stream(&world, StreamViewType::NewAndOldImages);
    put(&c, item! { "PK" => "a", "SK" => "1", "v" => 1 });
    put(&c, item! { "PK" => "a", "SK" => "1", "v" => 2 });
    c.delete_item()
        .table_name("app")
        .key("PK", s("a"))
        .key("SK", s("1"))
        .send()
        .unwrap();
    let records = read_all(&c);
    let names: Vec<OperationType> = records.iter().map(|r| r.event_name).collect();
    assert_eq!(
        names,
        [
            OperationType::Insert,
            OperationType::Modify,
            OperationType::Remove
        ]
    );
    assert_eq!(records[1].old_image().unwrap()["v"], n("1"));
    assert_eq!(records[1].new_image().unwrap()["v"], n("2"));
    assert!(records[2].new_image().is_none());
    assert_eq!(records[0].keys(), &item! { "PK" => "a", "SK" => "1" });
    assert!(records[0].sequence_number() < records[1].sequence_number());
    assert_eq!(records[0].sequence_number().len(), 21);
}

#[test]
fn a_write_that_changes_nothing_and_a_failed_condition_write_no_record() {
    let world = World::new(1);
    let c = table_with_stream(&world, StreamViewType::KeysOnly);
    put(&c, item! { "PK" => "a", "SK" => "1", "v" => 1 });
    put(&c, item! { "PK" => "a", "SK" => "1", "v" => 1 });
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "a", "SK" => "1", "v" => 3 }))
        .condition_expression("attribute_not_exists(PK)")
        .send();
    assert!(e.is_err_and(|e| e
        .as_service_error()
        .is_some_and(PutItemError::is_conditional_check_failed_exception)));
    assert_eq!(read_all(&c).len(), 1);
}

#[test]
fn a_transaction_emits_its_records_after_commit_and_a_cancelled_one_none() {
    let world = World::new(1);
    let c = table_with_stream(&world, StreamViewType::NewImage);
    let tx = |cond: Option<&str>| {
        let mut p = Put::builder()
            .table_name("app")
            .set_item(Some(item! { "PK" => "o", "SK" => "META" }));
        if let Some(cond) = cond {
            p = p.condition_expression(cond);
        }
        c.transact_write_items()
            .transact_items(TransactWriteItem::builder().put(p.build().unwrap()).build())
            .transact_items(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name("app")
                            .set_item(Some(item! { "PK" => "o", "SK" => "ITEM#1" }))
                            .build()
                            .unwrap(),
                    )
                    .build(),
            )
            .send()
    };
    tx(None).unwrap();
    assert_eq!(read_all(&c).len(), 2);
    assert!(tx(Some("attribute_not_exists(PK)")).is_err());
    assert_eq!(
        read_all(&c).len(),
        2,
        "a cancelled transaction leaves no record"
    );
}

#[test]
fn records_older_than_the_retention_are_trimmed() {
    let world = World::new(1);
    let c = table_with_stream(&world, StreamViewType::KeysOnly);
    put(&c, item! { "PK" => "a", "SK" => "1" });
    let arn = first_stream(c.list_streams().send().unwrap());
    let first = read_all(&c)[0].sequence_number().to_string();
    world.advance(Duration::from_secs(25 * 3600));
    assert!(read_all(&c).is_empty(), "24 h retention");
    let d = c.describe_stream().stream_arn(&arn).send().unwrap();
    let mut trimmed = 0;
    for sh in d.stream_description().unwrap().shards() {
        let r = c
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(sh.shard_id().unwrap())
            .shard_iterator_type(ShardIteratorType::AtSequenceNumber)
            .sequence_number(&first)
            .send();
        if r.is_err_and(|e| e.into_service_error().is_trimmed_data_access_exception()) {
            trimmed += 1;
        }
    }
    assert_eq!(
        trimmed, 1,
        "the shard that held the record refuses to read before its trim horizon"
    );
}

#[test]
fn a_shard_iterator_expires_after_15_minutes() {
    let world = World::new(1);
    let c = table_with_stream(&world, StreamViewType::KeysOnly);
    let arn = first_stream(c.list_streams().send().unwrap());
    let described = c.describe_stream().stream_arn(&arn).send().unwrap();
    let shard = &described.stream_description().unwrap().shards()[0];
    let it = c
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(shard.shard_id().unwrap())
        .shard_iterator_type(ShardIteratorType::Latest)
        .send()
        .unwrap()
        .shard_iterator()
        .unwrap()
        .to_string();
    world.advance(Duration::from_secs(16 * 60));
    assert!(matches!(
        c.get_records()
            .shard_iterator(it)
            .send()
            .map_err(SdkError::into_service_error),
        Err(GetRecordsError::ExpiredIteratorException(_))
    ));
}

fn ttl_table(world: &World) -> Client {
    let c = table_with_stream(world, StreamViewType::NewAndOldImages);
    c.update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "expires"))
        .send()
        .unwrap();
    c
}

#[test]
fn an_expired_item_is_still_readable_until_the_sweeper_deletes_it_as_the_service() {
    let world = World::new(1);
    let c = ttl_table(&world);
    let now = world.epoch_seconds();
    put(
        &c,
        item! { "PK" => "session", "SK" => "1", "expires" => now + 60 },
    );
    put(
        &c,
        item! { "PK" => "session", "SK" => "ms", "expires" => (now + 60) * 1000 },
    );
    put(
        &c,
        item! { "PK" => "session", "SK" => "old", "expires" => now - 6 * 365 * 86400 },
    );
    put(
        &c,
        item! { "PK" => "session", "SK" => "str", "expires" => "soon" },
    );
    world.advance(Duration::from_secs(120));
    assert!(
        get(&c, "session", "1").is_some(),
        "expired but not yet swept: still returned"
    );
    world.advance(Duration::from_secs(3 * 3600));
    assert!(get(&c, "session", "1").is_none(), "the sweeper deleted it");
    for sk in ["ms", "old", "str"] {
        assert!(
            get(&c, "session", sk).is_some(),
            "{sk}: not an expiry DynamoDB acts on"
        );
    }
    let records = read_all(&c);
    let removal = records
        .iter()
        .find(|r| r.event_name == OperationType::Remove)
        .unwrap();
    assert!(removal.is_ttl_delete());
    let identity = removal.user_identity.as_ref().unwrap();
    assert_eq!(
        (identity.r#type.as_str(), identity.principal_id.as_str()),
        ("Service", "dynamodb.amazonaws.com")
    );
    assert!(records
        .iter()
        .filter(|r| r.event_name == OperationType::Insert)
        .all(|r| r.user_identity.is_none()));
    // TTL deletes cost no write capacity.
    let wcu: f64 = world.request_log().iter().map(|r| r.write_units).sum();
    assert_eq!(wcu, 4.0, "four puts, nothing for the deletion");
}

#[test]
fn ttl_settings_follow_the_rules() {
    let world = World::new(1);
    let c = ttl_table(&world);
    let again = c
        .update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "expires"))
        .send();
    assert_eq!(message(again), "TimeToLive is already enabled");
    let soon = c
        .update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(false, "expires"))
        .send();
    assert_eq!(
        message(soon),
        "Time to live has been modified multiple times within a fixed interval"
    );
    let d = c
        .describe_time_to_live()
        .table_name("app")
        .send()
        .unwrap()
        .time_to_live_description
        .unwrap();
    assert_eq!(
        (d.time_to_live_status.as_str(), d.attribute_name.as_deref()),
        ("ENABLED", Some("expires"))
    );
}

/// Runs a seeded workload over a few keys, with a partition split in the middle.
fn workload(world: &World, c: &Client) {
    for i in 0..300u64 {
        let key = format!("K{}", i % 7);
        if i % 11 == 10 {
            c.delete_item()
                .table_name("app")
                .key("PK", s(&key))
                .key("SK", s("v"))
                .send()
                .unwrap();
        } else {
            put(
                c,
                item! { "PK" => key.as_str(), "SK" => "v", "n" => i, "pad" => "x".repeat(200) },
            );
        }
        if i % 25 == 0 {
            world.advance(Duration::from_secs(1));
        }
    }
}

fn split_world(seed: u64) -> World {
    World::with_config(WorldConfig {
        seed,
        partition_size_limit: 300,
        ..WorldConfig::default()
    })
}

#[test]
fn a_consumer_sees_every_change_once_in_order_per_item_across_a_split() {
    let world = split_world(7);
    let c = table_with_stream(&world, StreamViewType::NewAndOldImages);
    let seen: Arc<Mutex<BTreeMap<String, Vec<u64>>>> = Arc::default();
    let log = seen.clone();
    world
        .subscribe(
            "app",
            EventSourceMapping {
                batch_size: 10,
                ..Default::default()
            },
            move |batch: &[Record]| {
                let mut log = log.lock().unwrap();
                for r in batch {
                    let key = r.keys()["PK"].as_s().unwrap().clone();
                    let n = r
                        .new_image()
                        .map_or(u64::MAX, |i| i["n"].as_n().unwrap().parse().unwrap());
                    log.entry(key).or_default().push(n);
                }
                Ok::<(), String>(())
            },
        )
        .unwrap();
    workload(&world, &c);
    world.settle();
    assert!(
        !world.partition_splits("app").unwrap().is_empty(),
        "the workload must split a partition"
    );
    let seen = seen.lock().unwrap();
    for k in 0..7u64 {
        let key = format!("K{k}");
        let expected: Vec<u64> = (0..300u64)
            .filter(|i| i % 7 == k)
            .map(|i| if i % 11 == 10 { u64::MAX } else { i })
            .collect();
        assert_eq!(
            seen[&key], expected,
            "{key}: every change once, in modification order"
        );
    }
}

#[test]
fn with_redelivery_a_naive_counter_double_counts_and_an_idempotent_one_does_not() {
    let run = |idempotent: bool| {
        let world = World::new(9);
        let c = table_with_stream(&world, StreamViewType::NewImage);
        let count = Arc::new(Mutex::new((0u64, std::collections::BTreeSet::new())));
        let state = count.clone();
        let config = EventSourceMapping {
            batch_size: 5,
            redelivery_probability: 0.3,
            ..Default::default()
        };
        world
            .subscribe("app", config, move |batch: &[Record]| {
                let mut st = state.lock().unwrap();
                for r in batch {
                    if !idempotent || st.1.insert(r.sequence_number().to_string()) {
                        st.0 += 1;
                    }
                }
                Ok::<(), String>(())
            })
            .unwrap();
        for i in 0..100 {
            put(&c, item! { "PK" => format!("k{i}"), "SK" => "v" });
        }
        world.settle();
        let redelivered = world.consumer_stats(0).unwrap().batches_redelivered;
        let total = count.lock().unwrap().0;
        (total, redelivered)
    };
    let (naive, redelivered) = run(false);
    assert!(redelivered > 0);
    assert!(naive > 100, "naive handler counted {naive} for 100 changes");
    assert_eq!(run(true).0, 100);
}

#[test]
fn a_failing_batch_blocks_its_shard_until_it_succeeds() {
    let world = World::new(3);
    let c = table_with_stream(&world, StreamViewType::KeysOnly);
    let fails = Arc::new(Mutex::new(3));
    let delivered = Arc::new(Mutex::new(Vec::new()));
    let (f, d) = (fails.clone(), delivered.clone());
    world
        .subscribe(
            "app",
            EventSourceMapping::default(),
            move |batch: &[Record]| {
                let mut left = f.lock().unwrap();
                if *left > 0 {
                    *left -= 1;
                    return Err("downstream unavailable".to_string());
                }
                d.lock()
                    .unwrap()
                    .extend(batch.iter().map(|r| r.sequence_number().to_string()));
                Ok(())
            },
        )
        .unwrap();
    put(&c, item! { "PK" => "a", "SK" => "1" });
    put(&c, item! { "PK" => "a", "SK" => "2" });
    world.settle();
    let stats = world.consumer_stats(0).unwrap();
    assert_eq!(stats.failed_invocations, 3);
    assert_eq!(
        delivered.lock().unwrap().len(),
        2,
        "retried until it succeeded, nothing lost"
    );
    assert!(world.consumer_lag(0).iter().all(|(_, n)| *n == 0));
}

#[test]
fn the_inspection_api_shows_shard_lineage_after_a_split_without_making_a_request() {
    let world = split_world(7);
    let c = table_with_stream(&world, StreamViewType::KeysOnly);
    workload(&world, &c);
    world.settle();
    let requests = world.request_totals().requests;
    let (parent, children, _) = world.partition_splits("app").unwrap()[0];
    let tables = world.tables();
    let stream = tables[0].stream.as_ref().expect("the table has a stream");
    let shard_of = |partition: u32| {
        stream
            .shards
            .iter()
            .find(|s| s.partition == partition)
            .unwrap_or_else(|| panic!("no shard for partition {partition}"))
    };
    let closed = shard_of(parent);
    assert!(!closed.open, "a split closes its partition's shard");
    for child in children {
        let shard = shard_of(child);
        assert_eq!(
            shard.parent_shard_id.as_deref(),
            Some(closed.shard_id.as_str())
        );
    }
    assert_eq!(
        tables[0].partition_count,
        world.partitions("app").unwrap().len()
    );
    // The view polls these accessors: they must not show up in the request log.
    let tail = world.request_log_tail(3);
    assert_eq!(tail.len(), 3);
    assert_eq!(
        tail[2].seq + 1,
        requests,
        "the tail ends at the last request"
    );
    assert_eq!(world.request_totals().requests, requests);
}

#[test]
fn describe_stream_pages_its_shards_with_limit_and_exclusive_start_shard_id() {
    let world = split_world(7);
    let c = table_with_stream(&world, StreamViewType::KeysOnly);
    workload(&world, &c);
    world.settle();
    let arn = first_stream(c.list_streams().table_name("app").send().unwrap());
    let all = c.describe_stream().stream_arn(&arn).send().unwrap();
    let all = all.stream_description().unwrap();
    assert!(all.shards().len() >= 3, "a split makes two more shards");
    assert_eq!(
        all.last_evaluated_shard_id(),
        None,
        "all of them fit in one answer"
    );
    let ids: Vec<&str> = all.shards().iter().map(|s| s.shard_id().unwrap()).collect();

    // One shard per page, each page starting after the one before: the same shards, in
    // the same order (parents before children), and the last page says nothing follows.
    let mut paged = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let out = c
            .describe_stream()
            .stream_arn(&arn)
            .limit(1)
            .set_exclusive_start_shard_id(start.clone())
            .send()
            .unwrap();
        let d = out.stream_description().unwrap();
        assert_eq!(d.shards().len(), 1);
        paged.push(d.shards()[0].shard_id().unwrap().to_string());
        match d.last_evaluated_shard_id() {
            Some(last) => {
                assert_eq!(Some(last), paged.last().map(String::as_str));
                start = Some(last.to_string());
            }
            None => break,
        }
    }
    assert_eq!(paged, ids);

    for (limit, bound) in [
        (0, "greater than or equal to 1"),
        (101, "less than or equal to 100"),
    ] {
        let err = c
            .describe_stream()
            .stream_arn(&arn)
            .limit(limit)
            .send()
            .unwrap_err();
        let message = err.into_service_error().to_string();
        assert!(
            message.contains(&format!("Value '{limit}' at 'limit'")),
            "{message}"
        );
        assert!(message.contains(bound), "{message}");
    }
}

#[test]
fn list_streams_pages_with_limit_and_exclusive_start_stream_arn() {
    let world = World::new(1);
    let c = world.client();
    for name in ["orders", "users", "carts"] {
        c.create_table()
            .table_name(name)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .stream_specification(StreamSpecification::enabled(StreamViewType::KeysOnly))
            .send()
            .unwrap();
    }
    let first = c.list_streams().limit(2).send().unwrap();
    let names: Vec<&str> = first
        .streams()
        .iter()
        .map(|s| s.table_name().unwrap())
        .collect();
    assert_eq!(names, ["carts", "orders"]);
    let last = first.last_evaluated_stream_arn().expect("one more follows");
    assert_eq!(Some(last), first.streams()[1].stream_arn());
    let rest = c
        .list_streams()
        .limit(2)
        .exclusive_start_stream_arn(last)
        .send()
        .unwrap();
    let names: Vec<&str> = rest
        .streams()
        .iter()
        .map(|s| s.table_name().unwrap())
        .collect();
    assert_eq!(names, ["users"]);
    assert_eq!(rest.last_evaluated_stream_arn(), None);
    // A start whose table is gone since still continues after it.
    let orders = first.streams()[1].stream_arn().unwrap().to_string();
    c.delete_table().table_name("orders").send().unwrap();
    let after = c
        .list_streams()
        .exclusive_start_stream_arn(orders)
        .send()
        .unwrap();
    let names: Vec<&str> = after
        .streams()
        .iter()
        .map(|s| s.table_name().unwrap())
        .collect();
    assert_eq!(names, ["users"]);
}
