//! # Kata: Query pagination — known wrong: the next page starts past orders never shown
//!
//! Each screen repeats Queries of `Limit = page_size` until it has enough orders, keeps the
//! first `page_size` and drops the rest — then hands out the last Query's LastEvaluatedKey as
//! the next page's start. That key is the last item the Query *read*; the orders read after
//! the last one shown are on no page at all.

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
    let wanted = page_size as usize;
    let mut orders = Vec::new();
    let mut next = start;
    loop {
        let page = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk AND begins_with(SK, :order)")
            .filter_expression("#status <> :cancelled")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
            .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
            .expression_attribute_values(":cancelled", AttributeValue::S(CANCELLED.into()))
            .scan_index_forward(false)
            .limit(page_size)
            .set_exclusive_start_key(next)
            .send()?;
        for item in page.items() {
            orders.push(Order::from_item(item)?);
        }
        next = page.last_evaluated_key().cloned();
        if next.is_none() || orders.len() >= wanted {
            // Too many: keep a page's worth; the next page starts where the Query stopped.
            orders.truncate(wanted);
            return Ok(OrdersPage { orders, next });
        }
    }
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
