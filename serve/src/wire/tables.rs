//! The control plane: CreateTable, DescribeTable, DeleteTable, ListTables, UpdateTable,
//! UpdateTimeToLive, DescribeTimeToLive — and the table shapes they read.

use engine::types::{
    AttributeDefinition, CreateGlobalSecondaryIndexAction, DeleteGlobalSecondaryIndexAction,
    GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement, LocalSecondaryIndex,
    Projection, ProvisionedThroughput, StreamSpecification, TimeToLiveSpecification,
    UpdateGlobalSecondaryIndexAction,
};
use serde_json::Value;

use super::read::Fields;
use super::write::{table_description, Out};
use super::{Api, WireError};

type Result<T> = std::result::Result<T, WireError>;

pub fn create_table(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let mut call = api
        .client
        .create_table()
        .set_table_name(req.string("TableName")?)
        .set_billing_mode(req.enumeration("BillingMode")?)
        .set_provisioned_throughput(throughput(req, "ProvisionedThroughput")?)
        .set_stream_specification(stream_specification(req)?)
        .set_tags(super::resources::tags(req)?)
        .set_sse_specification(super::resources::sse_specification(req)?);
    let key_schema = req.objects("KeySchema")?;
    for element in key_schema_elements(req.require("KeySchema", key_schema))? {
        call = call.key_schema(element);
    }
    let definitions = req.objects("AttributeDefinitions")?;
    for definition in attribute_definitions(req.require("AttributeDefinitions", definitions))? {
        call = call.attribute_definitions(definition);
    }
    for index in req.objects("GlobalSecondaryIndexes")?.unwrap_or_default() {
        let name = index.string("IndexName")?;
        let key_schema = index.objects("KeySchema")?;
        let key_schema = key_schema_elements(index.require("KeySchema", key_schema))?;
        let projection = projection(&index)?;
        let throughput = throughput(&index, "ProvisionedThroughput")?;
        if let Some(index_name) = index.require("IndexName", name) {
            call = call.global_secondary_indexes(GlobalSecondaryIndex {
                index_name,
                key_schema,
                projection,
                provisioned_throughput: throughput,
            });
        }
    }
    for index in req.objects("LocalSecondaryIndexes")?.unwrap_or_default() {
        let name = index.string("IndexName")?;
        let key_schema = index.objects("KeySchema")?;
        let key_schema = key_schema_elements(index.require("KeySchema", key_schema))?;
        let projection = projection(&index)?;
        if let Some(index_name) = index.require("IndexName", name) {
            call = call.local_secondary_indexes(LocalSecondaryIndex {
                index_name,
                key_schema,
                projection,
            });
        }
    }
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "TableDescription",
            out.table_description().map(table_description),
        )
        .done())
}

pub fn describe_table(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .describe_table()
        .set_table_name(req.string("TableName")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put("Table", out.table.as_ref().map(table_description))
        .done())
}

pub fn delete_table(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .delete_table()
        .set_table_name(req.string("TableName")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "TableDescription",
            out.table_description.as_ref().map(table_description),
        )
        .done())
}

pub fn list_tables(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .list_tables()
        .set_exclusive_start_table_name(req.string("ExclusiveStartTableName")?)
        .set_limit(req.i32("Limit")?);
    req.finish()?;
    let out = call.send()?;
    let names = out.table_names.unwrap_or_default();
    Ok(Out::new()
        .put(
            "TableNames",
            Some(Value::Array(names.into_iter().map(Value::String).collect())),
        )
        .str(
            "LastEvaluatedTableName",
            out.last_evaluated_table_name.as_deref(),
        )
        .done())
}

pub fn update_table(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let mut call = api
        .client
        .update_table()
        .set_table_name(req.string("TableName")?)
        .set_billing_mode(req.enumeration("BillingMode")?)
        .set_provisioned_throughput(throughput(req, "ProvisionedThroughput")?)
        .set_stream_specification(stream_specification(req)?);
    for definition in attribute_definitions(req.objects("AttributeDefinitions")?)? {
        call = call.attribute_definitions(definition);
    }
    for update in req
        .objects("GlobalSecondaryIndexUpdates")?
        .unwrap_or_default()
    {
        let create = match update.object("Create")? {
            None => None,
            Some(c) => {
                let name = c.string("IndexName")?;
                let key_schema = c.objects("KeySchema")?;
                let key_schema = key_schema_elements(c.require("KeySchema", key_schema))?;
                let projection = projection(&c)?;
                let throughput = throughput(&c, "ProvisionedThroughput")?;
                c.require("IndexName", name)
                    .map(|index_name| CreateGlobalSecondaryIndexAction {
                        index_name,
                        key_schema,
                        projection,
                        provisioned_throughput: throughput,
                    })
            }
        };
        let delete = match update.object("Delete")? {
            None => None,
            Some(d) => {
                let name = d.string("IndexName")?;
                d.require("IndexName", name)
                    .map(|index_name| DeleteGlobalSecondaryIndexAction { index_name })
            }
        };
        let change = match update.object("Update")? {
            None => None,
            Some(u) => {
                let name = u.string("IndexName")?;
                let throughput = throughput(&u, "ProvisionedThroughput")?;
                u.require("IndexName", name)
                    .map(|index_name| UpdateGlobalSecondaryIndexAction {
                        index_name,
                        provisioned_throughput: throughput,
                    })
            }
        };
        call = call.global_secondary_index_updates(GlobalSecondaryIndexUpdate {
            update: change,
            create,
            delete,
        });
    }
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "TableDescription",
            out.table_description.as_ref().map(table_description),
        )
        .done())
}

pub fn update_time_to_live(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let spec = match req.object("TimeToLiveSpecification")? {
        None => None,
        Some(s) => {
            let enabled = s.bool("Enabled")?;
            let name = s.string("AttributeName")?;
            match (
                s.require("Enabled", enabled),
                s.require("AttributeName", name),
            ) {
                (Some(enabled), Some(attribute_name)) => Some(TimeToLiveSpecification {
                    enabled,
                    attribute_name,
                }),
                _ => None,
            }
        }
    };
    let call = api
        .client
        .update_time_to_live()
        .set_table_name(req.string("TableName")?)
        .set_time_to_live_specification(spec);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "TimeToLiveSpecification",
            out.time_to_live_specification.as_ref().map(|s| {
                Out::new()
                    .put("Enabled", Some(Value::Bool(s.enabled)))
                    .str("AttributeName", Some(&s.attribute_name))
                    .done()
            }),
        )
        .done())
}

pub fn describe_time_to_live(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .describe_time_to_live()
        .set_table_name(req.string("TableName")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "TimeToLiveDescription",
            out.time_to_live_description.as_ref().map(|d| {
                Out::new()
                    .str("TimeToLiveStatus", Some(&d.time_to_live_status))
                    .str("AttributeName", d.attribute_name.as_deref())
                    .done()
            }),
        )
        .done())
}

fn key_schema_elements(list: Option<Vec<Fields<'_>>>) -> Result<Vec<KeySchemaElement>> {
    let mut out = Vec::new();
    for element in list.unwrap_or_default() {
        let name = element.string("AttributeName")?;
        let key_type = element.enumeration("KeyType")?;
        if let (Some(attribute_name), Some(key_type)) = (
            element.require("AttributeName", name),
            element.require("KeyType", key_type),
        ) {
            out.push(KeySchemaElement {
                attribute_name,
                key_type,
            });
        }
    }
    Ok(out)
}

fn attribute_definitions(list: Option<Vec<Fields<'_>>>) -> Result<Vec<AttributeDefinition>> {
    let mut out = Vec::new();
    for definition in list.unwrap_or_default() {
        let name = definition.string("AttributeName")?;
        let attribute_type = definition.enumeration("AttributeType")?;
        if let (Some(attribute_name), Some(attribute_type)) = (
            definition.require("AttributeName", name),
            definition.require("AttributeType", attribute_type),
        ) {
            out.push(AttributeDefinition {
                attribute_name,
                attribute_type,
            });
        }
    }
    Ok(out)
}

fn projection(index: &Fields<'_>) -> Result<Option<Projection>> {
    let Some(p) = index.object("Projection")? else {
        return Ok(None);
    };
    Ok(Some(Projection {
        projection_type: p.enumeration("ProjectionType")?,
        non_key_attributes: p.strings("NonKeyAttributes")?,
    }))
}

fn throughput(parent: &Fields<'_>, key: &str) -> Result<Option<ProvisionedThroughput>> {
    let Some(t) = parent.object(key)? else {
        return Ok(None);
    };
    let read = t.i64("ReadCapacityUnits")?;
    let write = t.i64("WriteCapacityUnits")?;
    Ok(
        match (
            t.require("ReadCapacityUnits", read),
            t.require("WriteCapacityUnits", write),
        ) {
            (Some(read_capacity_units), Some(write_capacity_units)) => {
                Some(ProvisionedThroughput {
                    read_capacity_units,
                    write_capacity_units,
                })
            }
            _ => None,
        },
    )
}

fn stream_specification(req: &Fields<'_>) -> Result<Option<StreamSpecification>> {
    let Some(s) = req.object("StreamSpecification")? else {
        return Ok(None);
    };
    let enabled = s.bool("StreamEnabled")?;
    let view_type = s.enumeration("StreamViewType")?;
    Ok(s.require("StreamEnabled", enabled)
        .map(|stream_enabled| StreamSpecification {
            stream_enabled,
            stream_view_type: view_type,
        }))
}
