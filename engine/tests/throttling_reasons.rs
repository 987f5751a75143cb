//! Which limit a throttled request ran into, as its error's `ThrottlingReasons` say it: one
//! reason `<Table|Index><Read|Write><limit>` and the ARN of the table or index that refused.
//! The exception alone says only the billing mode — `ProvisionedThroughputExceededException`
//! for a hot key and for a table short of capacity alike — so the reason is what tells an
//! application whether more capacity would help.
mod common;

use std::time::Duration;

use common::*;
use engine::error::SdkError;
use engine::operation::batch_write_item::BatchWriteItemError;
use engine::operation::get_item::GetItemError;
use engine::operation::put_item::PutItemError;
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProvisionedThroughput, PutRequest, ScalarAttributeType, ThrottlingReason, WriteRequest,
};
use engine::{item, Client, World, WorldConfig};

/// Creates table `tbl` keyed by `id` (S): provisioned with `throughput`, or on demand.
fn create(c: &Client, throughput: Option<ProvisionedThroughput>) -> String {
    let b = c
        .create_table()
        .table_name("tbl")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash));
    let b = match throughput {
        Some(t) => b.provisioned_throughput(t),
        None => b.billing_mode(BillingMode::PayPerRequest),
    };
    b.send().unwrap();
    table_arn(c)
}

fn table_arn(c: &Client) -> String {
    let out = c.describe_table().table_name("tbl").send().unwrap();
    let arn = out.table().and_then(|t| t.table_arn()).unwrap();
    arn.to_string()
}

/// The reasons of a throttled request, as `(reason, resource)` pairs.
fn pairs(reasons: &[ThrottlingReason]) -> Vec<(&str, &str)> {
    reasons
        .iter()
        .map(|r| (r.reason().unwrap(), r.resource().unwrap()))
        .collect()
}

/// Puts `{id: key(n)}` for n in 0.. until a put is throttled; returns its error.
fn put_until_throttled(c: &Client, key: impl Fn(usize) -> String) -> PutItemError {
    for n in 0..100_000 {
        let sent = c
            .put_item()
            .table_name("tbl")
            .set_item(Some(item! { "id" => key(n) }))
            .send();
        if let Err(e) = sent {
            assert!(e.is_throttling(), "not a throttle: {e:?}");
            return e.into_service_error();
        }
    }
    panic!("nothing was throttled");
}

#[test]
fn a_hot_key_on_a_big_provisioned_table_is_a_key_range_throttle() {
    // 40,000 WCU: forty times what one key asks. The partition holding it still serves
    // 1,000 WCU a second, and more capacity would change nothing.
    let world = common::world_with_empty_buckets(5);
    let c = world.client();
    let arn = create(&c, Some(ProvisionedThroughput::new(1_000, 40_000)));
    let e = put_until_throttled(&c, |_| "post-1#likes".to_string());
    let PutItemError::ProvisionedThroughputExceededException(t) = &e else {
        panic!("a provisioned table throttles with ProvisionedThroughputExceededException: {e:?}");
    };
    assert_eq!(
        pairs(t.throttling_reasons()),
        [("TableWriteKeyRangeThroughputExceeded", arn.as_str())]
    );
    // The reasons survive `?` into the service-wide error, as in the SDK.
    let e: engine::Error = e.into();
    let engine::Error::ProvisionedThroughputExceededException(t) = e else {
        panic!("{e:?}");
    };
    assert_eq!(t.throttling_reasons().len(), 1);
}

#[test]
fn a_table_over_its_provisioned_rate_is_a_provisioned_throttle() {
    // 10 RCU on one partition, reads of ten different keys a second and more: no key is hot,
    // the table is short. Same exception as a hot key — only the reason differs.
    let world = common::world_with_empty_buckets(5);
    let c = world.client();
    let arn = create(&c, Some(ProvisionedThroughput::new(10, 10)));
    let mut throttled = None;
    for n in 0..30 {
        let sent = c
            .get_item()
            .table_name("tbl")
            .key("id", s(&format!("user-{n}")))
            .consistent_read(true)
            .send();
        if let Err(e) = sent {
            throttled = Some((n, e.into_service_error()));
            break;
        }
    }
    let (n, e) = throttled.expect("30 strong reads in one second on 10 RCU are throttled");
    assert_eq!(
        n, 10,
        "ten 1-RCU reads fit in the second, the eleventh does not"
    );
    let GetItemError::ProvisionedThroughputExceededException(t) = &e else {
        panic!("{e:?}");
    };
    assert_eq!(
        pairs(t.throttling_reasons()),
        [("TableReadProvisionedThroughputExceeded", arn.as_str())]
    );
}

#[test]
fn a_gsi_short_of_write_capacity_throttles_table_writes_with_an_index_reason() {
    // The table has plenty; its index has 2 WCU. Every write that changes the index needs
    // the index's capacity too (back-pressure): the reason names the index, not the table.
    let world = common::world_with_empty_buckets(5);
    let c = world.client();
    c.create_table()
        .table_name("tbl")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("email", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(1_000, 1_000))
        .global_secondary_indexes(
            GlobalSecondaryIndex::new(
                "by-email",
                vec![KeySchemaElement::new("email", KeyType::Hash)],
                Projection::keys_only(),
            )
            .with_provisioned_throughput(ProvisionedThroughput::new(2, 2)),
        )
        .send()
        .unwrap();
    let described = c.describe_table().table_name("tbl").send().unwrap();
    let index_arn = described
        .table()
        .and_then(|t| t.global_secondary_indexes().first())
        .and_then(|i| i.index_arn())
        .unwrap()
        .to_string();
    assert_eq!(index_arn, format!("{}/index/by-email", table_arn(&c)));
    let mut throttled = None;
    for n in 0..20 {
        let sent = c
            .put_item()
            .table_name("tbl")
            .set_item(Some(
                item! { "id" => format!("u{n}"), "email" => format!("u{n}@example.com") },
            ))
            .send();
        if let Err(e) = sent {
            throttled = Some(e.into_service_error());
            break;
        }
    }
    let e = throttled.expect("20 index writes in one second on a 2 WCU index are throttled");
    let PutItemError::ProvisionedThroughputExceededException(t) = &e else {
        panic!("{e:?}");
    };
    assert!(
        t.message().unwrap().contains("global secondary indexes"),
        "{t:?}"
    );
    assert_eq!(
        pairs(t.throttling_reasons()),
        [(
            "IndexWriteProvisionedThroughputExceeded",
            index_arn.as_str()
        )]
    );
    // A write the index does not see (no email) pays only the table: it goes through.
    c.put_item()
        .table_name("tbl")
        .set_item(Some(item! { "id" => "no-email" }))
        .send()
        .unwrap();
}

#[test]
fn a_hot_key_on_an_on_demand_table_is_a_key_range_throttle_too() {
    // On demand has no provisioned rate to exceed, and the partition ceiling still holds:
    // the exception is ThrottlingException, the reason the same key range.
    let world = common::world_with_empty_buckets(5);
    let c = world.client();
    let arn = create(&c, None);
    let e = put_until_throttled(&c, |_| "post-1#likes".to_string());
    let PutItemError::ThrottlingException(t) = &e else {
        panic!("an on-demand table throttles with ThrottlingException: {e:?}");
    };
    assert_eq!(
        pairs(t.throttling_reasons()),
        [("TableWriteKeyRangeThroughputExceeded", arn.as_str())]
    );
}

#[test]
fn on_demand_past_its_ramp_is_a_key_range_and_past_the_quota_an_account_limit() {
    // Partitions too large to bind (a ceiling of a billion units), so only the table's own
    // limits refuse: twice the previous peak (at first 12,000 RCU), and the per-table quota
    // of 40,000 RCU a second. One 400 KB item, read strongly: 100 RCU a read.
    let world = World::with_config(WorldConfig {
        seed: 5,
        partition_read_ceiling: 1e9,
        new_table_buckets_full: false,
        ..WorldConfig::default()
    });
    let c = world.client();
    let arn = create(&c, None);
    let body = "x".repeat(409_000);
    c.put_item()
        .table_name("tbl")
        .set_item(Some(item! { "id" => "big", "body" => body }))
        .send()
        .unwrap();
    world.advance(Duration::from_secs(1));
    let read = || {
        c.get_item()
            .table_name("tbl")
            .key("id", s("big"))
            .consistent_read(true)
            .send()
            .map(|out| out.item().is_some())
            .map_err(SdkError::into_service_error)
    };
    // Reads until one is throttled; returns how many went through and the throttle's reason.
    let until_throttled = || {
        let mut served = 0;
        loop {
            match read() {
                Ok(found) => {
                    assert!(found);
                    served += 1;
                }
                Err(GetItemError::ThrottlingException(t)) => {
                    let reason = t.throttling_reasons()[0].clone();
                    return (served, reason);
                }
                Err(e) => panic!("{e:?}"),
            }
        }
    };
    // Second 1: a new on-demand table takes 12,000 RCU at once; the 121st read is more than
    // twice a previous peak it never had — the model reports the ramp as a key range.
    let (served, reason) = until_throttled();
    assert_eq!(served, 120);
    assert_eq!(reason.reason(), Some("TableReadKeyRangeThroughputExceeded"));
    assert_eq!(reason.resource(), Some(arn.as_str()));
    // The peak ratchets up: 24,000 RCU the next second, then 40,000 — the quota, though twice
    // the previous peak would be 48,000.
    for expected in [240, 400] {
        world.advance(Duration::from_secs(1));
        let (served, reason) = until_throttled();
        assert_eq!(served, expected);
        let limit = if expected == 400 {
            "TableReadAccountLimitExceeded"
        } else {
            "TableReadKeyRangeThroughputExceeded"
        };
        assert_eq!(reason.reason(), Some(limit), "after {served} reads");
    }
}

#[test]
fn a_batch_with_unprocessed_items_is_no_error_and_a_batch_with_nothing_done_has_reasons() {
    // Throttled items of a batch come back in UnprocessedItems: the call succeeded, there is
    // no exception and so no reason. Only a batch of which nothing could be written fails.
    let world = common::world_with_empty_buckets(13);
    let c = world.client();
    let arn = create(&c, Some(ProvisionedThroughput::new(100, 5)));
    let batch = |from: usize| {
        let writes: Vec<WriteRequest> = (from..from + 20)
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
        c.batch_write_item().request_items("tbl", writes).send()
    };
    let out = batch(0).unwrap();
    let unprocessed = out.unprocessed_items().and_then(|u| u.get("tbl"));
    assert_eq!(unprocessed.map_or(0, Vec::len), 15);
    let e = batch(20).unwrap_err().into_service_error();
    let BatchWriteItemError::ProvisionedThroughputExceededException(t) = &e else {
        panic!("{e:?}");
    };
    assert_eq!(
        pairs(t.throttling_reasons()),
        [("TableWriteProvisionedThroughputExceeded", arn.as_str())]
    );
}
