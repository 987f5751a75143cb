//! # Kata: a read model fed by a stream — KNOWN WRONG: dedup in memory
//!
//! Each record's figures move in one TransactWriteItems, and the handler remembers the event
//! ids it applied in a global set, skipping a record it has seen. That survives redeliveries
//! to the same instance. But Lambda runs a handler in instances that come and go: a new
//! instance (a cold start after a timeout, a crash, a deployment, a scale-out) starts with an
//! empty set and applies again what the old one applied; and a write that was applied but
//! answered with an error is never remembered. Must fail `a_new_instance_starts_empty`.
//!
//! The shop's `orders` table streams every change. Keep a read model up to date from it — per
//! customer the number of orders and their total, per status the number of orders — with a
//! stream handler that gives the right answer although every batch may arrive more than once.
//! Task and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.
//!
//! `create_read_model_table`, `customer_stats` and `status_count` are written for you, for the
//! layout below; `handle` is yours. You may change the layout (add items, attributes or
//! tables) as long as the three readers keep answering from the read model.
//!
//! ```text
//! table order_stats       PK                 SK      attributes
//!   per customer          CUSTOMER#<id>      STATS   order_count (N), spend_cents (N)
//!   per status            STATUS#<status>    COUNT   orders (N)
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Record, ScalarAttributeType,
    TransactWriteItem, Update,
};
use engine::{AttributeValue, Client, Error, Item};
use given::{CustomerStats, READ_MODEL_TABLE};

/// Creates the read model's table (the tests call it once, before the first change).
pub fn create_read_model_table(client: &Client) -> Result<(), Error> {
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .expect("name and type are set")
    };
    let key = |name: &str, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
            .expect("name and key type are set")
    };
    client
        .create_table()
        .table_name(READ_MODEL_TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("PK"))
        .attribute_definitions(string("SK"))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        .send()?;
    Ok(())
}

/// What one order item contributes to the read model.
struct Contribution {
    customer: String,
    status: String,
    total: i64,
}

fn contribution(image: Option<&Item>) -> Option<Contribution> {
    let image = image?;
    let text = |name: &str| image.get(name).and_then(|v| v.as_s().ok()).cloned();
    Some(Contribution {
        customer: text("customer_id")?,
        status: text("status")?,
        total: image
            .get("total_cents")
            .and_then(AttributeValue::as_number)
            .and_then(|n| n.to_i64())
            .unwrap_or(0),
    })
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn add(pk: String, sk: &str, deltas: &[(&str, i64)]) -> TransactWriteItem {
    let mut update = Update::builder()
        .table_name(READ_MODEL_TABLE)
        .key("PK", s(pk))
        .key("SK", s(sk));
    let mut parts = Vec::new();
    for (i, (attribute, delta)) in deltas.iter().enumerate() {
        parts.push(format!("#a{i} :d{i}"));
        update = update
            .expression_attribute_names(format!("#a{i}"), *attribute)
            .expression_attribute_values(format!(":d{i}"), n(*delta));
    }
    let update = update.update_expression(format!("ADD {}", parts.join(", ")));
    TransactWriteItem::builder()
        .update(
            update
                .build()
                .expect("table, key and update expression are set"),
        )
        .build()
}

/// The event ids this handler has applied (kept for the life of the process: a Lambda
/// instance is reused from one invocation to the next, so its globals survive them).
static APPLIED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

fn applied() -> MutexGuard<'static, BTreeSet<String>> {
    APPLIED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The stream handler: each record once, by its event id, remembered in memory.
pub fn handle(client: &Client, records: &[Record]) -> Result<(), Error> {
    for record in records {
        if applied().contains(&record.event_id) {
            continue; // delivered again
        }
        apply(client, record)?;
        applied().insert(record.event_id.clone());
    }
    Ok(())
}

fn apply(client: &Client, record: &Record) -> Result<(), Error> {
    // Old image out, new image in: INSERT has no old image, REMOVE (a delete or a TTL expiry)
    // no new one, MODIFY both.
    let mut customers: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let mut statuses: BTreeMap<String, i64> = BTreeMap::new();
    for (image, sign) in [(record.old_image(), -1), (record.new_image(), 1)] {
        if let Some(c) = contribution(image) {
            let figures = customers.entry(c.customer).or_default();
            figures.0 += sign;
            figures.1 += sign * c.total;
            *statuses.entry(c.status).or_default() += sign;
        }
    }
    let mut actions: Vec<TransactWriteItem> = Vec::new();
    for (customer, (count, spend)) in customers {
        if count != 0 || spend != 0 {
            actions.push(add(
                format!("CUSTOMER#{customer}"),
                "STATS",
                &[("order_count", count), ("spend_cents", spend)],
            ));
        }
    }
    for (status, count) in statuses {
        if count != 0 {
            actions.push(add(
                format!("STATUS#{status}"),
                "COUNT",
                &[("orders", count)],
            ));
        }
    }
    if actions.is_empty() {
        return Ok(()); // a change that moves no figure (another attribute changed)
    }
    client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()?;
    Ok(())
}

/// A customer's figures, as the read model has them (zeros for a customer it does not know).
pub fn customer_stats(client: &Client, customer_id: &str) -> Result<CustomerStats, Error> {
    let out = client
        .get_item()
        .table_name(READ_MODEL_TABLE)
        .key("PK", AttributeValue::S(format!("CUSTOMER#{customer_id}")))
        .key("SK", AttributeValue::S("STATS".into()))
        .consistent_read(true)
        .send()?;
    let number = |name: &str| {
        out.item()
            .and_then(|item| item.get(name))
            .and_then(AttributeValue::as_number)
            .and_then(|n| n.to_i64())
            .unwrap_or(0)
    };
    Ok(CustomerStats {
        order_count: number("order_count"),
        spend_cents: number("spend_cents"),
    })
}

/// How many orders are in `status`, as the read model has it (0 if it has no count yet).
pub fn status_count(client: &Client, status: &str) -> Result<i64, Error> {
    let out = client
        .get_item()
        .table_name(READ_MODEL_TABLE)
        .key("PK", AttributeValue::S(format!("STATUS#{status}")))
        .key("SK", AttributeValue::S("COUNT".into()))
        .consistent_read(true)
        .send()?;
    Ok(out
        .item()
        .and_then(|item| item.get("orders"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_i64())
        .unwrap_or(0))
}
