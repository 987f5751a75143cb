//! What a write reports of the item collection it changed (`ReturnItemCollectionMetrics`).

use std::collections::HashMap;

use crate::value::AttributeValue;

/// The size of one item collection after a write, as `ReturnItemCollectionMetrics=SIZE`
/// reports it: only for a table with local secondary indexes (the only tables whose item
/// collections are bounded).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ItemCollectionMetrics {
    /// The collection's partition key (`{"PK": S("USER#1")}`).
    pub item_collection_key: Option<HashMap<String, AttributeValue>>,
    /// A lower and an upper bound of the collection's size in GB: the table's items with that
    /// partition key and their entries in every local index.
    pub size_estimate_range_gb: Option<Vec<f64>>,
}

impl ItemCollectionMetrics {
    pub fn item_collection_key(&self) -> Option<&HashMap<String, AttributeValue>> {
        self.item_collection_key.as_ref()
    }
    pub fn size_estimate_range_gb(&self) -> &[f64] {
        self.size_estimate_range_gb.as_deref().unwrap_or_default()
    }
}
