//! # Items and attribute values
//!
//! An **item** is a map from attribute names to values, at most 400 KB in all. DynamoDB has no
//! schema beyond the key: every item carries its own attribute names and each value its own
//! type. There are ten types, in three families:
//!
//! ```text
//!   scalars    S  string (UTF-8)        N  number (exact decimal)     B  binary (raw bytes)
//!              BOOL  true/false         NULL  always true
//!   documents  L  list of any values    M  map name → any value        (nest ≤ 32 levels)
//!   sets       SS strings   NS numbers   BS binaries                   (non-empty, unique)
//! ```
//!
//! On the wire a value is a one-key JSON object, `{"S":"x"}`, `{"N":"1.5"}`,
//! `{"B":"AAE="}` (base64), `{"M":{"a":{"BOOL":true}}}` ([`json`]); in this crate it is the
//! [`AttributeValue`] enum, shaped like `aws_sdk_dynamodb::types::AttributeValue` so that code
//! written here reads like code written against the real SDK.
//!
//! ## Numbers are strings outside, exact decimals inside
//!
//! `N` travels as a string (`N("1.5")`) because JSON numbers are read as binary floats by most
//! clients, and `0.1 + 0.2` in floating point is not `0.3`. DynamoDB numbers are decimal:
//! up to 38 significant digits, magnitude 1E-130 … 9.99…E+125, and arithmetic (`ADD`,
//! `SET a = a + :x`) is exact. The engine parses each number into a [`Number`] (a `u128`
//! coefficient and a power of ten), compares numerically (`"1.0"` equals `"1"`, `"10"` sorts
//! after `"9"`), and stores the canonical string (`"+01.50"` → `"1.5"`, `"1e3"` → `"1000"`).
//!
//! ## Sets
//!
//! A set holds one scalar type, is never empty and never holds duplicates (for `NS`,
//! duplicates are numeric: `"1"` and `"1.0"` collide). Its order means nothing: two sets are
//! equal if they have the same elements. Empty strings and empty binaries are allowed as
//! elements, as they are anywhere outside a key.
//!
//! ## How big an item is
//!
//! Item size decides capacity units (1 WCU per 1 KB written, 1 RCU per 4 KB read) and the
//! 400 KB limit. It is the sum over attributes of the name's UTF-8 length plus the value's
//! size ([`size`]): strings and binaries count their bytes, a number roughly one byte per two
//! digits plus one, `BOOL`/`NULL` one byte, a list or map 3 bytes plus one byte per element
//! plus the elements (a map element also counts its name), a set the sum of its elements.
//! `{"shirt-color":"R","shirt-size":"M"}` is (11 + 1) + (10 + 1) = 23 bytes.
//!
//! ## Where each rule lives
//!
//! - [`number`]: parsing, limits, ordering and exact arithmetic of `N`.
//! - [`size`]: item and value sizes.
//! - [`validate`]: what DynamoDB refuses on input, and the canonical form it stores.
//! - [`json`]: DynamoDB JSON, both directions.
//! - [`serde_ser`] / [`serde_de`]: a learner's own structs to and from items, like
//!   `serde_dynamo` does.
//! - `macros.rs`: the [`item!`](crate::item) literal.
//!
//! ## What the model leaves out
//!
//! - Sets are plain vectors, as in the SDK; the engine keeps them in the order given and
//!   compares them order-free. It does not sort or shuffle them as DynamoDB may.
//! - Storage encodings beyond what size accounting needs (compression, index overhead bytes).
//! - The serialization-level errors of the HTTP layer (`SerializationException`): a malformed
//!   JSON payload is reported as a `ValidationException` with a clear message.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

pub mod json;
mod macros;
pub mod number;
pub mod serde_de;
pub mod serde_ser;
pub mod size;
pub mod validate;

pub use json::{item_from_json, item_to_json, value_from_json, value_to_json};
pub use number::Number;
pub use serde_de::{from_attribute_value, from_item, from_items};
pub use serde_ser::{to_attribute_value, to_item};
pub use size::{item_size, MAX_ITEM_SIZE};
pub use validate::{canonicalize_item, canonicalize_value, MAX_DEPTH};

/// An item: attribute name → value, a std `HashMap` as in the SDK.
///
/// Its iteration order is std's (drawn per process), so nothing in the engine lets that order
/// show: every place that prints, serializes, validates or hashes an item walks its names
/// sorted ([`sorted`]). See "Items are the SDK's `HashMap`" in the crate's essay.
pub type Item = HashMap<String, AttributeValue>;

/// An item's attributes in name order: what the engine walks wherever order could show (an
/// error naming the first bad attribute, a trace, a hash, a printed item).
pub fn sorted<V>(map: &HashMap<String, V>) -> Vec<(&String, &V)> {
    let mut entries: Vec<(&String, &V)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

/// A map given to the engine: the SDK's `HashMap` (what [`Item`] is), or a `BTreeMap`, for
/// items, keys, placeholders and request items alike.
///
/// Not part of the SDK, whose setters take a `HashMap` only: the `BTreeMap` form is kept so
/// that code which builds its maps in order still compiles.
pub trait MapInput<V> {
    /// The map as the engine keeps it.
    fn into_map(self) -> HashMap<String, V>;
}

impl<V> MapInput<V> for HashMap<String, V> {
    fn into_map(self) -> HashMap<String, V> {
        self
    }
}

impl<V> MapInput<V> for BTreeMap<String, V> {
    fn into_map(self) -> HashMap<String, V> {
        self.into_iter().collect()
    }
}

/// Raw bytes of a `B` value (the SDK's `aws_smithy_types::Blob`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Blob(Vec<u8>);

impl Blob {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Blob {
        Blob(bytes.into())
    }
    #[allow(clippy::should_implement_trait)]
    pub fn as_ref(&self) -> &[u8] {
        &self.0
    }
    pub fn into_inner(self) -> Vec<u8> {
        self.0
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl AsRef<[u8]> for Blob {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Blob {
    fn from(v: Vec<u8>) -> Blob {
        Blob(v)
    }
}

impl From<&[u8]> for Blob {
    fn from(v: &[u8]) -> Blob {
        Blob(v.to_vec())
    }
}

/// One DynamoDB value, shaped like `aws_sdk_dynamodb::types::AttributeValue`.
///
/// Numbers travel as strings (`N("1.5")`), as in DynamoDB's wire format; the engine parses
/// them into exact decimals ([`Number`]) to compare and compute, and stores them in canonical
/// form. `PartialEq` is structural (`N("1")` ≠ `N("1.0")`, set order matters); use
/// [`AttributeValue::dynamo_eq`] for DynamoDB's equality. `Debug` prints a map's entries in
/// name order (unlike a `HashMap`'s own), so a printed value is the same on every run.
#[derive(Clone, PartialEq)]
pub enum AttributeValue {
    S(String),
    N(String),
    B(Blob),
    Bool(bool),
    Null(bool),
    M(HashMap<String, AttributeValue>),
    L(Vec<AttributeValue>),
    Ss(Vec<String>),
    Ns(Vec<String>),
    Bs(Vec<Blob>),
}

/// The derived form (`S("x")`, `M({"a": N("1")})`), with a map's entries sorted by name.
impl std::fmt::Debug for AttributeValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use AttributeValue as V;
        match self {
            V::S(v) => f.debug_tuple("S").field(v).finish(),
            V::N(v) => f.debug_tuple("N").field(v).finish(),
            V::B(v) => f.debug_tuple("B").field(v).finish(),
            V::Bool(v) => f.debug_tuple("Bool").field(v).finish(),
            V::Null(v) => f.debug_tuple("Null").field(v).finish(),
            V::M(m) => f.debug_tuple("M").field(&SortedMap(m)).finish(),
            V::L(v) => f.debug_tuple("L").field(v).finish(),
            V::Ss(v) => f.debug_tuple("Ss").field(v).finish(),
            V::Ns(v) => f.debug_tuple("Ns").field(v).finish(),
            V::Bs(v) => f.debug_tuple("Bs").field(v).finish(),
        }
    }
}

/// A map printed as `{"a": .., "b": ..}` in name order.
pub struct SortedMap<'a, V>(pub &'a HashMap<String, V>);

impl<V: std::fmt::Debug> std::fmt::Debug for SortedMap<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(sorted(self.0)).finish()
    }
}

macro_rules! accessors {
    ($($variant:ident, $as:ident, $is:ident, $ty:ty;)*) => {$(
        #[doc = concat!("The inner value if this is `", stringify!($variant), "`, else `Err(self)` (as in the SDK).")]
        pub fn $as(&self) -> std::result::Result<&$ty, &AttributeValue> {
            if let AttributeValue::$variant(v) = self { Ok(v) } else { Err(self) }
        }
        #[doc = concat!("Whether this is `", stringify!($variant), "`.")]
        pub fn $is(&self) -> bool {
            matches!(self, AttributeValue::$variant(_))
        }
    )*};
}

impl AttributeValue {
    accessors! {
        S, as_s, is_s, String;
        N, as_n, is_n, String;
        B, as_b, is_b, Blob;
        Bool, as_bool, is_bool, bool;
        Null, as_null, is_null, bool;
        M, as_m, is_m, HashMap<String, AttributeValue>;
        L, as_l, is_l, Vec<AttributeValue>;
        Ss, as_ss, is_ss, Vec<String>;
        Ns, as_ns, is_ns, Vec<String>;
        Bs, as_bs, is_bs, Vec<Blob>;
    }

    /// The type's name as DynamoDB spells it: `S`, `N`, `B`, `BOOL`, `NULL`, `M`, `L`, `SS`,
    /// `NS`, `BS` (what `attribute_type()` takes and error messages print).
    pub fn type_name(&self) -> &'static str {
        match self {
            AttributeValue::S(_) => "S",
            AttributeValue::N(_) => "N",
            AttributeValue::B(_) => "B",
            AttributeValue::Bool(_) => "BOOL",
            AttributeValue::Null(_) => "NULL",
            AttributeValue::M(_) => "M",
            AttributeValue::L(_) => "L",
            AttributeValue::Ss(_) => "SS",
            AttributeValue::Ns(_) => "NS",
            AttributeValue::Bs(_) => "BS",
        }
    }

    /// The number, if this is an `N` holding a valid number.
    ///
    /// Not part of the SDK, whose `N` is only its string: SDK code writes
    /// `value.as_n().ok()?.parse::<i64>()` (which works here too).
    pub fn as_number(&self) -> Option<Number> {
        match self {
            AttributeValue::N(s) => Number::parse(s).ok(),
            _ => None,
        }
    }

    /// DynamoDB's `=`: same type and same value. Numbers compare numerically, sets as sets
    /// (order-free; `NS` numerically), lists element-wise and maps key-wise, recursively.
    pub fn dynamo_eq(&self, other: &AttributeValue) -> bool {
        use AttributeValue as V;
        match (self, other) {
            (V::S(a), V::S(b)) => a == b,
            (V::N(a), V::N(b)) => number_eq(a, b),
            (V::B(a), V::B(b)) => a == b,
            (V::Bool(a), V::Bool(b)) => a == b,
            (V::Null(_), V::Null(_)) => true,
            (V::L(a), V::L(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.dynamo_eq(y))
            }
            (V::M(a), V::M(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, va)| b.get(k).is_some_and(|vb| va.dynamo_eq(vb)))
            }
            (V::Ss(a), V::Ss(b)) => same_string_set(a, b),
            (V::Bs(a), V::Bs(b)) => same_string_set(a, b),
            (V::Ns(a), V::Ns(b)) => same_number_set(a, b),
            _ => false,
        }
    }

    /// DynamoDB's ordering for `<`, `<=`, `>`, `>=`, `BETWEEN` and sort keys: `N` numerically,
    /// `S` by UTF-8 bytes, `B` by unsigned bytes. `None` for any other pair of types (the
    /// comparison is then false, not an error). Never allocates.
    pub fn dynamo_cmp(&self, other: &AttributeValue) -> Option<Ordering> {
        use AttributeValue as V;
        match (self, other) {
            (V::S(a), V::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
            (V::B(a), V::B(b)) => Some(a.0.as_slice().cmp(b.0.as_slice())),
            (V::N(a), V::N(b)) => Some(Number::parse(a).ok()?.cmp(&Number::parse(b).ok()?)),
            _ => None,
        }
    }
}

fn number_eq(a: &str, b: &str) -> bool {
    match (Number::parse(a), Number::parse(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Set equality: every element of each side is in the other (duplicates do not count).
/// Small sets compare pairwise without allocating; large ones by sorted keys.
fn same_set<T>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
    a.iter().all(|x| b.iter().any(|y| eq(x, y))) && b.iter().all(|y| a.iter().any(|x| eq(x, y)))
}

const SMALL_SET: usize = 16;

fn same_string_set<T: Ord>(a: &[T], b: &[T]) -> bool {
    if a.len().max(b.len()) <= SMALL_SET {
        return same_set(a, b, |x, y| x == y);
    }
    sorted_refs(a) == sorted_refs(b)
}

fn sorted_refs<T: Ord>(s: &[T]) -> Vec<&T> {
    let mut v: Vec<&T> = s.iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn same_number_set(a: &[String], b: &[String]) -> bool {
    if a.len().max(b.len()) <= SMALL_SET {
        return same_set(a, b, |x, y| number_eq(x, y));
    }
    let sorted = |s: &[String]| -> Option<Vec<Number>> {
        let mut v = s
            .iter()
            .map(|n| Number::parse(n).ok())
            .collect::<Option<Vec<_>>>()?;
        v.sort_unstable();
        v.dedup();
        Some(v)
    };
    match (sorted(a), sorted(b)) {
        (Some(x), Some(y)) => x == y,
        _ => same_set(a, b, |x, y| number_eq(x, y)),
    }
}

impl From<&str> for AttributeValue {
    fn from(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }
}

impl From<String> for AttributeValue {
    fn from(v: String) -> AttributeValue {
        AttributeValue::S(v)
    }
}

impl From<&String> for AttributeValue {
    fn from(v: &String) -> AttributeValue {
        AttributeValue::S(v.clone())
    }
}

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for AttributeValue {
            fn from(v: $t) -> AttributeValue {
                AttributeValue::N(v.to_string())
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl From<bool> for AttributeValue {
    fn from(v: bool) -> AttributeValue {
        AttributeValue::Bool(v)
    }
}

impl From<Number> for AttributeValue {
    fn from(v: Number) -> AttributeValue {
        AttributeValue::N(v.to_string())
    }
}

impl From<Vec<AttributeValue>> for AttributeValue {
    fn from(v: Vec<AttributeValue>) -> AttributeValue {
        AttributeValue::L(v)
    }
}

impl From<Item> for AttributeValue {
    fn from(v: Item) -> AttributeValue {
        AttributeValue::M(v)
    }
}

impl From<Blob> for AttributeValue {
    fn from(v: Blob) -> AttributeValue {
        AttributeValue::B(v)
    }
}
