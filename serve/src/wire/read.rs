//! Reading a request body: DynamoDB's JSON 1.0 shapes, field by field.
//!
//! DynamoDB checks a request in layers, and so does this reader:
//!
//! 1. **Serialization**: the body is JSON, and each field has the JSON type its shape says
//!    (`"Limit": "5"` is not an integer). A breach is `SerializationException`, at once.
//!    A field set to `null` counts as absent; fields no shape names are ignored.
//! 2. **Constraints** the API model declares, here the enum value sets: every breach of the
//!    request is collected and reported together (`2 validation errors detected: Value 'X'
//!    at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set:
//!    [...]`) by [`Fields::finish`], before the operation runs.
//! 3. **Semantics** — names, keys, expressions, limits: the engine's own validation, which
//!    answers in DynamoDB's words.
//!
//! A field's path in those messages is its name in lower camel case, a list element
//! `name.N.member` counted from 1, as DynamoDB writes them.
//!
//! Decision: **fields no shape names are ignored**, not refused. AWS's JSON services skip
//! members their model does not have, so that a newer SDK (with a field added since) still
//! works against an endpoint that predates it; DynamoDB is believed to do the same
//! (unverified: no documented error names an unknown member). Refusing them with a
//! `SerializationException` would catch a hand-typed `"KeyConditionExpresion"`, but such a
//! body fails anyway on the field it lacks ("Either the KeyConditions or
//! KeyConditionExpression parameter must be specified"), and an SDK never sends one — while a
//! newer SDK's new field would break every call.

use std::cell::RefCell;
use std::collections::HashMap;

use engine::types::{
    AttributeAction, BillingMode, ComparisonOperator, ConditionalOperator, KeyType, ProjectionType,
    ReturnConsumedCapacity, ReturnItemCollectionMetrics, ReturnValue,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType, Select, ShardIteratorType, SseType,
    StreamViewType,
};
use engine::{AttributeValue, Item};
use serde_json::{Map, Value};

use super::WireError;

/// Constraint breaches found so far in one request.
#[derive(Debug, Default)]
pub struct Problems(RefCell<Vec<String>>);

/// One JSON object of the request (the body, or a structure inside it), with its path.
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    path: String,
    problems: &'a Problems,
}

type Result<T> = std::result::Result<T, WireError>;

/// One table's entry in a map of table name to a list of structures.
pub type TableList<'a> = (String, Vec<Fields<'a>>);

impl<'a> Fields<'a> {
    /// The body's top-level object.
    pub fn root(body: &'a Value, problems: &'a Problems) -> Result<Fields<'a>> {
        match body {
            Value::Object(map) => Ok(Fields {
                map,
                path: String::new(),
                problems,
            }),
            other => Err(mismatch(other, "a structure")),
        }
    }

    /// Reports the constraint breaches collected while reading, all at once.
    pub fn finish(&self) -> Result<()> {
        let problems = self.problems.0.borrow();
        if problems.is_empty() {
            return Ok(());
        }
        let n = problems.len();
        Err(WireError::validation(format!(
            "{n} validation error{} detected: {}",
            if n == 1 { "" } else { "s" },
            problems.join("; ")
        )))
    }

    /// A required member: when it is absent, records DynamoDB's "must not be null" breach
    /// (a present member that failed its own check has been reported already).
    pub fn require<T>(&self, key: &str, value: Option<T>) -> Option<T> {
        if value.is_none() && self.get(key).is_none() {
            self.problems.0.borrow_mut().push(format!(
                "Value null at '{}' failed to satisfy constraint: Member must not be null",
                self.child_path(key)
            ));
        }
        value
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn child_path(&self, key: &str) -> String {
        let mut name = key.to_string();
        if let Some(first) = name.get_mut(..1) {
            first.make_ascii_lowercase();
        }
        if self.path.is_empty() {
            name
        } else {
            format!("{}.{name}", self.path)
        }
    }

    pub fn string(&self, key: &str) -> Result<Option<String>> {
        self.get(key)
            .map(|v| string(v).map(str::to_string))
            .transpose()
    }

    pub fn bool(&self, key: &str) -> Result<Option<bool>> {
        self.get(key)
            .map(|v| v.as_bool().ok_or_else(|| mismatch(v, "a Boolean")))
            .transpose()
    }

    pub fn i64(&self, key: &str) -> Result<Option<i64>> {
        self.get(key)
            .map(|v| v.as_i64().ok_or_else(|| mismatch(v, "a Long")))
            .transpose()
    }

    pub fn i32(&self, key: &str) -> Result<Option<i32>> {
        self.get(key)
            .map(|v| {
                v.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| mismatch(v, "an Integer"))
            })
            .transpose()
    }

    /// A nested structure.
    pub fn object(&self, key: &str) -> Result<Option<Fields<'a>>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v {
            Value::Object(map) => Ok(Some(Fields {
                map,
                path: self.child_path(key),
                problems: self.problems,
            })),
            other => Err(mismatch(other, "a structure")),
        }
    }

    /// A list of structures.
    pub fn objects(&self, key: &str) -> Result<Option<Vec<Fields<'a>>>> {
        let Some(list) = self.list(key)? else {
            return Ok(None);
        };
        let path = self.child_path(key);
        list.iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(map) => Ok(Fields {
                    map,
                    path: format!("{path}.{}.member", i + 1),
                    problems: self.problems,
                }),
                other => Err(mismatch(other, "a structure")),
            })
            .collect::<Result<_>>()
            .map(Some)
    }

    /// A map of string to structure (the tables of a batch).
    pub fn object_map(&self, key: &str) -> Result<Option<Vec<(String, Fields<'a>)>>> {
        let Some(map) = self.map_field(key)? else {
            return Ok(None);
        };
        let path = self.child_path(key);
        map.iter()
            .map(|(k, v)| match v {
                Value::Object(inner) => Ok((
                    k.clone(),
                    Fields {
                        map: inner,
                        path: format!("{path}.{k}.member"),
                        problems: self.problems,
                    },
                )),
                other => Err(mismatch(other, "a structure")),
            })
            .collect::<Result<_>>()
            .map(Some)
    }

    /// A map of string to a list of structures (BatchWriteItem's `RequestItems`).
    pub fn object_list_map(&self, key: &str) -> Result<Option<Vec<TableList<'a>>>> {
        let Some(map) = self.map_field(key)? else {
            return Ok(None);
        };
        let path = self.child_path(key);
        let mut out = Vec::with_capacity(map.len());
        for (table, list) in map {
            let Value::Array(list) = list else {
                return Err(mismatch(list, "a list"));
            };
            let mut entries = Vec::with_capacity(list.len());
            for (i, v) in list.iter().enumerate() {
                let Value::Object(inner) = v else {
                    return Err(mismatch(v, "a structure"));
                };
                entries.push(Fields {
                    map: inner,
                    path: format!("{path}.{table}.member.{}.member", i + 1),
                    problems: self.problems,
                });
            }
            out.push((table.clone(), entries));
        }
        Ok(Some(out))
    }

    pub fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some(list) = self.list(key)? else {
            return Ok(None);
        };
        list.iter()
            .map(|v| string(v).map(str::to_string))
            .collect::<Result<_>>()
            .map(Some)
    }

    /// An item (or key): attribute name → AttributeValue.
    pub fn item(&self, key: &str) -> Result<Option<Item>> {
        self.get(key).map(read_item).transpose()
    }

    /// A list of items (BatchGetItem's `Keys`).
    pub fn items(&self, key: &str) -> Result<Option<Vec<Item>>> {
        let Some(list) = self.list(key)? else {
            return Ok(None);
        };
        list.iter().map(read_item).collect::<Result<_>>().map(Some)
    }

    /// One AttributeValue (a legacy `Value`).
    pub fn value(&self, key: &str) -> Result<Option<AttributeValue>> {
        self.get(key).map(read_value).transpose()
    }

    /// A list of AttributeValues (a legacy `AttributeValueList`).
    pub fn values(&self, key: &str) -> Result<Option<Vec<AttributeValue>>> {
        let Some(list) = self.list(key)? else {
            return Ok(None);
        };
        list.iter().map(read_value).collect::<Result<_>>().map(Some)
    }

    /// `ExpressionAttributeNames`.
    pub fn string_map(&self, key: &str) -> Result<Option<HashMap<String, String>>> {
        let Some(map) = self.map_field(key)? else {
            return Ok(None);
        };
        map.iter()
            .map(|(k, v)| Ok((k.clone(), string(v)?.to_string())))
            .collect::<Result<_>>()
            .map(Some)
    }

    /// `ExpressionAttributeValues`.
    pub fn value_map(&self, key: &str) -> Result<Option<HashMap<String, AttributeValue>>> {
        self.item(key)
    }

    /// An enum field: a value outside its set is a constraint breach, collected for
    /// [`Fields::finish`], and reads as absent meanwhile.
    pub fn enumeration<T: WireEnum>(&self, key: &str) -> Result<Option<T>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let s = string(v)?;
        match T::from_wire(s) {
            Some(t) => Ok(Some(t)),
            None => {
                self.problems.0.borrow_mut().push(format!(
                    "Value '{s}' at '{}' failed to satisfy constraint: Member must satisfy enum value set: [{}]",
                    self.child_path(key),
                    T::wire_values().join(", ")
                ));
                Ok(None)
            }
        }
    }

    fn list(&self, key: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(list)) => Ok(Some(list)),
            Some(other) => Err(mismatch(other, "a list")),
        }
    }

    fn map_field(&self, key: &str) -> Result<Option<&'a Map<String, Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(mismatch(other, "a map")),
        }
    }
}

fn string(v: &Value) -> Result<&str> {
    v.as_str().ok_or_else(|| mismatch(v, "a String"))
}

/// An item through the engine's DynamoDB JSON reader. Its shape errors (a payload of the
/// wrong JSON type, undecodable base64) are serialization errors on the wire; the rest (no
/// type key, two type keys, nesting too deep) are DynamoDB's ValidationExceptions.
fn read_item(v: &Value) -> Result<Item> {
    engine::value::item_from_json(v).map_err(item_error)
}

/// One AttributeValue, with [`read_item`]'s split of errors.
fn read_value(v: &Value) -> Result<AttributeValue> {
    engine::value::value_from_json(v).map_err(item_error)
}

fn item_error(e: engine::error::Exception) -> WireError {
    {
        let message = e.message();
        if message.starts_with("Invalid AttributeValue")
            || message.starts_with("Invalid item")
            || message.contains("can not be converted to a Blob")
        {
            WireError::serialization(message)
        } else {
            WireError::validation(message)
        }
    }
}

/// A JSON value of the wrong type for its field, in the words of DynamoDB's (Coral's)
/// deserializer: the token found, and what it cannot become.
fn mismatch(found: &Value, expected: &str) -> WireError {
    let token = match found {
        Value::Null => "VALUE_NULL",
        Value::Bool(true) => "TRUE_VALUE",
        Value::Bool(false) => "FALSE_VALUE",
        Value::Number(n) if n.is_f64() => "VALUE_NUMBER_FLOAT",
        Value::Number(_) => "VALUE_NUMBER_INT",
        Value::String(_) => "VALUE_STRING",
        Value::Array(_) => "START_ARRAY",
        Value::Object(_) => "START_OBJECT",
    };
    WireError::serialization(format!("{token} can not be converted to {expected}"))
}

/// An enum as DynamoDB spells it on the wire, with its value set for the constraint message.
pub trait WireEnum: Sized {
    fn from_wire(s: &str) -> Option<Self>;
    /// Every value, in the order DynamoDB documents them.
    fn wire_values() -> &'static [&'static str];
}

macro_rules! wire_enums {
    ($($t:ty),*) => {$(
        impl WireEnum for $t {
            fn from_wire(s: &str) -> Option<Self> {
                s.parse().ok()
            }
            fn wire_values() -> &'static [&'static str] {
                <$t>::values()
            }
        }
    )*};
}

wire_enums!(
    AttributeAction,
    BillingMode,
    ComparisonOperator,
    ConditionalOperator,
    KeyType,
    ProjectionType,
    ReturnConsumedCapacity,
    ReturnItemCollectionMetrics,
    ReturnValue,
    ReturnValuesOnConditionCheckFailure,
    ScalarAttributeType,
    Select,
    SseType,
    StreamViewType
);

impl WireEnum for ShardIteratorType {
    fn from_wire(s: &str) -> Option<Self> {
        Some(match s {
            "TRIM_HORIZON" => ShardIteratorType::TrimHorizon,
            "LATEST" => ShardIteratorType::Latest,
            "AT_SEQUENCE_NUMBER" => ShardIteratorType::AtSequenceNumber,
            "AFTER_SEQUENCE_NUMBER" => ShardIteratorType::AfterSequenceNumber,
            _ => return None,
        })
    }
    fn wire_values() -> &'static [&'static str] {
        &[
            "TRIM_HORIZON",
            "LATEST",
            "AT_SEQUENCE_NUMBER",
            "AFTER_SEQUENCE_NUMBER",
        ]
    }
}
