//! # Kata: conditional stock — alternative solution
//!
//! A different style from the reference, to prove the hidden tests judge behaviour only:
//! the decrement is `ADD stock :minus` guarded by `attribute_exists(sku) AND stock >= :qty`
//! with placeholders for every name, the whole new item comes back (`ALL_NEW`), restock is a
//! `SET` with `if_not_exists`, and the failed condition is read through the exception's `item()`.

use engine::operation::update_item::UpdateItemError;
use engine::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{AttributeValue, Client, Error};
use given::{ReserveError, TABLE};

const STOCK: &str = "stock";

fn number(value: Option<&AttributeValue>) -> u64 {
    match value {
        Some(AttributeValue::N(n)) => n.parse().unwrap_or(0),
        _ => 0,
    }
}

/// Takes `qty` units of `sku` out of stock, atomically; returns the stock left.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    let result = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.into()))
        .update_expression("ADD #stock :minus")
        .condition_expression("attribute_exists(#sku) AND #stock >= :qty")
        .expression_attribute_names("#stock", STOCK)
        .expression_attribute_names("#sku", "sku")
        .expression_attribute_values(":qty", AttributeValue::N(format!("{qty}")))
        .expression_attribute_values(":minus", AttributeValue::N(format!("-{qty}")))
        .return_values(ReturnValue::AllNew)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send();
    result
        .map(|out| number(out.attributes().and_then(|item| item.get(STOCK))))
        .map_err(|e| match e.into_service_error() {
            UpdateItemError::ConditionalCheckFailedException(e) => ReserveError::OutOfStock {
                available: number(e.item().and_then(|item| item.get(STOCK))),
            },
            other => Error::from(other).into(),
        })
}

/// Adds `qty` units to the stock of `sku`, atomically; returns the new stock.
pub fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, Error> {
    let out = client
        .update_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.into()))
        .update_expression("SET #stock = if_not_exists(#stock, :zero) + :qty")
        .expression_attribute_names("#stock", STOCK)
        .expression_attribute_values(":zero", AttributeValue::N("0".into()))
        .expression_attribute_values(":qty", AttributeValue::N(format!("{qty}")))
        .return_values(ReturnValue::AllNew)
        .send()?;
    Ok(number(out.attributes().and_then(|item| item.get(STOCK))))
}
