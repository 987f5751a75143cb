//! Secondary indexes as the lesson tells them: sparse, projected, eventually consistent,
//! able to throttle their table, backfilled when added later.
mod common;

use engine::error::ProvideErrorMetadata;
use engine::operation::put_item::PutItemError;
use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction,
    DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate,
    IndexStatus, KeySchemaElement, KeyType, LocalSecondaryIndex, Projection, ProvisionedThroughput,
    ReturnConsumedCapacity, ScalarAttributeType,
};
use engine::{item, Client, Item, World};

/// The shop table of the lessons: PK/SK, GSI1 (status, date) sparse, GSI2 (email).
fn shop(world: &World, provisioned_gsi_wcu: Option<i64>) -> Client {
    let c = world.client();
    let gsi1 = GlobalSecondaryIndex::new(
        "GSI1",
        vec![
            KeySchemaElement::new("GSI1PK", KeyType::Hash),
            KeySchemaElement::new("GSI1SK", KeyType::Range),
        ],
        Projection::include(["total"]),
    );
    let gsi2 = GlobalSecondaryIndex::new(
        "GSI2",
        vec![KeySchemaElement::new("GSI2PK", KeyType::Hash)],
        Projection::all(),
    );
    let mut b = c
        .create_table()
        .table_name("shop")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI1PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI1SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI2PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range));
    match provisioned_gsi_wcu {
        Some(wcu) => {
            b = b
                .provisioned_throughput(ProvisionedThroughput::new(1000, 1000))
                .global_secondary_indexes(
                    gsi1.with_provisioned_throughput(ProvisionedThroughput::new(100, wcu)),
                )
                .global_secondary_indexes(
                    gsi2.with_provisioned_throughput(ProvisionedThroughput::new(100, 1000)),
                );
        }
        None => {
            b = b
                .billing_mode(BillingMode::PayPerRequest)
                .global_secondary_indexes(gsi1)
                .global_secondary_indexes(gsi2);
        }
    }
    b.send().unwrap();
    c
}

fn by_status(c: &Client, status: &str) -> Vec<Item> {
    c.query()
        .table_name("shop")
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :s")
        .expression_attribute_values(":s", s(&format!("STATUS#{status}")))
        .scan_index_forward(false)
        .send()
        .unwrap()
        .items()
        .to_vec()
}

fn order(id: &str, status: &str, date: &str) -> Item {
    item! {
        "PK" => format!("ORDER#{id}"), "SK" => "META", "type" => "order", "total" => 4599,
        "status" => status, "GSI1PK" => format!("STATUS#{status}"), "GSI1SK" => date, "note" => "fragile",
    }
}

#[test]
fn a_sparse_index_holds_only_items_that_carry_its_key() {
    let world = World::new(1);
    let c = shop(&world, None);
    put_into(&c, "shop", order("o-1", "PLACED", "2025-06-12"));
    put_into(
        &c,
        "shop",
        item! { "PK" => "ORDER#o-1", "SK" => "ITEM#1", "sku" => "A" },
    );
    put_into(
        &c,
        "shop",
        item! { "PK" => "CUSTOMER#42", "SK" => "PROFILE", "GSI2PK" => "EMAIL#ana@x.io" },
    );
    world.settle();
    let placed = by_status(&c, "PLACED");
    assert_eq!(placed.len(), 1, "only the order META item carries GSI1PK");
    // INCLUDE projection: keys of table and index, plus `total` — not `note`.
    assert_eq!(
        placed[0],
        item! { "PK" => "ORDER#o-1", "SK" => "META", "GSI1PK" => "STATUS#PLACED", "GSI1SK" => "2025-06-12", "total" => 4599 }
    );
    assert_eq!(
        world
            .index_partitions("shop", "GSI1")
            .unwrap()
            .iter()
            .map(|p| p.item_count)
            .sum::<usize>(),
        1
    );
}

#[test]
fn a_read_through_the_gsi_right_after_the_write_misses_it_and_finds_it_once_settled() {
    let world = World::new(1);
    let c = shop(&world, None);
    put_into(&c, "shop", order("o-2", "PLACED", "2025-06-13"));
    assert!(
        by_status(&c, "PLACED").is_empty(),
        "GSI propagation is asynchronous"
    );
    world.advance(Duration::from_millis(100));
    assert_eq!(by_status(&c, "PLACED").len(), 1);
}

#[test]
fn a_status_change_moves_the_order_between_index_keys() {
    let world = World::new(2);
    let c = shop(&world, None);
    put_into(&c, "shop", order("o-3", "PLACED", "2025-06-13"));
    world.settle();
    c.update_item()
        .table_name("shop")
        .key("PK", s("ORDER#o-3"))
        .key("SK", s("META"))
        .update_expression("SET #st = :s, GSI1PK = :k")
        .expression_attribute_names("#st", "status")
        .expression_attribute_values(":s", s("SHIPPED"))
        .expression_attribute_values(":k", s("STATUS#SHIPPED"))
        .send()
        .unwrap();
    world.settle();
    assert!(by_status(&c, "PLACED").is_empty());
    assert_eq!(by_status(&c, "SHIPPED").len(), 1);
}

#[test]
fn consistent_reads_on_a_gsi_are_rejected() {
    let world = World::new(1);
    let c = shop(&world, None);
    let e = c
        .query()
        .table_name("shop")
        .index_name("GSI2")
        .key_condition_expression("GSI2PK = :e")
        .expression_attribute_values(":e", s("EMAIL#a"))
        .consistent_read(true)
        .send();
    assert_eq!(
        message(e),
        "Consistent reads are not supported on global secondary indexes"
    );
}

#[test]
fn index_writes_are_charged_one_on_enter_and_two_when_the_index_key_changes() {
    let world = World::new(1);
    let c = shop(&world, None);
    let put = |it: Item| {
        c.put_item()
            .table_name("shop")
            .set_item(Some(it))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .unwrap()
            .consumed_capacity
            .unwrap()
    };
    let first = put(order("o-4", "PLACED", "2025-06-14"));
    assert_eq!(first.table.unwrap().capacity_units, Some(1.0));
    let gsi = first.global_secondary_indexes.unwrap();
    assert_eq!(
        gsi["GSI1"].capacity_units,
        Some(1.0),
        "the order enters GSI1: one index write"
    );
    assert!(!gsi.contains_key("GSI2"), "not in GSI2: no index write");
    let moved = put(order("o-4", "SHIPPED", "2025-06-14"));
    assert_eq!(
        moved.global_secondary_indexes.unwrap()["GSI1"].capacity_units,
        Some(2.0),
        "delete + put"
    );
    assert_eq!(moved.capacity_units, Some(3.0));
}

#[test]
fn an_under_provisioned_gsi_throttles_writes_to_the_base_table() {
    // Nothing saved yet: the index's bucket, full at birth, would take these writes.
    let world = world_with_empty_buckets(3);
    let c = shop(&world, Some(5));
    let mut throttled = None;
    for i in 0..50 {
        if let Err(e) = c
            .put_item()
            .table_name("shop")
            .set_item(Some(order(&format!("o-{i}"), "PLACED", "2025-06-15")))
            .send()
        {
            throttled = Some(e);
            break;
        }
    }
    let e = throttled.expect("the table has 1,000 WCU, but GSI1 only 5: writes must throttle");
    assert!(e
        .as_service_error()
        .is_some_and(PutItemError::is_provisioned_throughput_exceeded_exception));
    assert!(
        e.message()
            .unwrap_or_default()
            .contains("global secondary indexes"),
        "{:?}",
        e.message()
    );
    // Writes that do not touch GSI1 are not held back.
    c.put_item()
        .table_name("shop")
        .set_item(Some(item! { "PK" => "X", "SK" => "Y" }))
        .send()
        .unwrap();
}

#[test]
fn a_gsi_added_later_is_backfilled_and_not_queryable_until_active() {
    let world = World::new(4);
    let c = world.client();
    create_app(&c);
    for i in 0..30 {
        put(
            &c,
            item! { "PK" => format!("U#{i}"), "SK" => "P", "email" => format!("u{i}@x.io") },
        );
    }
    c.update_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("email", ScalarAttributeType::S))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .create(
                    CreateGlobalSecondaryIndexAction::builder()
                        .index_name("ByEmail")
                        .key_schema(KeySchemaElement::new("email", KeyType::Hash))
                        .projection(Projection::keys_only())
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap();
    let d = c
        .describe_table()
        .table_name("app")
        .send()
        .unwrap()
        .table
        .unwrap();
    assert_eq!(
        d.global_secondary_indexes()[0].index_status(),
        Some(&IndexStatus::Creating)
    );
    assert_eq!(d.global_secondary_indexes()[0].backfilling(), Some(true));
    let q = || {
        c.query()
            .table_name("app")
            .index_name("ByEmail")
            .key_condition_expression("email = :e")
            .expression_attribute_values(":e", s("u7@x.io"))
            .send()
    };
    assert_eq!(
        message(q()),
        "Cannot read from backfilling global secondary index: ByEmail"
    );
    world.settle();
    let d = c
        .describe_table()
        .table_name("app")
        .send()
        .unwrap()
        .table
        .unwrap();
    assert_eq!(
        d.global_secondary_indexes()[0].index_status(),
        Some(&IndexStatus::Active)
    );
    assert_eq!(
        q().unwrap().items(),
        &[item! { "PK" => "U#7", "SK" => "P", "email" => "u7@x.io" }]
    );
    // Deleting the index leaves the table alone.
    c.update_table()
        .table_name("app")
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .delete(
                    DeleteGlobalSecondaryIndexAction::builder()
                        .index_name("ByEmail")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap();
    assert_eq!(get(&c, "U#7", "P").unwrap()["email"], s("u7@x.io"));
}

#[test]
fn a_local_index_sorts_by_another_attribute_and_allows_strong_reads() {
    let world = World::new(5);
    let c = world.client();
    c.create_table()
        .table_name("orders")
        .attribute_definitions(AttributeDefinition::new("customer", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("amount", ScalarAttributeType::N))
        .key_schema(KeySchemaElement::new("customer", KeyType::Hash))
        .key_schema(KeySchemaElement::new("id", KeyType::Range))
        .local_secondary_indexes(LocalSecondaryIndex::new(
            "ByTotal",
            vec![
                KeySchemaElement::new("customer", KeyType::Hash),
                KeySchemaElement::new("amount", KeyType::Range),
            ],
            Projection::all(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    for (id, total) in [("o1", 30), ("o2", 10), ("o3", 20)] {
        put_into(
            &c,
            "orders",
            item! { "customer" => "42", "id" => id, "amount" => total },
        );
    }
    // No settling needed: a local index is updated with its table.
    let page = c
        .query()
        .table_name("orders")
        .index_name("ByTotal")
        .key_condition_expression("customer = :c AND amount > :t")
        .expression_attribute_values(":c", s("42"))
        .expression_attribute_values(":t", n("15"))
        .consistent_read(true)
        .send()
        .unwrap();
    let ids: Vec<&str> = page
        .items()
        .iter()
        .map(|i| i["id"].as_s().unwrap().as_str())
        .collect();
    assert_eq!(ids, ["o3", "o1"]);
}

#[test]
fn a_wrongly_typed_index_key_is_rejected_on_the_table_write() {
    let world = World::new(1);
    let c = shop(&world, None);
    let e = c
        .put_item()
        .table_name("shop")
        .set_item(Some(item! { "PK" => "A", "SK" => "B", "GSI2PK" => 7 }))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Type mismatch for Index Key GSI2PK Expected: S Actual: N IndexName: GSI2"
    );
}

#[test]
fn an_item_collection_of_a_table_with_a_local_index_cannot_outgrow_its_limit() {
    let world = World::with_config(engine::WorldConfig {
        seed: 6,
        item_collection_size_limit: 4 * 1024,
        ..Default::default()
    });
    let c = world.client();
    c.create_table()
        .table_name("orders")
        .attribute_definitions(AttributeDefinition::new("customer", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("placed", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("customer", KeyType::Hash))
        .key_schema(KeySchemaElement::new("id", KeyType::Range))
        .local_secondary_indexes(LocalSecondaryIndex::new(
            "ByDate",
            vec![
                KeySchemaElement::new("customer", KeyType::Hash),
                KeySchemaElement::new("placed", KeyType::Range),
            ],
            Projection::keys_only(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    let pad = "x".repeat(900);
    let order = |cust: &str, i: usize| item! { "customer" => cust, "id" => format!("o{i}"), "placed" => format!("2026-01-{:02}", i + 1), "pad" => pad.as_str() };
    let mut written = 0;
    let err = loop {
        match c
            .put_item()
            .table_name("orders")
            .set_item(Some(order("42", written)))
            .send()
        {
            Ok(_) => written += 1,
            Err(e) => break e,
        }
        assert!(written < 20, "the 4 KB collection limit never hit");
    };
    assert!(
        err.as_service_error()
            .is_some_and(PutItemError::is_item_collection_size_limit_exceeded_exception),
        "{err:?}"
    );
    assert_eq!(err.message(), Some("Collection size exceeded."));
    assert_eq!(
        written, 4,
        "four ~1 KB orders (+ index entries) fit in 4 KB"
    );
    // Other customers' collections are not affected, and shrinking writes still pass.
    c.put_item()
        .table_name("orders")
        .set_item(Some(order("7", 0)))
        .send()
        .unwrap();
    c.put_item()
        .table_name("orders")
        .set_item(Some(
            item! { "customer" => "42", "id" => "o0", "placed" => "2026-01-01" },
        ))
        .send()
        .unwrap();
}

#[test]
fn an_index_write_is_charged_only_when_what_the_index_holds_changes() {
    let world = World::new(1);
    let c = shop(&world, None);
    let put = |it: Item| {
        c.put_item()
            .table_name("shop")
            .set_item(Some(it))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .unwrap()
            .consumed_capacity
            .unwrap()
            .global_secondary_indexes
            .unwrap_or_default()
    };
    put(order("o-5", "PLACED", "2025-06-14"));
    // `note` is not projected into GSI1 (INCLUDE total): no GSI1 write.
    let mut changed_note = order("o-5", "PLACED", "2025-06-14");
    changed_note.insert("note".into(), s("handle with care"));
    assert!(!put(changed_note.clone()).contains_key("GSI1"));
    // `total` is projected: one GSI1 write, under the same index key.
    let mut changed_total = changed_note;
    changed_total.insert("total".into(), n("5000"));
    assert_eq!(put(changed_total.clone())["GSI1"].capacity_units, Some(1.0));
    // Dropping the index key takes the order out of the index: one write (the delete).
    changed_total.remove("GSI1PK");
    assert_eq!(put(changed_total)["GSI1"].capacity_units, Some(1.0));
    world.settle();
    assert!(by_status(&c, "PLACED").is_empty());
}

#[test]
fn an_index_update_must_name_exactly_one_action() {
    let world = World::new(1);
    let c = world.client();
    common::create_app(&c);
    let err = c
        .update_table()
        .table_name("app")
        .global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().build())
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"), "{err:?}");
    let delete = DeleteGlobalSecondaryIndexAction::builder()
        .index_name("Nope")
        .build()
        .unwrap();
    let both = GlobalSecondaryIndexUpdate::builder()
        .delete(delete.clone())
        .update(
            engine::types::UpdateGlobalSecondaryIndexAction::builder()
                .index_name("Nope")
                .build()
                .unwrap(),
        )
        .build();
    let err = c
        .update_table()
        .table_name("app")
        .global_secondary_index_updates(both)
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"), "{err:?}");
    // The action builders refuse a missing name, as the SDK's do.
    assert!(DeleteGlobalSecondaryIndexAction::builder().build().is_err());
    assert!(CreateGlobalSecondaryIndexAction::builder()
        .index_name("ByEmail")
        .build()
        .is_err());
}
