//! Writing a response body: the engine's output shapes as DynamoDB's JSON 1.0.
//!
//! As DynamoDB answers: field names in UpperCamelCase (the streams records' own lower-case
//! `eventID`, `dynamodb`… excepted), an optional field left out when the engine has none,
//! items as DynamoDB JSON (numbers as strings, binary as base64, via the engine's
//! [`engine::value::json`]), capacity units as JSON numbers, timestamps as epoch seconds.

use std::collections::HashMap;

use engine::types::{
    AttributeDefinition, Capacity, ConsumedCapacity, GlobalSecondaryIndexDescription,
    ItemCollectionMetrics, KeySchemaElement, LocalSecondaryIndexDescription, Projection,
    ProvisionedThroughputDescription, Record, StreamDescription, StreamSpecification,
    TableDescription,
};
use engine::Item;
use serde_json::{Map, Value};

/// A JSON object under construction; absent fields stay out.
#[derive(Debug, Default)]
pub struct Out(Map<String, Value>);

impl Out {
    pub fn new() -> Out {
        Out::default()
    }

    /// Sets `key` when there is a value.
    pub fn put(mut self, key: &str, value: Option<Value>) -> Out {
        if let Some(v) = value {
            self.0.insert(key.to_string(), v);
        }
        self
    }

    pub fn str(self, key: &str, value: Option<&str>) -> Out {
        self.put(key, value.map(|s| Value::String(s.to_string())))
    }

    pub fn item(self, key: &str, value: Option<&Item>) -> Out {
        self.put(key, value.map(engine::value::item_to_json))
    }

    pub fn capacity(self, value: Option<&ConsumedCapacity>) -> Out {
        self.put("ConsumedCapacity", value.map(consumed_capacity))
    }

    /// One write's `ItemCollectionMetrics`.
    pub fn collection_metrics(self, value: Option<&ItemCollectionMetrics>) -> Out {
        self.put("ItemCollectionMetrics", value.map(item_collection_metrics))
    }

    /// A batch's or a transaction's `ItemCollectionMetrics`: table → list.
    pub fn collections_metrics(
        self,
        value: Option<&std::collections::HashMap<String, Vec<ItemCollectionMetrics>>>,
    ) -> Out {
        self.put(
            "ItemCollectionMetrics",
            value.map(|m| {
                let mut tables: Vec<_> = m.iter().collect();
                tables.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    tables
                        .into_iter()
                        .map(|(t, l)| {
                            let list = l.iter().map(item_collection_metrics).collect();
                            (t.clone(), Value::Array(list))
                        })
                        .collect(),
                )
            }),
        )
    }

    pub fn capacities(self, value: Option<&Vec<ConsumedCapacity>>) -> Out {
        self.put(
            "ConsumedCapacity",
            value.map(|list| Value::Array(list.iter().map(consumed_capacity).collect())),
        )
    }

    pub fn done(self) -> Value {
        Value::Object(self.0)
    }
}

pub fn items<'a>(list: impl IntoIterator<Item = &'a Item>) -> Value {
    Value::Array(list.into_iter().map(engine::value::item_to_json).collect())
}

fn number(n: f64) -> Value {
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

fn capacity_fields(out: Out, total: Option<f64>, read: Option<f64>, write: Option<f64>) -> Out {
    out.put("CapacityUnits", total.map(number))
        .put("ReadCapacityUnits", read.map(number))
        .put("WriteCapacityUnits", write.map(number))
}

fn capacity(c: &Capacity) -> Value {
    capacity_fields(
        Out::new(),
        c.capacity_units,
        c.read_capacity_units,
        c.write_capacity_units,
    )
    .done()
}

fn capacity_map(map: &HashMap<String, Capacity>) -> Value {
    Value::Object(map.iter().map(|(k, c)| (k.clone(), capacity(c))).collect())
}

fn item_collection_metrics(m: &ItemCollectionMetrics) -> Value {
    Out::new()
        .item("ItemCollectionKey", m.item_collection_key())
        .put(
            "SizeEstimateRangeGB",
            Some(Value::Array(
                m.size_estimate_range_gb()
                    .iter()
                    .map(|g| number(*g))
                    .collect(),
            )),
        )
        .done()
}

pub fn consumed_capacity(c: &ConsumedCapacity) -> Value {
    capacity_fields(
        Out::new().str("TableName", c.table_name()),
        c.capacity_units,
        c.read_capacity_units,
        c.write_capacity_units,
    )
    .put("Table", c.table().map(capacity))
    .put(
        "LocalSecondaryIndexes",
        c.local_secondary_indexes().map(capacity_map),
    )
    .put(
        "GlobalSecondaryIndexes",
        c.global_secondary_indexes().map(capacity_map),
    )
    .done()
}

pub fn key_schema(list: &[KeySchemaElement]) -> Value {
    Value::Array(
        list.iter()
            .map(|k| {
                Out::new()
                    .str("AttributeName", Some(k.attribute_name()))
                    .str("KeyType", Some(k.key_type().as_str()))
                    .done()
            })
            .collect(),
    )
}

fn attribute_definitions(list: &[AttributeDefinition]) -> Value {
    Value::Array(
        list.iter()
            .map(|d| {
                Out::new()
                    .str("AttributeName", Some(d.attribute_name()))
                    .str("AttributeType", Some(d.attribute_type().as_str()))
                    .done()
            })
            .collect(),
    )
}

fn projection(p: &Projection) -> Value {
    let non_key = p.non_key_attributes.as_ref().filter(|a| !a.is_empty());
    Out::new()
        .str("ProjectionType", p.projection_type().map(|t| t.as_str()))
        .put(
            "NonKeyAttributes",
            non_key.map(|a| Value::Array(a.iter().cloned().map(Value::String).collect())),
        )
        .done()
}

fn throughput(t: &ProvisionedThroughputDescription) -> Value {
    Out::new()
        .put("ReadCapacityUnits", t.read_capacity_units.map(Value::from))
        .put(
            "WriteCapacityUnits",
            t.write_capacity_units.map(Value::from),
        )
        .put(
            "NumberOfDecreasesToday",
            t.number_of_decreases_today.map(Value::from),
        )
        .done()
}

pub fn stream_specification(s: &StreamSpecification) -> Value {
    Out::new()
        .put("StreamEnabled", Some(Value::Bool(s.stream_enabled)))
        .str("StreamViewType", s.stream_view_type().map(|t| t.as_str()))
        .done()
}

fn gsi(d: &GlobalSecondaryIndexDescription) -> Value {
    Out::new()
        .str("IndexName", d.index_name())
        .str("IndexArn", d.index_arn())
        .put("KeySchema", d.key_schema.as_deref().map(key_schema))
        .put("Projection", d.projection().map(projection))
        .str("IndexStatus", d.index_status().map(|s| s.as_str()))
        .put("Backfilling", d.backfilling.map(Value::Bool))
        .put(
            "ProvisionedThroughput",
            d.provisioned_throughput().map(throughput),
        )
        .put("ItemCount", d.item_count.map(Value::from))
        .put("IndexSizeBytes", d.index_size_bytes.map(Value::from))
        .done()
}

fn lsi(d: &LocalSecondaryIndexDescription) -> Value {
    Out::new()
        .str("IndexName", d.index_name())
        .str("IndexArn", d.index_arn())
        .put("KeySchema", d.key_schema.as_deref().map(key_schema))
        .put("Projection", d.projection().map(projection))
        .put("ItemCount", d.item_count.map(Value::from))
        .put("IndexSizeBytes", d.index_size_bytes.map(Value::from))
        .done()
}

/// A timestamp: epoch seconds, with milliseconds as the fraction.
pub fn timestamp(epoch_ms: u64) -> Value {
    number(epoch_ms as f64 / 1000.0)
}

/// A `DateTime` of the engine's shapes (already on the world's calendar), as a timestamp.
fn date_time(d: &engine::primitives::DateTime) -> Value {
    timestamp(d.secs() as u64 * 1000 + u64::from(d.subsec_nanos() / 1_000_000))
}

/// `TableDescription` (its dates are on the world's calendar already).
pub fn table_description(t: &TableDescription) -> Value {
    Out::new()
        .str("TableName", t.table_name())
        .str("TableArn", t.table_arn())
        .str("TableId", t.table_id())
        .str("TableStatus", t.table_status().map(|s| s.as_str()))
        .put("KeySchema", t.key_schema.as_deref().map(key_schema))
        .put(
            "AttributeDefinitions",
            t.attribute_definitions
                .as_deref()
                .map(attribute_definitions),
        )
        .put(
            "BillingModeSummary",
            t.billing_mode_summary().map(|b| {
                Out::new()
                    .str("BillingMode", b.billing_mode().map(|m| m.as_str()))
                    .put(
                        "LastUpdateToPayPerRequestDateTime",
                        b.last_update_to_pay_per_request_date_time().map(date_time),
                    )
                    .done()
            }),
        )
        .put(
            "ProvisionedThroughput",
            t.provisioned_throughput().map(throughput),
        )
        .put(
            "GlobalSecondaryIndexes",
            t.global_secondary_indexes
                .as_ref()
                .filter(|l| !l.is_empty())
                .map(|l| Value::Array(l.iter().map(gsi).collect())),
        )
        .put(
            "LocalSecondaryIndexes",
            t.local_secondary_indexes
                .as_ref()
                .filter(|l| !l.is_empty())
                .map(|l| Value::Array(l.iter().map(lsi).collect())),
        )
        .put(
            "StreamSpecification",
            t.stream_specification()
                .filter(|s| s.stream_enabled)
                .map(stream_specification),
        )
        .str("LatestStreamArn", t.latest_stream_arn())
        .str("LatestStreamLabel", t.latest_stream_label())
        .put("CreationDateTime", t.creation_date_time().map(date_time))
        .put("ItemCount", t.item_count.map(Value::from))
        .put("TableSizeBytes", t.table_size_bytes.map(Value::from))
        .put(
            "SSEDescription",
            t.sse_description().map(|d| {
                Out::new()
                    .str("Status", d.status().map(|s| s.as_str()))
                    .str("SSEType", d.sse_type().map(|s| s.as_str()))
                    .str("KMSMasterKeyArn", d.kms_master_key_arn())
                    .done()
            }),
        )
        .done()
}

/// The streams API's `StreamDescription`.
pub fn stream_description(d: &StreamDescription) -> Value {
    let shards = d.shards().iter().map(|s| {
        Out::new()
            .str("ShardId", s.shard_id())
            .put(
                "SequenceNumberRange",
                s.sequence_number_range().map(|r| {
                    Out::new()
                        .str("StartingSequenceNumber", r.starting_sequence_number())
                        .str("EndingSequenceNumber", r.ending_sequence_number())
                        .done()
                }),
            )
            .str("ParentShardId", s.parent_shard_id())
            .done()
    });
    Out::new()
        .str("StreamArn", d.stream_arn())
        .str("StreamLabel", d.stream_label())
        .str("StreamStatus", d.stream_status().map(|s| s.as_str()))
        .str("StreamViewType", d.stream_view_type().map(|s| s.as_str()))
        .put(
            "CreationRequestDateTime",
            d.creation_request_date_time().map(date_time),
        )
        .str("TableName", d.table_name())
        .put("KeySchema", d.key_schema.as_deref().map(key_schema))
        .put("Shards", Some(Value::Array(shards.collect())))
        .str("LastEvaluatedShardId", d.last_evaluated_shard_id())
        .done()
}

/// One stream record, in the streams API's shape.
pub fn record(r: &Record) -> Value {
    let d = &r.dynamodb;
    let dynamodb = Out::new()
        .put(
            "ApproximateCreationDateTime",
            Some(Value::from(d.approximate_creation_date_time)),
        )
        .item("Keys", Some(&d.keys))
        .item("NewImage", d.new_image.as_ref())
        .item("OldImage", d.old_image.as_ref())
        .str("SequenceNumber", Some(&d.sequence_number))
        .put("SizeBytes", Some(Value::from(d.size_bytes)))
        .str("StreamViewType", Some(d.stream_view_type.as_str()))
        .done();
    Out::new()
        .str("eventID", Some(&r.event_id))
        .str("eventName", Some(r.event_name.as_str()))
        .str("eventVersion", Some(&r.event_version))
        .str("eventSource", Some(&r.event_source))
        .str("awsRegion", Some(&r.aws_region))
        .put("dynamodb", Some(dynamodb))
        .put(
            "userIdentity",
            r.user_identity.as_ref().map(|i| {
                Out::new()
                    .str("PrincipalId", Some(&i.principal_id))
                    .str("Type", Some(&i.r#type))
                    .done()
            }),
        )
        .done()
}
