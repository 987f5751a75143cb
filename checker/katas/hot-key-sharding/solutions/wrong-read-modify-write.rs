//! Sharded and retried with backoff, but each like is a read-modify-write: GetItem the
//! shard, add one in the client, PutItem the result. Between the read and the write another
//! client can store its own +1 on the same shard; this PutItem then overwrites it with a
//! count that never saw it, and a like is lost. One thread never shows it; concurrent
//! clients do.

use std::time::Duration;

use engine::{item, AttributeValue, Client, Error};
use given::Advice;

const FIRST_WAIT: Duration = Duration::from_millis(50);
const MAX_WAIT: Duration = Duration::from_secs(2);

fn shard_pk(post: &str, shard: u64) -> String {
    format!("{post}#COUNTER#{shard}")
}

fn likes_of(item: Option<&engine::Item>) -> u64 {
    match item.and_then(|item| item.get("likes")) {
        Some(AttributeValue::N(likes)) => likes.parse().unwrap_or(0),
        _ => 0,
    }
}

/// Sends `request` until it is not throttled, backing off exponentially.
fn with_backoff<T, E: Into<Error>>(
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
    let pk = shard_pk(post, n % u64::from(shards));
    let current = with_backoff(client, || {
        client
            .get_item()
            .table_name(given::TABLE)
            .key("PK", AttributeValue::S(pk.clone()))
            .consistent_read(true)
            .send()
    })?;
    let likes = likes_of(current.item()) + 1;
    with_backoff(client, || {
        client
            .put_item()
            .table_name(given::TABLE)
            .set_item(Some(item! {"PK" => pk.as_str(), "likes" => likes}))
            .send()
    })?;
    Ok(())
}

pub fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error> {
    let mut sum = 0;
    for shard in 0..u64::from(shards) {
        let out = with_backoff(client, || {
            client
                .get_item()
                .table_name(given::TABLE)
                .key("PK", AttributeValue::S(shard_pk(post, shard)))
                .send()
        })?;
        sum += likes_of(out.item());
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
