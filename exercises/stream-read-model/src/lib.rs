//! # Kata: a read model fed by a stream
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

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Record, ScalarAttributeType,
};
use engine::{AttributeValue, Client, Error};
use given::{CustomerStats, READ_MODEL_TABLE};

// The tables (`given::ORDERS_TABLE`, `given::READ_MODEL_TABLE`), the statuses
// (`given::STATUSES`) and `CustomerStats` are the kata's given part:
// checker/katas/stream-read-model/given/src/lib.rs.

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

/// The stream handler: the tests subscribe it to the orders table's stream and call it with
/// each batch of records, in order per order item, **at least once** — a batch can arrive
/// again after it succeeded, and a batch whose handling failed (even halfway) is retried
/// whole. Return `Err` when you could not apply the batch: it will be delivered again.
///
/// An order counts while it is in the table: `INSERT` adds it, `MODIFY` changes its status or
/// total, `REMOVE` — a delete, or a TTL expiry — takes it out again.
pub fn handle(client: &Client, records: &[Record]) -> Result<(), Error> {
    // TODO: turn each record into changes of the customer's figures and the status counts
    // (old image out, new image in), and apply each record exactly once however often it is
    // delivered.
    let _ = (client, records);
    Err(given::not_written_yet("handle"))
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
