//! The single-item operations: GetItem, PutItem, UpdateItem, DeleteItem.

use serde_json::Value;

use super::read::Fields;
use super::write::Out;
use super::{legacy, Api, WireError};

pub fn get_item(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .get_item()
        .set_table_name(req.string("TableName")?)
        .set_key(req.item("Key")?)
        .set_consistent_read(req.bool("ConsistentRead")?)
        .set_projection_expression(req.string("ProjectionExpression")?)
        .set_expression_attribute_names(req.string_map("ExpressionAttributeNames")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_attributes_to_get(req.strings("AttributesToGet")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .item("Item", out.item())
        .capacity(out.consumed_capacity.as_ref())
        .done())
}

pub fn put_item(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .put_item()
        .set_table_name(req.string("TableName")?)
        .set_item(req.item("Item")?)
        .set_condition_expression(req.string("ConditionExpression")?)
        .set_expression_attribute_names(req.string_map("ExpressionAttributeNames")?)
        .set_expression_attribute_values(req.value_map("ExpressionAttributeValues")?)
        .set_return_values(req.enumeration("ReturnValues")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_return_item_collection_metrics(req.enumeration("ReturnItemCollectionMetrics")?)
        .set_return_values_on_condition_check_failure(
            req.enumeration("ReturnValuesOnConditionCheckFailure")?,
        )
        .set_expected(legacy::expected(req)?)
        .set_conditional_operator(req.enumeration("ConditionalOperator")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .item("Attributes", out.attributes.as_ref())
        .capacity(out.consumed_capacity.as_ref())
        .collection_metrics(out.item_collection_metrics.as_ref())
        .done())
}

pub fn update_item(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .update_item()
        .set_table_name(req.string("TableName")?)
        .set_key(req.item("Key")?)
        .set_update_expression(req.string("UpdateExpression")?)
        .set_attribute_updates(legacy::attribute_updates(req)?)
        .set_condition_expression(req.string("ConditionExpression")?)
        .set_expression_attribute_names(req.string_map("ExpressionAttributeNames")?)
        .set_expression_attribute_values(req.value_map("ExpressionAttributeValues")?)
        .set_return_values(req.enumeration("ReturnValues")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_return_item_collection_metrics(req.enumeration("ReturnItemCollectionMetrics")?)
        .set_return_values_on_condition_check_failure(
            req.enumeration("ReturnValuesOnConditionCheckFailure")?,
        )
        .set_expected(legacy::expected(req)?)
        .set_conditional_operator(req.enumeration("ConditionalOperator")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .item("Attributes", out.attributes.as_ref())
        .capacity(out.consumed_capacity.as_ref())
        .collection_metrics(out.item_collection_metrics.as_ref())
        .done())
}

pub fn delete_item(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .delete_item()
        .set_table_name(req.string("TableName")?)
        .set_key(req.item("Key")?)
        .set_condition_expression(req.string("ConditionExpression")?)
        .set_expression_attribute_names(req.string_map("ExpressionAttributeNames")?)
        .set_expression_attribute_values(req.value_map("ExpressionAttributeValues")?)
        .set_return_values(req.enumeration("ReturnValues")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_return_item_collection_metrics(req.enumeration("ReturnItemCollectionMetrics")?)
        .set_return_values_on_condition_check_failure(
            req.enumeration("ReturnValuesOnConditionCheckFailure")?,
        )
        .set_expected(legacy::expected(req)?)
        .set_conditional_operator(req.enumeration("ConditionalOperator")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .item("Attributes", out.attributes.as_ref())
        .capacity(out.consumed_capacity.as_ref())
        .collection_metrics(out.item_collection_metrics.as_ref())
        .done())
}
