//! Sharded, exponential backoff — on every error. A throttle is worth retrying; a missing
//! table, a validation error or a failed condition is not: it comes back the same however
//! long you wait, so this `increment` never returns.

use std::time::Duration;

use engine::{AttributeValue, Client, Error};
use given::Advice;

const FIRST_WAIT: Duration = Duration::from_millis(50);
const MAX_WAIT: Duration = Duration::from_secs(2);

fn shard_key(post: &str, shard: u64) -> AttributeValue {
    AttributeValue::S(format!("{post}#COUNTER#{shard}"))
}

pub fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error> {
    let key = shard_key(post, n % u64::from(shards));
    let mut wait = FIRST_WAIT;
    loop {
        let sent = client
            .update_item()
            .table_name(given::TABLE)
            .key("PK", key.clone())
            .update_expression("ADD likes :one")
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send();
        if sent.is_ok() {
            return Ok(());
        }
        // Whatever went wrong, try again a little later.
        client.world().advance(wait);
        wait = (wait * 2).min(MAX_WAIT);
    }
}

pub fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error> {
    let mut sum = 0;
    for shard in 0..u64::from(shards) {
        let out = client
            .get_item()
            .table_name(given::TABLE)
            .key("PK", shard_key(post, shard))
            .send()?;
        if let Some(AttributeValue::N(likes)) = out.item().and_then(|item| item.get("likes")) {
            sum += likes.parse::<u64>().unwrap_or(0);
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
