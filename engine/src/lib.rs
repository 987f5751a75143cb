//! # A deterministic, observable model of Amazon DynamoDB
//!
//! This crate is the reference engine of DynamoDB Katas. It behaves like DynamoDB as an
//! application sees it — the same operations, expressions, limits, errors and capacity
//! arithmetic — and it lets you see what happens inside: the partitions a table is split
//! into, the three replicas of each, the capacity each request consumed.
//!
//! ## How a request flows
//!
//! ```text
//! client.put_item()…send()
//!   │  ops::put_item      validate the request: names, expressions, item, key, size
//!   │  expr               parse ConditionExpression; evaluate it against the current item
//!   │  capacity           what the write costs (WCU), admitted or throttled
//!   ▼  table::Store       route by hash of the partition key to one partition;
//!                         the leader applies it, one follower acknowledges (quorum 2 of 3),
//!                         the third follower gets it after a replication delay
//! ```
//!
//! Everything runs inside a [`World`]: a simulated clock that moves only when you advance
//! it, and one seeded random generator. The same seed and the same requests always produce
//! the same run.
//!
//! ## A first taste
//!
//! ```
//! use engine::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType};
//! use engine::{item, AttributeValue, World};
//!
//! let world = World::new(7);
//! let client = world.client();
//! client.create_table().table_name("app")
//!     .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
//!     .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
//!     .billing_mode(BillingMode::PayPerRequest)
//!     .send()?;
//! client.put_item().table_name("app").set_item(Some(item! { "PK" => "USER#1", "name" => "Ana" })).send()?;
//! let out = client.get_item().table_name("app")
//!     .key("PK", AttributeValue::S("USER#1".into()))
//!     .consistent_read(true)
//!     .send()?;
//! assert_eq!(out.item().unwrap()["name"], AttributeValue::S("Ana".into()));
//! # Ok::<(), engine::Error>(())
//! ```
//!
//! ## Differences from the AWS SDK
//!
//! - `send()` is synchronous: there is no network and nothing to await.
//! - Items are `BTreeMap`s (the SDK uses `HashMap`), so every iteration is deterministic.
//! - Builders of nested request types (`Put::builder()…build()`) return the value, not a
//!   `Result`; missing required fields are reported by `send()`.

pub mod capacity;
pub mod client;
pub mod error;
pub mod expr;
pub mod index;
pub mod ops;
pub mod stream;
pub mod table;
pub mod ttl;
pub mod types;
pub mod value;
pub mod world;

pub use client::Client;
pub use error::{CancellationReason, Error, Result};
pub use value::{from_item, item_size, to_item, AttributeValue, Blob, Item, Number};
pub use world::{World, WorldConfig};
