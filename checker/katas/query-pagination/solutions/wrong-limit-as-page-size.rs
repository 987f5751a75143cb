//! # Kata: Query pagination — known wrong: Limit taken for "items returned"
//!
//! One Query per screen with `Limit = page_size` and the filter. Limit caps the items *read*,
//! before the FilterExpression; every cancelled order among them is read, counted and dropped,
//! so the screen shows fewer than `page_size` orders although more follow — and a stretch of
//! cancelled orders gives an empty screen.

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
        .set_exclusive_start_key(start)
        .send()?;
    let orders = page
        .items()
        .iter()
        .map(Order::from_item)
        .collect::<Result<_, _>>()?;
    Ok(OrdersPage {
        orders,
        next: page.last_evaluated_key().cloned(),
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
