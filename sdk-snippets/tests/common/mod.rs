//! The seeded worlds the snippets run against.
//!
//! This set-up is itself SDK code (builders, `HashMap` items, a DescribeTable polling loop in the
//! shape of the AWS examples' `await_table`), edited mechanically like the snippets: `async`
//! and `.await` removed, `aws_sdk_dynamodb` → `engine`, `tokio::time::sleep(d).await` →
//! `world.advance(d)`. Every test starts from `World::new(SEED)`, so a run replays exactly.

#![allow(dead_code, clippy::result_large_err)]

use std::collections::HashMap;
use std::error::Error as StdError;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType, TableStatus,
};
use engine::{Client, World};

/// The seed of every world in this crate.
pub const SEED: u64 = 17;

pub type BoxError = Box<dyn StdError>;

/// A fresh world and a client for it.
pub fn world() -> (World, Client) {
    let world = World::new(SEED);
    let client = world.client();
    (world, client)
}

/// A fresh world whose new tables stay CREATING for 10 simulated seconds (DynamoDB takes
/// seconds; the engine's default world makes them ACTIVE at once), and a client for it.
pub fn world_with_slow_tables() -> (World, Client) {
    let world = World::with_config(engine::WorldConfig {
        seed: SEED,
        table_creation_ms: 10_000,
        ..Default::default()
    });
    let client = world.client();
    (world, client)
}

/// Creates an on-demand table keyed by `pk` (and `sk`, when given) and waits until it is ACTIVE.
pub fn create_table(
    world: &World,
    client: &Client,
    table: &str,
    pk: (&str, ScalarAttributeType),
    sk: Option<(&str, ScalarAttributeType)>,
) -> Result<(), BoxError> {
    let mut request = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(pk.0)
                .attribute_type(pk.1)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name(pk.0)
                .key_type(KeyType::Hash)
                .build()?,
        );
    if let Some((name, kind)) = sk {
        request = request
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(name)
                    .attribute_type(kind)
                    .build()?,
            )
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name(name)
                    .key_type(KeyType::Range)
                    .build()?,
            );
    }
    request.send()?;
    await_active(world, client, table)
}

/// Polls DescribeTable once a simulated second until the table is ACTIVE (at most a minute).
pub fn await_active(world: &World, client: &Client, table: &str) -> Result<(), BoxError> {
    for _ in 0..60 {
        let status = client
            .describe_table()
            .table_name(table)
            .send()?
            .table()
            .and_then(|t| t.table_status().cloned());
        if status == Some(TableStatus::Active) {
            return Ok(());
        }
        world.advance(Duration::from_secs(1));
    }
    Err(format!("table {table} was not ACTIVE after a minute").into())
}

/// Writes each item with PutItem.
pub fn put_items(
    client: &Client,
    table: &str,
    items: Vec<HashMap<String, AttributeValue>>,
) -> Result<(), BoxError> {
    for item in items {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .send()?;
    }
    Ok(())
}

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

pub fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The movies of the AWS Rust examples' table: `year` (N) is the partition key, `title` (S)
/// the sort key, `info` a map with `rating` and `genres`.
pub const MOVIES: &[(i32, &str, &str, &[&str])] = &[
    (2012, "Argo", "7.7", &["Drama", "Thriller"]),
    (2013, "Frozen", "7.4", &["Animation", "Musical"]),
    (2013, "Gravity", "7.7", &["Drama", "Sci-Fi"]),
    (2013, "Her", "8.0", &["Drama", "Romance"]),
    (2013, "Prisoners", "8.1", &["Crime", "Drama"]),
    (2013, "Rush", "8.1", &["Biography", "Sport"]),
    (2014, "Interstellar", "8.7", &["Adventure", "Sci-Fi"]),
    (2014, "Whiplash", "8.5", &["Drama", "Music"]),
];

pub fn movie_item(
    year: i32,
    title: &str,
    rating: &str,
    genres: &[&str],
) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("year".to_string(), n(year)),
        ("title".to_string(), s(title)),
        (
            "info".to_string(),
            AttributeValue::M(HashMap::from([
                ("rating".to_string(), AttributeValue::N(rating.to_string())),
                (
                    "genres".to_string(),
                    AttributeValue::L(genres.iter().map(|g| s(g)).collect()),
                ),
            ])),
        ),
    ])
}

/// A world holding the `Movies` table with [`MOVIES`] in it.
pub fn movies_world() -> Result<(World, Client), BoxError> {
    let (world, client) = world();
    create_table(
        &world,
        &client,
        "Movies",
        ("year", ScalarAttributeType::N),
        Some(("title", ScalarAttributeType::S)),
    )?;
    let items = MOVIES
        .iter()
        .map(|(year, title, rating, genres)| movie_item(*year, title, rating, genres))
        .collect();
    put_items(&client, "Movies", items)?;
    Ok((world, client))
}

/// A world holding an empty `Users` table keyed by `username` (S).
pub fn users_world() -> Result<(World, Client), BoxError> {
    let (world, client) = world();
    create_table(
        &world,
        &client,
        "Users",
        ("username", ScalarAttributeType::S),
        None,
    )?;
    Ok((world, client))
}
