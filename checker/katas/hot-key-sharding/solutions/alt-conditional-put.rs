//! # Kata: hot-key sharding — alternative solution: optimistic concurrency
//!
//! Another route to a correct counter, to prove the concurrent test judges lost likes and
//! not the operation's name: each like reads its shard (strongly consistent GetItem), then
//! writes the count plus one with a PutItem that is *conditional on the count it read*
//! (`likes = :seen`, or `attribute_not_exists(PK)` for a shard not written yet). If another
//! client wrote in between, the condition fails, nothing is written, and the like reads
//! again. Throttled requests (reads or writes) back off exponentially on the simulated
//! clock. Shards are `"<post>/<shard>"`, chosen round-robin; the total is one BatchGetItem
//! call per round of unprocessed keys.

use std::time::Duration;

use engine::types::KeysAndAttributes;
use engine::{item, AttributeValue, Client, Error, Item};
use given::{Advice, TABLE};

const FIRST_WAIT: Duration = Duration::from_millis(40);
const MAX_WAIT: Duration = Duration::from_secs(1);

fn key(post: &str, shard: u64) -> String {
    format!("{post}/{shard}")
}

fn likes_in(item: Option<&Item>) -> u64 {
    item.and_then(|item| item.get("likes"))
        .and_then(AttributeValue::as_number)
        .and_then(|n| n.to_u64())
        .unwrap_or(0)
}

/// Sends `request` until it is not throttled, doubling the wait after each throttle.
fn patiently<T, E: Into<Error>>(
    client: &Client,
    mut request: impl FnMut() -> Result<T, E>,
) -> Result<T, Error> {
    let mut wait = FIRST_WAIT;
    loop {
        match request().map_err(Into::into) {
            Err(
                Error::ProvisionedThroughputExceededException(_) | Error::ThrottlingException(_),
            ) => {
                client.world().advance(wait);
                wait = (wait * 2).min(MAX_WAIT);
            }
            other => return other,
        }
    }
}

pub fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error> {
    let pk = key(post, n % u64::from(shards.max(1)));
    loop {
        let read = patiently(client, || {
            client
                .get_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(pk.clone()))
                .consistent_read(true)
                .send()
        })?;
        let seen = read.item().map(|item| likes_in(Some(item)));
        let written = patiently(client, || {
            let put = client.put_item().table_name(TABLE).set_item(Some(
                item! {"PK" => pk.as_str(), "likes" => seen.unwrap_or(0) + 1},
            ));
            match seen {
                None => put.condition_expression("attribute_not_exists(PK)"),
                Some(count) => put
                    .condition_expression("likes = :seen")
                    .expression_attribute_values(":seen", AttributeValue::N(count.to_string())),
            }
            .send()
        });
        match written {
            Ok(_) => return Ok(()),
            // Someone else counted a like since our read: read again.
            Err(Error::ConditionalCheckFailedException(_)) => continue,
            Err(e) => return Err(e),
        }
    }
}

pub fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error> {
    let mut wanted = (0..u64::from(shards))
        .fold(KeysAndAttributes::builder(), |keys, shard| {
            keys.keys(item! {"PK" => key(post, shard)})
        })
        .build()?;
    let mut sum = 0;
    while !wanted.keys.is_empty() {
        let out = patiently(client, || {
            client
                .batch_get_item()
                .request_items(TABLE, wanted.clone())
                .send()
        })?;
        sum += out
            .responses()
            .and_then(|r| r.get(TABLE))
            .map_or(0, |items| items.iter().map(|i| likes_in(Some(i))).sum());
        wanted = match out.unprocessed_keys().and_then(|u| u.get(TABLE)) {
            Some(rest) => {
                client.world().advance(FIRST_WAIT);
                rest.clone()
            }
            None => break,
        };
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
