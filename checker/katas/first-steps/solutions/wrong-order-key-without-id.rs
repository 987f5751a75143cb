//! Known-wrong solution of `first-steps`: save_order keys an order by its time alone
//! (`SK = ORDER#<placed_at>`). The orders still sort by time, but two orders of one customer
//! placed in the same second get the same primary key (PK + SK), and the second PutItem
//! replaces the first.

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

/// Stores the order with one PutItem under `ORDER#<placed_at>`: time order, but one key per
/// second, whoever ordered in it.
pub fn save_order(client: &Client, order: &Order) -> Result<(), Error> {
    let sk = format!("ORDER#{}", order.placed_at);
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

/// One GetItem with the whole key; an absent item is `Ok(None)`, an error stays an error.
pub fn profile(client: &Client, customer_id: &str) -> Result<Option<Profile>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", customer_pk(customer_id))
        .key("SK", AttributeValue::S("PROFILE".to_string()))
        .send()?;
    let Some(item) = out.item() else {
        return Ok(None);
    };
    Ok(Some(Profile {
        customer_id: customer_id.to_string(),
        name: text(item, "name")?,
        email: text(item, "email")?,
    }))
}

/// One Query: the customer's orders only (begins_with), read from the newest end
/// (ScanIndexForward = false), and no more than `limit` of them read.
pub fn recent_orders(
    client: &Client,
    customer_id: &str,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :prefix)")
        .expression_attribute_values(":pk", customer_pk(customer_id))
        .expression_attribute_values(":prefix", AttributeValue::S("ORDER#".to_string()))
        .scan_index_forward(false)
        .limit(limit as i32)
        .send()?;
    out.items()
        .iter()
        .map(|item| order_from(customer_id, item))
        .collect()
}

/// One Query: the period is a prefix of `placed_at`, so `ORDER#<period>` is a prefix of exactly
/// that period's sort keys. Ascending (the default) is oldest first.
pub fn orders_placed_in(
    client: &Client,
    customer_id: &str,
    period: &str,
) -> Result<Vec<Order>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :prefix)")
        .expression_attribute_values(":pk", customer_pk(customer_id))
        .expression_attribute_values(":prefix", AttributeValue::S(format!("ORDER#{period}")))
        .send()?;
    out.items()
        .iter()
        .map(|item| order_from(customer_id, item))
        .collect()
}
