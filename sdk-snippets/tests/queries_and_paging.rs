//! Queries and paging: key conditions, sort order, Limit and LastEvaluatedKey, a GSI, COUNT.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::{movies_world, put_items, s, BoxError};
use engine::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, Projection, ProjectionType, ScalarAttributeType, Select,
};
use engine::{Client, Error};

#[derive(Debug, PartialEq)]
pub struct Movie {
    year: i32,
    title: String,
}

impl From<&HashMap<String, AttributeValue>> for Movie {
    fn from(value: &HashMap<String, AttributeValue>) -> Self {
        Movie {
            year: value
                .get("year")
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
            title: value
                .get("title")
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default(),
        }
    }
}

// Snippet 22: movies_in_year — Query one partition (`year` is a reserved word, hence `#yr`),
// mapped into structs from the output's public `items` field, as the movies server does.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn movies_in_year(client: &Client, table_name: &str, year: u16) -> Result<Vec<Movie>, Error> {
    let results = client
        .query()
        .table_name(table_name)
        .key_condition_expression("#yr = :yyyy")
        .expression_attribute_names("#yr", "year")
        .expression_attribute_values(":yyyy", AttributeValue::N(year.to_string()))
        .consistent_read(true)
        .send()?;

    if let Some(items) = results.items {
        let movies = items.iter().map(|v| v.into()).collect();
        Ok(movies)
    } else {
        Ok(vec![])
    }
}

#[test]
fn movies_in_year_returns_that_year_in_title_order() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let titles: Vec<_> = movies_in_year(&client, "Movies", 2013)?
        .into_iter()
        .map(|m| m.title)
        .collect();
    assert_eq!(titles, ["Frozen", "Gravity", "Her", "Prisoners", "Rush"]);
    assert_eq!(movies_in_year(&client, "Movies", 1999)?, vec![]);
    Ok(())
}

// Snippet 23: latest_titles_between — a sort-key range read backwards, two at a time; the page
// says where it stopped.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn latest_titles_between(
    client: &Client,
    year: i32,
    from: &str,
    to: &str,
) -> Result<(Vec<String>, Option<HashMap<String, AttributeValue>>), Error> {
    let resp = client
        .query()
        .table_name("Movies")
        .key_condition_expression("#yr = :yyyy AND title BETWEEN :from AND :to")
        .expression_attribute_names("#yr", "year")
        .expression_attribute_values(":yyyy", AttributeValue::N(year.to_string()))
        .expression_attribute_values(":from", AttributeValue::S(from.into()))
        .expression_attribute_values(":to", AttributeValue::S(to.into()))
        .scan_index_forward(false)
        .limit(2)
        .consistent_read(true)
        .send()?;
    let titles = resp
        .items()
        .iter()
        .filter_map(|item| item.get("title").and_then(|t| t.as_s().ok()).cloned())
        .collect();
    Ok((titles, resp.last_evaluated_key().cloned()))
}

#[test]
fn latest_titles_between_reads_descending_and_stops_at_the_limit() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let (titles, last) = latest_titles_between(&client, 2013, "G", "R")?;
    assert_eq!(titles, ["Prisoners", "Her"]);
    // Limit stopped the page, so it carries the key of the last item read.
    let last = last.expect("a page cut short by Limit has a LastEvaluatedKey");
    assert_eq!(last.len(), 2);
    assert_eq!(last["title"], s("Her"));
    assert_eq!(last["year"], AttributeValue::N("2013".into()));
    Ok(())
}

// Snippet 24: all_movies_in_year — follow LastEvaluatedKey into ExclusiveStartKey until a page
// comes back without one.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn all_movies_in_year(
    client: &Client,
    year: i32,
) -> Result<(Vec<HashMap<String, AttributeValue>>, usize), Error> {
    let mut items = Vec::new();
    let mut pages = 0;
    let mut start_key: Option<HashMap<String, AttributeValue>> = None;
    loop {
        let resp = client
            .query()
            .table_name("Movies")
            .key_condition_expression("#yr = :yyyy")
            .expression_attribute_names("#yr", "year")
            .expression_attribute_values(":yyyy", AttributeValue::N(year.to_string()))
            .limit(2)
            .set_exclusive_start_key(start_key)
            .consistent_read(true)
            .send()?;
        pages += 1;
        items.extend(resp.items().iter().cloned());
        match resp.last_evaluated_key {
            Some(key) => start_key = Some(key),
            None => break,
        }
    }
    Ok((items, pages))
}

#[test]
fn all_movies_in_year_reads_every_item_once_across_pages() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let (items, pages) = all_movies_in_year(&client, 2013)?;
    let titles: Vec<_> = items.iter().map(|i| i["title"].clone()).collect();
    assert_eq!(
        titles,
        ["Frozen", "Gravity", "Her", "Prisoners", "Rush"].map(s)
    );
    // Five items, two a page: the third page holds one and ends the query.
    assert_eq!(pages, 3);
    Ok(())
}

// Snippet 25: orders_of_customer — Query a global secondary index (eventually consistent, as
// every GSI read is), newest first.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn orders_of_customer(client: &Client, customer: &str) -> Result<Vec<String>, Error> {
    let resp = client
        .query()
        .table_name("Orders")
        .index_name("by_customer")
        .key_condition_expression("customer = :c")
        .expression_attribute_values(":c", AttributeValue::S(customer.into()))
        .scan_index_forward(false)
        .send()?;
    Ok(resp
        .items()
        .iter()
        .filter_map(|item| item.get("order_id").and_then(|v| v.as_s().ok()).cloned())
        .collect())
}

#[test]
fn orders_of_customer_reads_the_index_newest_first() -> Result<(), BoxError> {
    let (world, client) = common::world();
    let index = GlobalSecondaryIndex::builder()
        .index_name("by_customer")
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("customer")
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
                .projection_type(ProjectionType::All)
                .build(),
        )
        .build()?;
    let mut create = client
        .create_table()
        .table_name("Orders")
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("order_id")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .global_secondary_indexes(index);
    for name in ["order_id", "customer", "created_at"] {
        create = create.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        );
    }
    create.send()?;
    common::await_active(&world, &client, "Orders")?;
    let order = |id: &str, customer: &str, at: &str| {
        HashMap::from([
            ("order_id".to_string(), s(id)),
            ("customer".to_string(), s(customer)),
            ("created_at".to_string(), s(at)),
        ])
    };
    put_items(
        &client,
        "Orders",
        vec![
            order("o-1", "ana", "2026-01-03"),
            order("o-2", "bob", "2026-01-04"),
            order("o-3", "ana", "2026-01-09"),
            order("o-4", "ana", "2026-01-05"),
        ],
    )?;
    // Index entries are written asynchronously; a second is ample for them to land.
    world.advance(Duration::from_secs(1));

    assert_eq!(orders_of_customer(&client, "ana")?, ["o-3", "o-4", "o-1"]);
    assert_eq!(orders_of_customer(&client, "bob")?, ["o-2"]);
    Ok(())
}

// Snippet 26: count_movies_in_year — Select COUNT: the number of matches, no items.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn count_movies_in_year(client: &Client, year: i32) -> Result<(i32, usize), Error> {
    let resp = client
        .query()
        .table_name("Movies")
        .key_condition_expression("#yr = :yyyy")
        .expression_attribute_names("#yr", "year")
        .expression_attribute_values(":yyyy", AttributeValue::N(year.to_string()))
        .select(Select::Count)
        .consistent_read(true)
        .send()?;
    Ok((resp.count(), resp.items().len()))
}

#[test]
fn count_movies_in_year_counts_without_returning_items() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;
    assert_eq!(count_movies_in_year(&client, 2013)?, (5, 0));
    assert_eq!(count_movies_in_year(&client, 2014)?, (2, 0));
    Ok(())
}
