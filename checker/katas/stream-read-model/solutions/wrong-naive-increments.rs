//! # Kata: a read model fed by a stream — KNOWN WRONG: naive increments
//!
//! Every record that arrives is applied: `ADD order_count :delta` and friends, one UpdateItem
//! per figure, the deltas right (old image out, new image in). With exactly-once delivery
//! the read model would be right. But streams deliver at least once: a batch delivered again,
//! or retried after the function failed halfway, is counted again. Must fail
//! `survives_redelivery_retries_and_a_split`.
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

fn contribution(image: Option<&Item>) -> Option<(String, String, i64)> {
    let image = image?;
    let text = |name: &str| image.get(name).and_then(|v| v.as_s().ok()).cloned();
    let total = image
        .get("total_cents")
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_i64())
        .unwrap_or(0);
    Some((text("customer_id")?, text("status")?, total))
}

fn add(client: &Client, pk: String, sk: &str, attribute: &str, delta: i64) -> Result<(), Error> {
    client
        .update_item()
        .table_name(READ_MODEL_TABLE)
        .key("PK", AttributeValue::S(pk))
        .key("SK", AttributeValue::S(sk.into()))
        .update_expression("ADD #a :d")
        .expression_attribute_names("#a", attribute)
        .expression_attribute_values(":d", AttributeValue::N(delta.to_string()))
        .send()?;
    Ok(())
}

/// The stream handler: applies every record it is given — again if it is given again.
pub fn handle(client: &Client, records: &[Record]) -> Result<(), Error> {
    for record in records {
        for (image, sign) in [(record.old_image(), -1), (record.new_image(), 1)] {
            if let Some((customer, status, total)) = contribution(image) {
                let pk = format!("CUSTOMER#{customer}");
                add(client, pk.clone(), "STATS", "order_count", sign)?;
                add(client, pk, "STATS", "spend_cents", sign * total)?;
                add(client, format!("STATUS#{status}"), "COUNT", "orders", sign)?;
            }
        }
    }
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
