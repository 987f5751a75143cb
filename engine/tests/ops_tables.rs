//! Scenario tests for the control plane: CreateTable (validation, limits, the initial
//! partition count), DescribeTable, DeleteTable and ListTables paging.
mod common;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::operation::get_item::GetItemError;
use engine::ops::create_table::{partitions_for_throughput, CreateTableFluentBuilder};
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProvisionedThroughput, ReturnConsumedCapacity,
    ScalarAttributeType, TableStatus,
};
use engine::{item, item_size, Client, World};

fn world() -> (World, Client) {
    let w = World::new(5);
    let c = w.client();
    (w, c)
}

/// A CreateTable request for `name`: `PK` (S) hash key, on-demand.
fn on_demand(c: &Client, name: &str) -> CreateTableFluentBuilder {
    c.create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
}

// ---- CreateTable validation -----------------------------------------------------------

#[test]
fn a_provisioned_table_needs_throughput() {
    let (_w, c) = world();
    let e = c
        .create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
    );
}

#[test]
fn an_on_demand_table_must_not_have_throughput() {
    let (_w, c) = world();
    let e = on_demand(&c, "app")
        .provisioned_throughput(ProvisionedThroughput::new(5, 5))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
    );
}

#[test]
fn throughput_must_be_at_least_one_unit() {
    let (_w, c) = world();
    let e = c
        .create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(0, 5))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be at least 1"
    );
}

#[test]
fn attribute_definitions_must_match_the_keys_exactly() {
    let (_w, c) = world();
    // One definition too many: DynamoDB is schemaless beyond keys.
    let e = on_demand(&c, "app")
        .attribute_definitions(AttributeDefinition::new("name", ScalarAttributeType::S))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"
    );
    // A key attribute without a definition.
    let e = c
        .create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [PK, SK], AttributeDefinitions: [PK]"
    );
    // The same attribute defined twice.
    let e = on_demand(&c, "app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::N))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Duplicate AttributeName in AttributeDefinitions: PK"
    );
}

#[test]
fn the_key_schema_starts_with_a_hash_key() {
    let (_w, c) = world();
    let e = c
        .create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
    );
}

#[test]
fn creating_an_existing_table_is_resource_in_use() {
    let (_w, c) = world();
    on_demand(&c, "app").send().unwrap();
    let e = on_demand(&c, "app").send().unwrap_err();
    assert_eq!(e.code(), Some("ResourceInUseException"));
    assert_eq!(e.message(), Some("Table already exists: app"));
}

#[test]
fn table_names_are_3_to_255_characters() {
    let (_w, c) = world();
    let two = "ab";
    assert_eq!(
        message(on_demand(&c, two).send()),
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"
    );
    on_demand(&c, "abc").send().unwrap();
    let max = "t".repeat(255);
    on_demand(&c, &max).send().unwrap();
    let over = "t".repeat(256);
    assert_eq!(
        message(on_demand(&c, &over).send()),
        format!("1 validation error detected: Value '{over}' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255")
    );
}

#[test]
fn table_names_use_letters_digits_underscore_dot_and_dash() {
    let (_w, c) = world();
    on_demand(&c, "My_Table.v2-prod").send().unwrap();
    assert_eq!(
        message(on_demand(&c, "my table").send()),
        "1 validation error detected: Value 'my table' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );
    assert_eq!(
        message(on_demand(&c, "tàble").send()),
        "1 validation error detected: Value 'tàble' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );
    // Two problems at once are both reported.
    assert_eq!(
        message(on_demand(&c, "a!").send()),
        "2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );
}

fn with_gsis(c: &Client, name: &str, count: usize) -> engine::Result<()> {
    let mut req = on_demand(c, name)
        .attribute_definitions(AttributeDefinition::new("G", ScalarAttributeType::S));
    for i in 0..count {
        req = req.global_secondary_indexes(GlobalSecondaryIndex::new(
            format!("gsi{i:02}"),
            vec![KeySchemaElement::new("G", KeyType::Hash)],
            Projection::keys_only(),
        ));
    }
    req.send()?;
    Ok(())
}

#[test]
fn a_table_takes_20_global_secondary_indexes_but_not_21() {
    let (_w, c) = world();
    assert_eq!(
        message(with_gsis(&c, "over", 21)),
        "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20"
    );
    with_gsis(&c, "max", 20).unwrap();
    let d = c.describe_table().table_name("max").send().unwrap();
    assert_eq!(d.table().unwrap().global_secondary_indexes().len(), 20);
}

fn with_lsis(c: &Client, name: &str, count: usize) -> engine::Result<()> {
    let mut req = c
        .create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("L", ScalarAttributeType::N))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest);
    for i in 0..count {
        req = req.local_secondary_indexes(LocalSecondaryIndex::new(
            format!("lsi{i}"),
            vec![
                KeySchemaElement::new("PK", KeyType::Hash),
                KeySchemaElement::new("L", KeyType::Range),
            ],
            Projection::all(),
        ));
    }
    req.send()?;
    Ok(())
}

#[test]
fn a_table_takes_5_local_secondary_indexes_but_not_6() {
    let (_w, c) = world();
    assert_eq!(
        message(with_lsis(&c, "over", 6)),
        "One or more parameter values were invalid: LocalSecondaryIndex count exceeds the per-table limit of 5"
    );
    with_lsis(&c, "max", 5).unwrap();
    let d = c.describe_table().table_name("max").send().unwrap();
    assert_eq!(d.table().unwrap().local_secondary_indexes().len(), 5);
}

#[test]
fn a_local_index_needs_a_table_with_a_sort_key() {
    let (_w, c) = world();
    let e = on_demand(&c, "app")
        .attribute_definitions(AttributeDefinition::new("L", ScalarAttributeType::S))
        .local_secondary_indexes(LocalSecondaryIndex::new(
            "lsi",
            vec![
                KeySchemaElement::new("PK", KeyType::Hash),
                KeySchemaElement::new("L", KeyType::Range),
            ],
            Projection::all(),
        ))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"
    );
}

// ---- partitions -----------------------------------------------------------------------

#[test]
fn the_initial_partition_count_follows_the_classic_sizing_rule() {
    // max(ceil(RCU / 3000 + WCU / 1000), 1)
    assert_eq!(partitions_for_throughput(1, 1), 1);
    assert_eq!(partitions_for_throughput(3000, 0), 1);
    assert_eq!(partitions_for_throughput(3001, 0), 2);
    assert_eq!(partitions_for_throughput(0, 1000), 1);
    assert_eq!(partitions_for_throughput(0, 1001), 2);
    assert_eq!(partitions_for_throughput(1500, 500), 1);
    assert_eq!(partitions_for_throughput(1500, 501), 2);
    assert_eq!(partitions_for_throughput(3000, 1000), 2);
    assert_eq!(partitions_for_throughput(12_000, 4_000), 8);
    assert_eq!(partitions_for_throughput(0, 0), 1);
}

/// The partitions of a table, seen from outside: an empty strongly consistent Scan costs
/// one unit per partition it touches, and it touches them all.
fn partitions_seen_by_scan(c: &Client, name: &str) -> f64 {
    c.scan()
        .table_name(name)
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap()
        .consumed_capacity()
        .unwrap()
        .capacity_units
        .unwrap()
}

#[test]
fn a_new_table_has_as_many_partitions_as_its_throughput_needs() {
    let (_w, c) = world();
    for (name, rcu, wcu, partitions) in [
        ("small", 5, 5, 1.0),
        ("reads", 6000, 1, 3.0),
        ("writes", 10, 2500, 3.0),
        ("both", 3000, 1000, 2.0),
    ] {
        c.create_table()
            .table_name(name)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .provisioned_throughput(ProvisionedThroughput::new(rcu, wcu))
            .send()
            .unwrap();
        assert_eq!(partitions_seen_by_scan(&c, name), partitions, "{name}");
    }
    on_demand(&c, "ondemand").send().unwrap();
    assert_eq!(
        partitions_seen_by_scan(&c, "ondemand"),
        8.0,
        "on demand: sized for 12,000 reads and 4,000 writes per second"
    );
}

// ---- DescribeTable, DeleteTable -------------------------------------------------------

#[test]
fn create_reports_creating_and_describe_reports_active_with_the_definition() {
    let (_w, c) = world();
    let created = on_demand(&c, "app").send().unwrap();
    assert_eq!(
        created.table_description().unwrap().table_status(),
        Some(&TableStatus::Creating)
    );
    let d = c.describe_table().table_name("app").send().unwrap();
    let t = d.table().unwrap();
    assert_eq!(t.table_name(), Some("app"));
    assert_eq!(t.table_status(), Some(&TableStatus::Active));
    assert_eq!(
        t.key_schema(),
        &[KeySchemaElement::new("PK", KeyType::Hash)]
    );
    assert_eq!(
        t.billing_mode_summary().and_then(|b| b.billing_mode()),
        Some(&BillingMode::PayPerRequest)
    );
    assert_eq!(
        t.provisioned_throughput()
            .and_then(|p| p.read_capacity_units()),
        Some(0)
    );
    assert_eq!(
        t.table_arn(),
        Some("arn:aws:dynamodb:local-1:000000000000:table/app")
    );
}

#[test]
fn describe_table_counts_items_and_bytes() {
    let (_w, c) = world();
    on_demand(&c, "app").send().unwrap();
    let items = [
        item! { "PK" => "A", "v" => 1 },
        item! { "PK" => "B", "name" => "Ana" },
        item! { "PK" => "C" },
    ];
    for it in &items {
        c.put_item()
            .table_name("app")
            .set_item(Some(it.clone()))
            .send()
            .unwrap();
    }
    c.delete_item()
        .table_name("app")
        .key("PK", s("C"))
        .send()
        .unwrap();
    // Replacing an item changes the byte count, not the item count.
    c.put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "A", "v" => 1, "more" => "xyz" }))
        .send()
        .unwrap();
    let t = c
        .describe_table()
        .table_name("app")
        .send()
        .unwrap()
        .table
        .unwrap();
    assert_eq!(t.item_count(), Some(2));
    let bytes = item_size(&item! { "PK" => "A", "v" => 1, "more" => "xyz" }) + item_size(&items[1]);
    assert_eq!(t.table_size_bytes(), Some(bytes as i64));
}

#[test]
fn describe_of_a_missing_table_is_resource_not_found() {
    let (_w, c) = world();
    let e = c.describe_table().table_name("nope").send().unwrap_err();
    assert_eq!(e.code(), Some("ResourceNotFoundException"));
    assert_eq!(
        e.message(),
        Some("Requested resource not found: Table: nope not found")
    );
}

#[test]
fn a_deleted_table_is_gone() {
    let (_w, c) = world();
    on_demand(&c, "app").send().unwrap();
    c.put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "A" }))
        .send()
        .unwrap();
    let out = c.delete_table().table_name("app").send().unwrap();
    let d = out.table_description().unwrap();
    assert_eq!(d.table_status(), Some(&TableStatus::Deleting));
    assert_eq!(d.item_count(), Some(1));
    let e = c.describe_table().table_name("app").send().unwrap_err();
    assert_eq!(
        e.message(),
        Some("Requested resource not found: Table: app not found")
    );
    let e = c
        .get_item()
        .table_name("app")
        .key("PK", s("A"))
        .send()
        .unwrap_err();
    assert!(
        e.as_service_error()
            .is_some_and(GetItemError::is_resource_not_found_exception),
        "{e:?}"
    );
    let e = c.delete_table().table_name("app").send().unwrap_err();
    assert_eq!(e.code(), Some("ResourceNotFoundException"));
    // The name is free again, and the new table starts empty.
    on_demand(&c, "app").send().unwrap();
    let t = c
        .describe_table()
        .table_name("app")
        .send()
        .unwrap()
        .table
        .unwrap();
    assert_eq!(t.item_count(), Some(0));
}

// ---- ListTables -----------------------------------------------------------------------

fn list(c: &Client, limit: Option<i32>, start: Option<&str>) -> (Vec<String>, Option<String>) {
    let mut req = c.list_tables();
    if let Some(l) = limit {
        req = req.limit(l);
    }
    if let Some(s) = start {
        req = req.exclusive_start_table_name(s);
    }
    let out = req.send().unwrap();
    (
        out.table_names().to_vec(),
        out.last_evaluated_table_name().map(str::to_string),
    )
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn list_tables_pages_in_name_order() {
    let (_w, c) = world();
    for name in ["orders", "users", "audit", "events", "carts"] {
        on_demand(&c, name).send().unwrap();
    }
    assert_eq!(
        list(&c, None, None),
        (
            strings(&["audit", "carts", "events", "orders", "users"]),
            None
        )
    );
    let (page1, last1) = list(&c, Some(2), None);
    assert_eq!(page1, strings(&["audit", "carts"]));
    assert_eq!(last1.as_deref(), Some("carts"));
    let (page2, last2) = list(&c, Some(2), last1.as_deref());
    assert_eq!(page2, strings(&["events", "orders"]));
    assert_eq!(last2.as_deref(), Some("orders"));
    let (page3, last3) = list(&c, Some(2), last2.as_deref());
    assert_eq!(page3, strings(&["users"]));
    assert_eq!(last3, None);
    // The start name need not be a table: listing resumes after it.
    assert_eq!(list(&c, Some(1), Some("d")).0, strings(&["events"]));
}

#[test]
fn list_tables_gives_no_start_name_when_the_last_page_is_exactly_full() {
    let (_w, c) = world();
    for name in ["aaa", "bbb", "ccc", "ddd"] {
        on_demand(&c, name).send().unwrap();
    }
    let (page, last) = list(&c, Some(2), Some("bbb"));
    assert_eq!(page, strings(&["ccc", "ddd"]));
    assert_eq!(last, None);
}

#[test]
fn list_tables_limit_is_1_to_100() {
    let (_w, c) = world();
    assert_eq!(
        message(c.list_tables().limit(0).send()),
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
    assert_eq!(
        message(c.list_tables().limit(101).send()),
        "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"
    );
    c.list_tables().limit(100).send().unwrap();
}
