//! # Kata: conditional stock — KNOWN WRONG: compare-and-set, retried from ALL_OLD
//!
//! Never reads: it guesses the stock, writes `stock = :new` only if the stock is still
//! `:expected`, and when the condition fails takes the real stock from the failed condition's
//! `ALL_OLD` item and tries again, until it succeeds or the stock is short. It never oversells
//! and never refuses a buyer while stock is left — but every reservation costs at least two
//! writes (the guess fails and still pays its WCU), more when buyers race, and one product is
//! one item on one partition, which accepts at most 1,000 WCU per second. The flash sale is
//! throttled. The hidden test `no_oversell_under_contention` must reject it.

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

/// Compare-and-set from the stock the last failed condition showed.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    // A first guess: the least stock that could serve this order.
    let mut expected = qty;
    loop {
        let written = client
            .update_item()
            .table_name(TABLE)
            .key("sku", AttributeValue::S(sku.to_string()))
            .update_expression("SET stock = :new")
            .condition_expression("stock = :expected")
            .expression_attribute_values(":new", AttributeValue::N((expected - qty).to_string()))
            .expression_attribute_values(":expected", AttributeValue::N(expected.to_string()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send();
        match written.map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(expected - qty),
            Err(UpdateItemError::ConditionalCheckFailedException(e)) => {
                let stock = stock_of(e.item());
                if stock < qty {
                    return Err(ReserveError::OutOfStock { available: stock });
                }
                expected = stock;
            }
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
