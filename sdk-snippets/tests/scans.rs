//! Scans: the whole table through the paginator, filters (Count versus ScannedCount), segments.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use std::collections::{HashMap, HashSet};

use common::{movies_world, BoxError, MOVIES};
use engine::types::AttributeValue;
use engine::{Client, Error};

// Snippet 27: list_items — the examples' list_items: Scan with a page size, flattened into
// items by the paginator and collected.
// Mechanical edits: `async fn` → `fn`; `.collect().await` → `.collect()`.
fn list_items(
    client: &Client,
    table: &str,
    page_size: Option<i32>,
) -> Result<Vec<HashMap<String, AttributeValue>>, Error> {
    let page_size = page_size.unwrap_or(10);
    let items: Result<Vec<_>, _> = client
        .scan()
        .table_name(table)
        .limit(page_size)
        .into_paginator()
        .items()
        .send()
        .collect();

    Ok(items?)
}

#[test]
fn list_items_returns_every_item_whatever_the_page_size() -> Result<(), BoxError> {
    let (world, client) = movies_world()?;
    // Scans are eventually consistent: let replication finish first.
    world.settle();

    for page_size in [Some(3), None] {
        let items = list_items(&client, "Movies", page_size)?;
        assert_eq!(items.len(), MOVIES.len());
        let titles: HashSet<_> = items
            .iter()
            .filter_map(|i| i.get("title").and_then(|t| t.as_s().ok()).cloned())
            .collect();
        assert_eq!(titles.len(), MOVIES.len(), "no item is returned twice");
    }
    Ok(())
}

// Snippet 28: highly_rated — a filtered Scan: the filter runs after the read, so ScannedCount
// counts every item read and Count only those kept.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn highly_rated(client: &Client, min: &str) -> Result<(Vec<String>, i32, i32), Error> {
    let resp = client
        .scan()
        .table_name("Movies")
        .filter_expression("info.rating >= :min")
        .expression_attribute_values(":min", AttributeValue::N(min.into()))
        .projection_expression("title")
        .consistent_read(true)
        .send()?;
    let mut titles: Vec<String> = resp
        .items()
        .iter()
        .filter_map(|i| i.get("title").and_then(|t| t.as_s().ok()).cloned())
        .collect();
    titles.sort();
    Ok((titles, resp.count(), resp.scanned_count()))
}

#[test]
fn highly_rated_counts_what_was_read_and_what_was_kept() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let (titles, count, scanned) = highly_rated(&client, "8.1")?;
    assert_eq!(titles, ["Interstellar", "Prisoners", "Rush", "Whiplash"]);
    assert_eq!((count, scanned), (4, MOVIES.len() as i32));
    Ok(())
}

// Snippet 29: scan_segments — a parallel scan's segments, walked one after another: each
// segment follows its own LastEvaluatedKey.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn scan_segments(client: &Client, total_segments: i32) -> Result<Vec<Vec<String>>, Error> {
    let mut segments = Vec::new();
    for segment in 0..total_segments {
        let mut titles = Vec::new();
        let mut start_key = None;
        loop {
            let resp = client
                .scan()
                .table_name("Movies")
                .segment(segment)
                .total_segments(total_segments)
                .limit(2)
                .consistent_read(true)
                .set_exclusive_start_key(start_key)
                .send()?;
            for item in resp.items() {
                if let Some(AttributeValue::S(title)) = item.get("title") {
                    titles.push(title.clone());
                }
            }
            start_key = resp.last_evaluated_key;
            if start_key.is_none() {
                break;
            }
        }
        segments.push(titles);
    }
    Ok(segments)
}

#[test]
fn scan_segments_split_the_table_without_overlap() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    let segments = scan_segments(&client, 3)?;
    assert_eq!(segments.len(), 3);
    let mut all: Vec<_> = segments.concat();
    all.sort();
    let mut expected: Vec<_> = MOVIES.iter().map(|m| m.1.to_string()).collect();
    expected.sort();
    assert_eq!(all, expected, "every item in exactly one segment");
    Ok(())
}
