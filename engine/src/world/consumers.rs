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

use super::{State, World};
use crate::error::{Exception, Result};
use crate::stream::consumer::{ConsumerStats, EventSourceMapping, Handler, StartingPosition};
use crate::stream::{Record, Shard, Stream};

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

impl Consumer {
    /// Time between two polls (ms, at least one).
    fn interval_ms(&self) -> u64 {
        (self.config.poll_interval.as_millis() as u64).max(1)
    }

    /// This consumer's first poll at or after `t`, on the grid its polls keep (one every
    /// poll interval from its next poll).
    fn poll_at_or_after(&self, t: u64) -> u64 {
        let p = self.next_poll_ms;
        if p >= t {
            return p;
        }
        p + (t - p).div_ceil(self.interval_ms()) * self.interval_ms()
    }

    /// The shards this consumer may read now, each with the index in its records of the
    /// first one to hand over: every shard, except a child whose parent is still open or
    /// not yet read to its end (parents first), unless the consumer started after the
    /// parent's last record.
    fn readable_shards<'a>(
        &'a self,
        stream: &'a Stream,
    ) -> impl Iterator<Item = (&'a Shard, usize)> {
        stream.shards.iter().filter_map(move |shard| {
            if let Some(parent) = &shard.parent_shard_id {
                if let Some(p) = stream.shards.iter().find(|s| &s.shard_id == parent) {
                    let done = p.ending_sequence_number.is_some()
                        && p.records.last().is_none_or(|(seq, _, _)| {
                            self.checkpoints.get(parent).is_some_and(|cp| cp > seq)
                        });
                    let started_after = p
                        .records
                        .last()
                        .is_none_or(|(seq, _, _)| *seq < self.start_sequence);
                    if !done && !started_after {
                        return None;
                    }
                }
            }
            let from = self
                .checkpoints
                .get(&shard.shard_id)
                .copied()
                .unwrap_or(self.start_sequence)
                .max(shard.trimmed_before);
            Some((
                shard,
                shard.records.partition_point(|(seq, _, _)| *seq < from),
            ))
        })
    }

    /// Whether a poll now would hand this consumer a batch: records it has not read (a
    /// failed batch waiting for its retry is among them, its checkpoint unmoved).
    fn has_records(&self, state: &State) -> bool {
        state
            .tables_of(&self.region)
            .and_then(|tables| tables.get(&self.table))
            .and_then(|t| t.stream_log.as_ref())
            .is_some_and(|stream| {
                self.readable_shards(stream)
                    .any(|(shard, start)| start < shard.records.len())
            })
    }
}

/// When the consumers' polls are next due, `change` being the earliest time a pass of
/// background work would change anything in the state (`Agenda::read`).
///
/// **Why an idle consumer is not due.** A consumer polls every poll interval, and a poll
/// that finds nothing to read does nothing; stopping the clock at it costs a pass over every
/// partition and a look at every shard, four times a simulated second, for nothing (30 idle
/// days were 10 million stops). So a consumer with records to read is due at its next poll,
/// and one without is due only at its first poll at or after `change`: until then no pass
/// can give it a record (records come from writes, and the only writes between requests are
/// a pass's), and a pass at one of its polls would find nothing to do. Its polls keep their
/// grid — [`World::skip_idle_polls`] moves its poll time as the skipped polls would have —
/// so the batches it is handed, and when, are what they were when the clock stopped at every
/// poll (`engine/tests/consumer_trace.rs` pins them). The alternative, a consumer telling
/// the stream to wake it on the next record, would put the poller's rules into the write
/// path; reading it off the shards keeps the agenda read, not kept.
pub(crate) fn next_poll(consumers: &[Consumer], state: &State, change: Option<u64>) -> Option<u64> {
    consumers
        .iter()
        .filter_map(|c| {
            if c.has_records(state) {
                Some(c.next_poll_ms)
            } else {
                change.map(|t| c.poll_at_or_after(t))
            }
        })
        .min()
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

    /// Moves the poll time of every consumer that `advance` or `settle` is about to pass
    /// without polling it to its first poll at or after `until`: the polls skipped were due
    /// but idle (see [`next_poll`]), and each would have set the next a poll interval later.
    pub(crate) fn skip_idle_polls(&self, until: u64) {
        for c in self.consumers().iter_mut() {
            c.next_poll_ms = c.poll_at_or_after(until);
        }
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
            c.next_poll_ms = now_ms + c.interval_ms();
            let mut ready = Vec::new();
            {
                let Some(table) = state
                    .tables_of(&c.region)
                    .and_then(|tables| tables.get(&c.table))
                else {
                    continue;
                };
                let Some(stream) = &table.stream_log else {
                    continue;
                };
                let schema = &table.store.schema;
                for (shard, start) in c.readable_shards(stream) {
                    let limit = c
                        .batch_limit
                        .get(&shard.shard_id)
                        .copied()
                        .unwrap_or(c.config.batch_size);
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
