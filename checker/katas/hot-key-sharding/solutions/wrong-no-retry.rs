//! # Kata: hot-key sharding — KNOWN WRONG: sharded, but no retry
//!
//! The sharding is right (round-robin over `"<post>#COUNTER#<shard>"`), but a throttled write
//! is handed back to the caller: in a flash crowd, likes are lost (or the caller has to do
//! the retrying). The hidden test `retries_throttled_writes` must reject it.

use engine::{AttributeValue, Client, Error};
use given::{Advice, TABLE};

/// The number attribute each shard item counts in.
const LIKES: &str = "likes";

/// The partition key of one shard of a post's counter.
fn shard_key(post: &str, shard: u64) -> AttributeValue {
    AttributeValue::S(format!("{post}#COUNTER#{shard}"))
}

/// Records one like of `post` on shard `n % shards`; a throttled write is returned as an error.
pub fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error> {
    let shard = n % u64::from(shards.max(1));
    client
        .update_item()
        .table_name(TABLE)
        .key("PK", shard_key(post, shard))
        .update_expression("ADD #likes :one")
        .expression_attribute_names("#likes", LIKES)
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send()?;
    Ok(())
}

/// Every like of `post`: the sum of its shards, one GetItem each.
pub fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error> {
    let mut sum = 0;
    for shard in 0..u64::from(shards) {
        let out = client
            .get_item()
            .table_name(TABLE)
            .key("PK", shard_key(post, shard))
            .send()?;
        if let Some(n) = out.item().and_then(|item| item.get(LIKES)) {
            sum += n.as_number().and_then(|n| n.to_u64()).unwrap_or(0);
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
