//! Serde: structs to items and back with serde_dynamo's `to_item` / `from_item` / `from_items`,
//! which the engine mirrors (its own helpers, not part of the SDK).
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x with
//! `serde_dynamo` (feature `aws-sdk-dynamodb+1`) and then edited mechanically only; the edits
//! are listed above each one. Common to every snippet of this file: the imports read `engine::`
//! where the SDK's read `aws_sdk_dynamodb::` and where serde_dynamo's read `serde_dynamo::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::HashMap;

use common::{users_world, BoxError};
use engine::types::AttributeValue;
use engine::{from_item, from_items, to_item, Client};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    username: String,
    first_name: String,
    age: u32,
    nickname: Option<String>,
    roles: Vec<String>,
    plan: Plan,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    Free,
    Pro,
}

fn ana() -> User {
    User {
        username: "ana".into(),
        first_name: "Ana".into(),
        age: 33,
        nickname: None,
        roles: vec!["admin".into(), "editor".into()],
        plan: Plan::Pro,
    }
}

// Snippet 48: save_user / load_user — `to_item(value)` into a HashMap item for PutItem, and
// `from_item(item)` on GetItem's item.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`; `serde_dynamo::` →
// `engine::` (imports). The engine's one documented difference: the `item` field →
// `into_item()`.
fn save_user(client: &Client, user: User) -> Result<(), Box<dyn std::error::Error>> {
    let item: HashMap<String, AttributeValue> = to_item(user)?;
    client
        .put_item()
        .table_name("Users")
        .set_item(Some(item))
        .send()?;
    Ok(())
}

fn load_user(client: &Client, username: &str) -> Result<Option<User>, Box<dyn std::error::Error>> {
    let resp = client
        .get_item()
        .table_name("Users")
        .key("username", AttributeValue::S(username.into()))
        .consistent_read(true)
        .send()?;
    match resp.into_item() {
        Some(item) => Ok(Some(from_item(item)?)),
        None => Ok(None),
    }
}

#[test]
fn save_user_then_load_user_round_trips_the_struct() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    save_user(&client, ana())?;

    assert_eq!(load_user(&client, "ana")?, Some(ana()));
    assert_eq!(load_user(&client, "bob")?, None);
    // What went over the wire: numbers as N, the enum by name, a list of strings, None as NULL.
    let stored = client
        .get_item()
        .table_name("Users")
        .key("username", AttributeValue::S("ana".into()))
        .consistent_read(true)
        .send()?
        .into_item()
        .ok_or("the user was saved")?;
    assert_eq!(stored["age"], AttributeValue::N("33".into()));
    assert_eq!(stored["plan"], AttributeValue::S("pro".into()));
    assert_eq!(
        stored["roles"],
        AttributeValue::L(vec![
            AttributeValue::S("admin".into()),
            AttributeValue::S("editor".into())
        ])
    );
    assert_eq!(stored["nickname"], AttributeValue::Null(true));
    Ok(())
}

// Snippet 49: all_users — `from_items` over a Scan's items.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`; `serde_dynamo::` →
// `engine::` (imports).
fn all_users(client: &Client) -> Result<Vec<User>, Box<dyn std::error::Error>> {
    let resp = client
        .scan()
        .table_name("Users")
        .consistent_read(true)
        .send()?;
    let items = resp.items.unwrap_or_default();
    let mut users: Vec<User> = from_items(items)?;
    users.sort_by(|a, b| a.username.cmp(&b.username));
    Ok(users)
}

#[test]
fn all_users_deserialises_every_item() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    let bob = User {
        username: "bob".into(),
        first_name: "Bob".into(),
        age: 41,
        nickname: Some("bobby".into()),
        roles: vec![],
        plan: Plan::Free,
    };
    save_user(&client, bob.clone())?;
    save_user(&client, ana())?;

    assert_eq!(all_users(&client)?, vec![ana(), bob]);
    Ok(())
}

// Snippet 50: parse_user — a wrong shape: `from_item` of an item missing a field is an error, not a panic.
// Mechanical edits: `serde_dynamo::` → `engine::` (imports).
fn parse_user(item: HashMap<String, AttributeValue>) -> Result<User, Box<dyn std::error::Error>> {
    Ok(from_item(item)?)
}

#[test]
fn parse_user_rejects_an_item_without_the_struct_fields() {
    let item = HashMap::from([("username".to_string(), AttributeValue::S("ana".into()))]);
    let err = parse_user(item).expect_err("first_name and the rest are missing");
    assert!(
        err.to_string().contains("first_name"),
        "the error names the field: {err}"
    );
}
