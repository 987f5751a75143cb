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
//!   the clock, run in time order by [`World::advance`] and [`World::settle`]: replication
//!   catch-up to slow followers, leader elections and partition splits
//!   ([`crate::table::replication`]), propagation to global secondary indexes and their backfills
//!   ([`crate::index`]), TTL sweeps ([`crate::ttl::sweep`]), stream trimming and delivery to
//!   consumers ([`crate::stream`]), and replication between the Regions of a global table
//!   ([`crate::global`]).
//!
//! The world owns the clock and the seed and decides *when* each piece runs; the rules of
//! each piece live in the piece's module. Capacity is the example: every request is admitted
//! through the world, but the throttling rules are in [`crate::capacity`]. When is the
//! **agenda**'s (`world/agenda.rs`): the one list of every kind of timed work, with its due
//! times, its order in a pass and whether the clock must stop at it. `advance` and `settle`
//! move the clock by the agenda, and a new kind of timed work — or a fault that schedules
//! some — is added there and nowhere else. Every write, whoever makes it (a request, the
//! TTL sweeper, a write from another Region), goes through one write path
//! ([`crate::write`]).
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
//! sent, and requests from several threads in the order they take the lock — an order the
//! operating system chooses, differently on every run. For a race that replays, run the
//! clients with [`World::concurrently`]: their requests are admitted one at a time, in an
//! order drawn from a seed ([`schedule`]).
//!
//! A world holds any number of **Regions**, each a whole DynamoDB of its own: a client from
//! [`World::client_in`] talks to one of them, as an SDK client configured for a Region does,
//! and a table with replicas in several Regions is a global table ([`crate::global`]).
//! `world.client()` talks to the default Region, so a world that never names another Region
//! is a single-Region DynamoDB.
//!
//! What the model leaves out: request latency (a request takes no simulated time, even to
//! another Region's endpoint), and network partitions between clients and the service
//! (a Region can be taken down whole, [`World::fail_region`]).

pub mod faults;
pub mod inspect;
pub mod log;
/// The world's one generator ([`crate::rng`], re-exported here where it used to live).
pub use crate::rng;
mod agenda;
mod consumers;
pub mod schedule;
pub mod snapshot;
mod state;

pub(crate) use state::State;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::client::Client;

/// The teaching scale of a world: limits and delays, with DynamoDB's real values as defaults
/// where a test can afford them. Each field's DynamoDB value is in its doc comment.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Seed of every random choice.
    pub seed: u64,
    /// Replication delay to the slower follower, drawn uniformly from this range (ms).
    /// DynamoDB: replicas converge "usually within one second"; typically milliseconds.
    pub replication_delay_ms: (u64, u64),
    /// Largest item, in bytes. DynamoDB: 400 KB = 409,600 bytes.
    pub max_item_size: usize,
    /// A partition holding more bytes than this is split. DynamoDB: about 10 GB. The default
    /// is 10 GB; a test that wants to watch a split sets a few KB.
    pub partition_size_limit: usize,
    /// Read units per second one partition can serve. DynamoDB: 3,000.
    pub partition_read_ceiling: f64,
    /// Write units per second one partition can serve. DynamoDB: 1,000.
    pub partition_write_ceiling: f64,
    /// Seconds of unused capacity a partition saves for bursts. DynamoDB: 300.
    pub burst_window_s: u64,
    /// Whether a new table starts with its buckets full — a provisioned partition's burst
    /// as if idle for the whole window, an on-demand partition's write headroom — as
    /// DynamoDB behaves (modelled, see `capacity::enforce::start_full`). Default: true.
    /// `false` starts them empty, for a lesson that watches a bucket fill from nothing or a
    /// table whose saved capacity is already spent.
    pub new_table_buckets_full: bool,
    /// How long a partition is without a leader after its leader fails (ms). DynamoDB does
    /// not publish it; leader leases are seconds long. Default: 2 s.
    pub election_timeout_ms: u64,
    /// Consecutive seconds at or above `split_for_heat_threshold` of the ceiling after which a
    /// partition is split for heat. DynamoDB: "minutes"; default 60 s keeps tests short.
    pub split_for_heat_after_s: u64,
    /// Fraction of the partition ceiling that counts as hot. Default 0.8.
    pub split_for_heat_threshold: f64,
    /// Seconds of per-partition metrics kept. Default: one hour.
    pub metrics_retention_s: u64,
    /// Requests kept in the request log (older ones are dropped; totals keep counting).
    pub request_log_capacity: usize,
    /// Unix time (seconds) at which the simulated clock starts. TTL attributes and stream
    /// records are read against it. Default: 2026-01-01T00:00:00Z.
    pub epoch_seconds: u64,
    /// Delay before a table change reaches a global secondary index (ms, seeded from this
    /// range). DynamoDB: "usually milliseconds", longer in rare failures.
    pub gsi_propagation_delay_ms: (u64, u64),
    /// How long backfilling a new global secondary index takes per 1,000 items (ms), at
    /// least one second. DynamoDB: minutes to hours for large tables.
    pub backfill_ms_per_1000_items: u64,
    /// How often the TTL sweeper runs (seconds). DynamoDB does not say.
    pub ttl_sweep_interval_s: u64,
    /// How long after expiry an item becomes deletable by the sweeper (seconds). DynamoDB:
    /// "typically within 48 hours" — the default (1 h, swept hourly) keeps tests short
    /// while still showing expired items that have not been deleted yet.
    pub ttl_delete_delay_s: u64,
    /// How long stream records are kept (seconds). DynamoDB: 24 hours.
    pub stream_retention_s: u64,
    /// Largest item collection (a partition key's table items plus their local index
    /// entries) of a table with local secondary indexes. DynamoDB: 10 GB.
    pub item_collection_size_limit: usize,
    /// How long a new table stays `CREATING` (simulated ms) before it is `ACTIVE`; while it
    /// is, reads and writes of it are refused with ResourceNotFoundException, as DynamoDB
    /// refuses them. DynamoDB takes seconds (it publishes no figure). Default 0: a table is
    /// `ACTIVE` as soon as CreateTable returns, so set-up code need not wait; a world that
    /// practises waiting (`wait_until_table_exists`, a DescribeTable loop) sets it.
    pub table_creation_ms: u64,
    /// Delay before a write to one replica of a global table is applied in another (ms,
    /// seeded from this range, plus any lag injected with [`World::lag_replication`]).
    /// DynamoDB: "typically within a second or less".
    pub global_replication_delay_ms: (u64, u64),
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
            partition_size_limit: 10 * 1024 * 1024 * 1024,
            partition_read_ceiling: 3000.0,
            partition_write_ceiling: 1000.0,
            burst_window_s: 300,
            new_table_buckets_full: true,
            election_timeout_ms: 2_000,
            split_for_heat_after_s: 60,
            split_for_heat_threshold: 0.8,
            metrics_retention_s: 3600,
            request_log_capacity: 100_000,
            epoch_seconds: 1_767_225_600,
            gsi_propagation_delay_ms: (5, 50),
            backfill_ms_per_1000_items: 1_000,
            ttl_sweep_interval_s: 3600,
            ttl_delete_delay_s: 3600,
            stream_retention_s: 24 * 3600,
            item_collection_size_limit: 10 * 1024 * 1024 * 1024,
            table_creation_ms: 0,
            global_replication_delay_ms: (
                crate::global::DEFAULT_GLOBAL_REPLICATION_DELAY_MIN_MS,
                crate::global::DEFAULT_GLOBAL_REPLICATION_DELAY_MAX_MS,
            ),
        }
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
    /// Stream consumers (their handlers run outside the state's lock).
    consumers: Arc<Mutex<Vec<consumers::Consumer>>>,
    /// The Region this handle acts in ([`World::in_region`]); the default Region for the
    /// world `World::new` returns.
    pub(crate) region: crate::global::Region,
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
        World::with_pieces(config, crate::seams::Pieces::default())
    }

    /// A world with explicit settings, running `pieces` in place of the engine's own
    /// pieces of its inside ([`crate::seams`]).
    pub fn with_pieces(config: WorldConfig, pieces: crate::seams::Pieces) -> World {
        let state = State::new(config, pieces);
        let world = World {
            state: Arc::new(Mutex::new(state)),
            consumers: Arc::new(Mutex::new(Vec::new())),
            region: crate::global::Region::default_region(),
        };
        snapshot::announce(&world);
        world
    }

    /// This handle, acting in `region`.
    pub(crate) fn with_region(&self, region: crate::global::Region) -> World {
        World {
            state: Arc::clone(&self.state),
            consumers: Arc::clone(&self.consumers),
            region,
        }
    }

    /// A client for this handle's Region — the default Region for the world `World::new`
    /// returns (cheap; clone it freely, share it between threads). [`World::client_in`]
    /// gives one for another Region.
    pub fn client(&self) -> Client {
        Client::from_world(self.clone())
    }

    /// The simulated time since the world began.
    pub fn now(&self) -> Duration {
        Duration::from_millis(self.lock().now_ms)
    }

    /// Moves the clock forward by `by`, running the background work that falls due on the
    /// way (replication, elections, index propagation, TTL sweeps, stream deliveries), in
    /// time order. On a thread of [`World::concurrently`] the advance is one turn of the
    /// schedule: it waits for its turn, then runs to the end, stream handlers included.
    pub fn advance(&self, by: Duration) {
        let _step = schedule::step();
        let by_ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        let target = self.lock().now_ms.saturating_add(by_ms);
        // Background work needs no stepping: everything due by the target is applied in due
        // order by one pass. Consumers are polled at their poll times on the way, and writes
        // between the Regions of a global table are applied at their due times, with the
        // background work due by then applied first.
        while let Some(t) = self.next_stop().filter(|t| *t <= target) {
            self.skip_idle_polls(t);
            self.step_to(t);
        }
        // Idle consumers' polls up to the target were passed by (`world/consumers.rs`).
        self.skip_idle_polls(target.saturating_add(1));
        let mut state = self.lock();
        state.now_ms = state.now_ms.max(target);
        state.run_due();
    }

    /// Advances the clock until no background work is pending — replication caught up,
    /// indexes propagated, due TTL deletions done, every stream record delivered to its
    /// consumers — and returns how far it moved. Faults stay in place: a replica that is
    /// down stays behind. Gives up after `SETTLE_HORIZON` of simulated time (a consumer
    /// whose handler always fails and retries forever never settles). Like `advance`, one
    /// turn of a schedule on a thread of [`World::concurrently`].
    pub fn settle(&self) -> Duration {
        let _step = schedule::step();
        let start = self.lock().now_ms;
        let horizon = start.saturating_add(SETTLE_HORIZON_MS);
        loop {
            let agenda = self.agenda();
            let in_state = |w: agenda::Work| !w.outside_the_state();
            let t = if self.consumers_pending() {
                // Records wait for a consumer: from one clock stop to the next, passing by
                // the polls of consumers with nothing to read.
                let t = agenda.next(agenda::Work::stops_the_clock);
                if let Some(t) = t.filter(|t| *t <= horizon) {
                    self.skip_idle_polls(t);
                }
                t
            } else if agenda
                .next(|w| w.stops_the_clock() && in_state(w))
                .is_some()
            {
                // Work that stops the clock is in the state: step to the next work of any
                // kind in the state.
                agenda.next(in_state)
            } else {
                // Jump to the end of the work already scheduled (one pass applies it all).
                agenda
                    .next(in_state)
                    .map(|n| n.max(agenda.last_ms.unwrap_or(n)))
            };
            match t.filter(|t| *t <= horizon) {
                Some(t) => self.step_to(t),
                None => break,
            }
        }
        Duration::from_millis(self.lock().now_ms - start)
    }

    /// The timed work pending in this world ([`agenda`]): the state's, and the consumers'
    /// polls (they live outside the state's lock).
    fn agenda(&self) -> agenda::Agenda {
        let consumers = self.consumers();
        let state = self.lock();
        state.agenda(|change| consumers::next_poll(&consumers, &state, change))
    }

    /// The next time `advance` must stop at: the earliest work that stops the clock (a
    /// consumer's poll, a write due in another Region).
    fn next_stop(&self) -> Option<u64> {
        self.agenda().next(agenda::Work::stops_the_clock)
    }

    fn step_to(&self, t: u64) {
        let now = {
            let mut state = self.lock();
            state.now_ms = state.now_ms.max(t);
            state.run_due();
            state.now_ms
        };
        self.poll_consumers(now);
    }

    /// Simulated seconds since the Unix epoch (the world starts at
    /// `WorldConfig::epoch_seconds`). TTL attributes and stream records use this clock.
    pub fn epoch_seconds(&self) -> u64 {
        self.lock().epoch_seconds()
    }

    /// The configuration this world runs with.
    pub fn config(&self) -> WorldConfig {
        self.lock().config.clone()
    }

    /// Runs one request against the state, under the lock, and records it in the request
    /// log. Every operation's `send()` comes through here, so this is where a scheduled
    /// client waits for its turn.
    pub(crate) fn run<T>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&mut State) -> crate::error::Result<T>,
    ) -> crate::error::Result<T> {
        let client = schedule::gate();
        let mut state = self.lock();
        state.begin_request(operation, client);
        let result = state.check_region_up().and_then(|()| f(&mut state));
        state.finish_request(result.as_ref().err());
        result
    }

    /// [`World::run`] for a `send()`: the exception comes back in the SDK's layers, an
    /// `SdkError` around the operation's error enum.
    pub(crate) fn send<T, E: crate::error::operations::FromService>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&mut State) -> crate::error::Result<T>,
    ) -> std::result::Result<T, crate::error::SdkError<E>> {
        self.run(operation, f)
            .map_err(crate::error::operations::sdk_error)
    }

    pub(crate) fn consumers(&self) -> MutexGuard<'_, Vec<consumers::Consumer>> {
        self.consumers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The state, with this handle's Region in place until the guard is dropped.
    pub(crate) fn lock(&self) -> StateGuard<'_> {
        // A panic while holding the lock cannot leave a half-applied write: every operation
        // validates before it mutates. So a poisoned lock is still consistent.
        let mut guard = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.enter(&self.region);
        StateGuard { guard }
    }
}

/// The locked state of a world, with one Region's tables in place (see
/// [`crate::global::region`]); dropping it puts the default Region back.
pub(crate) struct StateGuard<'a> {
    guard: MutexGuard<'a, State>,
}

impl std::ops::Deref for StateGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl std::ops::DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        // Compared by name first: building the default `Region` allocates its name, and
        // almost every request is already in the default Region (this runs once per lock).
        if self.guard.regions.here.as_str() != crate::table::REGION {
            self.guard.enter(&crate::global::Region::default_region());
        }
    }
}

/// Formats Unix milliseconds as ISO 8601 (`2026-01-01T00:00:00.000`), UTC.
pub fn iso8601(epoch_ms: u64) -> String {
    let secs = epoch_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        epoch_ms % 1000
    )
}

/// A stream label: the time the stream was enabled on the world's clock, ISO 8601 (as
/// DynamoDB's labels are).
pub(crate) fn stream_label(epoch_ms: u64) -> String {
    iso8601(epoch_ms)
}

/// How far `settle` may move the clock at most: 30 simulated days.
pub const SETTLE_HORIZON_MS: u64 = 30 * 24 * 3600 * 1000;

/// Fastest replication to the slower follower (ms).
pub const DEFAULT_REPLICATION_DELAY_MIN_MS: u64 = 1;
/// Slowest replication to the slower follower (ms). Real DynamoDB: "usually within one
/// second"; milliseconds in practice. Short enough that `advance(1 s)` always converges.
pub const DEFAULT_REPLICATION_DELAY_MAX_MS: u64 = 20;
