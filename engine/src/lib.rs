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
//!   │  write              the write path, shared by every kind of write (requests, TTL
//!   │                     deletions, writes from another Region):
//!   ▼  table::Store       route by hash of the partition key to one partition;
//!                         the leader applies it, one follower acknowledges (quorum 2 of 3),
//!                         the third follower gets it after a replication delay (the
//!                         replication piece decides who, table::replication);
//!                         then the TTL index, the indexes, the stream, the other Regions
//! ```
//!
//! Everything runs inside a [`World`]: a simulated clock that moves only when you advance
//! it, and one seeded random generator. The same seed and the same requests always produce
//! the same run.
//!
//! ## Where things are
//!
//! Each concept has its module, and its module's opening essay explains it: [`table`]
//! (partitions, replicas, quorum replication and splits), [`capacity`] (costs, admission,
//! throttling), [`index`], [`stream`], [`ttl`], [`global`] (Regions and global tables),
//! [`expr`] (expressions), [`value`] (items), [`write`](mod@write) (the write path every
//! write takes). Dependencies point one way, downwards; a module never imports from a layer
//! above its own:
//!
//! ```text
//!   client, ops (one file per operation)
//!     └▶ world (the clock, the seed, the agenda), global (Regions, global tables)
//!          └▶ write (the write path)
//!               └▶ table, index, capacity, stream, ttl  (the pieces of one table: a
//!                    │                                   Table holds its indexes, stream
//!                    │                                   and TTL index; they share its
//!                    │                                   keys, table::key)
//!                    └▶ expr, value, types, error, rng
//! ```
//!
//! **Timed work and faults.** Everything that happens on the clock after a request has
//! returned — replication catch-up, elections, splits, index propagation and backfills,
//! TTL sweeps, stream shards and trimming, consumer polls, replication between Regions — is
//! one kind of work on the world's agenda, `world/agenda.rs` (the `Work` enum and its
//! `AGENDA` list). A new kind of timed work, or a fault that schedules some, is added there,
//! in one place; the faults themselves are named operations in [`world::faults`].
//!
//! ## A first taste
//!
//! ```
//! use engine::types::{AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType};
//! use engine::{item, World};
//!
//! let world = World::new(7);
//! let client = world.client();
//! client.create_table().table_name("app")
//!     .attribute_definitions(AttributeDefinition::builder().attribute_name("PK").attribute_type(ScalarAttributeType::S).build()?)
//!     .key_schema(KeySchemaElement::builder().attribute_name("PK").key_type(KeyType::Hash).build()?)
//!     .billing_mode(BillingMode::PayPerRequest)
//!     .send()?;
//! client.put_item().table_name("app").set_item(Some(item! { "PK" => "USER#1", "name" => "Ana" })).send()?;
//! let out = client.get_item().table_name("app")
//!     .key("PK", AttributeValue::S("USER#1".into()))
//!     .consistent_read(true)
//!     .send()?;
//! assert_eq!(out.item().unwrap()["name"], AttributeValue::S("Ana".into()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Code written here is `aws-sdk-dynamodb` code
//!
//! The public API has the shape of the AWS SDK for Rust (`aws-sdk-dynamodb` 1.x), name for
//! name: [`Client`] at the root; the shapes and `AttributeValue` in [`types`], each built with
//! `X::builder()…build()`, fallible exactly where the SDK's is ([`error::BuildError`]);
//! [`primitives::Blob`]; every operation at `operation::<op>::{<Op>Input, <Op>Output,
//! builders::<Op>FluentBuilder}` ([`operation`]); every fluent setter with its `set_` and
//! `get_` forms; every `send()` failing with the SDK's `error::SdkError<<Op>Error>`, whose
//! per-operation enum names the exceptions the SDK models for that operation
//! (`PutItemError::ConditionalCheckFailedException(e)`, `e.item()`), the rest `Unhandled`
//! (`ValidationException`: read `code()` from [`error::ProvideErrorMetadata`]), and which `?`
//! turns into the service-wide [`Error`] ([`error`] has the layers). A snippet written for
//! the SDK moves here with two mechanical edits:
//!
//! - **No `.await`.** `send()` is synchronous: there is no network, and the clock is
//!   simulated ([`World::advance`] is the `sleep`). Drop `async`, `.await` and the runtime;
//!   nothing else about the call changes.
//! - **The crate's name**: `engine::` where the SDK has `aws_sdk_dynamodb::`, and a client
//!   from a [`World`] (`world.client()`) instead of one from `aws_config`.
//!
//! The shapes and enums are `Clone`, not `Copy`, as the SDK's are (only `DateTime` is `Copy`,
//! as the SDK's is): code that moves a `KeyType` or a `ProvisionedThroughput` twice fails
//! here as it would there.
//!
//! Outputs have the SDK's `Option`-ness: `table.table_status()` is an `Option<&TableStatus>`,
//! `out.responses()` an `Option<&map>`, a list accessor a slice (empty when absent). The
//! waiters are there too ([`client::Waiters`], [`waiters`]), sleeping on the simulated
//! clock, and a paginator is an iterator with the stream's `try_next()`.
//!
//! Known differences, each for a stated reason: `GetItemOutput`'s item is read through its
//! accessor `item()` (or `into_item()`, owned) only, not also a public field (a field would
//! copy every item read; see [`operation::get_item::GetItemOutput`]); a Query or Scan page's
//! `items` field is an [`Items`] where the SDK has a `Vec<HashMap<..>>` (it shares the stored
//! items and reads like the `Vec`, whose type only code naming it meets; `ops/items.rs`); and a new
//! table is `ACTIVE` at once unless the world says otherwise
//! ([`WorldConfig::table_creation_ms`]), so set-up code need not wait.
//!
//! What is not the SDK is marked so in its doc: `is_throttling()` / `is_retryable()` on the
//! errors and [`Error::validation`], the [`item!`] literal, [`to_item`] /
//! [`from_item`] / [`value::from_items`] (serde_dynamo's, with its signatures), shortcuts such
//! as `KeySchemaElement::new`, and everything about the world ([`World`], faults, inspection).
//!
//! ## Items are the SDK's `HashMap`, and nothing shows its order
//!
//! An [`Item`] is `std::collections::HashMap<String, AttributeValue>`, as in the SDK, and so
//! is the map inside `AttributeValue::M`, every placeholder map and the request and result
//! maps of the batch operations. Code that names the SDK's types —
//! `fn movie(item: &HashMap<String, AttributeValue>)`, `let items: Vec<HashMap<..>> =
//! out.items().to_vec()`, `AttributeValue::M(HashMap::from(..))` — compiles unchanged. The
//! setters take a `BTreeMap` too ([`value::MapInput`]), for code that builds its maps in order.
//!
//! The cost is determinism's: std's `HashMap` iterates in an order drawn from per-process
//! random keys, and the engine must not let that order show anywhere, or a seed would no
//! longer replay a run. So everything the engine derives from an item's attributes walks them
//! in name order ([`value::sorted`]): which of several bad attributes a ValidationException
//! names, unused placeholders, the tables of a batch (their order decides which requests are
//! throttled), a struct deserialized from an item, an item's `Debug` inside an
//! `AttributeValue::M` and in [`World::trace_hash`], DynamoDB JSON. Comparisons go by key,
//! never by walking two maps side by side. What a learner's own code does with the order of a
//! returned item is theirs, as it is with the SDK; the checker prints items sorted.
//!
//! Measured (issue 17, `cargo bench --bench engine`, interleaved with the `BTreeMap` engine in
//! the same run): see the README's benchmark section.
//!
pub mod capacity;
pub mod client;
pub mod error;
pub mod expr;
pub mod global;
pub mod index;
pub mod operation;
pub mod ops;
pub mod primitives;
pub mod rng;
pub mod seams;
pub mod stream;
pub mod table;
pub mod ttl;
pub mod types;
pub mod value;
pub mod waiters;
pub mod world;
pub mod write;

pub use client::Client;
pub use error::{CancellationReason, Error};
pub use ops::items::Items;

/// Not part of the SDK: a result whose error is the service-wide [`Error`], into which every
/// `send()`'s error converts with `?`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
pub use global::Region;
pub use value::{from_item, from_items, item_size, to_item, AttributeValue, Blob, Item, Number};
pub use world::{World, WorldConfig};
