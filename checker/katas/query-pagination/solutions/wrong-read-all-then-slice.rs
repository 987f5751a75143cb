//! # Kata: Query pagination — known wrong: every screen reads the whole history
//!
//! The screen reads every order of the customer (all pages, correctly followed), filters and
//! slices in code, and starts the next screen after the last order shown. Every answer is
//! right; every screen pays for reading the customer's whole item collection, because the
//! key condition and Limit were not used to read only the page.

use engine::types::AttributeValue;
use engine::{Client, Error, Item};
use given::{customer_pk, Order, OrdersPage, CANCELLED, ORDER_PREFIX, TABLE};

/// One page of the orders screen: every order, filtered and sliced in code.
pub fn orders_page(
    client: &Client,
    customer_id: &str,
    page_size: i32,
    start: Option<Item>,
) -> Result<OrdersPage, Error> {
    // The start is the key of the last order shown; skip everything up to it.
    let after = start.and_then(|key| key.get("SK").cloned());
    let mut visible = Vec::new();
    let mut seen_start = after.is_none();
    let mut start_key: Option<Item> = None;
    loop {
        let page = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
            .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
            .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
            .scan_index_forward(false)
            .set_exclusive_start_key(start_key)
            .send()?;
        for item in page.items() {
            if !seen_start {
                seen_start = after.as_ref() == item.get("SK");
                continue;
            }
            let order = Order::from_item(item)?;
            if order.status != CANCELLED {
                visible.push((item.clone(), order));
            }
        }
        start_key = page.last_evaluated_key().cloned();
        if start_key.is_none() {
            break;
        }
    }
    let more = visible.len() > page_size as usize;
    visible.truncate(page_size as usize);
    let next = if more {
        visible.last().map(|(item, _)| {
            Item::from([
                ("PK".to_string(), item["PK"].clone()),
                ("SK".to_string(), item["SK"].clone()),
            ])
        })
    } else {
        None
    };
    Ok(OrdersPage {
        orders: visible.into_iter().map(|(_, order)| order).collect(),
        next,
    })
}

/// Every order of the customer, newest first, page after page until no LastEvaluatedKey.
pub fn all_orders(client: &Client, customer_id: &str) -> Result<Vec<Order>, Error> {
    let mut orders = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
            .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
            .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
            .scan_index_forward(false)
            .set_exclusive_start_key(start)
            .send()?; // a failed page fails the export: a shorter list would look complete
        for item in page.items() {
            orders.push(Order::from_item(item)?);
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return Ok(orders);
        }
    }
}
