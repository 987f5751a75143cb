//! # Kata: Query pagination — reference solution
//!
//! Hand-rolled `ExclusiveStartKey` loops. A page of DynamoDB stops early for three reasons:
//! `Limit` items were read, 1 MB was read, or the item collection ran out — and only the
//! absence of `LastEvaluatedKey` says which. `Limit` counts the items *read*, before the
//! filter, so a screen of `page_size` visible orders can take several Queries: each asks for
//! the orders still missing (`Limit = page_size - found`), so the last one stops exactly at
//! the last order the page shows, and its `LastEvaluatedKey` is where the next page starts.

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
