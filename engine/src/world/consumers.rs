//! The stream consumers' poller: the Lambda event source mapping at work.
//!
//! What a consumer is and the settings it takes are the stream's
//! ([`crate::stream::consumer`]); this file runs it. A consumer is polled at its poll times,
//! which are a kind of timed work on the world's agenda (`ConsumerPolls` in
//! `world/agenda.rs`): `World::advance` and `World::settle` stop the clock at each, and
//! after the pass of background work due by then, [`World::poll_consumers`] hands each
//! shard's next batch to the handler.
//!
//! The handler runs outside the world's lock: it may use a `Client` of the same world (to
//! maintain a read model in another table, say). It runs on the thread that moves the clock;
//! when that is a client of [`World::concurrently`], the handler's requests run inside that
//! client's turn, without waiting at the schedule's gate (see [`crate::world::schedule`]).
//!
//! **Why the consumers live outside the state.** A handler is arbitrary code that may send
//! requests, and every request takes the state's lock; so the consumers (and their
//! handlers) are kept beside the state, under their own lock, always taken before the
//! state's. A handler is taken out of its consumer while it runs and put back after.

use std::collections::BTreeMap;
use std::fmt;

use super::World;
use crate::error::{Exception, Result};
use crate::stream::consumer::{ConsumerStats, EventSourceMapping, Handler, StartingPosition};
use crate::stream::Record;

/// One subscribed consumer.
pub(crate) struct Consumer {
    pub id: u32,
    pub table: String,
    /// The Region of the table whose stream this consumer reads (the subscribing handle's).
    pub region: crate::global::Region,
    pub config: EventSourceMapping,
    pub(crate) handler: Option<Handler>,
    /// Shard id → next sequence number to deliver.
    pub(crate) checkpoints: BTreeMap<String, u64>,
    /// Shard id → failed attempts of the current batch.
    pub(crate) attempts: BTreeMap<String, i64>,
    /// Shard id → size of the batch to try next (shrinks when bisecting).
    pub(crate) batch_limit: BTreeMap<String, usize>,
    pub(crate) next_poll_ms: u64,
    /// Sequence number the consumer started at (for `LATEST`).
    pub(crate) start_sequence: u64,
    pub stats: ConsumerStats,
}

impl fmt::Debug for Consumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer")
            .field("id", &self.id)
            .field("table", &self.table)
            .field("config", &self.config)
            .field("checkpoints", &self.checkpoints)
            .field("stats", &self.stats)
            .finish()
    }
}

/// One batch ready for delivery.
struct Delivery {
    consumer: usize,
    shard: String,
    records: Vec<Record>,
    last_sequence: u64,
    redeliver: bool,
}

impl World {
    /// Subscribes `handler` to a table's stream. Returns the consumer's id.
    pub fn subscribe<F, E>(
        &self,
        table: &str,
        config: EventSourceMapping,
        mut handler: F,
    ) -> Result<u32>
    where
        F: FnMut(&[Record]) -> std::result::Result<(), E> + Send + 'static,
        E: fmt::Display,
    {
        if config.batch_size == 0 || config.batch_size > 10_000 {
            return Err(Exception::validation(
                "BatchSize must be between 1 and 10000",
            ));
        }
        let (now, start_sequence) = {
            let state = self.lock();
            let t = state.tables.get(table).ok_or_else(|| {
                Exception::resource_not_found(format!(
                    "Requested resource not found: Table: {table} not found"
                ))
            })?;
            let stream = t.stream_log.as_ref().ok_or_else(|| {
                Exception::validation(format!(
                    "Table {table} has no stream: enable one with a StreamSpecification"
                ))
            })?;
            (state.now_ms, stream.next_sequence)
        };
        let mut consumers = self.consumers();
        let id = consumers.len() as u32;
        consumers.push(Consumer {
            id,
            table: table.to_string(),
            region: self.region().clone(),
            config: config.clone(),
            handler: Some(Box::new(move |records: &[Record]| {
                handler(records).map_err(|e| e.to_string())
            })),
            checkpoints: BTreeMap::new(),
            attempts: BTreeMap::new(),
            batch_limit: BTreeMap::new(),
            next_poll_ms: now + config.poll_interval.as_millis() as u64,
            start_sequence: match config.starting_position {
                StartingPosition::TrimHorizon => 0,
                StartingPosition::Latest => start_sequence,
            },
            stats: ConsumerStats::default(),
        });
        Ok(id)
    }

    /// A consumer's counters.
    pub fn consumer_stats(&self, id: u32) -> Option<ConsumerStats> {
        self.consumers()
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.stats.clone())
    }

    /// Records not yet delivered to a consumer, per shard (its lag).
    pub fn consumer_lag(&self, id: u32) -> Vec<(String, usize)> {
        let consumers = self.consumers();
        let Some(c) = consumers.iter().find(|c| c.id == id) else {
            return Vec::new();
        };
        let state = self.lock();
        let Some(stream) = state
            .tables_of(&c.region)
            .and_then(|tables| tables.get(&c.table))
            .and_then(|t| t.stream_log.as_ref())
        else {
            return Vec::new();
        };
        stream
            .shards
            .iter()
            .map(|s| {
                let from = c
                    .checkpoints
                    .get(&s.shard_id)
                    .copied()
                    .unwrap_or(c.start_sequence);
                (
                    s.shard_id.clone(),
                    s.records.iter().filter(|(seq, _, _)| *seq >= from).count(),
                )
            })
            .collect()
    }

    /// Whether some consumer has records waiting.
    pub(crate) fn consumers_pending(&self) -> bool {
        let ids: Vec<u32> = self.consumers().iter().map(|c| c.id).collect();
        ids.into_iter()
            .any(|id| self.consumer_lag(id).iter().any(|(_, n)| *n > 0))
    }

    /// The earliest poll time of any consumer.
    pub(crate) fn next_poll(&self) -> Option<u64> {
        self.consumers().iter().map(|c| c.next_poll_ms).min()
    }

    /// Polls every consumer whose poll time has come, delivering batches outside the lock.
    pub(crate) fn poll_consumers(&self, now_ms: u64) {
        let deliveries = self.collect_deliveries(now_ms);
        for d in deliveries {
            let handler = self.consumers()[d.consumer].handler.take();
            let Some(mut handler) = handler else { continue };
            let result = handler(&d.records);
            if result.is_ok() && d.redeliver {
                let _ = handler(&d.records);
            }
            let mut consumers = self.consumers();
            let c = &mut consumers[d.consumer];
            c.handler = Some(handler);
            c.stats.invocations += 1 + u64::from(result.is_ok() && d.redeliver);
            match result {
                Ok(()) => {
                    c.stats.batches_succeeded += 1;
                    c.stats.records_delivered += d.records.len() as u64;
                    if d.redeliver {
                        c.stats.batches_redelivered += 1;
                    }
                    c.checkpoints.insert(d.shard.clone(), d.last_sequence + 1);
                    c.attempts.remove(&d.shard);
                    c.batch_limit.remove(&d.shard);
                }
                Err(_) => {
                    c.stats.failed_invocations += 1;
                    let attempts = c.attempts.entry(d.shard.clone()).or_insert(0);
                    *attempts += 1;
                    let exhausted = c.config.maximum_retry_attempts >= 0
                        && *attempts > c.config.maximum_retry_attempts;
                    if c.config.bisect_batch_on_function_error && d.records.len() > 1 && !exhausted
                    {
                        c.batch_limit
                            .insert(d.shard.clone(), d.records.len().div_ceil(2));
                    } else if exhausted {
                        c.stats.records_discarded += d.records.len() as u64;
                        c.checkpoints.insert(d.shard.clone(), d.last_sequence + 1);
                        c.attempts.remove(&d.shard);
                        c.batch_limit.remove(&d.shard);
                    }
                }
            }
        }
    }

    fn collect_deliveries(&self, now_ms: u64) -> Vec<Delivery> {
        let mut consumers = self.consumers();
        let mut state = self.lock();
        let mut out = Vec::new();
        for (ci, c) in consumers.iter_mut().enumerate() {
            if c.next_poll_ms > now_ms {
                continue;
            }
            let interval = (c.config.poll_interval.as_millis() as u64).max(1);
            c.next_poll_ms = now_ms + interval;
            let mut ready = Vec::new();
            {
                let Some(stream) = state
                    .tables_of(&c.region)
                    .and_then(|tables| tables.get(&c.table))
                    .and_then(|t| t.stream_log.as_ref())
                else {
                    continue;
                };
                for shard in &stream.shards {
                    // Parents first: a child waits until its parent is closed and fully read.
                    if let Some(parent) = &shard.parent_shard_id {
                        if let Some(p) = stream.shards.iter().find(|s| &s.shard_id == parent) {
                            let done = p.ending_sequence_number.is_some()
                                && p.records.last().is_none_or(|(seq, _, _)| {
                                    c.checkpoints.get(parent).is_some_and(|cp| cp > seq)
                                });
                            let started_after = p
                                .records
                                .last()
                                .is_none_or(|(seq, _, _)| *seq < c.start_sequence);
                            if !done && !started_after {
                                continue;
                            }
                        }
                    }
                    let from = c
                        .checkpoints
                        .get(&shard.shard_id)
                        .copied()
                        .unwrap_or(c.start_sequence)
                        .max(shard.trimmed_before);
                    let limit = c
                        .batch_limit
                        .get(&shard.shard_id)
                        .copied()
                        .unwrap_or(c.config.batch_size);
                    let start = shard.records.partition_point(|(seq, _, _)| *seq < from);
                    let schema = &state.tables[&c.table].store.schema;
                    let batch: Vec<(u64, Record)> = shard.records[start..]
                        .iter()
                        .take(limit)
                        .map(|(seq, _, change)| (*seq, stream.record(*seq, change, schema)))
                        .collect();
                    if let Some((last, _)) = batch.last() {
                        let last = *last;
                        ready.push((
                            shard.shard_id.clone(),
                            batch.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
                            last,
                        ));
                    }
                }
            }
            for (shard, records, last_sequence) in ready {
                let redeliver = c.config.redelivery_probability > 0.0
                    && state.rng.chance(c.config.redelivery_probability);
                out.push(Delivery {
                    consumer: ci,
                    shard,
                    records,
                    last_sequence,
                    redeliver,
                });
            }
        }
        out
    }
}
