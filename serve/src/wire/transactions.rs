//! The transactions: TransactGetItems and TransactWriteItems.
//!
//! A cancelled transaction answers `TransactionCanceledException` with its
//! `CancellationReasons`, one per action in order (see `WireError`'s conversion), which the
//! SDKs parse into their typed exception.

use engine::types::{ConditionCheck, Delete, Get, Put, TransactGetItem, TransactWriteItem, Update};
use serde_json::Value;

use super::read::Fields;
use super::write::Out;
use super::{Api, WireError};

pub fn transact_get_items(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let mut call = api
        .client
        .transact_get_items()
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?);
    for action in req.objects("TransactItems")?.unwrap_or_default() {
        let get = action
            .object("Get")?
            .map(|g| -> Result<Get, WireError> {
                Ok(Get {
                    table_name: g.string("TableName")?,
                    key: g.item("Key")?,
                    projection_expression: g.string("ProjectionExpression")?,
                    expression_attribute_names: g.string_map("ExpressionAttributeNames")?,
                })
            })
            .transpose()?;
        call = call.transact_items(TransactGetItem { get });
    }
    req.finish()?;
    let out = call.send()?;
    let responses = out
        .responses()
        .iter()
        .map(|r| Out::new().item("Item", r.item()).done());
    Ok(Out::new()
        .put("Responses", Some(Value::Array(responses.collect())))
        .capacities(out.consumed_capacity.as_ref())
        .done())
}

pub fn transact_write_items(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let mut actions = Vec::new();
    for action in req.objects("TransactItems")?.unwrap_or_default() {
        actions.push(TransactWriteItem {
            condition_check: action
                .object("ConditionCheck")?
                .map(|c| -> Result<ConditionCheck, WireError> {
                    Ok(ConditionCheck {
                        table_name: c.string("TableName")?,
                        key: c.item("Key")?,
                        condition_expression: c.string("ConditionExpression")?,
                        expression_attribute_names: c.string_map("ExpressionAttributeNames")?,
                        expression_attribute_values: c.value_map("ExpressionAttributeValues")?,
                        return_values_on_condition_check_failure: c
                            .enumeration("ReturnValuesOnConditionCheckFailure")?,
                    })
                })
                .transpose()?,
            put: action
                .object("Put")?
                .map(|p| -> Result<Put, WireError> {
                    Ok(Put {
                        table_name: p.string("TableName")?,
                        item: p.item("Item")?,
                        condition_expression: p.string("ConditionExpression")?,
                        expression_attribute_names: p.string_map("ExpressionAttributeNames")?,
                        expression_attribute_values: p.value_map("ExpressionAttributeValues")?,
                        return_values_on_condition_check_failure: p
                            .enumeration("ReturnValuesOnConditionCheckFailure")?,
                    })
                })
                .transpose()?,
            delete: action
                .object("Delete")?
                .map(|d| -> Result<Delete, WireError> {
                    Ok(Delete {
                        table_name: d.string("TableName")?,
                        key: d.item("Key")?,
                        condition_expression: d.string("ConditionExpression")?,
                        expression_attribute_names: d.string_map("ExpressionAttributeNames")?,
                        expression_attribute_values: d.value_map("ExpressionAttributeValues")?,
                        return_values_on_condition_check_failure: d
                            .enumeration("ReturnValuesOnConditionCheckFailure")?,
                    })
                })
                .transpose()?,
            update: action
                .object("Update")?
                .map(|u| -> Result<Update, WireError> {
                    Ok(Update {
                        table_name: u.string("TableName")?,
                        key: u.item("Key")?,
                        update_expression: u.string("UpdateExpression")?,
                        condition_expression: u.string("ConditionExpression")?,
                        expression_attribute_names: u.string_map("ExpressionAttributeNames")?,
                        expression_attribute_values: u.value_map("ExpressionAttributeValues")?,
                        return_values_on_condition_check_failure: u
                            .enumeration("ReturnValuesOnConditionCheckFailure")?,
                    })
                })
                .transpose()?,
        });
    }
    let mut call = api
        .client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_return_item_collection_metrics(req.enumeration("ReturnItemCollectionMetrics")?);
    if let Some(token) = req.string("ClientRequestToken")? {
        call = call.client_request_token(token);
    }
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .capacities(out.consumed_capacity.as_ref())
        .collections_metrics(out.item_collection_metrics.as_ref())
        .done())
}
