//! Waiters and paginators: `wait_until_table_exists` / `wait_until_table_not_exists` on the
//! simulated clock, ExceededMaxWait, and the paginators of ListTables and Query (a stream in
//! the SDK, an iterator here).
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

// `while let Some(x) = stream.next()` is the SDK's shape for a stream; here it is an iterator.
#![allow(clippy::result_large_err, clippy::while_let_on_iterator)]

mod common;

use std::time::Duration;

use common::{create_table, movies_world, BoxError, SEED};
use engine::client::Waiters;
use engine::operation::describe_table::DescribeTableError;
use engine::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType, TableStatus,
};
use engine::waiters::table_exists::WaitUntilTableExistsError;
use engine::{Client, Error, World};

fn start_creating(client: &Client, table: &str) -> Result<(), BoxError> {
    client
        .create_table()
        .table_name(table)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()?;
    Ok(())
}

// Snippet 42: create_and_wait — the TableExists waiter instead of a polling loop; the final
// poll's DescribeTable output says ACTIVE.
// Mechanical edits: `async fn` → `fn`; `.wait(..).await?` → `.wait(..)?`.
fn create_and_wait(
    client: &Client,
    table: &str,
) -> Result<TableStatus, Box<dyn std::error::Error>> {
    let final_poll = client
        .wait_until_table_exists()
        .table_name(table)
        .wait(Duration::from_secs(300))?;
    let described = final_poll.into_result()?;
    Ok(described
        .table()
        .and_then(|t| t.table_status())
        .cloned()
        .ok_or("DescribeTable returned no status")?)
}

#[test]
fn create_and_wait_returns_once_the_table_is_active() -> Result<(), BoxError> {
    let (world, client) = common::world_with_slow_tables();
    start_creating(&client, "Sessions")?;

    assert_eq!(create_and_wait(&client, "Sessions")?, TableStatus::Active);
    // The waiter slept on the simulated clock between its polls.
    assert!(world.now() > Duration::ZERO);
    client
        .put_item()
        .table_name("Sessions")
        .item("pk", AttributeValue::S("s-1".into()))
        .send()?;
    Ok(())
}

// Snippet 43: wait_briefly — a max wait shorter than table creation ends in ExceededMaxWait.
// Mechanical edits: `async fn` → `fn`; `.wait(..).await` → `.wait(..)`.
fn wait_briefly(client: &Client, table: &str) -> Result<bool, WaitUntilTableExistsError> {
    match client
        .wait_until_table_exists()
        .table_name(table)
        .wait(Duration::from_secs(1))
    {
        Ok(_) => Ok(true),
        Err(WaitUntilTableExistsError::ExceededMaxWait(_)) => Ok(false),
        Err(other) => Err(other),
    }
}

#[test]
fn wait_briefly_gives_up_on_a_table_still_creating() -> Result<(), BoxError> {
    let (_world, client) = common::world_with_slow_tables();
    start_creating(&client, "Sessions")?;

    assert!(!wait_briefly(&client, "Sessions")?);
    // Given time, the same waiter succeeds.
    assert!(create_and_wait(&client, "Sessions").is_ok());
    assert!(wait_briefly(&client, "Sessions")?);
    Ok(())
}

// Snippet 44: delete_and_wait — DeleteTable, then the TableNotExists waiter; afterwards
// DescribeTable is a ResourceNotFoundException.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`; `.wait(..).await?` →
// `.wait(..)?`.
fn delete_and_wait(client: &Client, table: &str) -> Result<(), Box<dyn std::error::Error>> {
    client.delete_table().table_name(table).send()?;
    client
        .wait_until_table_not_exists()
        .table_name(table)
        .wait(Duration::from_secs(300))?;
    Ok(())
}

#[test]
fn delete_and_wait_leaves_no_table() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    create_table(
        &world,
        &client,
        "Sessions",
        ("pk", ScalarAttributeType::S),
        None,
    )?;

    delete_and_wait(&client, "Sessions")?;
    let err = client
        .describe_table()
        .table_name("Sessions")
        .send()
        .expect_err("the table is gone");
    assert!(matches!(
        err.into_service_error(),
        DescribeTableError::ResourceNotFoundException(_)
    ));
    Ok(())
}

// Snippet 45: list_tables — the ListTables paginator flattened into names (the examples'
// list_tables), two names a page.
// Mechanical edits: `async fn` → `fn`; `.collect::<..>().await?` → `.collect::<..>()?`.
fn list_tables(client: &Client) -> Result<Vec<String>, Error> {
    let paginator = client
        .list_tables()
        .into_paginator()
        .page_size(2)
        .items()
        .send();
    let table_names = paginator.collect::<Result<Vec<_>, _>>()?;

    Ok(table_names)
}

#[test]
fn list_tables_pages_through_every_table() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    for name in ["orders", "audit", "users", "carts", "payments"] {
        start_creating(&client, name)?;
    }
    assert_eq!(
        list_tables(&client)?,
        ["audit", "carts", "orders", "payments", "users"]
    );
    Ok(())
}

// Snippet 46: page_sizes — the Query paginator page by page with `try_next`, counting items
// per page.
// Mechanical edits: `async fn` → `fn`; `.try_next().await?` → `.try_next()?`.
fn page_sizes(client: &Client, year: i32) -> Result<Vec<i32>, Error> {
    let mut pages = client
        .query()
        .table_name("Movies")
        .key_condition_expression("#yr = :yyyy")
        .expression_attribute_names("#yr", "year")
        .expression_attribute_values(":yyyy", AttributeValue::N(year.to_string()))
        .consistent_read(true)
        .into_paginator()
        .page_size(2)
        .send();
    let mut sizes = Vec::new();
    while let Some(page) = pages.try_next()? {
        sizes.push(page.count());
    }
    Ok(sizes)
}

#[test]
fn page_sizes_follow_the_page_size_to_the_end() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;
    assert_eq!(page_sizes(&client, 2013)?, [2, 2, 1]);
    assert_eq!(page_sizes(&client, 2012)?, [1]);
    Ok(())
}

// Snippet 47: first_two_titles — `next()` on the items paginator, one item a page, stopping
// after the second.
// Mechanical edits: `async fn` → `fn`; `.next().await` → `.next()`.
fn first_two_titles(client: &Client) -> Result<Vec<String>, Error> {
    let mut items = client
        .query()
        .table_name("Movies")
        .key_condition_expression("#yr = :yyyy")
        .expression_attribute_names("#yr", "year")
        .expression_attribute_values(":yyyy", AttributeValue::N("2013".into()))
        .consistent_read(true)
        .into_paginator()
        .page_size(1)
        .items()
        .send();
    let mut titles = Vec::new();
    while let Some(item) = items.next() {
        let item = item?;
        if let Some(AttributeValue::S(title)) = item.get("title") {
            titles.push(title.clone());
        }
        if titles.len() == 2 {
            break;
        }
    }
    Ok(titles)
}

#[test]
fn first_two_titles_stops_early() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;
    assert_eq!(first_two_titles(&client)?, ["Frozen", "Gravity"]);
    Ok(())
}
