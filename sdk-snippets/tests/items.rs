//! Items: PutItem, GetItem, DeleteItem, every attribute type, projections.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x, in the style of
//! AWS's Rust examples, and then edited mechanically only; the edits are listed above each
//! one. Common to every snippet of this file: the imports read `engine::` where the SDK's read
//! `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::{HashMap, HashSet};

use common::{movies_world, s, users_world, BoxError};
use engine::primitives::Blob;
use engine::types::{AttributeValue, ReturnValue};
use engine::{Client, Error};

pub struct User {
    pub username: String,
    pub account_type: String,
    pub age: String,
    pub first: String,
    pub last: String,
}

// Snippet 7: add_item — PutItem attribute by attribute, as the examples' add_item.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn add_item(client: &Client, item: User, table: &str) -> Result<(), Error> {
    let user_av = AttributeValue::S(item.username);
    let type_av = AttributeValue::S(item.account_type);
    let age_av = AttributeValue::N(item.age);
    let first_av = AttributeValue::S(item.first);
    let last_av = AttributeValue::S(item.last);

    let request = client
        .put_item()
        .table_name(table)
        .item("username", user_av)
        .item("account_type", type_av)
        .item("age", age_av)
        .item("first_name", first_av)
        .item("last_name", last_av);

    request.send()?;
    Ok(())
}

// Snippet 8: get_user — GetItem by key, strongly consistent, the item taken from the output's
// public field.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
// The engine's one documented difference: the `item` field → `into_item()`.
fn get_user(
    client: &Client,
    table: &str,
    username: &str,
) -> Result<Option<HashMap<String, AttributeValue>>, Error> {
    let resp = client
        .get_item()
        .table_name(table)
        .key("username", AttributeValue::S(username.into()))
        .consistent_read(true)
        .send()?;
    Ok(resp.into_item())
}

#[test]
fn add_item_then_get_user_reads_back_every_attribute() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    let user = User {
        username: "ana".into(),
        account_type: "standard_user".into(),
        age: "33".into(),
        first: "Ana".into(),
        last: "Lima".into(),
    };
    add_item(&client, user, "Users")?;

    let item = get_user(&client, "Users", "ana")?.expect("the item was written");
    assert_eq!(item.len(), 5);
    assert_eq!(item["first_name"], s("Ana"));
    assert_eq!(item["age"].as_n(), Ok(&"33".to_string()));
    assert_eq!(get_user(&client, "Users", "bob")?, None);
    Ok(())
}

#[derive(Debug, PartialEq)]
pub struct Movie {
    year: i32,
    title: String,
    rating: String,
    genres: Vec<String>,
}

// Snippet 9: movie_from_item — a Movie from an item: the examples' `From<&HashMap<String, AttributeValue>>`
// with `as_n`/`as_s`/`as_m`/`as_l`, fed by GetItem on a composite key.
// Mechanical edits: `async fn` → `fn` (get_movie); `.send().await?` → `.send()?`.
impl From<&HashMap<String, AttributeValue>> for Movie {
    fn from(value: &HashMap<String, AttributeValue>) -> Self {
        let year = value
            .get("year")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<i32>().ok())
            .unwrap_or(0);
        let title = value
            .get("title")
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default();
        let info = value.get("info").and_then(|v| v.as_m().ok());
        let rating = info
            .and_then(|i| i.get("rating"))
            .and_then(|v| v.as_n().ok())
            .cloned()
            .unwrap_or_default();
        let genres = info
            .and_then(|i| i.get("genres"))
            .and_then(|v| v.as_l().ok())
            .map(|l| l.iter().filter_map(|g| g.as_s().ok().cloned()).collect())
            .unwrap_or_default();
        Movie {
            year,
            title,
            rating,
            genres,
        }
    }
}

fn get_movie(client: &Client, year: i32, title: &str) -> Result<Option<Movie>, Error> {
    let resp = client
        .get_item()
        .table_name("Movies")
        .key("year", AttributeValue::N(year.to_string()))
        .key("title", AttributeValue::S(title.to_string()))
        .send()?;
    Ok(resp.item().map(|item| item.into()))
}

#[test]
fn get_movie_maps_the_item_into_a_struct() -> Result<(), BoxError> {
    let (world, client) = movies_world()?;
    // An eventually consistent read: let replication finish first.
    world.settle();

    let movie = get_movie(&client, 2013, "Rush")?.expect("Rush is in the table");
    assert_eq!(
        movie,
        Movie {
            year: 2013,
            title: "Rush".into(),
            rating: "8.1".into(),
            genres: vec!["Biography".into(), "Sport".into()],
        }
    );
    assert_eq!(get_movie(&client, 2013, "Ruth")?, None);
    Ok(())
}

// Snippet 10: replace_user — PutItem with ReturnValues ALL_OLD returns what it replaced.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn replace_user(
    client: &Client,
    username: &str,
    first_name: &str,
) -> Result<Option<HashMap<String, AttributeValue>>, Error> {
    let resp = client
        .put_item()
        .table_name("Users")
        .item("username", AttributeValue::S(username.into()))
        .item("first_name", AttributeValue::S(first_name.into()))
        .return_values(ReturnValue::AllOld)
        .send()?;
    Ok(resp.attributes().cloned())
}

#[test]
fn replace_user_returns_the_old_item_only_when_there_was_one() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;

    assert_eq!(replace_user(&client, "ana", "Ana")?, None);
    let old = replace_user(&client, "ana", "Anna")?.expect("the first put left an item");
    assert_eq!(old["first_name"], s("Ana"));
    let now = get_user(&client, "Users", "ana")?.expect("the second put left an item");
    assert_eq!(now["first_name"], s("Anna"));
    Ok(())
}

// Snippet 11: remove_item — DeleteItem by key (crud.rs), here with ALL_OLD to learn what went.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn remove_item(
    client: &Client,
    table: &str,
    key: &str,
    value: String,
) -> Result<Option<HashMap<String, AttributeValue>>, Error> {
    let user_av = AttributeValue::S(value);

    let resp = client
        .delete_item()
        .table_name(table)
        .key(key, user_av)
        .return_values(ReturnValue::AllOld)
        .send()?;

    Ok(resp.attributes)
}

#[test]
fn remove_item_deletes_once_and_then_finds_nothing() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    replace_user(&client, "ana", "Ana")?;

    let deleted = remove_item(&client, "Users", "username", "ana".into())?;
    assert_eq!(
        deleted.map(|item| item["first_name"].clone()),
        Some(s("Ana"))
    );
    // Deleting a missing item is not an error; there is just nothing to return.
    assert_eq!(
        remove_item(&client, "Users", "username", "ana".into())?,
        None
    );
    assert_eq!(get_user(&client, "Users", "ana")?, None);
    Ok(())
}

// Snippet 12: put_profile — an item of every attribute type, built as a HashMap and set whole.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn put_profile(client: &Client) -> Result<(), Error> {
    let address = HashMap::from([
        ("city".to_string(), AttributeValue::S("Lisbon".into())),
        ("zip".to_string(), AttributeValue::S("1100-148".into())),
    ]);
    let item = HashMap::from([
        ("username".to_string(), AttributeValue::S("ana".into())),
        ("age".to_string(), AttributeValue::N("33".into())),
        (
            "avatar".to_string(),
            AttributeValue::B(Blob::new(vec![0x89, 0x50, 0x4e, 0x47])),
        ),
        ("verified".to_string(), AttributeValue::Bool(true)),
        ("nickname".to_string(), AttributeValue::Null(true)),
        (
            "tags".to_string(),
            AttributeValue::Ss(vec!["admin".into(), "beta".into()]),
        ),
        (
            "scores".to_string(),
            AttributeValue::Ns(vec!["7".into(), "9.5".into()]),
        ),
        (
            "logins".to_string(),
            AttributeValue::L(vec![
                AttributeValue::N("1".into()),
                AttributeValue::S("web".into()),
            ]),
        ),
        ("address".to_string(), AttributeValue::M(address)),
    ]);
    client
        .put_item()
        .table_name("Users")
        .set_item(Some(item))
        .send()?;
    Ok(())
}

#[test]
fn put_profile_round_trips_every_attribute_type() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    put_profile(&client)?;

    let item = get_user(&client, "Users", "ana")?.expect("the profile was written");
    assert_eq!(item.len(), 9);
    assert_eq!(
        item["avatar"].as_b().map(|b| b.as_ref().to_vec()),
        Ok(vec![0x89, 0x50, 0x4e, 0x47])
    );
    assert_eq!(item["verified"].as_bool(), Ok(&true));
    assert_eq!(item["nickname"], AttributeValue::Null(true));
    assert_eq!(
        item["address"].as_m().map(|m| m["city"].clone()),
        Ok(s("Lisbon"))
    );
    assert_eq!(item["logins"].as_l().map(Vec::len), Ok(2));
    // Sets have no order: compare them as sets.
    let tags: HashSet<_> = item["tags"]
        .as_ss()
        .expect("a string set")
        .iter()
        .cloned()
        .collect();
    assert_eq!(
        tags,
        HashSet::from(["admin".to_string(), "beta".to_string()])
    );
    let scores: HashSet<_> = item["scores"]
        .as_ns()
        .expect("a number set")
        .iter()
        .cloned()
        .collect();
    assert_eq!(scores, HashSet::from(["7".to_string(), "9.5".to_string()]));
    Ok(())
}

// Snippet 13: get_name_and_age — GetItem with a ProjectionExpression (`name` is a reserved
// word, so it goes through ExpressionAttributeNames).
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
// The engine's one documented difference: the `item` field → `into_item()`.
fn get_name_and_age(
    client: &Client,
    username: &str,
) -> Result<Option<HashMap<String, AttributeValue>>, Error> {
    let resp = client
        .get_item()
        .table_name("Users")
        .key("username", AttributeValue::S(username.into()))
        .projection_expression("#n, age")
        .expression_attribute_names("#n", "name")
        .consistent_read(true)
        .send()?;
    Ok(resp.into_item())
}

#[test]
fn get_name_and_age_returns_only_the_projected_attributes() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    client
        .put_item()
        .table_name("Users")
        .item("username", s("ana"))
        .item("name", s("Ana Lima"))
        .item("age", AttributeValue::N("33".into()))
        .item("city", s("Lisbon"))
        .send()?;

    let item = get_name_and_age(&client, "ana")?.expect("the item exists");
    let mut names: Vec<_> = item.keys().cloned().collect();
    names.sort();
    assert_eq!(names, ["age", "name"]);
    Ok(())
}
