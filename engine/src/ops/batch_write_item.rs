//! BatchWriteItem: up to 25 puts and deletes across tables in one call.
//!
//! Semantics (reference §4.10): no updates, no conditions, no return values. The whole batch
//! is rejected before anything is written if any request is invalid — a missing table, a key
//! that does not match the schema, two requests for one item, more than 25 requests, an item
//! over 400 KB. Otherwise each put or delete is applied on its own (atomic per item, not as a
//! batch); those that were throttled come back in `UnprocessedItems` for the caller to retry
//! with backoff. The call fails with the throttling error only if *nothing* was written.
//! Cost: each item rounded up to 1 KB separately, then summed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::builder::{struct_setters, value_setter};
use super::{admit_item_write, prepare_item, require_data_table_name, table};
use crate::capacity::Consumption;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::table::key::StoreKey;
use crate::types::{ConsumedCapacity, ReturnConsumedCapacity};
use crate::value::{item_size, Item};
use crate::world::State;

/// Put one item (as PutItem without a condition).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PutRequest {
    pub item: Option<Item>,
}
struct_setters!(PutRequest => PutRequestBuilder, fallible {
    req map item / set_item / get_item;
});

/// Delete one item by key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeleteRequest {
    pub key: Option<Item>,
}
struct_setters!(DeleteRequest => DeleteRequestBuilder, fallible {
    req map key / set_key / get_key;
});

/// One write of a batch: exactly one of `put_request` or `delete_request`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteRequest {
    pub put_request: Option<PutRequest>,
    pub delete_request: Option<DeleteRequest>,
}
struct_setters!(WriteRequest => WriteRequestBuilder, infallible {
    opt value put_request / set_put_request / get_put_request: PutRequest;
    opt value delete_request / set_delete_request / get_delete_request: DeleteRequest;
});

/// The parameters of a BatchWriteItem request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchWriteItemInput {
    pub request_items: HashMap<String, Vec<WriteRequest>>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
    /// `SIZE`: report the item collections the batch changed (tables with local secondary
    /// indexes only).
    pub return_item_collection_metrics: Option<crate::types::ReturnItemCollectionMetrics>,
}

/// What BatchWriteItem returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchWriteItemOutput {
    /// The writes not applied this time, in the request's shape. Empty when all were applied.
    pub unprocessed_items: Option<HashMap<String, Vec<WriteRequest>>>,
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
    /// Table → one entry per item collection the batch changed, with
    /// `ReturnItemCollectionMetrics=SIZE` (tables with local secondary indexes only).
    pub item_collection_metrics: Option<HashMap<String, Vec<crate::types::ItemCollectionMetrics>>>,
}

impl BatchWriteItemOutput {
    pub fn item_collection_metrics(
        &self,
    ) -> Option<&HashMap<String, Vec<crate::types::ItemCollectionMetrics>>> {
        self.item_collection_metrics.as_ref()
    }
    pub fn unprocessed_items(&self) -> Option<&HashMap<String, Vec<WriteRequest>>> {
        self.unprocessed_items.as_ref()
    }
    pub fn consumed_capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

/// Builds and sends a BatchWriteItem request.
#[derive(Clone, Debug)]
pub struct BatchWriteItemFluentBuilder {
    client: Client,
    input: BatchWriteItemInput,
}

impl BatchWriteItemFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        BatchWriteItemFluentBuilder {
            client,
            input: BatchWriteItemInput::default(),
        }
    }
    /// Sets the writes for one table.
    pub fn request_items(mut self, table: impl Into<String>, writes: Vec<WriteRequest>) -> Self {
        self.input.request_items.insert(table.into(), writes);
        self
    }
    /// Replaces all request items (e.g. with a previous call's `unprocessed_items`).
    pub fn set_request_items(mut self, items: Option<HashMap<String, Vec<WriteRequest>>>) -> Self {
        self.input.request_items = items.unwrap_or_default();
        self
    }
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);
    value_setter!(return_item_collection_metrics, set_return_item_collection_metrics, get_return_item_collection_metrics: crate::types::ReturnItemCollectionMetrics);

    pub fn send(
        self,
    ) -> std::result::Result<
        BatchWriteItemOutput,
        crate::error::SdkError<crate::error::operations::BatchWriteItemError>,
    > {
        self.client
            .world()
            .send("BatchWriteItem", |state| execute(state, &self.input))
    }
}

enum Planned {
    Put(StoreKey, Item),
    Delete(StoreKey),
}

pub(crate) fn execute(
    state: &mut State,
    input: &BatchWriteItemInput,
) -> Result<BatchWriteItemOutput> {
    if input.request_items.is_empty() {
        return Err(Exception::validation(
            "The requestItems parameter is required for BatchWriteItem",
        ));
    }
    // Each table's list must hold 1 to 25 requests: the service checks the map's values and
    // quotes the whole map back (`Value '{app=[WriteRequest(…), …]}'`, see `echo`).
    if input
        .request_items
        .values()
        .any(|w| w.is_empty() || w.len() > MAX_WRITES)
    {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to {MAX_WRITES}, Member must have length greater than or equal to 1]",
            super::echo::request_items(&input.request_items)
        )));
    }
    // Within the per-table limit but over 25 in all: the message is dynalite's, for the same
    // rule in BatchGetItem (unverified for BatchWriteItem).
    let total: usize = input.request_items.values().map(Vec::len).sum();
    if total > MAX_WRITES {
        return Err(Exception::validation(
            "Too many items requested for the BatchWriteItem call",
        ));
    }
    // Validate the whole batch before writing anything.
    let mut plans: Vec<(String, WriteRequest, Planned)> = Vec::new();
    let mut request_bytes = 0usize;
    // Tables in name order: the map's own order differs from run to run, and the order of
    // the writes decides which are throttled and what the request log shows.
    for (name, writes) in crate::value::sorted(&input.request_items) {
        require_data_table_name(&Some(name.clone()))?;
        let table = table(state, name)?;
        let mut seen = BTreeSet::new();
        for write in writes {
            let planned = match (&write.put_request, &write.delete_request) {
                (Some(put), None) => {
                    let item = put.item.clone().ok_or_else(|| {
                        Exception::validation("1 validation error detected: Value null at 'requestItems.member.putRequest.item' failed to satisfy constraint: Member must not be null")
                    })?;
                    let (key, item) = prepare_item(table, item, state.config.max_item_size, false)?;
                    request_bytes += item_size(&item);
                    Planned::Put(key, item)
                }
                (None, Some(delete)) => {
                    let key = delete.key.as_ref().ok_or_else(|| {
                        Exception::validation("1 validation error detected: Value null at 'requestItems.member.deleteRequest.key' failed to satisfy constraint: Member must not be null")
                    })?;
                    Planned::Delete(table.schema().key_of_key(key)?)
                }
                _ => {
                    return Err(Exception::validation(
                        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
                    ))
                }
            };
            let key = match &planned {
                Planned::Put(k, _) | Planned::Delete(k) => k.clone(),
            };
            if !seen.insert(key) {
                return Err(Exception::validation(
                    "Provided list of item keys contains duplicates",
                ));
            }
            plans.push((name.clone(), write.clone(), planned));
        }
    }
    if request_bytes > MAX_REQUEST_BYTES {
        return Err(Exception::validation(
            "Item size has exceeded the maximum allowed size",
        ));
    }

    // The service always answers UnprocessedItems, empty when every write was applied.
    let mut out = BatchWriteItemOutput {
        unprocessed_items: Some(HashMap::new()),
        consumed_capacity: None,
        item_collection_metrics: None,
    };
    let wants_metrics = super::wants_metrics(input.return_item_collection_metrics.clone());
    let mut written: Vec<(String, StoreKey)> = Vec::new();
    let mut consumption: BTreeMap<String, Consumption> = BTreeMap::new();
    let mut processed = 0usize;
    let mut first_throttle = None;
    for (name, original, planned) in plans {
        let (key, new) = match planned {
            Planned::Put(k, item) => (k, Some(item)),
            Planned::Delete(k) => (k, None),
        };
        let store = &table(state, &name)?.store;
        let writable = store.check_writable(store.locate(key.hash), state.now_ms);
        let current = store.current(&key);
        let exists = current.is_some();
        let admitted =
            writable.and_then(|_| admit_item_write(state, &name, &key, new.as_ref(), false));
        let used = match admitted {
            Ok(c) => c,
            Err(e) => {
                if !e.is_retryable() {
                    return Err(e);
                }
                first_throttle.get_or_insert(e);
                out.unprocessed_items
                    .get_or_insert_with(HashMap::new)
                    .entry(name)
                    .or_default()
                    .push(original);
                continue;
            }
        };
        processed += 1;
        consumption.entry(name.clone()).or_default().add(&used);
        if wants_metrics {
            written.push((name.clone(), key.clone()));
        }
        if new.is_some() || exists {
            state.commit_write(&name, key, new);
        }
    }
    if wants_metrics {
        out.item_collection_metrics = Some(super::collections_metrics(state, &written));
    }
    if processed == 0 {
        if let Some(e) = first_throttle {
            return Err(e);
        }
    }
    if input
        .return_consumed_capacity
        .clone()
        .is_some_and(|m| m != ReturnConsumedCapacity::None)
    {
        out.consumed_capacity = Some(
            consumption
                .iter()
                .filter_map(|(t, c)| c.report(t, input.return_consumed_capacity.clone()))
                .collect(),
        );
    }
    Ok(out)
}

/// Put and delete requests per BatchWriteItem call. DynamoDB: 25.
pub const MAX_WRITES: usize = 25;
/// Size of one BatchWriteItem request. DynamoDB: 16 MB.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;
