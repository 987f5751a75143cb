//! # The given part of the kata: hot-key sharding
//!
//! What the tests and your code share: the table's name and the types your functions take and
//! return. It is not yours to change — the checker and grading always build your `src/lib.rs`
//! against this copy (`checker/katas/hot-key-sharding/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

/// The table the tests create for you: `likes`, partition key `PK` (string), no sort key,
/// provisioned with 1,000 RCU and 40,000 WCU.
pub const TABLE: &str = "likes";

/// What a throttled request tells the on-call, read from its error's throttling reasons
/// (what your `advise` returns). `resource` is the ARN the reason names: the table's
/// (`arn:aws:dynamodb:…:table/likes`) or an index's (`…/index/<name>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Advice {
    /// One key range of `resource` — one partition — was over its ceiling (a reason ending in
    /// `KeyRangeThroughputExceeded`): a hot key. More capacity does not help; spread the key
    /// over more shards.
    ShardTheKey { resource: String },
    /// `resource` as a whole was over its rate — its provisioned units, its quota, its
    /// maximum (any other reason): back off now, and add capacity if it keeps happening.
    AddCapacity { resource: String },
}

/// The error the starter's functions return until they are written (not part of the SDK: a
/// `ValidationException` built by the engine, so that the starter compiles and every hidden
/// test fails with a message that says where the task is).
pub fn not_written_yet(function: &str) -> engine::Error {
    engine::Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/hot-key-sharding/README.md)"
    ))
}
