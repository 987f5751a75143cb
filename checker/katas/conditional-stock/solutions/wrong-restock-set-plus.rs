//! # Kata: conditional stock — KNOWN WRONG: restock with SET stock = stock + :qty
//!
//! The reservation is right. The restock is the counter everyone writes first,
//! `SET stock = stock + :qty` — atomic, but it refers to `stock`, and a product that was
//! never restocked has no item and so no `stock`: DynamoDB refuses the update with a
//! ValidationException ("The provided expression refers to an attribute that does not exist
//! in the item"). The first restock of every product fails. `ADD stock :qty` (an absent number
//! starts at 0) or `SET stock = if_not_exists(stock, :zero) + :qty` is what works. The hidden
//! test `reserves_and_restocks_exactly` must reject it.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{AttributeValue, Client, Error, Item};
use given::{ReserveError, TABLE};

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
        Err(UpdateItemError::ConditionalCheckFailedException(e)) => Err(ReserveError::OutOfStock {
            available: stock_of(e.item()),
        }),
        Err(e) => Err(ReserveError::Engine(e.into())),
    }
}

/// Adds `qty` to the stock with the counter idiom.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    let out = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .update_expression("SET stock = stock + :qty")
        .expression_attribute_values(":qty", AttributeValue::N(qty.to_string()))
        .return_values(ReturnValue::UpdatedNew)
        .send()?;
    Ok(stock_of(out.attributes()))
}
