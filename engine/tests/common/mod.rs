//! Helpers for the scenario tests: a world with one table, short key builders.
#![allow(dead_code)]

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ProvisionedThroughput,
    ScalarAttributeType,
};
use engine::{AttributeValue, Client, Item, World};

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

pub fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// A world (seed 1) with an on-demand table `app` keyed by `PK` (S) and `SK` (S).
pub fn app() -> (World, Client) {
    let world = World::new(1);
    let client = world.client();
    create_app(&client);
    (world, client)
}

/// Creates the on-demand table `app` (PK, SK strings).
pub fn create_app(client: &Client) {
    client
        .create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
}

/// A provisioned table `t` keyed by `id` of type `key_type`, with no sort key.
pub fn hash_only(client: &Client, name: &str, key_type: ScalarAttributeType) {
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("id", key_type))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(100, 100))
        .send()
        .unwrap();
}

/// Puts an item into `app`; a throttled put waits a simulated second and retries (setup
/// code loading many items into one partition meets the 1,000 WCU/s ceiling).
pub fn put(client: &Client, item: Item) {
    put_into(client, "app", item);
}

/// Puts an item into `table`, retrying throttled puts a simulated second later.
pub fn put_into(client: &Client, table: &str, item: Item) {
    loop {
        match client
            .put_item()
            .table_name(table)
            .set_item(Some(item.clone()))
            .send()
        {
            Ok(_) => return,
            Err(e) if e.is_throttling() => {
                client.world().advance(std::time::Duration::from_secs(1))
            }
            Err(e) => panic!("put into {table} failed: {e}"),
        }
    }
}

/// A strongly consistent read of `app` by PK/SK.
pub fn get(client: &Client, pk: &str, sk: &str) -> Option<Item> {
    client
        .get_item()
        .table_name("app")
        .key("PK", s(pk))
        .key("SK", s(sk))
        .consistent_read(true)
        .send()
        .unwrap()
        .into_item()
}

/// DynamoDB's message of an error result (any layer: `SdkError`, an operation's error, the
/// service-wide `Error`).
pub fn message<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(
    r: Result<T, E>,
) -> String {
    r.expect_err("expected an error")
        .message()
        .unwrap_or_default()
        .to_string()
}

/// Asserts a constraint message that quotes the request's value back (DynamoDB renders it
/// with its Java model's `toString`): `1 validation error detected: Value '<value>' at
/// <rest>`, the value starting with `value_start` (the whole value can run to kilobytes).
pub fn assert_echoed(message: &str, value_start: &str, rest: &str) {
    let head = format!("1 validation error detected: Value '{value_start}");
    assert!(
        message.starts_with(&head),
        "expected a message starting {head:?}, got {:?}",
        &message[..message.len().min(300)]
    );
    let tail = format!("' at {rest}");
    assert!(
        message.ends_with(&tail),
        "expected a message ending {tail:?}, got …{:?}",
        &message[message.len().saturating_sub(300)..]
    );
}

/// A world (seed `seed`) whose new tables start with empty buckets
/// (`new_table_buckets_full: false`): a table is born with its burst saved, and a scenario
/// about the per-second rule alone — a 5 WCU table throttling its sixth write of a second —
/// or about a bucket filling from nothing needs one that holds nothing yet.
pub fn world_with_empty_buckets(seed: u64) -> World {
    World::with_config(engine::WorldConfig {
        seed,
        new_table_buckets_full: false,
        ..engine::WorldConfig::default()
    })
}
