//! Items → a learner's own types, through serde (what `serde_dynamo::from_item` does).
//!
//! The inverse of [`serde_ser`](super::serde_ser): `S` → strings (and chars and unit enum
//! variants), `N` → any integer or float type (integers exactly: `N("3.5")` into a `u32` is
//! an error, not 3), `BOOL` → bool, `NULL` → `None`/`()`, `L` and sets → sequences, `M` →
//! structs and maps, `B` → bytes. A missing attribute is `None` for an `Option` field and an
//! error otherwise. Every error is `Exception::Validation` and names the attribute it is about,
//! e.g. ``Cannot map item: attribute `address.zip`: expected N (a number), found S``.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

use super::{AttributeValue, MapInput, Number};
use crate::error::{Exception, Result};

/// Maps an item to `T` (a struct, a map…).
///
/// Not part of the SDK: this is `serde_dynamo::from_item`, with its signature (the item
/// type first, then the target: `from_item::<_, User>(item)`). It takes the engine's
/// [`Item`](crate::Item) or an SDK-style `HashMap`.
pub fn from_item<I: MapInput<AttributeValue>, T: DeserializeOwned>(item: I) -> Result<T> {
    T::deserialize(ValueDeserializer(AttributeValue::M(item.into_map())))
        .map_err(|e| Exception::validation(format!("Cannot map item: {e}")))
}

/// Maps every item of a Query or Scan page to `T`, in order; the first that does not map is
/// the error.
///
/// Not part of the SDK: `serde_dynamo::from_items`, with its signature.
///
/// It takes any collection of items, a `Vec` as serde_dynamo's does or a page's
/// [`Items`](crate::Items) (`from_items(out.items.unwrap_or_default())`).
pub fn from_items<I: MapInput<AttributeValue>, T: DeserializeOwned>(
    items: impl IntoIterator<Item = I>,
) -> Result<Vec<T>> {
    items.into_iter().map(from_item).collect()
}

/// Maps one AttributeValue to `T`.
pub fn from_attribute_value<T: DeserializeOwned>(value: AttributeValue) -> Result<T> {
    T::deserialize(ValueDeserializer(value))
        .map_err(|e| Exception::validation(format!("Cannot map value: {e}")))
}

/// The error of serde's side of the mapping, with the path of the attribute it is about.
#[derive(Debug)]
pub struct DeError {
    message: String,
    /// Innermost segment first (pushed while the error travels outwards).
    path: Vec<Segment>,
}

#[derive(Debug)]
enum Segment {
    Key(String),
    Index(usize),
}

impl DeError {
    fn new(message: impl Into<String>) -> DeError {
        DeError {
            message: message.into(),
            path: Vec::new(),
        }
    }
    fn at(mut self, segment: Segment) -> DeError {
        self.path.push(segment);
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            f.write_str("attribute `")?;
            for (i, segment) in self.path.iter().rev().enumerate() {
                match segment {
                    Segment::Key(k) if i == 0 => f.write_str(k)?,
                    Segment::Key(k) => write!(f, ".{k}")?,
                    Segment::Index(n) => write!(f, "[{n}]")?,
                }
            }
            f.write_str("`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<M: fmt::Display>(msg: M) -> DeError {
        DeError::new(msg.to_string())
    }
    fn missing_field(field: &'static str) -> DeError {
        DeError::new(format!("missing attribute `{field}`"))
    }
}

type DResult<T> = std::result::Result<T, DeError>;

fn mismatch(expected: &str, found: &AttributeValue) -> DeError {
    DeError::new(format!("expected {expected}, found {}", found.type_name()))
}

fn parse_number(s: &str) -> DResult<Number> {
    Number::parse(s).map_err(|e| DeError::new(e.message()))
}

/// Deserializes from one owned AttributeValue.
#[derive(Debug)]
pub struct ValueDeserializer(pub AttributeValue);

macro_rules! integer {
    ($($method:ident $visit:ident $t:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
            let AttributeValue::N(s) = &self.0 else { return Err(mismatch("N (a number)", &self.0)) };
            let n = parse_number(s)?;
            if !n.is_integer() {
                return Err(DeError::new(format!(
                    "N {n} is not an integer, expected {}", stringify!($t)
                )));
            }
            let v = n
                .to_i128()
                .and_then(|v| <$t>::try_from(v).ok())
                .or_else(|| n.to_u128().and_then(|v| <$t>::try_from(v).ok()))
                .ok_or_else(|| DeError::new(format!("N {n} is out of range for {}", stringify!($t))))?;
            visitor.$visit(v)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueDeserializer {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        use AttributeValue as A;
        match self.0 {
            A::S(s) => visitor.visit_string(s),
            A::N(s) => {
                let n = parse_number(&s)?;
                if let Some(v) = n.to_i64() {
                    visitor.visit_i64(v)
                } else if let Some(v) = n.to_u64() {
                    visitor.visit_u64(v)
                } else if let Some(v) = n.to_i128() {
                    visitor.visit_i128(v)
                } else {
                    visitor.visit_f64(n.to_f64_lossy())
                }
            }
            A::B(b) => visitor.visit_byte_buf(b.into_inner()),
            A::Bool(b) => visitor.visit_bool(b),
            A::Null(_) => visitor.visit_unit(),
            A::M(m) => visitor.visit_map(MapDe {
                iter: in_name_order(m),
                value: None,
            }),
            A::L(l) => visitor.visit_seq(SeqDe::new(l)),
            A::Ss(s) => visitor.visit_seq(SeqDe::new(s.into_iter().map(A::S).collect())),
            A::Ns(s) => visitor.visit_seq(SeqDe::new(s.into_iter().map(A::N).collect())),
            A::Bs(s) => visitor.visit_seq(SeqDe::new(s.into_iter().map(A::B).collect())),
        }
    }

    integer! {
        deserialize_i8 visit_i8 i8,
        deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32,
        deserialize_i64 visit_i64 i64,
        deserialize_i128 visit_i128 i128,
        deserialize_u8 visit_u8 u8,
        deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32,
        deserialize_u64 visit_u64 u64,
        deserialize_u128 visit_u128 u128,
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        let AttributeValue::N(s) = &self.0 else {
            return Err(mismatch("N (a number)", &self.0));
        };
        // Validate as a DynamoDB number first, then let Rust round the text to the nearest f64.
        let n = parse_number(s)?;
        visitor.visit_f64(
            n.to_string()
                .parse::<f64>()
                .map_err(|e| DeError::new(e.to_string()))?,
        )
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::Bool(b) => visitor.visit_bool(b),
            other => Err(mismatch("BOOL", &other)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::S(s) => visitor.visit_string(s),
            other => Err(mismatch("S (a string)", &other)),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::B(b) => visitor.visit_byte_buf(b.into_inner()),
            other => ValueDeserializer(other).deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::Null(_) => visitor.visit_none(),
            other => visitor.visit_some(ValueDeserializer(other)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::Null(_) => visitor.visit_unit(),
            other => Err(mismatch("NULL", &other)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> DResult<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> DResult<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        use AttributeValue as A;
        match self.0 {
            A::B(b) => visitor.visit_seq(SeqDe::new(
                b.into_inner().into_iter().map(A::from).collect(),
            )),
            v @ (A::L(_) | A::Ss(_) | A::Ns(_) | A::Bs(_)) => {
                ValueDeserializer(v).deserialize_any(visitor)
            }
            other => Err(mismatch("L or a set", &other)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> DResult<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> DResult<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::M(m) => visitor.visit_map(MapDe {
                iter: in_name_order(m),
                value: None,
            }),
            other => Err(mismatch("M (a map)", &other)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> DResult<V::Value> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> DResult<V::Value> {
        match self.0 {
            AttributeValue::S(variant) => visitor.visit_enum(EnumDe {
                variant,
                value: None,
            }),
            AttributeValue::M(m) if m.len() == 1 => {
                let Some((variant, value)) = m.into_iter().next() else {
                    return Err(DeError::new("expected an enum"));
                };
                visitor
                    .visit_enum(EnumDe {
                        variant: variant.clone(),
                        value: Some(value),
                    })
                    .map_err(|e| e.at(Segment::Key(variant)))
            }
            other => Err(mismatch(
                "an enum: S (the variant) or M with one key",
                &other,
            )),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        visitor.visit_unit()
    }
}

struct SeqDe {
    iter: std::vec::IntoIter<AttributeValue>,
    index: usize,
}

impl SeqDe {
    fn new(values: Vec<AttributeValue>) -> SeqDe {
        SeqDe {
            iter: values.into_iter(),
            index: 0,
        }
    }
}

impl<'de> de::SeqAccess<'de> for SeqDe {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> DResult<Option<T::Value>> {
        let Some(v) = self.iter.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(ValueDeserializer(v))
            .map(Some)
            .map_err(|e| e.at(Segment::Index(index)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapDe {
    iter: std::vec::IntoIter<(String, AttributeValue)>,
    value: Option<(String, AttributeValue)>,
}

impl<'de> de::MapAccess<'de> for MapDe {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> DResult<Option<K::Value>> {
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        let key = seed
            .deserialize(KeyDe(k.clone()))
            .map_err(|e| e.at(Segment::Key(k.clone())))?;
        self.value = Some((k, v));
        Ok(Some(key))
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> DResult<T::Value> {
        let (k, v) = self
            .value
            .take()
            .ok_or_else(|| DeError::new("map value without a key"))?;
        seed.deserialize(ValueDeserializer(v))
            .map_err(|e| e.at(Segment::Key(k)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An attribute name as a map key: a string, or an integer if the map wants integer keys.
struct KeyDe(String);

macro_rules! key_integer {
    ($($method:ident $visit:ident $t:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
            let v: $t = self.0.parse().map_err(|_| {
                DeError::new(format!("map key `{}` is not a valid {}", self.0, stringify!($t)))
            })?;
            visitor.$visit(v)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDe {
    type Error = DeError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> DResult<V::Value> {
        visitor.visit_string(self.0)
    }
    key_integer! {
        deserialize_i8 visit_i8 i8,
        deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32,
        deserialize_i64 visit_i64 i64,
        deserialize_u8 visit_u8 u8,
        deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32,
        deserialize_u64 visit_u64 u64,
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> DResult<V::Value> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> DResult<V::Value> {
        visitor.visit_enum(EnumDe {
            variant: self.0,
            value: None,
        })
    }
    forward_to_deserialize_any! {
        bool i128 u128 f32 f64 char str string bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

struct EnumDe {
    variant: String,
    value: Option<AttributeValue>,
}

impl<'de> de::EnumAccess<'de> for EnumDe {
    type Error = DeError;
    type Variant = VariantDe;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> DResult<(V::Value, VariantDe)> {
        let de: de::value::StringDeserializer<DeError> = self.variant.into_deserializer();
        Ok((seed.deserialize(de)?, VariantDe(self.value)))
    }
}

struct VariantDe(Option<AttributeValue>);

impl VariantDe {
    fn value(self) -> DResult<AttributeValue> {
        self.0
            .ok_or_else(|| DeError::new("expected M with the variant's data, found S"))
    }
}

impl<'de> de::VariantAccess<'de> for VariantDe {
    type Error = DeError;
    fn unit_variant(self) -> DResult<()> {
        match self.0 {
            None | Some(AttributeValue::Null(_)) => Ok(()),
            Some(other) => Err(mismatch("NULL for a unit variant", &other)),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> DResult<T::Value> {
        seed.deserialize(ValueDeserializer(self.value()?))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> DResult<V::Value> {
        de::Deserializer::deserialize_seq(ValueDeserializer(self.value()?), visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> DResult<V::Value> {
        de::Deserializer::deserialize_map(ValueDeserializer(self.value()?), visitor)
    }
}

/// A map's entries in name order: a struct's fields are visited, and its first error found, in
/// one order on every run (a `HashMap`'s own order is drawn per process).
fn in_name_order(
    m: HashMap<String, AttributeValue>,
) -> std::vec::IntoIter<(String, AttributeValue)> {
    let mut entries: Vec<(String, AttributeValue)> = m.into_iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter()
}
