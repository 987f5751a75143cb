//! Scenario tests for what DynamoDB absorbs (issue 18, points 12 and 25), modelled in
//! `capacity::admission`: a new table's full burst bucket, an on-demand partition's write
//! headroom above its ceiling, a transaction met as one request — and the lessons that must
//! not move: one key held at its partition's sustained ceiling, on-demand's allowance.
mod common;

use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, Put, PutRequest,
    ScalarAttributeType, TransactWriteItem, WriteRequest,
};
use engine::{item, AttributeValue, Client, Item};

/// An item of `app` under `pk`/`sk` padded to about `kb` KB.
fn sized(pk: &str, sk: &str, kb: usize) -> Item {
    let mut it = item! { "PK" => pk, "SK" => sk };
    it.insert("data".into(), AttributeValue::S("x".repeat(kb * 1024 - 40)));
    it
}

/// Puts sent back to back in the current simulated second: (admitted, throttled).
fn burst_of_puts(c: &Client, pk: &str, count: usize, kb: usize, tag: &str) -> (usize, usize) {
    let (mut ok, mut throttled) = (0, 0);
    for i in 0..count {
        match c
            .put_item()
            .table_name("app")
            .set_item(Some(sized(pk, &format!("{tag}{i:04}"), kb)))
            .send()
        {
            Ok(_) => ok += 1,
            Err(e) if e.is_throttling() => throttled += 1,
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    (ok, throttled)
}

#[test]
fn ten_350_kb_puts_in_one_transaction_go_through_on_a_new_on_demand_table() {
    let (_w, c) = app();
    let mut tx = c.transact_write_items();
    for i in 0..10 {
        tx = tx.transact_items(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name("app")
                        .set_item(Some(sized(&format!("big{i}"), "A", 350)))
                        .build()
                        .unwrap(),
                )
                .build(),
        );
    }
    tx.send().unwrap();
    assert!(get(&c, "big9", "A").is_some());
}

#[test]
fn a_new_provisioned_table_absorbs_a_burst_of_setup_writes() {
    let w = engine::World::new(1);
    let c = w.client();
    c.create_table()
        .table_name("small")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(5, 5))
        .send()
        .unwrap();
    // 50 writes at once on 5 WCU: 45 past the allocation, paid from a burst bucket a new
    // table is born with (300 s × 5 = 1,500 units).
    for i in 0..50 {
        c.put_item()
            .table_name("small")
            .item("PK", s(&format!("k{i}")))
            .send()
            .unwrap();
    }
    // The bucket is finite: a sustained 20 writes a second outruns it within minutes.
    let mut throttled = 0;
    for second in 1..=120 {
        w.advance(Duration::from_secs(1));
        for i in 0..20 {
            let r = c
                .put_item()
                .table_name("small")
                .item("PK", s(&format!("s{second}-{i}")))
                .send();
            throttled += usize::from(r.is_err());
        }
    }
    assert!(throttled > 0, "burst runs dry");
}

#[test]
fn one_on_demand_key_takes_a_batch_of_25_times_50_kb_and_200_puts_of_10_kb() {
    let (_w, c) = app();
    let batch: Vec<WriteRequest> = (0..25)
        .map(|i| {
            WriteRequest::builder()
                .put_request(
                    PutRequest::builder()
                        .set_item(Some(sized("hot", &format!("b{i:02}"), 50)))
                        .build()
                        .unwrap(),
                )
                .build()
        })
        .collect();
    let out = c
        .batch_write_item()
        .request_items("app", batch)
        .send()
        .unwrap();
    assert_eq!(
        out.unprocessed_items()
            .map(|u| u.values().map(Vec::len).sum::<usize>()),
        Some(0),
        "1,250 WRU on one key in one batch"
    );
    let (w2, c2) = app();
    assert_eq!(
        burst_of_puts(&c2, "hot", 200, 10, "p"),
        (200, 0),
        "2,000 WRU at once"
    );
    drop(w2);
}

#[test]
fn one_on_demand_key_is_still_held_at_its_partitions_sustained_ceiling() {
    let (w, c) = app();
    // 2,000 WRU a second to one key for five seconds: the headroom pays for the first
    // second's excess, then the key gets its partition's 1,000 WRU a second, no more.
    let mut admitted = 0;
    let mut throttled = 0;
    for second in 0..5 {
        let (ok, t) = burst_of_puts(&c, "hot", 200, 10, &format!("s{second}-"));
        admitted += ok;
        throttled += t;
        w.advance(Duration::from_secs(1));
    }
    assert_eq!(admitted, 200 + 4 * 100, "one burst, then the ceiling");
    assert_eq!(throttled, 4 * 100);
}
