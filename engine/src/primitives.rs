//! Primitive types of the SDK's shapes, as `aws_sdk_dynamodb::primitives`.
//!
//! [`Blob`] is the bytes of a `B` value (`AttributeValue::B(Blob::new(bytes))`).

pub use crate::value::Blob;
