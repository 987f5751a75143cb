//! # Kata: hot-key sharding — alternative solution
//!
//! A different style from the reference, to prove the hidden tests judge behaviour only:
//! shards are chosen by a hash of the like's number (a seeded "random" suffix) instead of
//! round-robin, keys are `"LIKES#<post>#<shard>"`, the count lives in a `count` attribute
//! (a reserved word, hence `#c`) set with `if_not_exists`, retries go through one generic
//! backoff helper, and the total is a single BatchGetItem (with its unprocessed keys retried)
//! instead of one GetItem per shard.

use std::time::Duration;

use engine::types::KeysAndAttributes;
use engine::{item, AttributeValue, Client, Error, Item};
use given::{Advice, TABLE};

/// Capped exponential backoff: 20 ms, 40 ms, 80 ms … up to 1.28 s.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(20 << attempt.min(6))
}

/// Runs `request` until it is not throttled, waiting on the simulated clock in between.
fn with_backoff<T, E: Into<Error>>(
    client: &Client,
    mut request: impl FnMut() -> Result<T, E>,
) -> Result<T, Error> {
    let mut attempt = 0;
    loop {
        match request().map_err(Into::into) {
            Err(
                Error::ProvisionedThroughputExceededException(_) | Error::ThrottlingException(_),
            ) => {
                client.world().advance(backoff(attempt));
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// SplitMix64's finalizer: consecutive like numbers land on unrelated shards.
fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn key(post: &str, shard: u64) -> Item {
    item! { "PK" => format!("LIKES#{post}#{shard}") }
}

/// Records one like of `post` on a shard chosen by a hash of `n`.
pub fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error> {
    let shard = mix(n) % u64::from(shards.max(1));
    with_backoff(client, || {
        client
            .update_item()
            .table_name(TABLE)
            .set_key(Some(key(post, shard)))
            .update_expression("SET #c = if_not_exists(#c, :zero) + :one")
            .expression_attribute_names("#c", "count")
            .expression_attribute_values(":zero", AttributeValue::N("0".into()))
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send()
    })
    .map(|_| ())
}

/// Every like of `post`: all shards in one BatchGetItem, summed.
pub fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error> {
    let mut wanted = (0..u64::from(shards))
        .fold(KeysAndAttributes::builder(), |k, shard| {
            k.keys(key(post, shard))
        })
        .build()?;
    let mut sum = 0;
    let mut attempt = 0;
    while !wanted.keys.is_empty() {
        let out = with_backoff(client, || {
            client
                .batch_get_item()
                .request_items(TABLE, wanted.clone())
                .send()
        })?;
        sum += out
            .responses()
            .and_then(|r| r.get(TABLE))
            .into_iter()
            .flatten()
            .filter_map(|item| item.get("count")?.as_number()?.to_u64())
            .sum::<u64>();
        wanted = out
            .unprocessed_keys()
            .and_then(|u| u.get(TABLE))
            .cloned()
            .unwrap_or_default();
        if !wanted.keys.is_empty() {
            client.world().advance(backoff(attempt));
            attempt += 1;
        }
    }
    Ok(sum)
}

/// What a throttling error tells the on-call: a key-range reason is a hot key (shard it), any
/// other reason the table or index as a whole over its rate (capacity) — of the resource the
/// reason names. The exception's kind says only the billing mode.
pub fn advise(error: &Error) -> Option<Advice> {
    let reasons = match error {
        Error::ProvisionedThroughputExceededException(e) => e.throttling_reasons(),
        Error::ThrottlingException(e) => e.throttling_reasons(),
        Error::RequestLimitExceeded(e) => e.throttling_reasons(),
        _ => return None,
    };
    let first = reasons.first()?;
    let resource = first.resource()?.to_string();
    if first.reason()?.ends_with("KeyRangeThroughputExceeded") {
        Some(Advice::ShardTheKey { resource })
    } else {
        Some(Advice::AddCapacity { resource })
    }
}
