//! The multi-item reads: Query and Scan.

use serde_json::Value;

use super::read::Fields;
use super::write::{items, Out};
use super::{legacy, Api, WireError};

pub fn query(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .query()
        .set_table_name(req.string("TableName")?)
        .set_index_name(req.string("IndexName")?)
        .set_key_condition_expression(req.string("KeyConditionExpression")?)
        .set_filter_expression(req.string("FilterExpression")?)
        .set_projection_expression(req.string("ProjectionExpression")?)
        .set_expression_attribute_names(req.string_map("ExpressionAttributeNames")?)
        .set_expression_attribute_values(req.value_map("ExpressionAttributeValues")?)
        .set_select(req.enumeration("Select")?)
        .set_limit(req.i32("Limit")?)
        .set_consistent_read(req.bool("ConsistentRead")?)
        .set_scan_index_forward(req.bool("ScanIndexForward")?)
        .set_key_conditions(legacy::conditions(req, "KeyConditions")?)
        .set_query_filter(legacy::conditions(req, "QueryFilter")?)
        .set_exclusive_start_key(req.item("ExclusiveStartKey")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_attributes_to_get(req.strings("AttributesToGet")?)
        .set_conditional_operator(req.enumeration("ConditionalOperator")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put("Items", out.items.as_ref().map(items))
        .put("Count", Some(Value::from(out.count)))
        .put("ScannedCount", Some(Value::from(out.scanned_count)))
        .item("LastEvaluatedKey", out.last_evaluated_key.as_ref())
        .capacity(out.consumed_capacity.as_ref())
        .done())
}

pub fn scan(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .scan()
        .set_table_name(req.string("TableName")?)
        .set_index_name(req.string("IndexName")?)
        .set_filter_expression(req.string("FilterExpression")?)
        .set_projection_expression(req.string("ProjectionExpression")?)
        .set_expression_attribute_names(req.string_map("ExpressionAttributeNames")?)
        .set_expression_attribute_values(req.value_map("ExpressionAttributeValues")?)
        .set_select(req.enumeration("Select")?)
        .set_limit(req.i32("Limit")?)
        .set_consistent_read(req.bool("ConsistentRead")?)
        .set_exclusive_start_key(req.item("ExclusiveStartKey")?)
        .set_segment(req.i32("Segment")?)
        .set_total_segments(req.i32("TotalSegments")?)
        .set_scan_filter(legacy::conditions(req, "ScanFilter")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_attributes_to_get(req.strings("AttributesToGet")?)
        .set_conditional_operator(req.enumeration("ConditionalOperator")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put("Items", out.items.as_ref().map(items))
        .put("Count", Some(Value::from(out.count)))
        .put("ScannedCount", Some(Value::from(out.scanned_count)))
        .item("LastEvaluatedKey", out.last_evaluated_key.as_ref())
        .capacity(out.consumed_capacity.as_ref())
        .done())
}
