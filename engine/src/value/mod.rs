//! # Items and attribute values
//!
//! (essay to be written with the implementation: the ten types, numbers as exact decimals,
//! sets, the size of an item, and how values travel as DynamoDB JSON.)

use std::collections::BTreeMap;

mod number;
pub use number::Number;

/// An item: attribute name → value.
///
/// The AWS SDK uses a `HashMap`; this engine uses a `BTreeMap` so that every iteration over an
/// item is in one deterministic order (traces, sizes, hashes, JSON output). Code written
/// against the SDK reads the same: `item.get("PK")`, `item.insert(..)`.
pub type Item = BTreeMap<String, AttributeValue>;

/// Raw bytes of a `B` value (the SDK's `aws_smithy_types::Blob`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Blob(Vec<u8>);

impl Blob {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Blob {
        Blob(bytes.into())
    }
    pub fn as_ref(&self) -> &[u8] {
        &self.0
    }
    pub fn into_inner(self) -> Vec<u8> {
        self.0
    }
}

/// One DynamoDB value, shaped like `aws_sdk_dynamodb::types::AttributeValue`.
///
/// Numbers travel as strings (`N("1.5")`), as in DynamoDB's wire format; the engine parses
/// them into exact decimals ([`Number`]) to compare and compute, and stores them in canonical
/// form.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeValue {
    S(String),
    N(String),
    B(Blob),
    Bool(bool),
    Null(bool),
    M(BTreeMap<String, AttributeValue>),
    L(Vec<AttributeValue>),
    Ss(Vec<String>),
    Ns(Vec<String>),
    Bs(Vec<Blob>),
}
