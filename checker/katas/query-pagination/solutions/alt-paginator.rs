//! # Kata: Query pagination — an alternative: the SDK's paginator
//!
//! `into_paginator()` follows `LastEvaluatedKey` itself: `.items().send()` yields every item of
//! every page, fetching the next page only when the one before is used up, and ends only when
//! a page carries no key. The export collects it into a `Result`, so a failed page fails the
//! whole export. A screen takes its `page_size` visible orders from the item stream (pages of
//! `page_size` items read, so it reads at most one page past its last order), and since the
//! stream may have read past that order, the next page's start is the key of the last order
//! shown — built from its `PK` and `SK`, not taken from a page.

use engine::types::AttributeValue;
use engine::{Client, Error, Item};
use given::{customer_pk, Order, OrdersPage, CANCELLED, ORDER_PREFIX, TABLE};

/// One page of the orders screen: `page_size` orders that are not cancelled, newest first.
pub fn orders_page(
    client: &Client,
    customer_id: &str,
    page_size: i32,
    start: Option<Item>,
) -> Result<OrdersPage, Error> {
    let wanted = usize::try_from(page_size).unwrap_or(0);
    let items: Vec<Item> = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
        .filter_expression("#status <> :cancelled")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
        .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
        .expression_attribute_values(":cancelled", AttributeValue::S(CANCELLED.into()))
        .scan_index_forward(false)
        .set_exclusive_start_key(start)
        .into_paginator()
        .page_size(page_size)
        .items()
        .send()
        .take(wanted)
        .collect::<Result<_, _>>()?;
    // A full page may have more after it; a short one ended with the stream.
    let next = if items.len() == wanted {
        items.last().map(|last| {
            Item::from([
                ("PK".to_string(), last["PK"].clone()),
                ("SK".to_string(), last["SK"].clone()),
            ])
        })
    } else {
        None
    };
    let orders = items
        .iter()
        .map(Order::from_item)
        .collect::<Result<_, _>>()?;
    Ok(OrdersPage { orders, next })
}

/// Every order of the customer, newest first: every item of every page.
pub fn all_orders(client: &Client, customer_id: &str) -> Result<Vec<Order>, Error> {
    let items: Vec<Item> = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
        .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
        .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
        .scan_index_forward(false)
        .into_paginator()
        .items()
        .send()
        .collect::<Result<_, _>>()?;
    items.iter().map(Order::from_item).collect()
}
