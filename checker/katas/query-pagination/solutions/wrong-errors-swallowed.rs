//! # Kata: Query pagination — known wrong: a failed page is dropped
//!
//! The export uses the paginator, and `flatten()`s its stream of `Result`s: an `Err` yields
//! nothing, so a page that failed (throttled, say) silently disappears and the stream ends.
//! The export returns `Ok` with the orders before the failure — a shorter list that looks
//! complete.

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
    let mut orders = Vec::new();
    let mut next = start;
    loop {
        let missing = page_size - orders.len() as i32;
        let page = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
            .filter_expression("#status <> :cancelled")
            .expression_attribute_names("#status", "status") // STATUS is a reserved word
            .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
            .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
            .expression_attribute_values(":cancelled", AttributeValue::S(CANCELLED.into()))
            .scan_index_forward(false)
            .limit(missing) // items read, before the filter: never more than the page lacks
            .set_exclusive_start_key(next)
            .send()?;
        for item in page.items() {
            orders.push(Order::from_item(item)?);
        }
        next = page.last_evaluated_key().cloned();
        // Only the absence of a LastEvaluatedKey is the end; a short or empty page is not.
        if next.is_none() || orders.len() as i32 == page_size {
            return Ok(OrdersPage { orders, next });
        }
    }
}

/// Every order of the customer, newest first: every item of every page.
pub fn all_orders(client: &Client, customer_id: &str) -> Result<Vec<Order>, Error> {
    client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
        .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
        .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
        .scan_index_forward(false)
        .into_paginator()
        .items()
        .send()
        .flatten() // the items of the pages that came back
        .map(|item| Order::from_item(&item))
        .collect()
}
