//! Batches: BatchWriteItem in chunks of 25 with the UnprocessedItems loop, BatchGetItem with
//! the UnprocessedKeys loop, batch deletes.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::HashMap;

use common::{movies_world, users_world, BoxError};
use engine::types::{AttributeValue, DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest};
use engine::{Client, Error};

// Must be less than 26.
const CHUNK_SIZE: usize = 25;

// Snippet 30: load_users — WriteRequests built with `set_put_request`, written 25 at a time;
// each batch is resent with its UnprocessedItems until none are left (the movies scenario's
// write_batch).
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`; the chunks are written
// one after another where the example joins their futures (`join_all(batches).await`).
fn load_users(
    client: &Client,
    table_name: &str,
    count: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let ops = (0..count)
        .map(|i| -> Result<WriteRequest, Box<dyn std::error::Error>> {
            let put = PutRequest::builder()
                .item("username", AttributeValue::S(format!("user-{i:03}")))
                .item("score", AttributeValue::N(i.to_string()))
                .build()?;
            Ok(WriteRequest::builder().set_put_request(Some(put)).build())
        })
        .collect::<Result<Vec<WriteRequest>, Box<dyn std::error::Error>>>()?;

    for chunk in ops.chunks(CHUNK_SIZE) {
        write_batch(client, table_name, chunk)?;
    }
    Ok(())
}

fn write_batch(client: &Client, table_name: &str, ops: &[WriteRequest]) -> Result<(), Error> {
    assert!(
        ops.len() <= 25,
        "Cannot write more than 25 items in a batch"
    );
    let mut unprocessed = Some(HashMap::from([(table_name.to_string(), ops.to_vec())]));
    while unprocessed_count(unprocessed.as_ref(), table_name) > 0 {
        unprocessed = client
            .batch_write_item()
            .set_request_items(unprocessed)
            .send()?
            .unprocessed_items;
    }
    Ok(())
}

fn unprocessed_count(
    unprocessed: Option<&HashMap<String, Vec<WriteRequest>>>,
    table_name: &str,
) -> usize {
    unprocessed
        .map(|m| m.get(table_name).map(|v| v.len()).unwrap_or_default())
        .unwrap_or_default()
}

#[test]
fn load_users_writes_every_item_across_batches() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    load_users(&client, "Users", 60)?;

    let scan = client
        .scan()
        .table_name("Users")
        .consistent_read(true)
        .select(engine::types::Select::Count)
        .send()?;
    assert_eq!(scan.count(), 60);
    let last = client
        .get_item()
        .table_name("Users")
        .key("username", AttributeValue::S("user-059".into()))
        .consistent_read(true)
        .send()?;
    assert_eq!(
        last.item().and_then(|i| i.get("score")).cloned(),
        Some(AttributeValue::N("59".into()))
    );
    Ok(())
}

// Snippet 31: get_titles — BatchGetItem with KeysAndAttributes (fallible `build()`: keys are
// required), resending UnprocessedKeys until the map comes back empty.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn get_titles(
    client: &Client,
    keys: &[(i32, &str)],
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut request = KeysAndAttributes::builder().projection_expression("title");
    for (year, title) in keys {
        request = request.keys(HashMap::from([
            ("year".to_string(), AttributeValue::N(year.to_string())),
            ("title".to_string(), AttributeValue::S(title.to_string())),
        ]));
    }
    let mut pending = Some(HashMap::from([(
        "Movies".to_string(),
        request.consistent_read(true).build()?,
    )]));

    let mut titles = Vec::new();
    while let Some(request_items) = pending.take().filter(|items| !items.is_empty()) {
        let resp = client
            .batch_get_item()
            .set_request_items(Some(request_items))
            .send()?;
        if let Some(items) = resp.responses().and_then(|r| r.get("Movies")) {
            for item in items {
                if let Some(AttributeValue::S(title)) = item.get("title") {
                    titles.push(title.clone());
                }
            }
        }
        pending = resp.unprocessed_keys;
    }
    titles.sort();
    Ok(titles)
}

#[test]
fn get_titles_returns_the_items_that_exist() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let titles = get_titles(
        &client,
        &[
            (2013, "Her"),
            (2014, "Whiplash"),
            (2013, "Nope"),
            (2012, "Argo"),
        ],
    )?;
    // BatchGetItem answers in no particular order and leaves out keys with no item.
    assert_eq!(titles, ["Argo", "Her", "Whiplash"]);
    Ok(())
}

// Snippet 32: delete_users — DeleteRequests (fallible `build()`: the key is required) sent in
// one BatchWriteItem with `request_items(table, requests)`; returns how many came back
// unprocessed.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn delete_users(client: &Client, usernames: &[&str]) -> Result<usize, Box<dyn std::error::Error>> {
    let mut deletes = Vec::new();
    for username in usernames {
        let delete = DeleteRequest::builder()
            .key("username", AttributeValue::S(username.to_string()))
            .build()?;
        deletes.push(WriteRequest::builder().delete_request(delete).build());
    }
    let resp = client
        .batch_write_item()
        .request_items("Users", deletes)
        .send()?;
    let unprocessed = resp
        .unprocessed_items()
        .map(|m| m.values().map(Vec::len).sum())
        .unwrap_or(0);
    Ok(unprocessed)
}

#[test]
fn delete_users_removes_exactly_the_named_items() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    load_users(&client, "Users", 5)?;

    assert_eq!(
        delete_users(&client, &["user-001", "user-003", "user-404"])?,
        0
    );
    let left = client
        .scan()
        .table_name("Users")
        .consistent_read(true)
        .send()?;
    let mut names: Vec<_> = left
        .items()
        .iter()
        .filter_map(|i| i.get("username").and_then(|u| u.as_s().ok()).cloned())
        .collect();
    names.sort();
    assert_eq!(names, ["user-000", "user-002", "user-004"]);
    Ok(())
}
