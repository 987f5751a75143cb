//! # A deterministic, observable model of Amazon DynamoDB
//!
//! (essay to be written: what the engine models, how a request flows, what it leaves out.)

pub mod error;
pub mod expr;
pub mod value;

pub use error::{CancellationReason, Error, Result};
pub use value::{from_item, item_size, to_item, AttributeValue, Blob, Item, Number};
