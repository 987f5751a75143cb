//! # Kata: first steps — another correct route
//!
//! The same five requests, written another way: items built attribute by attribute with the
//! builders' `.item(..)` setter, the key as one map (`set_key`), placeholders for the key
//! attributes' names, and `BETWEEN` instead of `begins_with` for the sort-key range. A prefix
//! `P` is the range `P ..= P~`: every sort key that starts with `P` (ISO times, `#` and order
//! ids sort below `~`) and nothing else.

use engine::{AttributeValue, Client, Error, Item};
use given::{bad_item, Order, Profile, TABLE};

/// The upper end of a prefix range: `~` (0x7E) sorts after every character of an ISO time,
/// `#` and an order id.
const PAST_PREFIX: char = '~';

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn order_from(customer_id: &str, item: &Item) -> Result<Order, Error> {
    let text = |name: &str| match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v.clone()),
        _ => Err(bad_item(format!("order without string `{name}`"))),
    };
    let total_cents = match item.get("total_cents") {
        Some(AttributeValue::N(n)) => n.parse::<u64>().ok(),
        _ => None,
    }
    .ok_or_else(|| bad_item("order without number `total_cents`"))?;
    Ok(Order {
        customer_id: customer_id.to_string(),
        order_id: text("order_id")?,
        placed_at: text("placed_at")?,
        total_cents,
    })
}

/// The customer's orders whose sort key lies in `prefix ..= prefix~`, in the given direction.
fn orders_with_prefix(
    client: &Client,
    customer_id: &str,
    prefix: String,
    newest_first: bool,
    limit: Option<i32>,
) -> Result<Vec<Order>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("#pk = :pk AND #sk BETWEEN :from AND :to")
        .expression_attribute_names("#pk", "PK")
        .expression_attribute_names("#sk", "SK")
        .expression_attribute_values(":pk", s(format!("CUSTOMER#{customer_id}")))
        .expression_attribute_values(":from", s(prefix.clone()))
        .expression_attribute_values(":to", s(format!("{prefix}{PAST_PREFIX}")))
        .scan_index_forward(!newest_first)
        .set_limit(limit)
        .send()?;
    let mut orders = Vec::with_capacity(out.items().len());
    for item in out.items() {
        orders.push(order_from(customer_id, item)?);
    }
    Ok(orders)
}

pub fn save_profile(client: &Client, profile: &Profile) -> Result<(), Error> {
    client
        .put_item()
        .table_name(TABLE)
        .item("PK", s(format!("CUSTOMER#{}", profile.customer_id)))
        .item("SK", s("PROFILE"))
        .item("name", s(profile.name.as_str()))
        .item("email", s(profile.email.as_str()))
        .send()?;
    Ok(())
}

pub fn save_order(client: &Client, order: &Order) -> Result<(), Error> {
    client
        .put_item()
        .table_name(TABLE)
        .item("PK", s(format!("CUSTOMER#{}", order.customer_id)))
        .item(
            "SK",
            s(format!("ORDER#{}#{}", order.placed_at, order.order_id)),
        )
        .item("order_id", s(order.order_id.as_str()))
        .item("placed_at", s(order.placed_at.as_str()))
        .item(
            "total_cents",
            AttributeValue::N(order.total_cents.to_string()),
        )
        .send()?;
    Ok(())
}

pub fn profile(client: &Client, customer_id: &str) -> Result<Option<Profile>, Error> {
    let key = Item::from([
        ("PK".to_string(), s(format!("CUSTOMER#{customer_id}"))),
        ("SK".to_string(), s("PROFILE")),
    ]);
    let out = client
        .get_item()
        .table_name(TABLE)
        .set_key(Some(key))
        .consistent_read(true)
        .send()?;
    match out.item() {
        None => Ok(None),
        Some(item) => {
            let text = |name: &str| {
                item.get(name)
                    .and_then(|v| v.as_s().ok())
                    .cloned()
                    .ok_or_else(|| bad_item(format!("profile without string `{name}`")))
            };
            Ok(Some(Profile {
                customer_id: customer_id.to_string(),
                name: text("name")?,
                email: text("email")?,
            }))
        }
    }
}

pub fn recent_orders(
    client: &Client,
    customer_id: &str,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    let limit = i32::try_from(limit).unwrap_or(i32::MAX);
    orders_with_prefix(client, customer_id, "ORDER#".to_string(), true, Some(limit))
}

pub fn orders_placed_in(
    client: &Client,
    customer_id: &str,
    period: &str,
) -> Result<Vec<Order>, Error> {
    orders_with_prefix(client, customer_id, format!("ORDER#{period}"), false, None)
}
