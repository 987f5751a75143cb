//! # Kata: conditional stock — KNOWN WRONG: read, then conditional put, no retry
//!
//! Reads the stock, then writes the new stock only if it is still what was read
//! (`stock = :seen`) — optimistic locking without the retry. It never oversells, but when the
//! read was stale or another buyer got there first, the condition fails and the buyer is told
//! "out of stock" although units are left: a reservation that should succeed is lost. The
//! hidden test `no_oversell_with_stale_reads` must reject it.

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::types::ReturnValuesOnConditionCheckFailure;
use engine::{item, AttributeValue, Client, Error, Item};
use given::{ReserveError, TABLE};

fn stock_of(item: Option<&Item>) -> u64 {
    item.and_then(|item| item.get("stock"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_u64())
        .unwrap_or(0)
}

/// Reads the stock, then writes one less only if nobody changed it in between.
pub fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError> {
    let read = client
        .get_item()
        .table_name(TABLE)
        .key("sku", AttributeValue::S(sku.to_string()))
        .send()?;
    let stock = stock_of(read.item());
    if stock < qty {
        return Err(ReserveError::OutOfStock { available: stock });
    }
    let written = client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item! { "sku" => sku, "stock" => stock - qty }))
        .condition_expression("stock = :seen")
        .expression_attribute_values(":seen", AttributeValue::N(stock.to_string()))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send();
    match written.map_err(SdkError::into_service_error) {
        Ok(_) => Ok(stock - qty),
        // Someone changed the stock since the read: give up and report what is there now.
        Err(PutItemError::ConditionalCheckFailedException(e)) => Err(ReserveError::OutOfStock {
            available: stock_of(e.item()),
        }),
        Err(e) => Err(Error::from(e).into()),
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
        .return_values(engine::types::ReturnValue::UpdatedNew)
        .send()?;
    Ok(stock_of(out.attributes()))
}
