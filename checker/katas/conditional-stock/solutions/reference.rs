//! # Kata: conditional stock — reference solution
//!
//! One conditional UpdateItem per reservation: `SET stock = stock - :qty` only if
//! `stock >= :qty`. The condition is checked against the leader's current item, atomically
//! with the write, so no buyer can oversell — however stale anything they read before. When
//! it fails, `ReturnValuesOnConditionCheckFailure = ALL_OLD` hands back the item as it is, so
//! the error carries the real stock without a second request.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{AttributeValue, Client, Error, Item};
use given::{ReserveError, TABLE};

/// The `stock` of an item (0 if there is no item, or no stock attribute).
fn stock_of(item: Option<&Item>) -> u64 {
    item.and_then(|item| item.get("stock"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_u64())
        .unwrap_or(0)
}

/// Takes `qty` units of `sku` out of stock, atomically; returns the stock left.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    let sent = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .update_expression("SET stock = stock - :qty")
        .condition_expression("stock >= :qty")
        .expression_attribute_values(":qty", AttributeValue::N(qty.to_string()))
        .return_values(ReturnValue::UpdatedNew)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send();
    match sent.map_err(SdkError::into_service_error) {
        Ok(out) => Ok(stock_of(out.attributes())),
        // The condition failed: nothing was written, and the error holds the current item.
        Err(UpdateItemError::ConditionalCheckFailedException(e)) => Err(ReserveError::OutOfStock {
            available: stock_of(e.item()),
        }),
        Err(e) => Err(ReserveError::Engine(e.into())),
    }
}

/// Adds `qty` units to the stock of `sku`, atomically; returns the new stock.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    let out = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .update_expression("ADD stock :qty") // an absent stock starts at 0
        .expression_attribute_values(":qty", AttributeValue::N(qty.to_string()))
        .return_values(ReturnValue::UpdatedNew)
        .send()?;
    Ok(stock_of(out.attributes()))
}
