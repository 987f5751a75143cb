//! # Kata: a read model fed by a stream — KNOWN WRONG: marker outside the figures' writes
//!
//! Idempotent by event id, almost: each record first creates its marker `EVENT#<eventID>`
//! with a conditional PutItem (`attribute_not_exists(PK)`: a repeat is refused and skipped),
//! then moves the figures with one UpdateItem per figure item. Marker and figures are separate
//! requests, so a failure between them — or a write that was applied but answered with an
//! error — leaves the marker without its figures: the retried batch finds the marker and skips
//! the record, whose change is lost. Must fail `a_function_stopped_partway_through_a_record`.

use std::collections::BTreeMap;

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
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

/// (customer, status, total) of an order image.
fn share(image: Option<&Item>) -> Option<(String, String, i64)> {
    let image = image?;
    let text = |name: &str| image.get(name).and_then(|v| v.as_s().ok()).cloned();
    let total = image
        .get("total_cents")
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_i64())
        .unwrap_or(0);
    Some((text("customer_id")?, text("status")?, total))
}

/// The figure changes of one record: per read-model key, the (attribute, delta) pairs.
fn deltas(record: &Record) -> BTreeMap<(String, &'static str), Vec<(&'static str, i64)>> {
    let mut customers: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let mut statuses: BTreeMap<String, i64> = BTreeMap::new();
    for (image, sign) in [(record.old_image(), -1), (record.new_image(), 1)] {
        if let Some((customer, status, total)) = share(image) {
            let c = customers.entry(customer).or_default();
            c.0 += sign;
            c.1 += sign * total;
            *statuses.entry(status).or_default() += sign;
        }
    }
    let mut out = BTreeMap::new();
    for (customer, (count, spend)) in customers {
        if count != 0 || spend != 0 {
            out.insert(
                (format!("CUSTOMER#{customer}"), "STATS"),
                vec![("order_count", count), ("spend_cents", spend)],
            );
        }
    }
    for (status, count) in statuses {
        if count != 0 {
            out.insert(
                (format!("STATUS#{status}"), "COUNT"),
                vec![("orders", count)],
            );
        }
    }
    out
}

/// One UpdateItem adding `deltas` to the item `pk`/`sk`.
fn add(client: &Client, pk: &str, sk: &str, deltas: &[(&str, i64)]) -> Result<(), Error> {
    let mut update = client
        .update_item()
        .table_name(READ_MODEL_TABLE)
        .key("PK", AttributeValue::S(pk.into()))
        .key("SK", AttributeValue::S(sk.into()));
    let mut parts = Vec::new();
    for (i, (attribute, delta)) in deltas.iter().enumerate() {
        parts.push(format!("#a{i} :d{i}"));
        update = update
            .expression_attribute_names(format!("#a{i}"), *attribute)
            .expression_attribute_values(format!(":d{i}"), AttributeValue::N(delta.to_string()));
    }
    update
        .update_expression(format!("ADD {}", parts.join(", ")))
        .send()?;
    Ok(())
}

/// The stream handler: marker first, then the figures.
pub fn handle(client: &Client, records: &[Record]) -> Result<(), Error> {
    for record in records {
        let claimed = client
            .put_item()
            .table_name(READ_MODEL_TABLE)
            .item(
                "PK",
                AttributeValue::S(format!("EVENT#{}", record.event_id)),
            )
            .item("SK", AttributeValue::S("APPLIED".into()))
            .condition_expression("attribute_not_exists(PK)")
            .send();
        match claimed.map_err(SdkError::into_service_error) {
            Ok(_) => {}
            Err(PutItemError::ConditionalCheckFailedException(_)) => continue, // applied before
            Err(e) => return Err(e.into()),
        }
        for ((pk, sk), figures) in deltas(record) {
            add(client, &pk, sk, &figures)?;
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
