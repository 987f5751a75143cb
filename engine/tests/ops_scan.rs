//! Scenario tests for Scan (reference §4.8): the whole table page by page, filters on any
//! attribute, parallel scan segments, and the capacity a Scan costs per partition touched.
mod common;

use std::collections::BTreeSet;

use common::*;
use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ReturnConsumedCapacity,
    ScalarAttributeType,
};
use engine::{item, Client, Item, World};

/// `count` items `ITEM#<i>` / `A`, each with `n = i`; replication settled.
fn fill(w: &World, c: &Client, count: usize) {
    for i in 0..count {
        put(
            c,
            item! { "PK" => format!("ITEM#{i:03}"), "SK" => "A", "n" => i as i64 },
        );
    }
    w.settle();
}

fn pk_of(item: &Item) -> String {
    match &item["PK"] {
        engine::AttributeValue::S(s) => s.clone(),
        other => panic!("PK is {other:?}"),
    }
}

/// Every page of one scan (optionally one segment), as the PKs of each page.
fn scan_pages(c: &Client, limit: Option<i32>, segment: Option<(i32, i32)>) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let mut req = c
            .scan()
            .table_name("app")
            .set_exclusive_start_key(start.clone());
        if let Some(l) = limit {
            req = req.limit(l);
        }
        if let Some((s, t)) = segment {
            req = req.segment(s).total_segments(t);
        }
        let out = req.send().unwrap();
        pages.push(out.items().iter().map(pk_of).collect::<Vec<_>>());
        match out.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => return pages,
        }
        assert!(pages.len() < 1000, "pagination does not end");
    }
}

fn expected_pks(count: usize) -> BTreeSet<String> {
    (0..count).map(|i| format!("ITEM#{i:03}")).collect()
}

#[test]
fn a_scan_without_limit_reads_every_item() {
    let (w, c) = app();
    fill(&w, &c, 50);
    let out = c.scan().table_name("app").send().unwrap();
    assert_eq!(out.count(), 50);
    assert_eq!(out.scanned_count(), 50);
    assert_eq!(out.last_evaluated_key(), None);
    let got: BTreeSet<String> = out.items().iter().map(pk_of).collect();
    assert_eq!(got, expected_pks(50));
}

#[test]
fn pages_of_a_scan_cover_every_item_exactly_once() {
    let (w, c) = app();
    fill(&w, &c, 50);
    let pages = scan_pages(&c, Some(7), None);
    // 50 items in pages of 7: 7 full pages, then 1 item; every full page carries a key.
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![7, 7, 7, 7, 7, 7, 7, 1]
    );
    let all: Vec<String> = pages.concat();
    let distinct: BTreeSet<String> = all.iter().cloned().collect();
    assert_eq!(all.len(), 50, "no item is returned twice");
    assert_eq!(distinct, expected_pks(50));
}

#[test]
fn a_scan_whose_limit_divides_the_table_ends_with_an_empty_page() {
    let (w, c) = app();
    fill(&w, &c, 10);
    let pages = scan_pages(&c, Some(5), None);
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![5, 5, 0],
        "the second page stopped at its Limit, so a third (empty) one is needed to learn the end"
    );
}

#[test]
fn parallel_scan_segments_are_disjoint_and_cover_the_table() {
    let (w, c) = app();
    fill(&w, &c, 120);
    for total in [1, 2, 3, 7] {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut non_empty = 0;
        for segment in 0..total {
            let pages = scan_pages(&c, Some(9), Some((segment, total)));
            let items = pages.concat();
            if !items.is_empty() {
                non_empty += 1;
            }
            for pk in items {
                assert!(
                    seen.insert(pk.clone()),
                    "{pk} returned by two segments (TotalSegments {total})"
                );
            }
        }
        assert_eq!(seen, expected_pks(120), "TotalSegments {total}");
        assert_eq!(
            non_empty, total,
            "with 120 items every one of {total} segments has some"
        );
    }
}

#[test]
fn a_segment_rejects_a_start_key_from_another_segment() {
    let (w, c) = app();
    fill(&w, &c, 40);
    let first_of_segment_1 = c
        .scan()
        .table_name("app")
        .segment(1)
        .total_segments(2)
        .limit(1)
        .send()
        .unwrap()
        .last_evaluated_key()
        .cloned()
        .unwrap();
    let e = c
        .scan()
        .table_name("app")
        .segment(0)
        .total_segments(2)
        .set_exclusive_start_key(Some(first_of_segment_1))
        .send();
    assert_eq!(
        message(e),
        "The provided Exclusive start key does not map to the provided Segment and TotalSegments values."
    );
}

#[test]
fn segment_and_total_segments_validation() {
    let (_w, c) = app();
    let scan = |segment: Option<i32>, total: Option<i32>| {
        let mut req = c.scan().table_name("app");
        if let Some(s) = segment {
            req = req.segment(s);
        }
        if let Some(t) = total {
            req = req.total_segments(t);
        }
        req.send()
    };
    assert_eq!(
        message(scan(Some(0), None)),
        "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"
    );
    assert_eq!(
        message(scan(None, Some(2))),
        "The Segment parameter is required but was not present in the request when parameter TotalSegments is present"
    );
    assert_eq!(
        message(scan(Some(2), Some(2))),
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less than TotalSegments: 2"
    );
    assert_eq!(
        message(scan(Some(-1), Some(2))),
        "1 validation error detected: Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0"
    );
    assert_eq!(
        message(scan(Some(0), Some(0))),
        "1 validation error detected: Value '0' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
    assert_eq!(
        message(scan(Some(0), Some(1_000_001))),
        "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000"
    );
    // The boundaries themselves are fine.
    scan(Some(999_999), Some(1_000_000)).unwrap();
    scan(Some(0), Some(1)).unwrap();
}

#[test]
fn a_scan_filter_may_use_key_attributes() {
    let (w, c) = app();
    fill(&w, &c, 20);
    let out = c
        .scan()
        .table_name("app")
        .filter_expression("PK = :p OR (SK = :a AND n < :two)")
        .expression_attribute_values(":p", s("ITEM#007"))
        .expression_attribute_values(":a", s("A"))
        .expression_attribute_values(":two", n("2"))
        .send()
        .unwrap();
    assert_eq!(out.scanned_count(), 20);
    assert_eq!(out.count(), 3);
    let got: BTreeSet<String> = out.items().iter().map(pk_of).collect();
    assert_eq!(
        got,
        ["ITEM#000", "ITEM#001", "ITEM#007"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

#[test]
fn a_scan_limit_counts_items_read_before_the_filter() {
    let (w, c) = app();
    fill(&w, &c, 20);
    let out = c
        .scan()
        .table_name("app")
        .filter_expression("n < :zero")
        .expression_attribute_values(":zero", n("0"))
        .limit(5)
        .send()
        .unwrap();
    assert_eq!(out.scanned_count(), 5);
    assert_eq!(out.count(), 0);
    assert!(out.last_evaluated_key().is_some());
}

#[test]
fn a_scan_rejects_a_start_key_that_does_not_match_the_schema() {
    let (_w, c) = app();
    let e = c
        .scan()
        .table_name("app")
        .exclusive_start_key("PK", s("ITEM#001"))
        .send();
    assert_eq!(
        message(e),
        "The provided starting key is invalid: The provided key element does not match the schema"
    );
}

fn scan_units(c: &Client, table: &str, consistent: bool, limit: Option<i32>) -> f64 {
    let mut req = c
        .scan()
        .table_name(table)
        .consistent_read(consistent)
        .return_consumed_capacity(ReturnConsumedCapacity::Total);
    if let Some(l) = limit {
        req = req.limit(l);
    }
    req.send()
        .unwrap()
        .consumed_capacity()
        .unwrap()
        .capacity_units
        .unwrap()
}

#[test]
fn an_empty_scan_costs_the_minimum_for_every_partition_touched() {
    let (_w, c) = app();
    // A new on-demand table starts with 8 partitions (12,000 RCU / 3,000 + 4,000 WCU / 1,000).
    assert_eq!(scan_units(&c, "app", true, None), 8.0);
    assert_eq!(scan_units(&c, "app", false, None), 4.0);
    // A small provisioned table has one partition.
    c.create_table()
        .table_name("small")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(5, 5))
        .send()
        .unwrap();
    assert_eq!(scan_units(&c, "small", true, None), 1.0);
    assert_eq!(scan_units(&c, "small", false, None), 0.5);
}

#[test]
fn a_scan_that_stops_in_the_first_partition_pays_for_one_partition() {
    let (w, c) = app();
    fill(&w, &c, 200);
    assert_eq!(scan_units(&c, "app", true, Some(1)), 1.0);
    assert_eq!(scan_units(&c, "app", false, Some(1)), 0.5);
}

#[test]
fn a_full_scan_costs_the_sum_of_item_sizes_rounded_once() {
    let (w, c) = app();
    // 200 items of 3,000 bytes = 600,000 bytes ⇒ 147 blocks of 4 KB (≥ 8 partitions).
    for i in 0..200 {
        let mut it = item! { "PK" => format!("ITEM#{i:03}"), "SK" => "A", "data" => "" };
        let pad = 3000 - engine::item_size(&it);
        it.insert("data".into(), s(&"x".repeat(pad)));
        put(&c, it);
    }
    w.settle();
    assert_eq!(scan_units(&c, "app", true, None), 147.0);
    assert_eq!(scan_units(&c, "app", false, None), 73.5);
}

#[test]
fn the_request_log_counts_the_items_a_scan_read() {
    let (world, c) = common::app();
    for i in 0..7 {
        common::put(&c, engine::item! { "PK" => format!("k{i}"), "SK" => "s" });
    }
    world.settle(); // every replica has every item: an eventually consistent Scan sees all
    world.clear_request_log();
    c.scan()
        .table_name("app")
        .filter_expression("attribute_exists(nope)")
        .send()
        .unwrap();
    let log = world.request_log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].operation, "Scan");
    assert_eq!(
        log[0].items_read, 7,
        "a filtered scan still reads every item"
    );
}
