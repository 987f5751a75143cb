//! # The given part of the kata: GSI propagation
//!
//! What the tests and your code share: the trait you implement and the values it passes and
//! returns. They are the engine's own (`engine::seams`, defined in
//! `engine/src/index/propagate.rs`, whose essay explains them); they are re-exported here so
//! the kata's shared part is in one place. Not yours to change — the checker and grading
//! always build your `src/lib.rs` against this copy
//! (`checker/katas/gsi-propagation/given/`). Your crate reaches it as `given`.

/// DynamoDB's size of an item in bytes: each attribute's name plus its value.
pub use engine::item_size;
pub use engine::seams::{IndexKey, IndexPropagator, IndexShape, IndexWrite, KeyAttribute};
pub use engine::types::{ProjectionType, ScalarAttributeType};

/// Bytes in one write unit: a write of up to 1 KB costs one unit, each further KB (or part of
/// one) another.
pub const WRITE_UNIT_BYTES: usize = 1024;

/// The table the tests create: `orders`, keyed by `PK` (string) and `SK` (string), with
/// global secondary indexes of every projection (see the README).
pub const TABLE: &str = "orders";

/// What the starter's method does until you write it: stop the test with a message naming
/// the method. (A trait method has no error to return, so this panics; the checker reports
/// the message.)
pub fn not_written_yet(method: &str) -> ! {
    panic!("{method} is not written yet (see exercises/gsi-propagation/README.md)")
}
