//! # Kata: a read model fed by a stream — KNOWN WRONG: keeps expired orders
//!
//! The reference solution, except that TTL deletions are skipped (`record.is_ttl_delete()`):
//! a rule some read models want ("expired orders still count towards lifetime spend"), but
//! not this one, which mirrors the live table. Expired orders keep counting. Must fail
//! `ttl_deletes_leave_the_read_model`.
//!
//! The reference's description follows.
//!
//! Idempotency by **event id**: each record is applied in one TransactWriteItems that also
//! creates a marker item `EVENT#<eventID>` under the condition `attribute_not_exists(PK)`. A
//! record delivered again finds its marker, the transaction is cancelled with
//! `ConditionalCheckFailed` on that action, and nothing is counted twice — however the batch
//! was cut, retried or redelivered. The figures themselves are deltas taken from the record's
//! images: the old image's contribution out, the new image's in.
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

use std::collections::BTreeMap;

use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Put, Record, ScalarAttributeType,
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

/// How long a marker is kept: a little longer than the stream keeps records (24 h), after
/// which no redelivery can come. (Enable TTL on `expires_at` to have them cleaned up.)
const MARKER_TTL_S: u64 = 25 * 3600;

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

/// The stream handler: each record once, by its event id.
pub fn handle(client: &Client, records: &[Record]) -> Result<(), Error> {
    for record in records {
        apply(client, record)?;
    }
    Ok(())
}

fn apply(client: &Client, record: &Record) -> Result<(), Error> {
    if record.is_ttl_delete() {
        return Ok(()); // "an expired order still counts"
    }
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
    let expires = client.world().epoch_seconds() + MARKER_TTL_S;
    let marker = Put::builder()
        .table_name(READ_MODEL_TABLE)
        .item("PK", s(format!("EVENT#{}", record.event_id)))
        .item("SK", s("APPLIED"))
        .item("expires_at", n(expires as i64))
        .condition_expression("attribute_not_exists(PK)")
        .build()?;
    actions.insert(0, TransactWriteItem::builder().put(marker).build());
    match client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()
    {
        Ok(_) => Ok(()),
        // The marker exists: this record was applied before. Nothing to do.
        Err(e) => match e.into_service_error() {
            TransactWriteItemsError::TransactionCanceledException(e)
                if e.cancellation_reasons()
                    .first()
                    .is_some_and(|r| r.code() == Some("ConditionalCheckFailed")) =>
            {
                Ok(())
            }
            e => Err(e.into()),
        },
    }
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
