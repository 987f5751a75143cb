//! # Kata: the bulk loader — known-wrong: UnprocessedItems ignored
//!
//! Retries a BatchWriteItem that failed whole (throttled) with backoff — but takes a call that
//! returned Ok as done and never looks at its UnprocessedItems: the throttled part of each chunk
//! is lost, silently.

use std::collections::HashMap;
use std::time::Duration;

use engine::error::SdkError;
use engine::operation::batch_get_item::BatchGetItemError;
use engine::operation::batch_write_item::BatchWriteItemError;
use engine::types::{
    AttributeValue, KeysAndAttributes, Put, PutRequest, TransactWriteItem, WriteRequest,
};
use engine::{Client, Error, Item};
use given::{
    item_size, item_too_large, Jitter, BASE_DELAY, KEY, MAX_BATCH_GET, MAX_BATCH_WRITE, MAX_DELAY,
    MAX_ITEM_BYTES, TABLE,
};

/// The backoff step before the `n`-th retry (n ≥ 1): 50 ms doubling, capped at 2 s.
fn step(n: u32) -> Duration {
    BASE_DELAY
        .saturating_mul(1 << (n - 1).min(16))
        .min(MAX_DELAY)
}

/// Sleeps (on the simulated clock) before the `n`-th retry: between half the step and all of
/// it, drawn from `jitter`.
fn back_off(client: &Client, jitter: &mut Jitter, n: u32) {
    let d = step(n);
    client.world().advance(jitter.between(d / 2, d));
}

fn isbn_of(item: &Item) -> String {
    match item.get(KEY) {
        Some(AttributeValue::S(isbn)) => isbn.clone(),
        _ => "(no isbn)".to_string(),
    }
}

/// Writes every item of the feed, 25 per BatchWriteItem, retrying what comes back unprocessed.
pub fn load(client: &Client, items: Vec<Item>, jitter: &mut Jitter) -> Result<(), Error> {
    // One item over 400 KB fails its whole batch: refuse the feed before writing any of it.
    for item in &items {
        let size = item_size(item);
        if size > MAX_ITEM_BYTES {
            return Err(item_too_large(&isbn_of(item), size));
        }
    }
    for chunk in items.chunks(MAX_BATCH_WRITE) {
        let writes = chunk
            .iter()
            .map(|item| {
                let put = PutRequest::builder().set_item(Some(item.clone())).build()?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let mut pending = HashMap::from([(TABLE.to_string(), writes)]);
        let mut retries = 0;
        while pending.values().any(|w| !w.is_empty()) {
            if retries > 0 {
                back_off(client, jitter, retries);
            }
            retries += 1;
            let sent = client
                .batch_write_item()
                .set_request_items(Some(pending.clone().into_iter().collect()))
                .send();
            match sent.map_err(SdkError::into_service_error) {
                // What was not written this time, in the request's shape: send it again.
                Ok(_) => pending.clear(),
                // Nothing at all was written: the whole chunk is still pending.
                Err(BatchWriteItemError::ProvisionedThroughputExceededException(_))
                | Err(BatchWriteItemError::ThrottlingException(_)) => {}
                Err(other) => return Err(other.into()),
            }
        }
    }
    Ok(())
}

/// One entry per ISBN asked, in order; BatchGetItem of up to 100 distinct keys per call.
pub fn read_books(
    client: &Client,
    isbns: &[String],
    jitter: &mut Jitter,
) -> Result<Vec<Option<Item>>, Error> {
    // A BatchGetItem must not hold a key twice: ask each ISBN once, answer it everywhere.
    let mut distinct: Vec<&String> = Vec::new();
    for isbn in isbns {
        if !distinct.contains(&isbn) {
            distinct.push(isbn);
        }
    }
    let mut found: HashMap<String, Item> = HashMap::new();
    for chunk in distinct.chunks(MAX_BATCH_GET) {
        let keys: Vec<Item> = chunk
            .iter()
            .map(|isbn| Item::from([(KEY.to_string(), AttributeValue::S(isbn.to_string()))]))
            .collect();
        let mut pending = KeysAndAttributes::builder().set_keys(Some(keys)).build()?;
        let mut retries = 0;
        while !pending.keys.is_empty() {
            if retries > 0 {
                back_off(client, jitter, retries);
            }
            retries += 1;
            let sent = client
                .batch_get_item()
                .request_items(TABLE, pending.clone())
                .send();
            match sent.map_err(SdkError::into_service_error) {
                Ok(out) => {
                    // Items come back in no particular order: file each under its own key.
                    for item in out
                        .responses()
                        .and_then(|r| r.get(TABLE))
                        .into_iter()
                        .flatten()
                    {
                        found.insert(isbn_of(item), item.clone());
                    }
                    pending.keys = out
                        .unprocessed_keys()
                        .and_then(|u| u.get(TABLE))
                        .map(|k| k.keys.clone())
                        .unwrap_or_default();
                }
                Err(BatchGetItemError::ProvisionedThroughputExceededException(_))
                | Err(BatchGetItemError::ThrottlingException(_)) => {}
                Err(other) => return Err(other.into()),
            }
        }
    }
    Ok(isbns.iter().map(|isbn| found.get(isbn).cloned()).collect())
}

/// The set and its volumes in one TransactWriteItems, each created only if absent.
pub fn add_box_set(client: &Client, set: Item, volumes: Vec<Item>) -> Result<(), Error> {
    let mut request = client.transact_write_items();
    for item in std::iter::once(set).chain(volumes) {
        let put = Put::builder()
            .table_name(TABLE)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(isbn)")
            .build()?;
        request = request.transact_items(TransactWriteItem::builder().put(put).build());
    }
    request.send()?;
    Ok(())
}
