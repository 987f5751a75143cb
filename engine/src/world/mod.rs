//! # The simulated world
//!
//! Real DynamoDB runs on thousands of machines whose clocks, networks and failures you never
//! see. This engine runs all of it inside one value — the [`World`] — that owns:
//!
//! - a **simulated clock** that moves only when the caller says so ([`World::advance`],
//!   [`World::settle`]); nothing in the engine reads the wall clock;
//! - **one seeded random generator** that makes every random choice (which replica serves an
//!   eventually consistent read, how long replication takes); the same seed and the same
//!   requests give the same run, bit for bit;
//! - the **tables**, their partitions and replicas, and the background work that happens on
//!   the clock: replication to slow followers today, index propagation, TTL sweeps and stream
//!   delivery as the engine grows.
//!
//! ```text
//!   Client ──clone──▶ Client ──▶ ┌──────────── World (Arc<Mutex<State>>) ─────────────┐
//!   (threads)                    │ clock: 12_000 ms   rng: SplitMix64(seed)            │
//!                                │ tables: "app" → Store → partitions → 3 replicas     │
//!                                └──────────────────────────────────────────────────────┘
//! ```
//!
//! A `World` and its `Client`s are cheap handles to one shared state behind a mutex, so
//! threads can share a table; requests from one thread are applied in the order they are
//! sent, and requests from several threads in the order they take the lock.
//!
//! What the model leaves out: request latency (a request takes no simulated time), network
//! partitions between clients and the service, and regions.

pub mod rng;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::client::Client;
use crate::table::{ReplicationTiming, Tables};
use rng::Rng;

/// The teaching scale of a world: limits and delays, with DynamoDB's real values as defaults
/// where a test can afford them.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Seed of every random choice.
    pub seed: u64,
    /// Replication delay to the slower follower, drawn uniformly from this range (ms).
    /// DynamoDB: replicas converge "usually within one second"; typical is milliseconds.
    pub replication_delay_ms: (u64, u64),
    /// Largest item, in bytes. DynamoDB: 400 KB = 409,600 bytes.
    pub max_item_size: usize,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            seed: 0,
            replication_delay_ms: (
                DEFAULT_REPLICATION_DELAY_MIN_MS,
                DEFAULT_REPLICATION_DELAY_MAX_MS,
            ),
            max_item_size: crate::value::MAX_ITEM_SIZE,
        }
    }
}

/// Everything inside a world. Crate-internal: reach it through [`World`] and [`Client`].
#[derive(Debug)]
pub(crate) struct State {
    pub now_ms: u64,
    pub rng: Rng,
    pub config: WorldConfig,
    pub tables: Tables,
    /// Idempotency tokens of TransactWriteItems: token → (request fingerprint, completed at).
    pub transaction_tokens: std::collections::BTreeMap<String, (String, u64)>,
}

impl State {
    pub fn timing(&self) -> ReplicationTiming {
        ReplicationTiming {
            min_delay_ms: self.config.replication_delay_ms.0,
            max_delay_ms: self.config.replication_delay_ms.1,
        }
    }

    /// Starts the record of a request (see the request log).
    pub fn begin_request(&mut self, _operation: &'static str) {}

    /// Completes the record of the current request with its outcome.
    pub fn finish_request(&mut self, _error: Option<&crate::Error>) {}

    /// Takes `units` of write capacity from the partition of `hash` in `table`, or fails with
    /// the throttling error the table's billing mode calls for. (Capacity enforcement
    /// arrives with the capacity model; until then every request is admitted.)
    pub fn admit_write(&mut self, _table: &str, _hash: u64, _units: f64) -> crate::Result<()> {
        Ok(())
    }

    /// Takes `units` of read capacity from the partition of `hash` (see `admit_write`).
    pub fn admit_read(&mut self, _table: &str, _hash: u64, _units: f64) -> crate::Result<()> {
        Ok(())
    }

    /// Runs background work due at or before the current time.
    pub fn run_due(&mut self) {
        let now = self.now_ms;
        for table in self.tables.values_mut() {
            table.store.catch_up(now);
            for index in &mut table.indexes {
                index.store.catch_up(now);
            }
        }
    }

    /// The earliest time background work is due, if any is pending.
    pub fn next_due(&self) -> Option<u64> {
        self.tables
            .values()
            .flat_map(|t| {
                std::iter::once(t.store.next_due())
                    .chain(t.indexes.iter().map(|i| i.store.next_due()))
            })
            .flatten()
            .min()
    }
}

/// A simulated DynamoDB: tables, partitions, replicas, a clock and a seed.
///
/// ```
/// use engine::World;
/// let world = World::new(42);
/// let client = world.client();
/// assert_eq!(world.now(), std::time::Duration::ZERO);
/// # drop(client);
/// ```
#[derive(Clone, Debug)]
pub struct World {
    state: Arc<Mutex<State>>,
}

impl World {
    /// A world with default (DynamoDB) settings and the given seed.
    pub fn new(seed: u64) -> World {
        World::with_config(WorldConfig {
            seed,
            ..WorldConfig::default()
        })
    }

    /// A world with explicit settings.
    pub fn with_config(config: WorldConfig) -> World {
        let state = State {
            now_ms: 0,
            rng: Rng::new(config.seed),
            config,
            tables: Tables::new(),
            transaction_tokens: Default::default(),
        };
        World {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// A client for this world (cheap; clone it freely, share it between threads).
    pub fn client(&self) -> Client {
        Client::from_world(self.clone())
    }

    /// The simulated time since the world began.
    pub fn now(&self) -> Duration {
        Duration::from_millis(self.lock().now_ms)
    }

    /// Moves the clock forward and runs the background work that falls due.
    pub fn advance(&self, by: Duration) {
        let mut state = self.lock();
        let by_ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        state.now_ms = state.now_ms.saturating_add(by_ms);
        state.run_due();
    }

    /// Advances the clock until no background work is pending (replication caught up, …),
    /// and returns how far it moved. Faults stay in place: a replica that is down stays
    /// behind.
    pub fn settle(&self) -> Duration {
        let mut state = self.lock();
        let start = state.now_ms;
        while let Some(due) = state.next_due() {
            if due > state.now_ms {
                state.now_ms = due;
            }
            state.run_due();
        }
        Duration::from_millis(state.now_ms - start)
    }

    /// The configuration this world runs with.
    pub fn config(&self) -> WorldConfig {
        self.lock().config.clone()
    }

    /// Runs one request against the state, under the lock, and records it in the request
    /// log.
    pub(crate) fn run<T>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&mut State) -> crate::Result<T>,
    ) -> crate::Result<T> {
        let mut state = self.lock();
        state.begin_request(operation);
        let result = f(&mut state);
        state.finish_request(result.as_ref().err());
        result
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-applied write: every operation
        // validates before it mutates. So a poisoned lock is still consistent.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Fastest replication to the slower follower (ms).
pub const DEFAULT_REPLICATION_DELAY_MIN_MS: u64 = 1;
/// Slowest replication to the slower follower (ms). Real DynamoDB: "usually within one
/// second"; milliseconds in practice. Short enough that `advance(1 s)` always converges.
pub const DEFAULT_REPLICATION_DELAY_MAX_MS: u64 = 20;
