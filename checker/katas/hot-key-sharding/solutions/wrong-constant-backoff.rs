//! Sharded and retried, but the wait between attempts never grows: 20 ms after every
//! throttle, however many came before. Under a flash crowd every waiting like comes back
//! 20 ms later, all at once, into a partition that is still over its rate.

use std::time::Duration;

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client, Error};
use given::Advice;

const WAIT: Duration = Duration::from_millis(20);

fn shard_key(post: &str, shard: u64) -> AttributeValue {
    AttributeValue::S(format!("{post}#COUNTER#{shard}"))
}

pub fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error> {
    let key = shard_key(post, n % u64::from(shards));
    loop {
        let sent = client
            .update_item()
            .table_name(given::TABLE)
            .key("PK", key.clone())
            .update_expression("ADD likes :one")
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send();
        match sent.map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(()),
            Err(
                UpdateItemError::ProvisionedThroughputExceededException(_)
                | UpdateItemError::ThrottlingException(_),
            ) => client.world().advance(WAIT),
            Err(e) => return Err(e.into()),
        }
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
