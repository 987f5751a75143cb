//! Keys: the typed values that identify an item, their order, and the hash that places them.
//!
//! A *key value* is one scalar (S, N or B). It orders the way DynamoDB orders sort keys:
//! strings by their UTF-8 bytes, binary by unsigned bytes, numbers numerically.
//!
//! The *partition hash* decides which partition owns an item. It is the partition router's
//! decision ([`super::router`], a replaceable piece): a [`KeySchema`] carries the world's
//! router, and every store key made from the schema asks it. The engine's router hashes the
//! partition key's type tag and bytes with FNV-1a-64 and a splitmix64 finalizer — stable on
//! every platform and every run, so that a test can name the partition a key lands on.
//!
//! Within a table the storage order is `(partition hash, partition key, sort key)`: every
//! partition owns a contiguous range of the hash space, the items of one partition key sit
//! together, sorted by sort key — the *item collection* a Query reads.

use std::cmp::Ordering;
use std::sync::Arc;

use super::router::{with_key_bytes, KeyBytes, Router};
use crate::error::{Exception, Result};
use crate::types::ScalarAttributeType;
use crate::value::{AttributeValue, Blob, Item, Number};

/// One scalar key value, ordered as DynamoDB orders keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyValue {
    /// Shared: a key is cloned for every replica and index entry that holds it.
    S(Arc<str>),
    /// Behind a pointer like the others: a `Number` inline (a `u128` coefficient) makes every
    /// `KeyValue` 48 bytes and a [`StoreKey`] 112, so a B-tree node's eleven keys span about
    /// 20 cache lines; behind an `Arc` a `KeyValue` is 24 bytes and a `StoreKey` 64. A point
    /// read walks a few nodes of a replica's map and is bound by those cache lines (a third
    /// of a GetItem's time in `perf`). Measured, interleaved: GetItem +9 %, Query +5 %. The
    /// cost is one allocation per number key built.
    N(Arc<Number>),
    B(Arc<[u8]>),
    /// A bound that sorts after every real value; used only to express range ends in
    /// queries, never stored.
    Max,
}

impl Ord for KeyValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (KeyValue::S(a), KeyValue::S(b)) => compare_bytes(a.as_bytes(), b.as_bytes()),
            (KeyValue::N(a), KeyValue::N(b)) => a.cmp(b),
            (KeyValue::B(a), KeyValue::B(b)) => compare_bytes(a, b),
            // Never compared within one table (the schema fixes each key's type); a fixed
            // order keeps Ord total.
            (a, b) => a.rank().cmp(&b.rank()),
        }
    }
}

/// Unsigned byte order, eight bytes at a time. Keys are short (most under 32 bytes) and
/// compared millions of times; comparing words in place beats a call into `memcmp` for each.
fn compare_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let mut xa = a.chunks_exact(8);
    let mut xb = b.chunks_exact(8);
    for (wa, wb) in xa.by_ref().zip(xb.by_ref()) {
        let (mut pa, mut pb) = ([0u8; 8], [0u8; 8]);
        pa.copy_from_slice(wa);
        pb.copy_from_slice(wb);
        let (ua, ub) = (u64::from_be_bytes(pa), u64::from_be_bytes(pb));
        if ua != ub {
            return ua.cmp(&ub);
        }
    }
    let done = (a.len().min(b.len()) / 8) * 8;
    for (ca, cb) in a[done..].iter().zip(&b[done..]) {
        if ca != cb {
            return ca.cmp(cb);
        }
    }
    a.len().cmp(&b.len())
}

impl PartialOrd for KeyValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl KeyValue {
    fn rank(&self) -> u8 {
        match self {
            KeyValue::S(_) => 0,
            KeyValue::N(_) => 1,
            KeyValue::B(_) => 2,
            KeyValue::Max => 3,
        }
    }

    /// Converts an attribute value of the expected type; `None` if the type differs.
    pub fn from_attribute(
        value: &AttributeValue,
        expected: ScalarAttributeType,
    ) -> Option<KeyValue> {
        match (value, expected) {
            (AttributeValue::S(s), ScalarAttributeType::S) => {
                Some(KeyValue::S(Arc::from(s.as_str())))
            }
            (AttributeValue::N(n), ScalarAttributeType::N) => {
                Number::parse(n).ok().map(|n| KeyValue::N(Arc::new(n)))
            }
            (AttributeValue::B(b), ScalarAttributeType::B) => {
                Some(KeyValue::B(Arc::from(b.as_ref())))
            }
            _ => None,
        }
    }

    /// The attribute value this key value came from (numbers in canonical form).
    pub fn to_attribute(&self) -> AttributeValue {
        match self {
            KeyValue::S(s) => AttributeValue::S(s.to_string()),
            KeyValue::N(n) => AttributeValue::N(n.to_string()),
            KeyValue::B(b) => AttributeValue::B(Blob::new(b.to_vec())),
            KeyValue::Max => AttributeValue::S(String::new()),
        }
    }

    /// Size in bytes as the key-size limits count it.
    pub fn byte_len(&self) -> usize {
        match self {
            KeyValue::S(s) => s.len(),
            KeyValue::N(n) => n.size(),
            KeyValue::B(b) => b.len(),
            KeyValue::Max => 0,
        }
    }
}

/// The finalizer of splitmix64, shared with the world's generator (the partition hash's last
/// step, [`super::router`]).
pub use crate::rng::splitmix_finalize;

/// The router's view of a scalar attribute value (a canonical item's number is already in
/// canonical text).
fn attribute_bytes(value: &AttributeValue) -> Option<KeyBytes<'_>> {
    let (tag, bytes) = match value {
        AttributeValue::S(s) => (b'S', s.as_bytes()),
        AttributeValue::N(n) => (b'N', n.as_bytes()),
        AttributeValue::B(b) => (b'B', b.as_ref()),
        _ => return None,
    };
    Some(KeyBytes { tag, bytes })
}

/// Where an item sits in a partitioned store: hash first (which partition), then the
/// partition key (the item collection), then the sort key. Index entries append the base
/// table's key, because index keys need not be unique.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreKey {
    pub hash: u64,
    pub pk: KeyValue,
    pub sk: Option<KeyValue>,
    pub base: Option<Arc<(KeyValue, Option<KeyValue>)>>,
}

/// The names and types of a key — a table's primary key, or an index's key — and the router
/// that places such keys.
///
/// Why the schema carries the router: a key is made from a schema everywhere an item is
/// written, read, queried, paged or indexed, and each of those must hash it the same way.
/// The schema already travels to every one of those places (it is in each store), so the
/// router goes with it instead of a second argument beside every schema.
#[derive(Clone)]
pub struct KeySchema {
    pub pk: String,
    pub pk_type: ScalarAttributeType,
    pub sk: Option<(String, ScalarAttributeType)>,
    /// The world's partition router ([`crate::seams::Pieces::router`]).
    pub router: Router,
}

impl std::fmt::Debug for KeySchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeySchema")
            .field("pk", &self.pk)
            .field("pk_type", &self.pk_type)
            .field("sk", &self.sk)
            .finish_non_exhaustive()
    }
}

impl KeySchema {
    /// The partition hash of a key, asked of the router.
    pub fn hash(&self, pk: &KeyValue, sk: Option<&KeyValue>) -> u64 {
        with_key_bytes(pk, |pk| match sk {
            Some(sk) => with_key_bytes(sk, |sk| self.router.hash(pk, Some(sk))),
            None => self.router.hash(pk, None),
        })
    }

    /// The store key of an item with this key (its hash asked of the router).
    pub fn store_key(&self, pk: KeyValue, sk: Option<KeyValue>) -> StoreKey {
        StoreKey {
            hash: self.hash(&pk, sk.as_ref()),
            pk,
            sk,
            base: None,
        }
    }

    /// The partition hash of a key given as attribute values, straight from the attributes
    /// (no copy): the same as [`KeySchema::hash`] for a canonical item's values. `None` if a
    /// value is not a scalar.
    pub fn attribute_hash(&self, pk: &AttributeValue, sk: Option<&AttributeValue>) -> Option<u64> {
        let pk = attribute_bytes(pk)?;
        let sk = match sk {
            Some(v) => Some(attribute_bytes(v)?),
            None => None,
        };
        Some(self.router.hash(pk, sk))
    }

    pub fn sk_name(&self) -> Option<&str> {
        self.sk.as_ref().map(|(n, _)| n.as_str())
    }

    pub fn is_key_attribute(&self, name: &str) -> bool {
        self.pk == name || self.sk_name() == Some(name)
    }

    /// Extracts the store key from a full item. Missing or mistyped key attributes are the
    /// errors PutItem reports.
    pub fn key_of_item(&self, item: &Item) -> Result<StoreKey> {
        let pk = item_key_part(item, &self.pk, self.pk_type.clone(), true)?;
        let sk = match &self.sk {
            Some((name, t)) => Some(item_key_part(item, name, t.clone(), false)?),
            None => None,
        };
        Ok(self.store_key(pk, sk))
    }

    /// Extracts the store key from a `Key` parameter, which must name exactly the key
    /// attributes ("The provided key element does not match the schema").
    pub fn key_of_key(&self, key: &Item) -> Result<StoreKey> {
        let expected = 1 + usize::from(self.sk.is_some());
        if key.len() != expected {
            return Err(schema_mismatch());
        }
        let pk = key_part(key_attribute(key, &self.pk), self.pk_type.clone())?;
        check_key_value(&self.pk, &pk, true)?;
        let sk = match &self.sk {
            Some((name, t)) => {
                let v = key_part(key_attribute(key, name), t.clone())?;
                check_key_value(name, &v, false)?;
                Some(v)
            }
            None => None,
        };
        Ok(self.store_key(pk, sk))
    }

    /// The key attributes of an item, as a `Key` map.
    pub fn key_item(&self, key: &StoreKey) -> Item {
        let mut out = Item::new();
        out.insert(self.pk.clone(), key.pk.to_attribute());
        if let (Some((name, _)), Some(sk)) = (&self.sk, &key.sk) {
            out.insert(name.clone(), sk.to_attribute());
        }
        out
    }

    /// Projects the key attributes out of a full item.
    pub fn key_attributes_of(&self, item: &Item) -> Item {
        let mut out = Item::new();
        if let Some(v) = item.get(&self.pk) {
            out.insert(self.pk.clone(), v.clone());
        }
        if let Some(name) = self.sk_name() {
            if let Some(v) = item.get(name) {
                out.insert(name.to_string(), v.clone());
            }
        }
        out
    }
}

/// The attribute `name` of a `Key` map, which holds one or two attributes (checked by the
/// caller): found by comparing names rather than by `HashMap::get`, which would hash `name`
/// with std's SipHash first — on every GetItem, UpdateItem and DeleteItem, a lookup per key
/// attribute. Comparing two short names is cheaper than hashing one; the result does not
/// depend on the map's order, since at most one entry has that name.
fn key_attribute<'a>(key: &'a Item, name: &str) -> Option<&'a AttributeValue> {
    key.iter().find(|(n, _)| n.as_str() == name).map(|(_, v)| v)
}

/// One attribute of a `Key` parameter as a key value: absent or of another type is the
/// schema mismatch; a number the service cannot store (`1E+126`, 39 significant digits) is
/// refused with the number's own message (overflow, underflow, significant digits), as the
/// service refuses it, not as a schema mismatch.
fn key_part(value: Option<&AttributeValue>, t: ScalarAttributeType) -> Result<KeyValue> {
    match (value, t) {
        (Some(AttributeValue::N(n)), ScalarAttributeType::N) => {
            Ok(KeyValue::N(Arc::new(Number::parse(n)?)))
        }
        (Some(v), t) => KeyValue::from_attribute(v, t).ok_or_else(schema_mismatch),
        (None, _) => Err(schema_mismatch()),
    }
}

/// The message of a `Key` that does not name exactly the table's key attributes, typed.
pub const SCHEMA_MISMATCH: &str = "The provided key element does not match the schema";

fn schema_mismatch() -> Exception {
    Exception::validation(SCHEMA_MISMATCH)
}

/// Whether `e` is the "does not match the schema" refusal of a `Key` (which a transaction
/// reports as one action's `ValidationError` reason rather than as the request's error).
pub fn is_schema_mismatch(e: &Exception) -> bool {
    matches!(e, Exception::Validation { message } if message == SCHEMA_MISMATCH)
}

fn item_key_part(item: &Item, name: &str, t: ScalarAttributeType, is_pk: bool) -> Result<KeyValue> {
    let value = item.get(name).ok_or_else(|| {
        Exception::validation(format!(
            "One or more parameter values were invalid: Missing the key {name} in the item"
        ))
    })?;
    let key = KeyValue::from_attribute(value, t.clone()).ok_or_else(|| {
        Exception::validation(format!(
            "One or more parameter values were invalid: Type mismatch for key {name} expected: {} actual: {}",
            t.as_str(),
            value.type_name()
        ))
    })?;
    check_key_value(name, &key, is_pk)?;
    Ok(key)
}

/// Key values must be non-empty and within 2048 (partition) / 1024 (sort) bytes.
pub fn check_key_value(name: &str, key: &KeyValue, is_pk: bool) -> Result<()> {
    let empty = match key {
        KeyValue::S(s) => s.is_empty(),
        KeyValue::B(b) => b.is_empty(),
        KeyValue::N(_) | KeyValue::Max => false,
    };
    if empty {
        return Err(Exception::validation(format!(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty {} value. Key: {name}",
            if matches!(key, KeyValue::S(_)) { "string" } else { "binary" }
        )));
    }
    if is_pk && key.byte_len() > MAX_PARTITION_KEY_BYTES {
        return Err(Exception::validation(format!(
            "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of{MAX_PARTITION_KEY_BYTES} bytes"
        )));
    }
    if !is_pk && key.byte_len() > MAX_SORT_KEY_BYTES {
        return Err(Exception::validation(format!(
            "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of {MAX_SORT_KEY_BYTES} bytes"
        )));
    }
    Ok(())
}

/// The smallest store key of an item collection with sort key `sk`.
pub fn lowest_with(hash: u64, pk: &KeyValue, sk: Option<KeyValue>) -> StoreKey {
    StoreKey {
        hash,
        pk: pk.clone(),
        sk,
        base: None,
    }
}

/// The largest possible store key with sort key `sk` (index entries append a base key).
pub fn highest_with(hash: u64, pk: &KeyValue, sk: Option<KeyValue>) -> StoreKey {
    StoreKey {
        hash,
        pk: pk.clone(),
        sk,
        base: Some(Arc::new((KeyValue::Max, Some(KeyValue::Max)))),
    }
}

/// DynamoDB's limit on a partition key value.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// DynamoDB's limit on a sort key value.
pub const MAX_SORT_KEY_BYTES: usize = 1024;

#[cfg(test)]
mod tests {
    use super::{compare_bytes, KeyValue, StoreKey};

    #[test]
    fn keys_stay_small_enough_for_dense_tree_nodes() {
        // See `KeyValue::N`: a replica's B-tree is searched by these keys.
        assert_eq!(std::mem::size_of::<KeyValue>(), 24);
        assert_eq!(std::mem::size_of::<StoreKey>(), 64);
    }

    #[test]
    fn word_comparison_is_unsigned_byte_order() {
        let samples: [&[u8]; 12] = [
            b"",
            b"a",
            b"A",
            b"ab",
            b"abcdefgh",
            b"abcdefgi",
            b"abcdefgh\x00",
            b"abcdefghij",
            "¿".as_bytes(),
            b"z",
            b"\xff\x00",
            b"ORDER#2025-06-12#o-9",
        ];
        for a in samples {
            for b in samples {
                assert_eq!(compare_bytes(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}
