//! # Kata: conditional stock — KNOWN WRONG: optimistic locking, re-read from ALL_OLD
//!
//! The lesson's optimistic concurrency applied to a counter: read the stock (an ordinary,
//! eventually consistent GetItem), write `stock = :new` only if the stock is still what was
//! read, and when the condition fails take the real stock from `ALL_OLD` and try again. It
//! never oversells, but a refused reservation has sent a read (the README forbids it), and a
//! stale read or a racing buyer costs a second write on the product's one partition: under
//! contention the sale passes 1,000 WCU per second and is throttled. The hidden tests
//! `out_of_stock_reports_current_stock` and `no_oversell_under_contention` must reject it.

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{item, AttributeValue, Client, Error, Item};
use given::{ReserveError, TABLE};

fn stock_of(item: Option<&Item>) -> u64 {
    item.and_then(|item| item.get("stock"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_u64())
        .unwrap_or(0)
}

/// Reads, then compare-and-set; a failed condition hands back the stock to retry from.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    let read = client
        .get_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .send()?;
    let mut seen = stock_of(read.item());
    loop {
        if seen < qty {
            return Err(ReserveError::OutOfStock { available: seen });
        }
        let written = client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item! { "sku" => sku, "stock" => seen - qty }))
            .condition_expression("stock = :seen")
            .expression_attribute_values(":seen", AttributeValue::N(seen.to_string()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send();
        match written.map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(seen - qty),
            Err(PutItemError::ConditionalCheckFailedException(e)) => seen = stock_of(e.item()),
            Err(e) => return Err(Error::from(e).into()),
        }
    }
}

/// Adds `qty` units to the stock of `sku`, atomically; returns the new stock.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    let out = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .update_expression("ADD stock :qty")
        .expression_attribute_values(":qty", AttributeValue::N(qty.to_string()))
        .return_values(ReturnValue::UpdatedNew)
        .send()?;
    Ok(stock_of(out.attributes()))
}
