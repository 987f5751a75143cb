//! # Kata: GSI propagation
//!
//! The step between a table write and its indexes: for one index and one change of an item
//! (before → after), the index writes to make — which entry goes, which comes, what it holds,
//! what each write costs. Task, contract and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use std::borrow::Cow;

#[allow(unused_imports)]
use engine::{AttributeValue, Item};
#[allow(unused_imports)]
use given::{
    item_size, IndexKey, IndexPropagator, IndexShape, IndexWrite, KeyAttribute, ProjectionType,
    WRITE_UNIT_BYTES,
};

// The trait and its types are the engine's (`given` re-exports them):
//   IndexShape { name, partition_key, sort_key, table_partition_key, table_sort_key,
//                projection, non_key_attributes }        (KeyAttribute { name, attribute_type })
//   IndexKey { partition: &AttributeValue, sort: Option<&AttributeValue> }
//   IndexWrite::Delete { key, units } | IndexWrite::Put { key, entry: Cow<Item>, units }

/// The propagator the engine runs in your world: one value, shared by every table and index.
pub fn propagator() -> Box<dyn IndexPropagator> {
    Box::new(Propagator)
}

/// Your propagator. It may hold settings, but no state.
#[derive(Debug)]
pub struct Propagator;

impl IndexPropagator for Propagator {
    /// The writes to `index` that a table write from `old` to `new` causes, in order.
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        // TODO: is the item in the index before? after? under which key? What does its entry
        // hold, and what does each write cost?
        let _ = (index, old, new);
        given::not_written_yet("propagate")
    }
}
