//! # Kata: Query pagination — known wrong: a short page is taken for the last one
//!
//! Both functions decide that the item collection ran out when a Query read fewer items than
//! its Limit (`ScannedCount < Limit`, or `Count < Limit` for the export). That holds until a
//! page stops at 1 MB of data read: a page of large orders is short, carries a
//! LastEvaluatedKey, and everything after it is lost.

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
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":pk", AttributeValue::S(customer_pk(customer_id)))
            .expression_attribute_values(":order", AttributeValue::S(ORDER_PREFIX.into()))
            .expression_attribute_values(":cancelled", AttributeValue::S(CANCELLED.into()))
            .scan_index_forward(false)
            .limit(missing)
            .set_exclusive_start_key(next)
            .send()?;
        for item in page.items() {
            orders.push(Order::from_item(item)?);
        }
        next = page.last_evaluated_key().cloned();
        // Read fewer than asked for: the collection ran out.
        if page.scanned_count() < missing {
            next = None;
        }
        if next.is_none() || orders.len() as i32 == page_size {
            return Ok(OrdersPage { orders, next });
        }
    }
}

/// Every order of the customer, newest first, 100 a page until a page comes back short.
pub fn all_orders(client: &Client, customer_id: &str) -> Result<Vec<Order>, Error> {
    const PAGE: i32 = 100;
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
            .limit(PAGE)
            .set_exclusive_start_key(start)
            .send()?;
        for item in page.items() {
            orders.push(Order::from_item(item)?);
        }
        start = page.last_evaluated_key().cloned();
        // Fewer than a full page: that was the last one.
        if start.is_none() || page.count() < PAGE {
            return Ok(orders);
        }
    }
}
