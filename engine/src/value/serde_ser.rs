//! A learner's own types → items, through serde (what `serde_dynamo::to_item` does).
//!
//! ```text
//!   #[derive(Serialize)] struct User { id: String, age: u32, nick: Option<String>, tags: Vec<String> }
//!   to_item(&user)?  ==  item! { "id" => "u1", "age" => 30, "nick" => NULL, "tags" => vec![..] }
//! ```
//!
//! | Rust                                  | DynamoDB                                         |
//! |---------------------------------------|--------------------------------------------------|
//! | `String`, `&str`, `char`              | `S`                                              |
//! | integers, floats                      | `N` (floats by their shortest round-trip text; NaN and infinities are refused) |
//! | `bool`                                | `BOOL`                                           |
//! | `None`, `()`                          | `NULL` (a field marked `#[serde(skip_serializing_if = "Option::is_none")]` is left out) |
//! | `Vec`, slices, tuples                 | `L`                                              |
//! | structs, maps (string or integer keys)| `M`                                              |
//! | bytes (`serde_bytes`, `serialize_bytes`) | `B`                                           |
//! | unit enum variant                     | `S` (the variant's name)                         |
//! | other enum variants                   | `M` with one key, the variant (serde's external tagging) |
//!
//! Not mapped: sets (serde has no set shape that says "DynamoDB set"; a `Vec`/`HashSet` becomes
//! `L`), and an `AttributeValue` field inside a struct (it serializes in its wire shape, so
//! `S("x")` would become `M{"S": S("x")}`). Put such attributes into the item after `to_item`.
//!
//! Design decision: `None` is `NULL`, as serde_dynamo has it, so that code written here stores
//! what it would store in production. An attribute that must be absent when there is no value
//! (a sparse index's key: an index key attribute that is `NULL` is a type error, not a missing
//! key) takes serde's `#[serde(skip_serializing_if = "Option::is_none")]`, as it would there.
//! The serializer still returns `Option<AttributeValue>` (`None`: nothing to store), which only
//! skipped fields produce.

use std::collections::HashMap;
use std::fmt;

use serde::ser::{self, Serialize};

use super::{AttributeValue, Blob, Item, Number};
use crate::error::{Exception, Result};

/// Maps a struct or map to an item. Anything that is not a map (a number, a list…) is an error.
///
/// Not part of the SDK: this is `serde_dynamo::to_item`, with its signature (the value by
/// value; `&value` works too, as a reference is `Serialize`). It returns the engine's
/// [`Item`], which every item setter takes.
pub fn to_item<T: Serialize>(value: T) -> Result<Item> {
    match to_attribute_value(&value)? {
        AttributeValue::M(m) => Ok(m),
        other => Err(Exception::validation(format!(
            "Cannot map a value of type {} to an item: an item must come from a struct or a map",
            other.type_name()
        ))),
    }
}

/// Maps any serializable value to one AttributeValue (`None` becomes `NULL`).
pub fn to_attribute_value<T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue> {
    value
        .serialize(ValueSerializer)
        .map(|v| v.unwrap_or(AttributeValue::Null(true)))
        .map_err(|e| Exception::validation(e.0))
}

/// The error of serde's side of the mapping; converted to `Exception::Validation` at the API.
#[derive(Debug)]
pub struct SerError(String);

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<M: fmt::Display>(msg: M) -> SerError {
        SerError(msg.to_string())
    }
}

type SResult = std::result::Result<Option<AttributeValue>, SerError>;

fn number(n: std::result::Result<Number, Exception>) -> SResult {
    n.map(|n| Some(AttributeValue::N(n.to_string())))
        .map_err(|e| SerError(e.message().to_owned()))
}

fn float(text: String, finite: bool) -> SResult {
    if !finite {
        return Err(SerError(format!(
            "Cannot store {text} in a DynamoDB Number: only finite numbers are supported"
        )));
    }
    number(Number::parse(&text))
}

/// Serializes one value; `Ok(None)` means "leave the attribute out".
#[derive(Clone, Copy, Debug)]
pub struct ValueSerializer;

impl ser::Serializer for ValueSerializer {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    type SerializeSeq = SeqSer;
    type SerializeTuple = SeqSer;
    type SerializeTupleStruct = SeqSer;
    type SerializeTupleVariant = VariantSer<SeqSer>;
    type SerializeMap = MapSer;
    type SerializeStruct = MapSer;
    type SerializeStructVariant = VariantSer<MapSer>;

    fn serialize_bool(self, v: bool) -> SResult {
        Ok(Some(AttributeValue::Bool(v)))
    }
    fn serialize_i8(self, v: i8) -> SResult {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> SResult {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> SResult {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> SResult {
        number(Ok(Number::from_i64(v)))
    }
    fn serialize_i128(self, v: i128) -> SResult {
        number(Number::from_i128(v))
    }
    fn serialize_u8(self, v: u8) -> SResult {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> SResult {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> SResult {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> SResult {
        number(Ok(Number::from_u64(v)))
    }
    fn serialize_u128(self, v: u128) -> SResult {
        number(Number::from_u128(v))
    }
    fn serialize_f32(self, v: f32) -> SResult {
        // `Display` of a float is its shortest text that reads back to the same float.
        float(v.to_string(), v.is_finite())
    }
    fn serialize_f64(self, v: f64) -> SResult {
        float(v.to_string(), v.is_finite())
    }
    fn serialize_char(self, v: char) -> SResult {
        Ok(Some(AttributeValue::S(v.to_string())))
    }
    fn serialize_str(self, v: &str) -> SResult {
        Ok(Some(AttributeValue::S(v.to_owned())))
    }
    fn serialize_bytes(self, v: &[u8]) -> SResult {
        Ok(Some(AttributeValue::B(Blob::new(v))))
    }
    fn serialize_none(self) -> SResult {
        Ok(Some(AttributeValue::Null(true)))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> SResult {
        value.serialize(self)
    }
    fn serialize_unit(self) -> SResult {
        Ok(Some(AttributeValue::Null(true)))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> SResult {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> SResult {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> SResult {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> SResult {
        let inner = value.serialize(self)?.unwrap_or(AttributeValue::Null(true));
        Ok(Some(AttributeValue::M(HashMap::from([(
            variant.to_owned(),
            inner,
        )]))))
    }
    fn serialize_seq(self, len: Option<usize>) -> std::result::Result<SeqSer, SerError> {
        Ok(SeqSer(Vec::with_capacity(len.unwrap_or(0).min(1024))))
    }
    fn serialize_tuple(self, len: usize) -> std::result::Result<SeqSer, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> std::result::Result<SeqSer, SerError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> std::result::Result<VariantSer<SeqSer>, SerError> {
        Ok(VariantSer {
            variant,
            inner: self.serialize_seq(Some(len))?,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> std::result::Result<MapSer, SerError> {
        Ok(MapSer {
            map: HashMap::new(),
            key: None,
        })
    }
    fn serialize_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> std::result::Result<MapSer, SerError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> std::result::Result<VariantSer<MapSer>, SerError> {
        Ok(VariantSer {
            variant,
            inner: self.serialize_map(Some(len))?,
        })
    }
}

/// Builds an `L`; `None` elements become `NULL` so positions are kept.
#[derive(Debug)]
pub struct SeqSer(Vec<AttributeValue>);

impl SeqSer {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> std::result::Result<(), SerError> {
        let v = value
            .serialize(ValueSerializer)?
            .unwrap_or(AttributeValue::Null(true));
        self.0.push(v);
        Ok(())
    }
}

impl ser::SerializeSeq for SeqSer {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_element<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        self.push(value)
    }
    fn end(self) -> SResult {
        Ok(Some(AttributeValue::L(self.0)))
    }
}

impl ser::SerializeTuple for SeqSer {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_element<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        self.push(value)
    }
    fn end(self) -> SResult {
        Ok(Some(AttributeValue::L(self.0)))
    }
}

impl ser::SerializeTupleStruct for SeqSer {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        self.push(value)
    }
    fn end(self) -> SResult {
        Ok(Some(AttributeValue::L(self.0)))
    }
}

/// Builds an `M`.
#[derive(Debug)]
pub struct MapSer {
    map: HashMap<String, AttributeValue>,
    key: Option<String>,
}

impl MapSer {
    fn insert<T: Serialize + ?Sized>(
        &mut self,
        key: String,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        if let Some(v) = value.serialize(ValueSerializer)? {
            self.map.insert(key, v);
        }
        Ok(())
    }
}

impl ser::SerializeMap for MapSer {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_key<T: Serialize + ?Sized>(
        &mut self,
        key: &T,
    ) -> std::result::Result<(), SerError> {
        self.key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| SerError("map value without a key".to_owned()))?;
        self.insert(key, value)
    }
    fn end(self) -> SResult {
        Ok(Some(AttributeValue::M(self.map)))
    }
}

impl ser::SerializeStruct for MapSer {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        self.insert(key.to_owned(), value)
    }
    fn end(self) -> SResult {
        Ok(Some(AttributeValue::M(self.map)))
    }
}

/// `{variant: inner}`, serde's external tagging.
#[derive(Debug)]
pub struct VariantSer<I> {
    variant: &'static str,
    inner: I,
}

impl<I> VariantSer<I> {
    fn wrap(variant: &'static str, inner: SResult) -> SResult {
        let inner = inner?.unwrap_or(AttributeValue::Null(true));
        Ok(Some(AttributeValue::M(HashMap::from([(
            variant.to_owned(),
            inner,
        )]))))
    }
}

impl ser::SerializeTupleVariant for VariantSer<SeqSer> {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        self.inner.push(value)
    }
    fn end(self) -> SResult {
        Self::wrap(self.variant, ser::SerializeSeq::end(self.inner))
    }
}

impl ser::SerializeStructVariant for VariantSer<MapSer> {
    type Ok = Option<AttributeValue>;
    type Error = SerError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> std::result::Result<(), SerError> {
        self.inner.insert(key.to_owned(), value)
    }
    fn end(self) -> SResult {
        Self::wrap(self.variant, ser::SerializeMap::end(self.inner))
    }
}

/// Map keys: strings, chars, integers and unit variants become attribute names.
struct KeySerializer;

fn key_error() -> SerError {
    SerError("Map keys must be strings, chars, integers or unit enum variants".to_owned())
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = SerError;
    type SerializeSeq = ser::Impossible<String, SerError>;
    type SerializeTuple = ser::Impossible<String, SerError>;
    type SerializeTupleStruct = ser::Impossible<String, SerError>;
    type SerializeTupleVariant = ser::Impossible<String, SerError>;
    type SerializeMap = ser::Impossible<String, SerError>;
    type SerializeStruct = ser::Impossible<String, SerError>;
    type SerializeStructVariant = ser::Impossible<String, SerError>;

    fn serialize_str(self, v: &str) -> std::result::Result<String, SerError> {
        Ok(v.to_owned())
    }
    fn serialize_char(self, v: char) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_i8(self, v: i8) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> std::result::Result<String, SerError> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> std::result::Result<String, SerError> {
        Ok(v.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> std::result::Result<String, SerError> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_f32(self, _: f32) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_f64(self, _: f64) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_bytes(self, _: &[u8]) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_none(self) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_unit(self) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> std::result::Result<String, SerError> {
        Err(key_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> std::result::Result<Self::SerializeSeq, SerError> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> std::result::Result<Self::SerializeTuple, SerError> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeTupleStruct, SerError> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeTupleVariant, SerError> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> std::result::Result<Self::SerializeMap, SerError> {
        Err(key_error())
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeStruct, SerError> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> std::result::Result<Self::SerializeStructVariant, SerError> {
        Err(key_error())
    }
}
