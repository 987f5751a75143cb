//! # Kata: hot-key sharding — KNOWN WRONG: the single-key counter
//!
//! Every like of a post goes to one item, `"<post>#COUNTER"`, retried with backoff when
//! throttled. Correct at a few likes a second; at 2,500 a second the item's partition is
//! pinned at its 1,000 WCU ceiling and most writes are throttled, however much capacity the
//! table has. The hidden test `spreads_a_viral_burst` must reject it.

use std::time::Duration;

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client, Error};
use given::{Advice, TABLE};

/// The number attribute each shard item counts in.
const LIKES: &str = "likes";

/// First wait after a throttled write.
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// Longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// The partition key of a post's counter: one key, whatever `shards` says.
fn counter_key(post: &str) -> AttributeValue {
    AttributeValue::S(format!("{post}#COUNTER"))
}

/// Records one like of `post` on its single counter item, retrying while throttled.
pub fn increment(client: &Client, post: &str, _shards: u32, n: u64) -> Result<(), Error> {
    let mut backoff = FIRST_BACKOFF;
    let mut attempt = 0u64;
    loop {
        let sent = client
            .update_item()
            .table_name(TABLE)
            .key("PK", counter_key(post))
            .update_expression("ADD #likes :one")
            .expression_attribute_names("#likes", LIKES)
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send();
        match sent.map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(()),
            Err(
                UpdateItemError::ProvisionedThroughputExceededException(_)
                | UpdateItemError::ThrottlingException(_),
            ) => {
                // Nothing was written: wait, then send the same request again. The jitter is
                // derived from the like's number, so two likes do not retry in lockstep.
                let jitter = (n.wrapping_mul(7919) + attempt * 104_729) % 25;
                client
                    .world()
                    .advance(backoff + Duration::from_millis(jitter));
                backoff = (backoff * 2).min(MAX_BACKOFF);
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Every like of `post`: one GetItem of its counter item.
pub fn total(client: &Client, post: &str, _shards: u32) -> Result<u64, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", counter_key(post))
        .send()?;
    Ok(out
        .item()
        .and_then(|item| item.get(LIKES))
        .and_then(|n| n.as_number())
        .and_then(|n| n.to_u64())
        .unwrap_or(0))
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
