//! Scenario tests for what indexes do in the last fidelity gaps of issue 18: a backfill
//! skips items whose new index key is empty (point 19), writes report the size of the item
//! collection they changed (13), and a local index read past its projection fetches the rest
//! from the table, at extra cost (20).
mod common;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate,
    KeySchemaElement, KeyType, LocalSecondaryIndex, Projection, PutRequest, ReturnConsumedCapacity,
    ReturnItemCollectionMetrics, ScalarAttributeType, Select, TransactWriteItem, WriteRequest,
};
use engine::{item, AttributeValue, Client, Item, World};

/// `docs`: PK/SK strings, on demand, with a local index `ByTag` on `tag` projecting only keys.
fn docs() -> (World, Client) {
    let w = World::new(2);
    let c = w.client();
    c.create_table()
        .table_name("docs")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("tag", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .local_secondary_indexes(LocalSecondaryIndex::new(
            "ByTag",
            vec![
                KeySchemaElement::new("PK", KeyType::Hash),
                KeySchemaElement::new("tag", KeyType::Range),
            ],
            Projection::keys_only(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    (w, c)
}

fn doc(sk: &str, tag: &str, body: &str) -> Item {
    item! { "PK" => "D#1", "SK" => sk, "tag" => tag, "body" => body }
}

// ---- 19. Backfill ---------------------------------------------------------------------

#[test]
fn a_backfill_skips_an_item_whose_new_index_key_is_empty() {
    let (w, c) = app();
    put(&c, item! { "PK" => "a", "SK" => "1", "x" => "" });
    put(&c, item! { "PK" => "b", "SK" => "1", "x" => "hello" });
    c.update_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("x", ScalarAttributeType::S))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .create(
                    CreateGlobalSecondaryIndexAction::builder()
                        .index_name("ByX")
                        .key_schema(KeySchemaElement::new("x", KeyType::Hash))
                        .projection(Projection::all())
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap();
    w.settle();
    let all = c.scan().table_name("app").index_name("ByX").send().unwrap();
    assert_eq!(
        all.items(),
        &[item! { "PK" => "b", "SK" => "1", "x" => "hello" }]
    );
}

// ---- 13. ReturnItemCollectionMetrics ----------------------------------------------------

#[test]
fn writes_report_their_item_collection_on_a_table_with_a_local_index() {
    let (_w, c) = docs();
    let put = c
        .put_item()
        .table_name("docs")
        .set_item(Some(doc("v1", "draft", "hello")))
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .unwrap();
    let m = put.item_collection_metrics().expect("metrics with SIZE");
    assert_eq!(
        m.item_collection_key().unwrap().get("PK"),
        Some(&AttributeValue::S("D#1".into()))
    );
    assert_eq!(m.size_estimate_range_gb(), &[0.0, 1.0]);
    let quiet = c
        .put_item()
        .table_name("docs")
        .set_item(Some(doc("v2", "draft", "x")))
        .send()
        .unwrap();
    assert!(quiet.item_collection_metrics().is_none(), "only when asked");
    let update = c
        .update_item()
        .table_name("docs")
        .key("PK", s("D#1"))
        .key("SK", s("v1"))
        .update_expression("SET body = :b")
        .expression_attribute_values(":b", s("bye"))
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .unwrap();
    assert!(update.item_collection_metrics().is_some());
    let delete = c
        .delete_item()
        .table_name("docs")
        .key("PK", s("D#1"))
        .key("SK", s("v2"))
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .unwrap();
    assert!(delete.item_collection_metrics().is_some());
    let batch = c
        .batch_write_item()
        .request_items(
            "docs",
            vec![
                WriteRequest::builder()
                    .put_request(
                        PutRequest::builder()
                            .set_item(Some(doc("v3", "final", "x")))
                            .build()
                            .unwrap(),
                    )
                    .build(),
                WriteRequest::builder()
                    .put_request(
                        PutRequest::builder()
                            .set_item(Some(item! { "PK" => "D#2", "SK" => "v1" }))
                            .build()
                            .unwrap(),
                    )
                    .build(),
            ],
        )
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .unwrap();
    let per_table = batch.item_collection_metrics().unwrap();
    assert_eq!(per_table["docs"].len(), 2, "one entry per item collection");
    let tx = c
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .put(
                    engine::types::Put::builder()
                        .table_name("docs")
                        .set_item(Some(doc("v4", "final", "x")))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .unwrap();
    assert_eq!(tx.item_collection_metrics().unwrap()["docs"].len(), 1);
}

#[test]
fn a_table_without_a_local_index_reports_no_item_collection() {
    let (_w, c) = app();
    let out = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "a", "SK" => "b" }))
        .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
        .send()
        .unwrap();
    assert!(out.item_collection_metrics().is_none());
}

// ---- 20. A local index read past its projection -------------------------------------------

#[test]
fn a_local_index_query_for_all_attributes_fetches_them_from_the_table_at_extra_cost() {
    let (_w, c) = docs();
    let body = "x".repeat(6000);
    for (sk, tag) in [("v1", "a"), ("v2", "b")] {
        put_into(&c, "docs", doc(sk, tag, &body));
    }
    let query = |select: Option<Select>| {
        c.query()
            .table_name("docs")
            .index_name("ByTag")
            .key_condition_expression("PK = :p")
            .expression_attribute_values(":p", s("D#1"))
            .consistent_read(true)
            .set_select(select)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .unwrap()
    };
    let projected = query(None);
    assert!(projected.items().iter().all(|i| !i.contains_key("body")));
    let keys_only_units = projected
        .consumed_capacity()
        .unwrap()
        .capacity_units()
        .unwrap();
    let all = query(Some(Select::AllAttributes));
    assert_eq!(all.items().len(), 2);
    assert!(all.items().iter().all(|i| i["body"] == s(&body)));
    // The index entries' page (under 4 KB: 1 unit) plus each fetched item on its own
    // (about 6 KB: 2 units each).
    assert_eq!(keys_only_units, 1.0);
    assert_eq!(all.consumed_capacity().unwrap().capacity_units(), Some(5.0));
    // A projection naming a non-projected attribute fetches too.
    let named = c
        .query()
        .table_name("docs")
        .index_name("ByTag")
        .key_condition_expression("PK = :p")
        .expression_attribute_values(":p", s("D#1"))
        .projection_expression("SK, body")
        .send()
        .unwrap();
    assert!(named.items().iter().all(|i| i.contains_key("body")));
    // And a Scan of the index as well.
    let scan = c
        .scan()
        .table_name("docs")
        .index_name("ByTag")
        .select(Select::AllAttributes)
        .send()
        .unwrap();
    assert!(scan.items().iter().all(|i| i.contains_key("body")));
}
