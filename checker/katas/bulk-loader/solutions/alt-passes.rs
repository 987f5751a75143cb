//! # Kata: the bulk loader — alternative solution: passes over the whole feed
//!
//! Another route to the same guarantees: instead of finishing one chunk before the next, each
//! pass sends everything still pending, 25 puts per BatchWriteItem (100 distinct keys per
//! BatchGetItem), and gathers what came back unprocessed — or, for a call that failed whole
//! with a throttling error, everything it carried. Then one jittered wait, growing pass after
//! pass, and the next pass over what is left. The box set is the same single
//! TransactWriteItems, built as a list.

use std::collections::BTreeSet;

use engine::error::{ProvideErrorMetadata, SdkError};
use engine::types::{
    AttributeValue, KeysAndAttributes, Put, PutRequest, TransactWriteItem, WriteRequest,
};
use engine::{Client, Error, Item};
use given::{
    item_size, item_too_large, Jitter, BASE_DELAY, KEY, MAX_BATCH_GET, MAX_BATCH_WRITE, MAX_DELAY,
    MAX_ITEM_BYTES, TABLE,
};

/// Throttling error codes: the call did nothing, and waiting helps.
const THROTTLES: [&str; 2] = [
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
];

/// Waits before pass `pass` (≥ 2): step 50 ms × 2^(pass − 2), capped at 2 s; equal jitter.
fn wait_before(client: &Client, jitter: &mut Jitter, pass: u32) {
    let exponent = (pass - 2).min(16);
    let d = (BASE_DELAY * 2u32.pow(exponent)).min(MAX_DELAY);
    client.world().advance(jitter.between(d / 2, d));
}

fn isbn_of(item: &Item) -> Option<&str> {
    item.get(KEY)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// Whether a failed call was throttled (so all it carried is still to do).
fn throttled<E: ProvideErrorMetadata>(err: &SdkError<E>) -> bool {
    err.code().is_some_and(|code| THROTTLES.contains(&code))
}

pub fn load(client: &Client, items: Vec<Item>, jitter: &mut Jitter) -> Result<(), Error> {
    if let Some(big) = items.iter().find(|i| item_size(i) > MAX_ITEM_BYTES) {
        return Err(item_too_large(isbn_of(big).unwrap_or("?"), item_size(big)));
    }
    let mut pending: Vec<WriteRequest> = Vec::with_capacity(items.len());
    for item in items {
        let put = PutRequest::builder().set_item(Some(item)).build()?;
        pending.push(WriteRequest::builder().put_request(put).build());
    }
    let mut pass = 1;
    while !pending.is_empty() {
        if pass > 1 {
            wait_before(client, jitter, pass);
        }
        pass += 1;
        let mut left = Vec::new();
        for chunk in pending.chunks(MAX_BATCH_WRITE) {
            match client
                .batch_write_item()
                .request_items(TABLE, chunk.to_vec())
                .send()
            {
                Ok(out) => {
                    if let Some(unprocessed) = out.unprocessed_items() {
                        for writes in unprocessed.values() {
                            left.extend(writes.iter().cloned());
                        }
                    }
                }
                Err(e) if throttled(&e) => left.extend(chunk.iter().cloned()),
                Err(e) => return Err(e.into()),
            }
        }
        pending = left;
    }
    Ok(())
}

pub fn read_books(
    client: &Client,
    isbns: &[String],
    jitter: &mut Jitter,
) -> Result<Vec<Option<Item>>, Error> {
    let distinct: BTreeSet<&String> = isbns.iter().collect();
    let mut pending: Vec<Item> = distinct
        .into_iter()
        .map(|isbn| Item::from([(KEY.to_string(), AttributeValue::S(isbn.clone()))]))
        .collect();
    let mut found: Vec<Item> = Vec::new();
    let mut pass = 1;
    while !pending.is_empty() {
        if pass > 1 {
            wait_before(client, jitter, pass);
        }
        pass += 1;
        let mut left = Vec::new();
        for chunk in pending.chunks(MAX_BATCH_GET) {
            let keys = KeysAndAttributes::builder()
                .set_keys(Some(chunk.to_vec()))
                .build()?;
            match client.batch_get_item().request_items(TABLE, keys).send() {
                Ok(out) => {
                    if let Some(responses) = out.responses() {
                        for items in responses.values() {
                            found.extend(items.iter().cloned());
                        }
                    }
                    if let Some(unprocessed) = out.unprocessed_keys() {
                        for keys in unprocessed.values() {
                            left.extend(keys.keys.iter().cloned());
                        }
                    }
                }
                Err(e) if throttled(&e) => left.extend(chunk.iter().cloned()),
                Err(e) => return Err(e.into()),
            }
        }
        pending = left;
    }
    Ok(isbns
        .iter()
        .map(|isbn| {
            found
                .iter()
                .find(|item| isbn_of(item) == Some(isbn.as_str()))
                .cloned()
        })
        .collect())
}

pub fn add_box_set(client: &Client, set: Item, volumes: Vec<Item>) -> Result<(), Error> {
    let mut actions = Vec::with_capacity(volumes.len() + 1);
    for item in std::iter::once(set).chain(volumes) {
        let put = Put::builder()
            .table_name(TABLE)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#isbn)")
            .expression_attribute_names("#isbn", KEY)
            .build()?;
        actions.push(TransactWriteItem::builder().put(put).build());
    }
    client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()?;
    Ok(())
}
