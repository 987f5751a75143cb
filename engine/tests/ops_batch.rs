//! Scenario tests for BatchGetItem and BatchWriteItem (reference §4.9, §4.10): the 100-key
//! and 25-request limits, duplicates, a batch rejected whole, and per-item capacity rounding.
mod common;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::types::builders::KeysAndAttributesBuilder;
use engine::types::{
    DeleteRequest, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, WriteRequest,
};
use engine::{item, item_size, AttributeValue, Client, Item, World};

fn key(pk: &str, sk: &str) -> Item {
    item! { "PK" => pk, "SK" => sk }
}

/// An item `PK`/`SK` padded with a `data` attribute to exactly `bytes` bytes.
fn sized(pk: &str, sk: &str, bytes: usize) -> Item {
    let mut it = item! { "PK" => pk, "SK" => sk, "data" => "" };
    let pad = bytes - item_size(&it);
    it.insert("data".into(), AttributeValue::S("x".repeat(pad)));
    assert_eq!(item_size(&it), bytes);
    it
}

fn keys(count: usize) -> KeysAndAttributesBuilder {
    (0..count).fold(KeysAndAttributes::builder(), |k, i| {
        k.keys(key(&format!("K{i:03}"), "A"))
    })
}

fn put_request(item: Item) -> WriteRequest {
    WriteRequest::builder()
        .put_request(PutRequest::builder().set_item(Some(item)).build().unwrap())
        .build()
}

fn delete_request(key: Item) -> WriteRequest {
    WriteRequest::builder()
        .delete_request(DeleteRequest::builder().set_key(Some(key)).build().unwrap())
        .build()
}

/// `count` items `K000…` / `A`; replication settled.
fn fill(w: &World, c: &Client, count: usize) {
    for i in 0..count {
        put(
            c,
            item! { "PK" => format!("K{i:03}"), "SK" => "A", "i" => i as i64 },
        );
    }
    w.settle();
}

fn table_items(c: &Client) -> usize {
    c.scan()
        .table_name("app")
        .consistent_read(true)
        .send()
        .unwrap()
        .items()
        .len()
}

// ---- BatchGetItem ---------------------------------------------------------------------

#[test]
fn batch_get_reads_100_keys() {
    let (w, c) = app();
    fill(&w, &c, 100);
    let out = c
        .batch_get_item()
        .request_items("app", keys(100).consistent_read(true).build().unwrap())
        .send()
        .unwrap();
    assert_eq!(out.responses().unwrap()["app"].len(), 100);
    assert!(out.unprocessed_keys().is_some_and(|u| u.is_empty()));
}

#[test]
fn batch_get_rejects_101_keys() {
    let (w, c) = app();
    fill(&w, &c, 5);
    let e = c
        .batch_get_item()
        .request_items("app", keys(101).build().unwrap())
        .send();
    // The live service's words; the API reference still shows "Too many items requested for
    // the BatchGetItem call", which the engine keeps for the limit exceeded across tables.
    assert_eq!(
        message(e),
        "1 validation error detected: Value at 'RequestItems.app.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"
    );
}

#[test]
fn batch_get_counts_keys_across_tables_against_the_limit() {
    let (_w, c) = app();
    hash_only(&c, "other", engine::types::ScalarAttributeType::S);
    let other = (0..50).fold(KeysAndAttributes::builder(), |k, i| {
        k.keys(item! { "id" => format!("{i}") })
    });
    let e = c
        .batch_get_item()
        .request_items("app", keys(51).build().unwrap())
        .request_items("other", other.build().unwrap())
        .send();
    assert_eq!(
        message(e),
        "Too many items requested for the BatchGetItem call"
    );
}

#[test]
fn batch_get_rejects_duplicate_keys() {
    let (_w, c) = app();
    let e = c
        .batch_get_item()
        .request_items(
            "app",
            KeysAndAttributes::builder()
                .keys(key("A", "1"))
                .keys(key("B", "1"))
                .keys(key("A", "1"))
                .build()
                .unwrap(),
        )
        .send();
    assert_eq!(message(e), "Provided list of item keys contains duplicates");
}

#[test]
fn batch_get_leaves_missing_items_out() {
    let (w, c) = app();
    fill(&w, &c, 3);
    let out = c
        .batch_get_item()
        .request_items(
            "app",
            KeysAndAttributes::builder()
                .keys(key("K000", "A"))
                .keys(key("MISSING", "A"))
                .keys(key("K002", "A"))
                .build()
                .unwrap(),
        )
        .send()
        .unwrap();
    let mut got: Vec<&AttributeValue> = out.responses().unwrap()["app"]
        .iter()
        .map(|i| &i["PK"])
        .collect();
    got.sort_by_key(|v| format!("{v:?}"));
    assert_eq!(got, vec![&s("K000"), &s("K002")]);
    assert!(out.unprocessed_keys().is_some_and(|u| u.is_empty()));
}

#[test]
fn batch_get_applies_the_projection() {
    let (w, c) = app();
    fill(&w, &c, 2);
    let out = c
        .batch_get_item()
        .request_items(
            "app",
            KeysAndAttributes::builder()
                .keys(key("K001", "A"))
                .projection_expression("#i")
                .expression_attribute_names("#i", "i")
                .build()
                .unwrap(),
        )
        .send()
        .unwrap();
    assert_eq!(out.responses().unwrap()["app"], vec![item! { "i" => 1 }]);
}

#[test]
fn batch_get_rounds_each_item_to_4_kb_then_sums() {
    let (w, c) = app();
    put(&c, sized("S", "1", 1536)); // 1.5 KB ⇒ 1 unit
    put(&c, sized("S", "2", 6656)); // 6.5 KB ⇒ 2 units
    w.settle();
    let units = |consistent: bool| {
        c.batch_get_item()
            .request_items(
                "app",
                KeysAndAttributes::builder()
                    .keys(key("S", "1"))
                    .keys(key("S", "2"))
                    .consistent_read(consistent)
                    .build()
                    .unwrap(),
            )
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .unwrap()
            .consumed_capacity
            .unwrap()
    };
    let strong = units(true);
    assert_eq!(strong.len(), 1);
    assert_eq!(strong[0].table_name(), Some("app"));
    assert_eq!(
        strong[0].capacity_units,
        Some(3.0),
        "1.5 KB + 6.5 KB read as one would be 2 units; per item it is 1 + 2"
    );
    assert_eq!(units(false)[0].capacity_units, Some(1.5));
}

#[test]
fn batch_get_of_a_missing_table_is_resource_not_found() {
    let (_w, c) = app();
    let e = c
        .batch_get_item()
        .request_items(
            "nope",
            KeysAndAttributes::builder()
                .keys(key("A", "1"))
                .build()
                .unwrap(),
        )
        .send()
        .unwrap_err();
    assert_eq!(e.code(), Some("ResourceNotFoundException"));
}

// ---- BatchWriteItem -------------------------------------------------------------------

#[test]
fn batch_write_applies_25_requests() {
    let (_w, c) = app();
    let writes: Vec<WriteRequest> = (0..25)
        .map(|i| put_request(item! { "PK" => format!("K{i:03}"), "SK" => "A" }))
        .collect();
    let out = c
        .batch_write_item()
        .request_items("app", writes)
        .send()
        .unwrap();
    assert!(
        out.unprocessed_items().is_some_and(|u| u.is_empty()),
        "UnprocessedItems is empty when every request was applied"
    );
    assert_eq!(table_items(&c), 25);
}

#[test]
fn batch_write_rejects_26_requests_and_writes_nothing() {
    let (_w, c) = app();
    let writes: Vec<WriteRequest> = (0..26)
        .map(|i| put_request(item! { "PK" => format!("K{i:03}"), "SK" => "A" }))
        .collect();
    let e = c.batch_write_item().request_items("app", writes).send();
    assert_echoed(
        &message(e),
        "{app=[WriteRequest(putRequest=PutRequest(item={PK=AttributeValue(s=K000, ",
        "'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]",
    );
    assert_eq!(table_items(&c), 0);
}

#[test]
fn batch_write_rejects_two_puts_of_one_item() {
    let (_w, c) = app();
    let e = c
        .batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(item! { "PK" => "A", "SK" => "1", "v" => 1 }),
                put_request(item! { "PK" => "B", "SK" => "1" }),
                put_request(item! { "PK" => "A", "SK" => "1", "v" => 2 }),
            ],
        )
        .send();
    assert_eq!(message(e), "Provided list of item keys contains duplicates");
    assert_eq!(table_items(&c), 0, "the batch was rejected whole");
}

#[test]
fn batch_write_rejects_a_put_and_a_delete_of_one_item() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 1 });
    let e = c
        .batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(item! { "PK" => "A", "SK" => "1", "v" => 2 }),
                delete_request(key("A", "1")),
            ],
        )
        .send();
    assert_eq!(message(e), "Provided list of item keys contains duplicates");
    assert_eq!(get(&c, "A", "1").unwrap()["v"], n("1"));
}

#[test]
fn one_bad_item_rejects_the_whole_batch() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "OLD", "SK" => "1" });
    let e = c
        .batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(item! { "PK" => "A", "SK" => "1" }),
                delete_request(key("OLD", "1")),
                put_request(item! { "PK" => "B" }),
            ],
        )
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Missing the key SK in the item"
    );
    assert_eq!(get(&c, "A", "1"), None, "the valid put was not applied");
    assert!(
        get(&c, "OLD", "1").is_some(),
        "the valid delete was not applied"
    );
}

#[test]
fn an_oversized_item_rejects_the_whole_batch() {
    let (_w, c) = app();
    let e = c
        .batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(item! { "PK" => "A", "SK" => "1" }),
                put_request(sized("B", "1", 409_601)),
            ],
        )
        .send();
    assert_eq!(
        message(e),
        "Item size has exceeded the maximum allowed size"
    );
    assert_eq!(table_items(&c), 0);
}

#[test]
fn a_delete_key_that_does_not_match_the_schema_rejects_the_batch() {
    let (_w, c) = app();
    let e = c
        .batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(item! { "PK" => "A", "SK" => "1" }),
                delete_request(item! { "PK" => "B" }),
            ],
        )
        .send();
    assert_eq!(
        message(e),
        "The provided key element does not match the schema"
    );
    assert_eq!(table_items(&c), 0);
}

#[test]
fn batch_write_puts_and_deletes_across_the_batch() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "GONE", "SK" => "1" });
    c.batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(item! { "PK" => "NEW", "SK" => "1" }),
                delete_request(key("GONE", "1")),
                delete_request(key("NEVER", "1")),
            ],
        )
        .send()
        .unwrap();
    assert!(get(&c, "NEW", "1").is_some());
    assert_eq!(get(&c, "GONE", "1"), None);
    assert_eq!(table_items(&c), 1);
}

#[test]
fn batch_write_rounds_each_item_to_1_kb_then_sums() {
    let (_w, c) = app();
    let out = c
        .batch_write_item()
        .request_items(
            "app",
            vec![
                put_request(sized("W", "1", 512)),  // 0.5 KB ⇒ 1 unit
                put_request(sized("W", "2", 3584)), // 3.5 KB ⇒ 4 units
            ],
        )
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let cc = out.consumed_capacity.unwrap();
    assert_eq!(cc.len(), 1);
    assert_eq!(
        cc[0].capacity_units,
        Some(5.0),
        "4 KB written as one would be 4 units; per item it is 1 + 4"
    );
    assert_eq!(cc[0].write_capacity_units, Some(5.0));
}
