//! Tables: CreateTable with the SDK's builders, waiting for ACTIVE, ListTables, UpdateTimeToLive.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x, in the style of
//! AWS's Rust examples (`rustv1/examples/dynamodb`), and then edited mechanically only; the
//! edits are listed above each one. Common to every snippet of this file: the imports read
//! `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::time::Duration;

use common::{create_table, s, BoxError, SEED};
use engine::error::SdkError;
use engine::operation::create_table::{CreateTableError, CreateTableOutput};
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ProvisionedThroughput, ScalarAttributeType, TableStatus,
    TimeToLiveSpecification,
};
use engine::{Client, Error, World};

// Snippet 1: make_table — a single-key on-demand table, builders `.expect`ed as in crud.rs.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn make_table(client: &Client, table: &str, key: &str) -> Result<(), SdkError<CreateTableError>> {
    let ad = AttributeDefinition::builder()
        .attribute_name(key)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .expect("creating AttributeDefinition");

    let ks = KeySchemaElement::builder()
        .attribute_name(key)
        .key_type(KeyType::Hash)
        .build()
        .expect("creating KeySchemaElement");

    match client
        .create_table()
        .table_name(table)
        .key_schema(ks)
        .attribute_definitions(ad)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
    {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

#[test]
fn make_table_creates_an_on_demand_table_with_the_key_asked_for() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    make_table(&client, "Users", "username")?;

    let described = client.describe_table().table_name("Users").send()?;
    let table = described.table().expect("DescribeTable returns the table");
    assert_eq!(table.table_name(), Some("Users"));
    let key = &table.key_schema()[0];
    assert_eq!(
        (key.attribute_name(), key.key_type()),
        ("username", &KeyType::Hash)
    );
    assert_eq!(
        table.billing_mode_summary().and_then(|b| b.billing_mode()),
        Some(&BillingMode::PayPerRequest)
    );
    Ok(())
}

// Snippet 2: create_orders_table — composite key, a GSI and provisioned capacity; every
// builder's `build()` is fallible and `?`-ed into a boxed error.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn create_orders_table(client: &Client) -> Result<CreateTableOutput, Box<dyn std::error::Error>> {
    let throughput = ProvisionedThroughput::builder()
        .read_capacity_units(5)
        .write_capacity_units(5)
        .build()?;
    let by_status = GlobalSecondaryIndex::builder()
        .index_name("by_status")
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("status")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("created_at")
                .key_type(KeyType::Range)
                .build()?,
        )
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::Include)
                .non_key_attributes("total")
                .build(),
        )
        .provisioned_throughput(throughput.clone())
        .build()?;

    let mut request = client
        .create_table()
        .table_name("Orders")
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(throughput)
        .global_secondary_indexes(by_status);
    for (name, kind) in [
        ("customer", ScalarAttributeType::S),
        ("order_id", ScalarAttributeType::S),
        ("status", ScalarAttributeType::S),
        ("created_at", ScalarAttributeType::S),
    ] {
        request = request.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(kind)
                .build()?,
        );
    }
    let output = request
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("customer")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("order_id")
                .key_type(KeyType::Range)
                .build()?,
        )
        .send()?;
    Ok(output)
}

#[test]
fn create_orders_table_describes_a_creating_table_with_its_index() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    let output = create_orders_table(&client)?;

    // CreateTable answers before the table is ready: its status is CREATING.
    let table = output
        .table_description()
        .expect("CreateTable describes the table");
    assert_eq!(table.table_status(), Some(&TableStatus::Creating));
    assert_eq!(
        table
            .provisioned_throughput()
            .and_then(|p| p.read_capacity_units()),
        Some(5)
    );
    let index = &table.global_secondary_indexes()[0];
    assert_eq!(index.index_name(), Some("by_status"));
    let index_key: Vec<_> = index
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name(), k.key_type().clone()))
        .collect();
    assert_eq!(
        index_key,
        [("status", KeyType::Hash), ("created_at", KeyType::Range)]
    );
    assert_eq!(
        index
            .projection()
            .and_then(|p| p.non_key_attributes().first().map(String::as_str)),
        Some("total")
    );
    Ok(())
}

// Snippet 3: wait_for_ready_table — crud.rs's polling loop: DescribeTable once a second until
// the table is no longer CREATING. Returns how many DescribeTable calls it took.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`;
// `tokio::time::sleep(Duration::from_secs(1)).await` → `client.world().advance(Duration::from_secs(1))`.
fn wait_for_ready_table(client: &Client, table_name: &str) -> Result<u32, Error> {
    let mut polls = 0;
    loop {
        polls += 1;
        if let Some(table) = client
            .describe_table()
            .table_name(table_name)
            .send()?
            .table()
        {
            if !matches!(table.table_status, Some(TableStatus::Creating)) {
                break;
            }
        }
        client.world().advance(Duration::from_secs(1));
    }
    Ok(polls)
}

#[test]
fn wait_for_ready_table_sees_creating_before_active() -> Result<(), BoxError> {
    let (world, client) = common::world_with_slow_tables();
    make_table(&client, "Users", "username")?;

    let polls = wait_for_ready_table(&client, "Users")?;
    // A new table takes simulated time to create: the first DescribeTable still says CREATING.
    assert!(
        polls >= 2,
        "the table was ACTIVE at the first poll, no time had passed"
    );
    assert!(world.now() >= Duration::from_secs(1));
    let status = client
        .describe_table()
        .table_name("Users")
        .send()?
        .table()
        .and_then(|t| t.table_status().cloned());
    assert_eq!(status, Some(TableStatus::Active));
    Ok(())
}

// Snippet 4: table_exists — ListTables and look for the name, as the movies scenario does.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn table_exists(client: &Client, table: &str) -> Result<bool, Error> {
    let table_list = client.list_tables().send();

    match table_list {
        Ok(list) => Ok(list.table_names().contains(&table.into())),
        Err(e) => Err(e.into()),
    }
}

#[test]
fn table_exists_finds_only_tables_that_were_created() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    make_table(&client, "Users", "username")?;

    assert!(table_exists(&client, "Users")?);
    assert!(!table_exists(&client, "Orders")?);
    Ok(())
}

// Snippet 5: list_tables_iterative — ListTables ten… here two at a time, following
// LastEvaluatedTableName through the public output fields.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?` (twice).
fn list_tables_iterative(client: &Client) -> Result<Vec<String>, Error> {
    let mut resp = client.list_tables().limit(2).send()?;
    let mut names = resp.table_names.unwrap_or_default();

    while resp.last_evaluated_table_name.is_some() {
        resp = client
            .list_tables()
            .limit(2)
            .exclusive_start_table_name(
                resp.last_evaluated_table_name
                    .as_deref()
                    .unwrap_or_default(),
            )
            .send()?;
        let mut more_names = resp.table_names.unwrap_or_default();
        names.append(&mut more_names);
    }

    Ok(names)
}

#[test]
fn list_tables_iterative_lists_every_table_once_in_name_order() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    for name in ["orders", "audit", "users", "carts", "payments"] {
        make_table(&client, name, "pk")?;
    }

    assert_eq!(
        list_tables_iterative(&client)?,
        ["audit", "carts", "orders", "payments", "users"]
    );
    Ok(())
}

// Snippet 6: enable_ttl — UpdateTimeToLive with a built TimeToLiveSpecification.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn enable_ttl(
    client: &Client,
    table: &str,
    attribute: &str,
) -> Result<bool, Box<dyn std::error::Error>> {
    let spec = TimeToLiveSpecification::builder()
        .attribute_name(attribute)
        .enabled(true)
        .build()?;
    let output = client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(spec)
        .send()?;
    Ok(output
        .time_to_live_specification()
        .map(|spec| spec.enabled())
        .unwrap_or(false))
}

#[test]
fn enable_ttl_turns_expiry_on_for_the_named_attribute() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    create_table(
        &world,
        &client,
        "Sessions",
        ("id", ScalarAttributeType::S),
        None,
    )?;

    assert!(enable_ttl(&client, "Sessions", "expires_at")?);
    let described = client
        .describe_time_to_live()
        .table_name("Sessions")
        .send()?;
    assert_eq!(
        described
            .time_to_live_description()
            .and_then(|d| d.attribute_name()),
        Some("expires_at")
    );
    // The table still takes writes that carry the attribute.
    client
        .put_item()
        .table_name("Sessions")
        .item("id", s("sess-1"))
        .item("expires_at", common::n(world.epoch_seconds() + 60))
        .send()?;
    Ok(())
}
