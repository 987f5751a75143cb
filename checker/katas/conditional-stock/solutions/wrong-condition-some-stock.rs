//! # Kata: conditional stock — KNOWN WRONG: the condition asks for some stock, not enough
//!
//! One conditional UpdateItem, as it should be — but the condition is `stock > :zero` ("is
//! there anything left?") instead of `stock >= :qty` ("is there enough for this order?"). A
//! buyer who wants 3 when 1 is left is served, and the stock goes to -2: units are sold that
//! do not exist. The hidden test `reserves_and_restocks_exactly` must reject it.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{AttributeValue, Client, Error, Item};
use given::{ReserveError, TABLE};

fn stock_of(item: Option<&Item>) -> i64 {
    item.and_then(|item| item.get("stock"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_i64())
        .unwrap_or(0)
}

/// Takes `qty` units of `sku` out of stock if any is left; returns the stock left.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    let sent = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .update_expression("SET stock = stock - :qty")
        .condition_expression("stock > :zero")
        .expression_attribute_values(":qty", AttributeValue::N(qty.to_string()))
        .expression_attribute_values(":zero", AttributeValue::N("0".into()))
        .return_values(ReturnValue::UpdatedNew)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send();
    match sent.map_err(SdkError::into_service_error) {
        Ok(out) => Ok(stock_of(out.attributes()).max(0) as u64),
        Err(UpdateItemError::ConditionalCheckFailedException(e)) => Err(ReserveError::OutOfStock {
            available: stock_of(e.item()).max(0) as u64,
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
        .update_expression("ADD stock :qty")
        .expression_attribute_values(":qty", AttributeValue::N(qty.to_string()))
        .return_values(ReturnValue::UpdatedNew)
        .send()?;
    Ok(stock_of(out.attributes()).max(0) as u64)
}
