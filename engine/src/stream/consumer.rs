//! Stream consumers: the Lambda event source mapping, modelled.
//!
//! In AWS, a Lambda function subscribed to a table's stream is fed by an *event source
//! mapping*: a poller that reads each shard, hands the function a batch of records, and on
//! error **retries the whole batch, blocking that shard** until the batch succeeds, retries
//! run out (the batch is then discarded), or — with `bisect_batch_on_function_error` — it
//! has split the batch to find the failing record. Delivery is **at least once**: a batch
//! that succeeded may be delivered again, so handlers must be idempotent.
//!
//! Here a consumer is a Rust closure subscribed with `World::subscribe`, with the settings
//! of this file ([`EventSourceMapping`]). Batches are delivered on the simulated clock
//! (every `poll_interval`, as `World::advance` and `World::settle` move time), in order per
//! shard, parents before children. The `redelivery_probability` knob redelivers a seeded
//! fraction of successful batches, so an idempotent handler can be told apart from a naive
//! one.
//!
//! The poller itself is the world's (`world/consumers.rs`): it runs the handler outside the
//! world's lock, on the thread that moves the clock, and its polls are a kind of timed work
//! on the world's agenda. This file holds what a consumer is told and what it reports.

use std::time::Duration;

use super::Record;

/// Where a new consumer starts reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartingPosition {
    /// The oldest record still kept.
    TrimHorizon,
    /// Only records written after subscribing.
    Latest,
}

/// The settings of an event source mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct EventSourceMapping {
    /// Records per batch. AWS default: 100.
    pub batch_size: usize,
    pub starting_position: StartingPosition,
    /// Retries of a failing batch before it is discarded; `-1` retries until the records
    /// expire. AWS default: -1.
    pub maximum_retry_attempts: i64,
    /// On error, split the batch in two and retry the halves. AWS default: false.
    pub bisect_batch_on_function_error: bool,
    /// How often each shard is polled. AWS: about four times a second.
    pub poll_interval: Duration,
    /// Fraction of successful batches delivered a second time (at-least-once delivery made
    /// visible). Seeded by the world. Default: 0.
    pub redelivery_probability: f64,
}

impl Default for EventSourceMapping {
    fn default() -> Self {
        EventSourceMapping {
            batch_size: 100,
            starting_position: StartingPosition::TrimHorizon,
            maximum_retry_attempts: -1,
            bisect_batch_on_function_error: false,
            poll_interval: Duration::from_millis(250),
            redelivery_probability: 0.0,
        }
    }
}

/// What a consumer has done so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConsumerStats {
    pub invocations: u64,
    pub batches_succeeded: u64,
    pub records_delivered: u64,
    pub failed_invocations: u64,
    pub batches_redelivered: u64,
    pub records_discarded: u64,
}

/// A handler: gets a batch, returns `Err` to have it retried.
pub type Handler = Box<dyn FnMut(&[Record]) -> std::result::Result<(), String> + Send>;
