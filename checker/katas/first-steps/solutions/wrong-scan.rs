//! Known-wrong solution of `first-steps`: the reads Scan the table with a FilterExpression (on
//! the customer's partition key) and sort in code. Right answers, at the price of reading every
//! item of the table, on every partition, on each call.

use engine::{AttributeValue, Client, Error, Item};
use given::{bad_item, Order, Profile, TABLE};

fn customer_pk(customer_id: &str) -> AttributeValue {
    AttributeValue::S(format!("CUSTOMER#{customer_id}"))
}

fn text(item: &Item, name: &str) -> Result<String, Error> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .ok_or_else(|| bad_item(format!("no string `{name}`")))
}

/// Numbers travel as strings (`N("4599")`): parse them on the way out.
fn number(item: &Item, name: &str) -> Result<u64, Error> {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad_item(format!("no number `{name}`")))
}

fn order_from(customer_id: &str, item: &Item) -> Result<Order, Error> {
    Ok(Order {
        customer_id: customer_id.to_string(),
        order_id: text(item, "order_id")?,
        placed_at: text(item, "placed_at")?,
        total_cents: number(item, "total_cents")?,
    })
}

/// Stores the profile with one PutItem (which replaces an existing profile whole).
pub fn save_profile(client: &Client, profile: &Profile) -> Result<(), Error> {
    let item = Item::from([
        ("PK".to_string(), customer_pk(&profile.customer_id)),
        ("SK".to_string(), AttributeValue::S("PROFILE".to_string())),
        ("name".to_string(), AttributeValue::S(profile.name.clone())),
        (
            "email".to_string(),
            AttributeValue::S(profile.email.clone()),
        ),
    ]);
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item))
        .send()?;
    Ok(())
}

/// Stores the order with one PutItem. `placed_at` leads the sort key, so sort-key order is time
/// order; the order id after it keeps two orders of the same second apart.
pub fn save_order(client: &Client, order: &Order) -> Result<(), Error> {
    let sk = format!("ORDER#{}#{}", order.placed_at, order.order_id);
    let item = Item::from([
        ("PK".to_string(), customer_pk(&order.customer_id)),
        ("SK".to_string(), AttributeValue::S(sk)),
        (
            "order_id".to_string(),
            AttributeValue::S(order.order_id.clone()),
        ),
        (
            "placed_at".to_string(),
            AttributeValue::S(order.placed_at.clone()),
        ),
        (
            "total_cents".to_string(),
            AttributeValue::N(order.total_cents.to_string()),
        ),
    ]);
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item))
        .send()?;
    Ok(())
}

/// Scans the table for the customer's profile.
pub fn profile(client: &Client, customer_id: &str) -> Result<Option<Profile>, Error> {
    let items = scan_customer(client, customer_id)?;
    let Some(item) = items
        .iter()
        .find(|i| i.get("SK") == Some(&AttributeValue::S("PROFILE".to_string())))
    else {
        return Ok(None);
    };
    Ok(Some(Profile {
        customer_id: customer_id.to_string(),
        name: text(item, "name")?,
        email: text(item, "email")?,
    }))
}

/// Every item of the customer, found by a Scan of the whole table (all pages).
fn scan_customer(client: &Client, customer_id: &str) -> Result<Vec<Item>, Error> {
    let mut items = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = client
            .scan()
            .table_name(TABLE)
            .filter_expression("PK = :pk")
            .expression_attribute_values(":pk", customer_pk(customer_id))
            .set_exclusive_start_key(start)
            .send()?;
        items.extend(page.items().iter().cloned());
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return Ok(items);
        }
    }
}

/// The customer's orders whose sort key starts with `prefix`, oldest first.
fn scan_orders(client: &Client, customer_id: &str, prefix: &str) -> Result<Vec<Order>, Error> {
    let mut orders: Vec<(String, Order)> = Vec::new();
    for item in scan_customer(client, customer_id)? {
        let sk = text(&item, "SK")?;
        if sk.starts_with(prefix) {
            orders.push((sk, order_from(customer_id, &item)?));
        }
    }
    orders.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(orders.into_iter().map(|(_, o)| o).collect())
}

pub fn recent_orders(
    client: &Client,
    customer_id: &str,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    let mut orders = scan_orders(client, customer_id, "ORDER#")?;
    orders.reverse();
    orders.truncate(limit);
    Ok(orders)
}

pub fn orders_placed_in(
    client: &Client,
    customer_id: &str,
    period: &str,
) -> Result<Vec<Order>, Error> {
    scan_orders(client, customer_id, &format!("ORDER#{period}"))
}
