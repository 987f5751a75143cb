//! The batches: BatchGetItem and BatchWriteItem.
//!
//! As DynamoDB does, both always answer with their unprocessed map (`{}` when everything was
//! done), so a client's retry loop reads the same field every time.

use std::collections::HashMap;

use engine::types::{DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest};
use serde_json::{Map, Value};

use super::read::Fields;
use super::write::{items, Out};
use super::{Api, WireError};

pub fn batch_get_item(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let mut request_items = HashMap::new();
    for (table, keys) in req.object_map("RequestItems")?.unwrap_or_default() {
        request_items.insert(
            table,
            KeysAndAttributes {
                keys: keys.items("Keys")?.unwrap_or_default(),
                projection_expression: keys.string("ProjectionExpression")?,
                expression_attribute_names: keys.string_map("ExpressionAttributeNames")?,
                consistent_read: keys.bool("ConsistentRead")?,
                attributes_to_get: keys.strings("AttributesToGet")?,
            },
        );
    }
    let call = api
        .client
        .batch_get_item()
        .set_request_items(Some(request_items))
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?);
    req.finish()?;
    let out = call.send()?;
    let responses: Map<String, Value> = out
        .responses
        .iter()
        .flatten()
        .map(|(table, found)| (table.clone(), items(found)))
        .collect();
    let unprocessed: Map<String, Value> = out
        .unprocessed_keys
        .iter()
        .flatten()
        .map(|(table, k)| (table.clone(), keys_and_attributes(k)))
        .collect();
    Ok(Out::new()
        .put("Responses", Some(Value::Object(responses)))
        .put("UnprocessedKeys", Some(Value::Object(unprocessed)))
        .capacities(out.consumed_capacity.as_ref())
        .done())
}

fn keys_and_attributes(k: &KeysAndAttributes) -> Value {
    Out::new()
        .put("Keys", Some(items(&k.keys)))
        .str("ProjectionExpression", k.projection_expression.as_deref())
        .put(
            "AttributesToGet",
            k.attributes_to_get.as_ref().map(|names| {
                Value::Array(names.iter().map(|n| Value::String(n.clone())).collect())
            }),
        )
        .put(
            "ExpressionAttributeNames",
            k.expression_attribute_names.as_ref().map(|names| {
                Value::Object(
                    names
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                        .collect(),
                )
            }),
        )
        .put("ConsistentRead", k.consistent_read.map(Value::Bool))
        .done()
}

pub fn batch_write_item(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let mut request_items = HashMap::new();
    for (table, writes) in req.object_list_map("RequestItems")?.unwrap_or_default() {
        let mut list = Vec::with_capacity(writes.len());
        for w in writes {
            list.push(WriteRequest {
                put_request: w
                    .object("PutRequest")?
                    .map(|p| p.item("Item").map(|item| PutRequest { item }))
                    .transpose()?,
                delete_request: w
                    .object("DeleteRequest")?
                    .map(|d| d.item("Key").map(|key| DeleteRequest { key }))
                    .transpose()?,
            });
        }
        request_items.insert(table, list);
    }
    let call = api
        .client
        .batch_write_item()
        .set_request_items(Some(request_items))
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_return_item_collection_metrics(req.enumeration("ReturnItemCollectionMetrics")?);
    req.finish()?;
    let out = call.send()?;
    let unprocessed: Map<String, Value> = out
        .unprocessed_items
        .iter()
        .flatten()
        .map(|(table, writes)| {
            let list = writes.iter().map(write_request).collect();
            (table.clone(), Value::Array(list))
        })
        .collect();
    Ok(Out::new()
        .put("UnprocessedItems", Some(Value::Object(unprocessed)))
        .capacities(out.consumed_capacity.as_ref())
        .collections_metrics(out.item_collection_metrics.as_ref())
        .done())
}

fn write_request(w: &WriteRequest) -> Value {
    Out::new()
        .put(
            "PutRequest",
            w.put_request
                .as_ref()
                .map(|p| Out::new().item("Item", p.item.as_ref()).done()),
        )
        .put(
            "DeleteRequest",
            w.delete_request
                .as_ref()
                .map(|d| Out::new().item("Key", d.key.as_ref()).done()),
        )
        .done()
}
