//! Scenario tests for Query (reference §4.7, §5.5, §3.2): key conditions, sort-key order,
//! the page pipeline (read → Limit / 1 MB → filter → projection), pagination, Select and
//! the capacity a page costs.
mod common;

use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ReturnConsumedCapacity,
    ScalarAttributeType, Select,
};
use engine::{item, item_size, AttributeValue, Blob, Client, Item, World};

/// An item `PK`/`SK` padded with a `data` attribute to exactly `bytes` bytes.
fn sized(pk: &str, sk: &str, bytes: usize) -> Item {
    let mut it = item! { "PK" => pk, "SK" => sk, "data" => "" };
    let pad = bytes
        .checked_sub(item_size(&it))
        .expect("item too small for its key");
    it.insert("data".into(), AttributeValue::S("x".repeat(pad)));
    assert_eq!(item_size(&it), bytes);
    it
}

/// `USER#1` with sort keys `ORDER#01` … `ORDER#<count>` (zero-padded), each `{n}` numbered,
/// plus a `PROFILE`; then replication settles, so eventually consistent reads see it all.
fn orders(w: &World, c: &Client, count: usize) {
    for i in 1..=count {
        put(
            c,
            item! { "PK" => "USER#1", "SK" => format!("ORDER#{i:02}"), "n" => i as i64 },
        );
    }
    put(c, item! { "PK" => "USER#1", "SK" => "PROFILE", "n" => 0 });
    put(c, item! { "PK" => "USER#2", "SK" => "ORDER#01", "n" => 99 });
    w.settle();
}

/// A Query of `USER#1` with one key condition and its values.
fn query_user(c: &Client, key_condition: &str, values: &[(&str, &str)]) -> Vec<String> {
    let mut q = c
        .query()
        .table_name("app")
        .key_condition_expression(key_condition)
        .expression_attribute_values(":pk", s("USER#1"))
        .consistent_read(true);
    for (k, v) in values {
        q = q.expression_attribute_values(*k, s(v));
    }
    sort_keys(q.send().unwrap().items())
}

fn sort_keys(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match &i["SK"] {
            AttributeValue::S(s) => s.clone(),
            other => panic!("SK is {other:?}"),
        })
        .collect()
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A world with a table `t` keyed by `PK` (S) and `SK` of type `sk_type`.
fn typed_sort_key(sk_type: ScalarAttributeType) -> (World, Client) {
    let world = World::new(3);
    let client = world.client();
    client
        .create_table()
        .table_name("typed")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", sk_type))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    (world, client)
}

fn query_t(c: &Client, forward: bool) -> Vec<AttributeValue> {
    c.query()
        .table_name("typed")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("P"))
        .scan_index_forward(forward)
        .consistent_read(true)
        .send()
        .unwrap()
        .items()
        .iter()
        .map(|i| i["SK"].clone())
        .collect()
}

// ---- key conditions -------------------------------------------------------------------

#[test]
fn partition_key_alone_reads_the_whole_item_collection_in_sort_key_order() {
    let (w, c) = app();
    orders(&w, &c, 3);
    assert_eq!(
        query_user(&c, "PK = :pk", &[]),
        names(&["ORDER#01", "ORDER#02", "ORDER#03", "PROFILE"])
    );
}

#[test]
fn every_sort_key_comparison_selects_its_range() {
    let (w, c) = app();
    orders(&w, &c, 5);
    let v = [(":v", "ORDER#03")];
    assert_eq!(
        query_user(&c, "PK = :pk AND SK = :v", &v),
        names(&["ORDER#03"])
    );
    assert_eq!(
        query_user(&c, "PK = :pk AND SK < :v", &v),
        names(&["ORDER#01", "ORDER#02"])
    );
    assert_eq!(
        query_user(&c, "PK = :pk AND SK <= :v", &v),
        names(&["ORDER#01", "ORDER#02", "ORDER#03"])
    );
    assert_eq!(
        query_user(&c, "PK = :pk AND SK > :v", &v),
        names(&["ORDER#04", "ORDER#05", "PROFILE"])
    );
    assert_eq!(
        query_user(&c, "PK = :pk AND SK >= :v", &v),
        names(&["ORDER#03", "ORDER#04", "ORDER#05", "PROFILE"])
    );
}

#[test]
fn between_is_inclusive_at_both_ends() {
    let (w, c) = app();
    orders(&w, &c, 5);
    assert_eq!(
        query_user(
            &c,
            "PK = :pk AND SK BETWEEN :a AND :b",
            &[(":a", "ORDER#02"), (":b", "ORDER#04")]
        ),
        names(&["ORDER#02", "ORDER#03", "ORDER#04"])
    );
}

#[test]
fn begins_with_selects_the_prefix_and_nothing_after_it() {
    let (w, c) = app();
    orders(&w, &c, 3);
    put(&c, item! { "PK" => "USER#1", "SK" => "ORDERS", "n" => 7 });
    put(&c, item! { "PK" => "USER#1", "SK" => "ORDEQ", "n" => 7 });
    assert_eq!(
        query_user(&c, "PK = :pk AND begins_with(SK, :p)", &[(":p", "ORDER#")]),
        names(&["ORDER#01", "ORDER#02", "ORDER#03"])
    );
}

#[test]
fn begins_with_backwards_returns_the_prefix_in_descending_order() {
    let (w, c) = app();
    orders(&w, &c, 3);
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk AND begins_with(SK, :p)")
        .expression_attribute_values(":pk", s("USER#1"))
        .expression_attribute_values(":p", s("ORDER#"))
        .scan_index_forward(false)
        .send()
        .unwrap();
    assert_eq!(
        sort_keys(out.items()),
        names(&["ORDER#03", "ORDER#02", "ORDER#01"])
    );
    assert_eq!(out.last_evaluated_key(), None);
}

#[test]
fn a_partition_key_with_no_items_returns_an_empty_page_without_a_last_evaluated_key() {
    let (w, c) = app();
    orders(&w, &c, 2);
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("NOBODY"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.count(), 0);
    assert_eq!(out.scanned_count(), 0);
    assert!(out.items().is_empty());
    assert_eq!(out.last_evaluated_key(), None);
    assert_eq!(
        out.consumed_capacity().unwrap().capacity_units,
        Some(0.5),
        "an empty Query still costs the minimum for the partition touched"
    );
}

#[test]
fn a_key_condition_without_the_partition_key_is_rejected() {
    let (_w, c) = app();
    let e = c
        .query()
        .table_name("app")
        .key_condition_expression("SK = :v")
        .expression_attribute_values(":v", s("x"))
        .send();
    assert_eq!(message(e), "Query condition missed key schema element: PK");
}

#[test]
fn a_query_without_a_key_condition_is_rejected() {
    let (_w, c) = app();
    let e = c.query().table_name("app").send();
    assert_eq!(
        message(e),
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
    );
}

// ---- order ----------------------------------------------------------------------------

#[test]
fn scan_index_forward_false_reverses_the_order() {
    let (w, c) = app();
    orders(&w, &c, 3);
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("USER#1"))
        .scan_index_forward(false)
        .send()
        .unwrap();
    assert_eq!(
        sort_keys(out.items()),
        names(&["PROFILE", "ORDER#03", "ORDER#02", "ORDER#01"])
    );
}

#[test]
fn numeric_sort_keys_order_by_value_not_by_text() {
    let (_w, c) = typed_sort_key(ScalarAttributeType::N);
    for v in ["10", "-2", "2", "100", "-10", "0", "2.5", "1E+1"] {
        c.put_item()
            .table_name("typed")
            .set_item(Some(item! { "PK" => "P", "SK" => n(v), "v" => v }))
            .send()
            .unwrap();
    }
    // "1E+1" is 10: the same key as "10", so it replaced it.
    let expected: Vec<AttributeValue> = ["-10", "-2", "0", "2", "2.5", "10", "100"]
        .iter()
        .map(|v| n(v))
        .collect();
    assert_eq!(query_t(&c, true), expected);
    let mut backwards = expected.clone();
    backwards.reverse();
    assert_eq!(query_t(&c, false), backwards);
}

#[test]
fn binary_sort_keys_order_as_unsigned_bytes() {
    let (_w, c) = typed_sort_key(ScalarAttributeType::B);
    let values: [&[u8]; 5] = [&[0x80], &[0x7f], &[0x00, 0x01], &[0xff], &[0x7f, 0x00]];
    for v in values {
        c.put_item()
            .table_name("typed")
            .set_item(Some(
                item! { "PK" => "P", "SK" => AttributeValue::B(Blob::new(v.to_vec())) },
            ))
            .send()
            .unwrap();
    }
    let expected: Vec<AttributeValue> =
        [&[0x00, 0x01][..], &[0x7f], &[0x7f, 0x00], &[0x80], &[0xff]]
            .iter()
            .map(|v| AttributeValue::B(Blob::new(v.to_vec())))
            .collect();
    assert_eq!(query_t(&c, true), expected);
}

#[test]
fn string_sort_keys_order_by_utf8_bytes() {
    let (_w, c) = typed_sort_key(ScalarAttributeType::S);
    for v in ["z", "a", "A", "¿", "Z", "aa", "é"] {
        c.put_item()
            .table_name("typed")
            .set_item(Some(item! { "PK" => "P", "SK" => v }))
            .send()
            .unwrap();
    }
    // Upper case (0x41..) before lower case (0x61..); "¿" (0xC2 0xBF) after "z" (0x7A);
    // "é" (0xC3 0xA9) after "¿".
    let expected: Vec<AttributeValue> = ["A", "Z", "a", "aa", "z", "¿", "é"]
        .iter()
        .map(|v| s(v))
        .collect();
    assert_eq!(query_t(&c, true), expected);
}

// ---- filter, Limit, Count vs ScannedCount -------------------------------------------------

#[test]
fn the_filter_runs_after_the_read_so_count_and_scanned_count_differ() {
    let (w, c) = app();
    orders(&w, &c, 10);
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk AND begins_with(SK, :p)")
        .filter_expression("n > :five")
        .expression_attribute_values(":pk", s("USER#1"))
        .expression_attribute_values(":p", s("ORDER#"))
        .expression_attribute_values(":five", n("5"))
        .send()
        .unwrap();
    assert_eq!(out.scanned_count(), 10);
    assert_eq!(out.count(), 5);
    assert_eq!(
        sort_keys(out.items()),
        names(&["ORDER#06", "ORDER#07", "ORDER#08", "ORDER#09", "ORDER#10"])
    );
}

#[test]
fn limit_counts_items_read_before_the_filter() {
    let (w, c) = app();
    orders(&w, &c, 10);
    // AWS's example: Limit 6 with a filter returns at most 6 — here only the even ones of
    // the first six read.
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .filter_expression("n IN (:two, :four, :six, :eight)")
        .expression_attribute_values(":pk", s("USER#1"))
        .expression_attribute_values(":two", n("2"))
        .expression_attribute_values(":four", n("4"))
        .expression_attribute_values(":six", n("6"))
        .expression_attribute_values(":eight", n("8"))
        .limit(6)
        .send()
        .unwrap();
    assert_eq!(out.scanned_count(), 6);
    assert_eq!(out.count(), 3);
    assert_eq!(
        sort_keys(out.items()),
        names(&["ORDER#02", "ORDER#04", "ORDER#06"])
    );
    assert_eq!(
        out.last_evaluated_key(),
        Some(&item! { "PK" => "USER#1", "SK" => "ORDER#06" })
    );
}

#[test]
fn a_page_can_be_empty_and_still_carry_a_last_evaluated_key() {
    let (w, c) = app();
    orders(&w, &c, 10);
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .filter_expression("n > :big")
        .expression_attribute_values(":pk", s("USER#1"))
        .expression_attribute_values(":big", n("1000"))
        .limit(3)
        .send()
        .unwrap();
    assert_eq!(out.count(), 0);
    assert_eq!(out.scanned_count(), 3);
    assert!(out.items().is_empty());
    assert_eq!(
        out.last_evaluated_key(),
        Some(&item! { "PK" => "USER#1", "SK" => "ORDER#03" })
    );
}

#[test]
fn a_limit_of_zero_is_rejected() {
    let (_w, c) = app();
    let e = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("USER#1"))
        .limit(0)
        .send();
    assert_eq!(
        message(e),
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
}

#[test]
fn a_filter_on_a_key_attribute_is_rejected() {
    let (_w, c) = app();
    let e = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .filter_expression("SK <> :x")
        .expression_attribute_values(":pk", s("USER#1"))
        .expression_attribute_values(":x", s("PROFILE"))
        .send();
    assert_eq!(
        message(e),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK"
    );
    let e = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .filter_expression("attribute_exists(#p)")
        .expression_attribute_names("#p", "PK")
        .expression_attribute_values(":pk", s("USER#1"))
        .send();
    assert_eq!(
        message(e),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: PK"
    );
}

// ---- pagination -----------------------------------------------------------------------

#[test]
fn last_evaluated_key_is_present_when_a_limit_hit_leaves_nothing_behind() {
    let (w, c) = app();
    orders(&w, &c, 4);
    let page = |start: Option<Item>| {
        c.query()
            .table_name("app")
            .key_condition_expression("PK = :pk AND begins_with(SK, :p)")
            .expression_attribute_values(":pk", s("USER#1"))
            .expression_attribute_values(":p", s("ORDER#"))
            .limit(4)
            .set_exclusive_start_key(start)
            .send()
            .unwrap()
    };
    let first = page(None);
    assert_eq!(first.count(), 4);
    let lek = first
        .last_evaluated_key()
        .cloned()
        .expect("the page stopped at its Limit, so it carries a LastEvaluatedKey");
    assert_eq!(lek, item! { "PK" => "USER#1", "SK" => "ORDER#04" });
    let second = page(Some(lek));
    assert_eq!(second.count(), 0);
    assert_eq!(second.scanned_count(), 0);
    assert_eq!(
        second.last_evaluated_key(),
        None,
        "absence is the only end-of-results signal"
    );
}

/// Reads every page of `USER#1` with `limit`, returning the pages' sort keys.
fn all_pages(c: &Client, limit: i32, forward: bool) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut start = None;
    loop {
        let out = c
            .query()
            .table_name("app")
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s("USER#1"))
            .scan_index_forward(forward)
            .limit(limit)
            .set_exclusive_start_key(start)
            .send()
            .unwrap();
        pages.push(sort_keys(out.items()));
        match out.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => return pages,
        }
        assert!(pages.len() < 100, "pagination does not end");
    }
}

#[test]
fn exclusive_start_key_walks_every_page_forwards() {
    let (w, c) = app();
    orders(&w, &c, 7);
    let pages = all_pages(&c, 3, true);
    assert_eq!(
        pages,
        vec![
            names(&["ORDER#01", "ORDER#02", "ORDER#03"]),
            names(&["ORDER#04", "ORDER#05", "ORDER#06"]),
            names(&["ORDER#07", "PROFILE"]),
        ]
    );
}

#[test]
fn exclusive_start_key_walks_every_page_backwards() {
    let (w, c) = app();
    orders(&w, &c, 7);
    let pages = all_pages(&c, 4, false);
    assert_eq!(
        pages,
        vec![
            names(&["PROFILE", "ORDER#07", "ORDER#06", "ORDER#05"]),
            names(&["ORDER#04", "ORDER#03", "ORDER#02", "ORDER#01"]),
            names(&[]),
        ]
    );
}

#[test]
fn an_exclusive_start_key_that_does_not_match_the_schema_is_rejected() {
    let (w, c) = app();
    orders(&w, &c, 3);
    let with_start = |start: Item| {
        c.query()
            .table_name("app")
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s("USER#1"))
            .set_exclusive_start_key(Some(start))
            .send()
    };
    let invalid =
        "The provided starting key is invalid: The provided key element does not match the schema";
    // missing the sort key
    assert_eq!(message(with_start(item! { "PK" => "USER#1" })), invalid);
    // an extra attribute
    assert_eq!(
        message(with_start(
            item! { "PK" => "USER#1", "SK" => "ORDER#01", "n" => 1 }
        )),
        invalid
    );
    // the wrong type
    assert_eq!(
        message(with_start(item! { "PK" => "USER#1", "SK" => 1 })),
        invalid
    );
    // another item collection than the one queried
    assert_eq!(
        message(with_start(item! { "PK" => "USER#2", "SK" => "ORDER#01" })),
        invalid
    );
}

#[test]
fn the_page_stops_after_the_item_that_reaches_1_mb() {
    let (w, c) = app();
    // 15 items of exactly 100 KB: the 11th brings the page to 1,126,400 bytes ≥ 1 MB.
    for i in 0..15 {
        // One partition takes 1,000 write units a second: let the clock move on.
        w.advance(Duration::from_secs(1));
        put(&c, sized("BIG", &format!("{i:02}"), 100 * 1024));
    }
    w.settle();
    let first = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("BIG"))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(first.count(), 11);
    assert_eq!(
        first.last_evaluated_key(),
        Some(&item! { "PK" => "BIG", "SK" => "10" })
    );
    assert_eq!(
        first.consumed_capacity().unwrap().capacity_units,
        Some(275.0),
        "11 × 100 KB = 1,126,400 bytes = 275 blocks of 4 KB"
    );
    let second = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("BIG"))
        .set_exclusive_start_key(first.last_evaluated_key().cloned())
        .send()
        .unwrap();
    assert_eq!(second.count(), 4);
    assert_eq!(second.last_evaluated_key(), None);
}

#[test]
fn the_1_mb_page_counts_items_filtered_out() {
    let (w, c) = app();
    for i in 0..15 {
        // One partition takes 1,000 write units a second: let the clock move on.
        w.advance(Duration::from_secs(1));
        put(&c, sized("BIG", &format!("{i:02}"), 100 * 1024));
    }
    w.settle();
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .filter_expression("attribute_exists(nothing)")
        .expression_attribute_values(":pk", s("BIG"))
        .send()
        .unwrap();
    assert_eq!(out.count(), 0);
    assert_eq!(out.scanned_count(), 11);
    assert!(out.last_evaluated_key().is_some());
}

// ---- Select and projection ------------------------------------------------------------

#[test]
fn select_count_returns_no_items_and_costs_the_same() {
    let (w, c) = app();
    orders(&w, &c, 5);
    let run = |select: Option<Select>| {
        let mut q = c
            .query()
            .table_name("app")
            .key_condition_expression("PK = :pk")
            .filter_expression("n >= :three")
            .expression_attribute_values(":pk", s("USER#1"))
            .expression_attribute_values(":three", n("3"))
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        if let Some(select) = select {
            q = q.select(select);
        }
        q.send().unwrap()
    };
    let counted = run(Some(Select::Count));
    let full = run(None);
    assert_eq!(counted.items, None);
    assert_eq!(counted.count(), 3);
    assert_eq!(counted.scanned_count(), 6);
    assert_eq!(full.count(), 3);
    assert_eq!(
        counted.consumed_capacity().unwrap().capacity_units,
        full.consumed_capacity().unwrap().capacity_units
    );
}

#[test]
fn projection_expression_returns_only_the_named_attributes() {
    let (w, c) = app();
    put(
        &c,
        item! { "PK" => "U", "SK" => "1", "name" => "Ana", "address" => item! { "city" => "Lyon", "zip" => "69001" } },
    );
    w.settle();
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .projection_expression("#n, address.city")
        .expression_attribute_names("#n", "name")
        .expression_attribute_values(":pk", s("U"))
        .send()
        .unwrap();
    assert_eq!(
        out.items(),
        &[item! { "name" => "Ana", "address" => item! { "city" => "Lyon" } }]
    );
    let specific = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .projection_expression("SK")
        .select(Select::SpecificAttributes)
        .expression_attribute_values(":pk", s("U"))
        .send()
        .unwrap();
    assert_eq!(specific.items(), &[item! { "SK" => "1" }]);
}

#[test]
fn select_rejections() {
    let (_w, c) = app();
    let run = |select: Select, projection: Option<&str>| {
        let mut q = c
            .query()
            .table_name("app")
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s("U"))
            .select(select);
        if let Some(p) = projection {
            q = q.projection_expression(p);
        }
        q.send()
    };
    assert_eq!(
        message(run(Select::SpecificAttributes, None)),
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
    );
    assert_eq!(
        message(run(Select::Count, Some("SK"))),
        "Cannot specify the ProjectionExpression when choosing to get COUNT"
    );
    assert_eq!(
        message(run(Select::AllAttributes, Some("SK"))),
        "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES"
    );
    assert_eq!(
        message(run(Select::AllProjectedAttributes, None)),
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
    );
}

// ---- capacity -------------------------------------------------------------------------

fn query_units(c: &Client, pk: &str, consistent: bool) -> f64 {
    c.query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s(pk))
        .consistent_read(consistent)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap()
        .consumed_capacity()
        .unwrap()
        .capacity_units
        .unwrap()
}

#[test]
fn query_capacity_rounds_the_sum_once_ten_items_of_40_8_kb() {
    let (w, c) = app();
    // 10 items of 4,178 bytes = 41,780 bytes ≈ 40.8 KB ⇒ 11 blocks of 4 KB (per-item
    // rounding would make it 20).
    for i in 0..10 {
        put(&c, sized("Q", &format!("{i}"), 4178));
    }
    w.settle();
    assert_eq!(query_units(&c, "Q", true), 11.0);
    assert_eq!(query_units(&c, "Q", false), 5.5);
}

#[test]
fn query_capacity_rounds_the_sum_once_1500_items_of_64_bytes() {
    let (w, c) = app();
    // 1,500 × 64 B = 96,000 bytes ⇒ 24 blocks (per-item rounding would make it 1,500).
    for i in 0..1500 {
        if i % 500 == 0 {
            // One partition takes 1,000 write units a second: let the clock move on.
            w.advance(Duration::from_secs(1));
        }
        put(&c, sized("Q", &format!("{i:04}"), 64));
    }
    w.settle();
    assert_eq!(query_units(&c, "Q", true), 24.0);
    assert_eq!(query_units(&c, "Q", false), 12.0);
}

#[test]
fn a_filter_does_not_reduce_the_cost() {
    let (w, c) = app();
    for i in 0..10 {
        put(&c, sized("Q", &format!("{i}"), 4178));
    }
    w.settle();
    let out = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .filter_expression("attribute_exists(nothing)")
        .expression_attribute_values(":pk", s("Q"))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.count(), 0);
    assert_eq!(out.consumed_capacity().unwrap().capacity_units, Some(11.0));
    assert_eq!(out.consumed_capacity().unwrap().table_name(), Some("app"));
}

/// A page's `items` are the stored items, shared (`ops/items.rs`), and read like the SDK's
/// `Vec<HashMap<..>>`: indexing, iterating both ways, slice methods, sorting, owned items,
/// and later writes never reach into a page already returned.
#[test]
fn a_pages_items_read_like_a_vec_of_maps_and_stay_as_read() {
    let (w, c) = app();
    orders(&w, &c, 3);
    let page = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk AND begins_with(SK, :o)")
        .expression_attribute_values(":pk", s("USER#1"))
        .expression_attribute_values(":o", s("ORDER#"))
        .consistent_read(true)
        .send()
        .unwrap();
    let numbers =
        |items: &[Item]| -> Vec<AttributeValue> { items.iter().map(|i| i["n"].clone()).collect() };
    let want = vec![n("1"), n("2"), n("3")];
    assert_eq!(page.items().len(), 3);
    assert_eq!(page.items()[2]["n"], n("3"));
    assert_eq!(page.items().last().unwrap()["n"], n("3"));
    let reversed: Vec<_> = page.items().iter().rev().map(|i| i["n"].clone()).collect();
    assert_eq!(reversed, [n("3"), n("2"), n("1")]);
    // A coercion to the SDK's slice type, and a slice method the page does not have itself.
    assert_eq!(numbers(page.items()), want);
    assert!(page.items().contains(&page.items()[1].clone()));
    assert_eq!(numbers(&page.items()[..2]), [n("1"), n("2")]);

    // Overwritten afterwards: the page keeps the item it read.
    put(
        &c,
        item! { "PK" => "USER#1", "SK" => "ORDER#01", "n" => 100 },
    );
    assert_eq!(page.items()[0]["n"], n("1"));

    let mut owned = page.items.clone().unwrap();
    owned.sort_by(|a, b| b["SK"].as_s().unwrap().cmp(a["SK"].as_s().unwrap()));
    assert_eq!(numbers(&owned), [n("3"), n("2"), n("1")]);
    assert_eq!(
        numbers(page.items()),
        want,
        "sorting a clone leaves the page as it was"
    );
    let taken: Vec<Item> = page.items.unwrap().into_iter().collect();
    assert_eq!(numbers(&taken), want);
}
