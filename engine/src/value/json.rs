//! DynamoDB JSON: how values travel on the wire.
//!
//! ```text
//!   {"S":"x"}  {"N":"1.5"}  {"B":"AAE="}  {"BOOL":true}  {"NULL":true}
//!   {"M":{"a":{"N":"1"}}}   {"L":[{"S":"x"},{"N":"2"}]}
//!   {"SS":["a","b"]}  {"NS":["1","2"]}  {"BS":["AAE="]}
//! ```
//!
//! Each value is an object with exactly one type key. Numbers are strings, binaries are
//! standard base64 with padding. Keys whose value is JSON `null` count as absent and unknown
//! keys are ignored, as DynamoDB's request parser does, so `{"s":"x"}` is an *empty*
//! AttributeValue, not a string.
//!
//! Reading JSON checks the shape only; number limits, set rules and nesting are checked by
//! [`canonicalize_value`](super::canonicalize_value), which the engine applies to every input.
//! (One exception: reading stops at [`MAX_DEPTH`] levels, so a hostile
//! payload cannot exhaust the stack.)

use serde::de::Error as _;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::validate::{MAX_DEPTH, MSG_NESTING};
use super::{AttributeValue, Blob, Item};
use crate::error::{Exception, Result};

const TAGS: [&str; 10] = ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"];

/// An item as a DynamoDB JSON object (attribute name → AttributeValue JSON), its attributes in
/// name order (inserted sorted, so the order holds even where serde_json keeps insertion order).
pub fn item_to_json(item: &Item) -> Value {
    Value::Object(
        super::sorted(item)
            .into_iter()
            .map(|(k, v)| (k.clone(), value_to_json(v)))
            .collect(),
    )
}

/// One value as DynamoDB JSON.
pub fn value_to_json(v: &AttributeValue) -> Value {
    use AttributeValue as V;
    let strings = |s: &[String]| Value::Array(s.iter().cloned().map(Value::String).collect());
    let (tag, payload) = match v {
        V::S(s) => ("S", Value::String(s.clone())),
        V::N(n) => ("N", Value::String(n.clone())),
        V::B(b) => ("B", Value::String(encode_base64(b.as_ref()))),
        V::Bool(b) => ("BOOL", Value::Bool(*b)),
        V::Null(b) => ("NULL", Value::Bool(*b)),
        V::M(m) => ("M", item_to_json(m)),
        V::L(l) => ("L", Value::Array(l.iter().map(value_to_json).collect())),
        V::Ss(s) => ("SS", strings(s)),
        V::Ns(s) => ("NS", strings(s)),
        V::Bs(s) => (
            "BS",
            Value::Array(
                s.iter()
                    .map(|b| Value::String(encode_base64(b.as_ref())))
                    .collect(),
            ),
        ),
    };
    let mut obj = Map::new();
    obj.insert(tag.to_owned(), payload);
    Value::Object(obj)
}

/// Reads an item from DynamoDB JSON. Malformed payloads are `Exception::Validation`.
pub fn item_from_json(v: &Value) -> Result<Item> {
    let Value::Object(obj) = v else {
        return Err(Exception::validation(format!(
            "Invalid item: expected a JSON object of attribute name to AttributeValue, found {}",
            kind(v)
        )));
    };
    map_from_json(obj, 0)
}

/// Reads one value from DynamoDB JSON. Malformed payloads are `Exception::Validation`.
pub fn value_from_json(v: &Value) -> Result<AttributeValue> {
    from_json(v, 0)
}

fn map_from_json(obj: &Map<String, Value>, depth: usize) -> Result<Item> {
    obj.iter()
        .map(|(k, v)| Ok((k.clone(), from_json(v, depth)?)))
        .collect()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong(tag: &str, expected: &str, found: &Value) -> Exception {
    Exception::validation(format!(
        "Invalid AttributeValue: {tag} expects {expected}, found {}",
        kind(found)
    ))
}

fn from_json(v: &Value, depth: usize) -> Result<AttributeValue> {
    use AttributeValue as V;
    let Value::Object(obj) = v else {
        return Err(Exception::validation(format!(
            "Invalid AttributeValue: expected an object with one type key such as {{\"S\": \"text\"}}, found {}",
            kind(v)
        )));
    };
    let mut present = obj
        .iter()
        .filter(|(k, v)| !v.is_null() && TAGS.contains(&k.as_str()));
    let Some((tag, payload)) = present.next() else {
        return Err(Exception::validation(
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
        ));
    };
    if present.next().is_some() {
        return Err(Exception::validation(
            "Supplied AttributeValue has more than one datatypes set, \
             must contain exactly one of the supported datatypes",
        ));
    }
    let string = |p: &Value, expected: &str| match p {
        Value::String(s) => Ok(s.clone()),
        other => Err(wrong(tag, expected, other)),
    };
    fn array<'a>(tag: &str, p: &'a Value) -> Result<&'a Vec<Value>> {
        match p {
            Value::Array(a) => Ok(a),
            other => Err(wrong(tag, "an array", other)),
        }
    }
    let nested = || {
        if depth >= MAX_DEPTH {
            Err(Exception::validation(MSG_NESTING))
        } else {
            Ok(depth + 1)
        }
    };
    Ok(match tag.as_str() {
        "S" => V::S(string(payload, "a string")?),
        "N" => V::N(string(
            payload,
            "a string (numbers travel as strings, e.g. \"42\")",
        )?),
        "B" => V::B(Blob::new(decode_base64(&string(
            payload,
            "a base64 string",
        )?)?)),
        "BOOL" | "NULL" => {
            let Value::Bool(b) = payload else {
                return Err(wrong(tag, "true or false", payload));
            };
            if tag == "BOOL" {
                V::Bool(*b)
            } else {
                V::Null(*b)
            }
        }
        "M" => {
            let Value::Object(m) = payload else {
                return Err(wrong(tag, "an object", payload));
            };
            V::M(map_from_json(m, nested()?)?)
        }
        "L" => {
            let depth = nested()?;
            V::L(
                array(tag, payload)?
                    .iter()
                    .map(|e| from_json(e, depth))
                    .collect::<Result<_>>()?,
            )
        }
        "SS" => V::Ss(
            array(tag, payload)?
                .iter()
                .map(|e| string(e, "an array of strings"))
                .collect::<Result<_>>()?,
        ),
        "NS" => V::Ns(
            array(tag, payload)?
                .iter()
                .map(|e| string(e, "an array of strings (numbers travel as strings)"))
                .collect::<Result<_>>()?,
        ),
        _ => V::Bs(
            array(tag, payload)?
                .iter()
                .map(|e| {
                    Ok(Blob::new(decode_base64(&string(
                        e,
                        "an array of base64 strings",
                    )?)?))
                })
                .collect::<Result<_>>()?,
        ),
    })
}

impl Serialize for AttributeValue {
    /// The wire shape, `{"S":"x"}` and so on.
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use AttributeValue as V;
        struct B64<'a>(&'a [u8]);
        impl Serialize for B64<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(&encode_base64(self.0))
            }
        }
        struct BlobSet<'a>(&'a [Blob]);
        impl Serialize for BlobSet<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for b in self.0 {
                    seq.serialize_element(&B64(b.as_ref()))?;
                }
                seq.end()
            }
        }
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            V::S(s) => map.serialize_entry("S", s)?,
            V::N(n) => map.serialize_entry("N", n)?,
            V::B(b) => map.serialize_entry("B", &B64(b.as_ref()))?,
            V::Bool(b) => map.serialize_entry("BOOL", b)?,
            V::Null(b) => map.serialize_entry("NULL", b)?,
            V::M(m) => map.serialize_entry("M", m)?,
            V::L(l) => map.serialize_entry("L", l)?,
            V::Ss(s) => map.serialize_entry("SS", s)?,
            V::Ns(s) => map.serialize_entry("NS", s)?,
            V::Bs(s) => map.serialize_entry("BS", &BlobSet(s))?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for AttributeValue {
    /// Reads the wire shape, with the same checks as [`value_from_json`].
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        value_from_json(&v).map_err(|e| D::Error::custom(e.message()))
    }
}

// ---------------------------------------------------------------------------------------------
// Base64 (RFC 4648, standard alphabet, with padding): small enough to not be a dependency.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn encode_base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(chunk.get(1).copied().unwrap_or(0)) << 8)
            | u32::from(chunk.get(2).copied().unwrap_or(0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Strict standard base64: length a multiple of 4, padding only at the end, and the unused
/// bits of the last character zero (so each byte string has exactly one encoding). Exception
/// wording follows the emulator's (typo "dectected" included).
pub fn decode_base64(s: &str) -> Result<Vec<u8>> {
    let fail =
        |why: String| Exception::validation(format!("'{s}' can not be converted to a Blob: {why}"));
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return Err(fail(format!(
            "Base64 encoded length is expected a multiple of 4 bytes but found: {}",
            b.len()
        )));
    }
    let value = |c: u8| ALPHABET.iter().position(|&a| a == c).map(|p| p as u32);
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (ci, chunk) in b.chunks(4).enumerate() {
        let last = ci == b.len() / 4 - 1;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err(fail("Invalid Base64 character: '='".to_owned()));
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            let Some(v) = value(c) else {
                return Err(fail(format!(
                    "Invalid Base64 character: '{}'",
                    char::from(c)
                )));
            };
            n = (n << 6) | v;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let keep = 3 - pad;
        if bytes[keep..].iter().any(|&x| x != 0) {
            return Err(fail(
                "Invalid last non-pad Base64 character dectected".to_owned(),
            ));
        }
        out.extend_from_slice(&bytes[..keep]);
    }
    Ok(out)
}
