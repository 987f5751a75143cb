//! # Kata: hot-key sharding
//!
//! A post went viral: likes arrive at 2,500 a second, and one DynamoDB partition serves at most
//! 1,000 writes a second. Count them anyway — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error};
use given::Advice;

// The table the tests create for you: `given::TABLE` (`likes`, partition key `PK` (string), no
// sort key, provisioned with 1,000 RCU and 40,000 WCU), from the kata's given part:
// checker/katas/hot-key-sharding/given/src/lib.rs.

/// Records one like of `post`.
///
/// - `shards`: how many shard items the counter of `post` is spread over.
/// - `n`: the number of this like (0 for the first the service saw, then 1, 2, …). Use it to
///   pick the shard — round-robin (`n % shards`) or a hash of `n`, your choice — and, if you
///   like, to jitter your backoff. (No `rand`: everything here is deterministic.)
///
/// A throttled write did nothing — its error is UpdateItem's
/// `ProvisionedThroughputExceededException` or `ThrottlingException` (`err.into_service_error()`,
/// then match `UpdateItemError::…`): wait on the simulated clock
/// (`client.world().advance(..)`) and send it again, backing off exponentially. Any other
/// error goes back to the caller at once. Return `Ok(())` once the like is stored, exactly
/// once. Several clients call this at the same time: store the like with one atomic write.
pub fn increment(client: &Client, post: &str, shards: u32, n: u64) -> Result<(), Error> {
    // TODO: write the like to one of the `shards` shard items of `post` (UpdateItem, ADD),
    // and retry throttled writes with backoff.
    let _ = (client, post, shards, n);
    Err(given::not_written_yet("increment"))
}

/// Every like of `post` so far: the sum of all its `shards` shard items (a shard nobody
/// wrote to yet counts 0).
pub fn total(client: &Client, post: &str, shards: u32) -> Result<u64, Error> {
    // TODO: read every shard item (GetItem each, or one BatchGetItem) and add them up.
    let _ = (client, post, shards);
    Err(given::not_written_yet("total"))
}

/// What a throttling error tells the on-call: `Some(Advice::ShardTheKey { resource })` when its
/// throttling reason is a key range over its throughput (a hot key: more capacity will not
/// help), `Some(Advice::AddCapacity { resource })` for any other reason (the table or index
/// as a whole over its rate), with the ARN the reason names; `None` when `error` is not a
/// throttle. The exception alone does not tell: read its `throttling_reasons()`.
pub fn advise(error: &Error) -> Option<Advice> {
    // TODO: match the throttling exceptions, read the first reason's `reason()` and
    // `resource()`.
    let _ = error;
    None
}
