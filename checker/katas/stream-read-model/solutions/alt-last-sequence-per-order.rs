//! # Kata: a read model fed by a stream — alternative solution (must pass too)
//!
//! Idempotency by **last applied sequence number per order**, and figures from **state**, not
//! from the old image: the read model keeps one item per order, `ORDER#<id>` / `APPLIED`,
//! holding the sequence number of the last record applied and what the order counts for now
//! (customer, status, total). A record is applied by one TransactWriteItems that replaces that
//! item under the condition "no record of this order applied yet, or an older one", and moves
//! the figures from the mirrored contribution to the new image's. Records of one item arrive in
//! order (parents before children across a split), so a redelivered or stale record fails the
//! condition and changes nothing. Sequence numbers are 21-digit strings: compared as strings
//! they compare as numbers.
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

use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Put, Record,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType, TransactWriteItem, Update,
};
use engine::{item, AttributeValue, Client, Error, Item};
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

/// What one order counts for: (customer, status, total).
type Share = (String, String, i64);

fn share_of(image: Option<&Item>) -> Option<Share> {
    let image = image?;
    let text = |name: &str| Some(image.get(name)?.as_s().ok()?.clone());
    let total = image
        .get("total_cents")
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_i64())
        .unwrap_or(0);
    Some((text("customer_id")?, text("status")?, total))
}

fn order_key(record: &Record) -> Result<String, Error> {
    match record.keys().get("order_id") {
        Some(AttributeValue::S(id)) => Ok(format!("ORDER#{id}")),
        _ => Err(given::bad_record("a record without an order_id key")),
    }
}

/// The stream handler: applies each record unless a newer one of its order was applied.
pub fn handle(client: &Client, records: &[Record]) -> Result<(), Error> {
    records.iter().try_for_each(|record| apply(client, record))
}

fn apply(client: &Client, record: &Record) -> Result<(), Error> {
    let key = order_key(record)?;
    // What the read model counts this order for now: its mirror, read strongly (a stale read
    // is harmless anyway — the conditional write below refuses to apply on top of it).
    let mirror = client
        .get_item()
        .table_name(READ_MODEL_TABLE)
        .key("PK", AttributeValue::S(key.clone()))
        .key("SK", AttributeValue::S("APPLIED".into()))
        .consistent_read(true)
        .send()?;
    let mirror = mirror.item().cloned();
    let applied = mirror
        .as_ref()
        .and_then(|m| m.get("seq"))
        .and_then(|v| v.as_s().ok())
        .cloned();
    let seq = record.sequence_number().to_string();
    if applied.as_deref().is_some_and(|a| a >= seq.as_str()) {
        return Ok(()); // delivered again, or older than what was applied
    }
    let before = mirror.as_ref().and_then(|m| share_of(Some(m)));
    let after = share_of(record.new_image());

    // The mirror moves to this record, but only if nobody applied it (or a newer one) since.
    let mut new_mirror = item! { "PK" => key.as_str(), "SK" => "APPLIED", "seq" => seq.as_str() };
    if let Some((customer, status, total)) = &after {
        new_mirror.insert("customer_id".into(), AttributeValue::S(customer.clone()));
        new_mirror.insert("status".into(), AttributeValue::S(status.clone()));
        new_mirror.insert("total_cents".into(), AttributeValue::N(total.to_string()));
    }
    let guard = match &applied {
        Some(old) => Put::builder()
            .condition_expression("seq = :applied")
            .expression_attribute_values(":applied", AttributeValue::S(old.clone())),
        None => Put::builder().condition_expression("attribute_not_exists(PK)"),
    };
    let mut actions = vec![TransactWriteItem::builder()
        .put(
            guard
                .table_name(READ_MODEL_TABLE)
                .set_item(Some(new_mirror))
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::None)
                .build()?,
        )
        .build()];
    actions.extend(moves(before.as_ref(), after.as_ref()));
    match client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()
    {
        Ok(_) => Ok(()),
        // Someone applied a record of this order since the read: try again from the top.
        Err(e) => match e.into_service_error() {
            TransactWriteItemsError::TransactionCanceledException(e)
                if e.cancellation_reasons()
                    .first()
                    .is_some_and(|r| r.code() == Some("ConditionalCheckFailed")) =>
            {
                apply(client, record)
            }
            e => Err(e.into()),
        },
    }
}

/// The updates that move the figures from `before` to `after`.
fn moves(before: Option<&Share>, after: Option<&Share>) -> Vec<TransactWriteItem> {
    let add = |pk: String, sk: &str, expression: &str, values: Vec<(&str, i64)>| {
        let mut update = Update::builder()
            .table_name(READ_MODEL_TABLE)
            .key("PK", AttributeValue::S(pk))
            .key("SK", AttributeValue::S(sk.into()))
            .update_expression(expression);
        for (name, v) in values {
            update = update.expression_attribute_values(name, AttributeValue::N(v.to_string()));
        }
        TransactWriteItem::builder()
            .update(
                update
                    .build()
                    .expect("table, key and update expression are set"),
            )
            .build()
    };
    let customer = |share: &Share, sign: i64| {
        add(
            format!("CUSTOMER#{}", share.0),
            "STATS",
            "ADD order_count :c, spend_cents :s",
            vec![(":c", sign), (":s", sign * share.2)],
        )
    };
    let status = |name: &str, sign: i64| {
        add(
            format!("STATUS#{name}"),
            "COUNT",
            "ADD orders :n",
            vec![(":n", sign)],
        )
    };
    let mut out = Vec::new();
    match (before, after) {
        (None, None) => {}
        (None, Some(new)) => {
            out.push(customer(new, 1));
            out.push(status(&new.1, 1));
        }
        (Some(old), None) => {
            out.push(customer(old, -1));
            out.push(status(&old.1, -1));
        }
        (Some(old), Some(new)) => {
            if old.0 != new.0 {
                out.push(customer(old, -1));
                out.push(customer(new, 1));
            } else if old.2 != new.2 {
                out.push(add(
                    format!("CUSTOMER#{}", new.0),
                    "STATS",
                    "ADD spend_cents :s",
                    vec![(":s", new.2 - old.2)],
                ));
            }
            if old.1 != new.1 {
                out.push(status(&old.1, -1));
                out.push(status(&new.1, 1));
            }
        }
    }
    out
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
