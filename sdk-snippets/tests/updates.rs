//! Updates: SET on nested paths, atomic counters, list_append / if_not_exists / REMOVE, and
//! what each ReturnValue gives back.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::HashMap;

use common::{movies_world, n, s, users_world, BoxError};
use engine::types::{AttributeValue, ReturnValue};
use engine::{Client, Error};

// Snippet 18: update_rating — SET a path inside the `info` map, returning the whole new item.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn update_rating(
    client: &Client,
    year: i32,
    title: &str,
    rating: &str,
    plot: &str,
) -> Result<HashMap<String, AttributeValue>, Error> {
    let resp = client
        .update_item()
        .table_name("Movies")
        .key("year", AttributeValue::N(year.to_string()))
        .key("title", AttributeValue::S(title.to_string()))
        .update_expression("SET info.rating = :r, info.plot = :p")
        .expression_attribute_values(":r", AttributeValue::N(rating.into()))
        .expression_attribute_values(":p", AttributeValue::S(plot.into()))
        .return_values(ReturnValue::AllNew)
        .send()?;
    Ok(resp.attributes.unwrap_or_default())
}

#[test]
fn update_rating_changes_the_nested_attributes_and_returns_the_new_item() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let item = update_rating(&client, 2013, "Gravity", "7.9", "Adrift in orbit.")?;
    let info = item["info"].as_m().expect("info is a map");
    assert_eq!(info["rating"], n("7.9"));
    assert_eq!(info["plot"], s("Adrift in orbit."));
    // The attributes the update did not touch are in ALL_NEW too.
    assert_eq!(info["genres"].as_l().map(Vec::len), Ok(2));
    assert_eq!(item["title"], s("Gravity"));
    Ok(())
}

// Snippet 19: count_view — an atomic counter: ADD creates the attribute (and the item) at 0 and
// adds; UPDATED_NEW returns only the attribute the update wrote.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn count_view(client: &Client, page: &str) -> Result<i64, Box<dyn std::error::Error>> {
    let resp = client
        .update_item()
        .table_name("Users")
        .key("username", AttributeValue::S(page.into()))
        .update_expression("ADD #views :one")
        .expression_attribute_names("#views", "views")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .return_values(ReturnValue::UpdatedNew)
        .send()?;
    let attributes = resp
        .attributes()
        .ok_or("UpdateItem returned no attributes")?;
    assert_eq!(
        attributes.len(),
        1,
        "UPDATED_NEW returns the updated attribute only"
    );
    let views = attributes["views"]
        .as_n()
        .map_err(|_| "views is not a number")?;
    Ok(views.parse()?)
}

#[test]
fn count_view_counts_from_nothing() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    assert_eq!(count_view(&client, "/home")?, 1);
    assert_eq!(count_view(&client, "/home")?, 2);
    assert_eq!(count_view(&client, "/about")?, 1);
    assert_eq!(count_view(&client, "/home")?, 3);
    Ok(())
}

// Snippet 20: tag_and_publish — list_append onto a list that may not exist yet, and REMOVE.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn tag_and_publish(
    client: &Client,
    username: &str,
    tag: &str,
) -> Result<Option<HashMap<String, AttributeValue>>, Error> {
    let resp = client
        .update_item()
        .table_name("Users")
        .key("username", AttributeValue::S(username.into()))
        .update_expression("SET tags = list_append(if_not_exists(tags, :empty), :tag) REMOVE draft")
        .expression_attribute_values(":empty", AttributeValue::L(vec![]))
        .expression_attribute_values(
            ":tag",
            AttributeValue::L(vec![AttributeValue::S(tag.into())]),
        )
        .return_values(ReturnValue::AllNew)
        .send()?;
    Ok(resp.attributes)
}

#[test]
fn tag_and_publish_appends_in_order_and_removes_the_draft_flag() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    client
        .put_item()
        .table_name("Users")
        .item("username", s("ana"))
        .item("draft", AttributeValue::Bool(true))
        .send()?;

    tag_and_publish(&client, "ana", "rust")?;
    let item = tag_and_publish(&client, "ana", "dynamodb")?.expect("ALL_NEW returns the item");
    assert_eq!(
        item["tags"],
        AttributeValue::L(vec![s("rust"), s("dynamodb")])
    );
    assert!(!item.contains_key("draft"));
    Ok(())
}

// Snippet 21: set_price — UPDATED_OLD: only the attributes the update changed, as they were.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn set_price(client: &Client, sku: &str, price: &str) -> Result<Option<String>, Error> {
    let resp = client
        .update_item()
        .table_name("Users")
        .key("username", AttributeValue::S(sku.into()))
        .update_expression("SET price = :p")
        .expression_attribute_values(":p", AttributeValue::N(price.into()))
        .return_values(ReturnValue::UpdatedOld)
        .send()?;
    Ok(resp
        .attributes()
        .and_then(|old| old.get("price"))
        .and_then(|p| p.as_n().ok())
        .cloned())
}

#[test]
fn set_price_returns_the_price_it_replaced() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    client
        .put_item()
        .table_name("Users")
        .item("username", s("sku-1"))
        .item("price", n("9.99"))
        .item("name", s("mug"))
        .send()?;

    assert_eq!(set_price(&client, "sku-1", "12.5")?, Some("9.99".into()));
    assert_eq!(set_price(&client, "sku-1", "11")?, Some("12.5".into()));
    // A new item had no price before.
    assert_eq!(set_price(&client, "sku-2", "3")?, None);
    Ok(())
}
