//! # Concurrent clients on a seeded schedule
//!
//! A race between two buyers is a story about order: both read a stock of 5, both write 4,
//! one sale is lost. On plain threads the operating system tells that story, and it tells a
//! different one on every run: eight threads racing for stock through one world gave 280,
//! 277, 282, 275 and 282 refused buyers in five runs of the same seed. The world's seed
//! decides every choice *inside* a request (which replica answers, how long replication
//! takes); it cannot decide whose request arrives first, so a failing seed did not replay.
//!
//! [`World::concurrently`] takes that choice away from the operating system. It runs N
//! bodies, each on its own OS thread with its own [`Client`], and admits them to the world
//! **one at a time, in an order drawn from a seed**, as deterministic simulators do (turmoil
//! steps its simulated hosts one at a time; loom runs one thread at a time and chooses which
//! goes next). Each body is still a real thread with its own stack — a learner's code runs
//! unchanged — but only one of them is ever running.
//!
//! ## The gate
//!
//! Every request (the `send()` of every operation: they all pass through one function,
//! `World::run`), every [`World::advance`] and [`World::settle`], and [`yield_now`] is a
//! *gate*. A scheduled thread that reaches a gate stops there and gives its turn back. Once
//! every live scheduled thread is stopped at a gate or finished, the scheduler draws one of
//! the stopped threads from its own seeded generator and lets it through: it runs alone —
//! its request, then its own code — until its next gate or its end. Then the scheduler
//! draws again. Because the draw only ever happens when everyone else is stopped, the set it
//! draws from is exactly the unfinished threads, and the sequence of draws is a pure
//! function of the seed and of what the bodies do.
//!
//! ```text
//!   client 0         client 1         client 2         the scheduler (seed 7)
//!   ═══ start        ═══ start        ═══ start        all 3 stopped: draws 1
//!    ┆                │ GetItem → 5    ┆
//!    ┆               ═══ PutItem       ┆               all 3 stopped: draws 0
//!    │ GetItem → 5    ┆                ┆
//!   ═══ PutItem       ┆                ┆               all 3 stopped: draws 1
//!    ┆                │ PutItem 4      ┆
//!    ┆                ╵ returns        ┆               2 left, stopped: draws 0
//!    │ PutItem 4   ← two sales, and the stock went from 5 to 4: a lost update
//!    ╵ returns                         ┆               1 left: draws 2
//!                                      │ …
//!
//!   ═══ stopped at a gate    │ running    ┆ waiting to be drawn    ╵ finished
//! ```
//!
//! The same seed gives the same draws, hence the same requests in the same order, hence —
//! the world being deterministic — the same items, the same errors, the same
//! [`World::trace_hash`]. Each request's record in the request log names the client that
//! sent it ([`RequestRecord::client`](super::log::RequestRecord::client)), so a failure can
//! show the interleaving that caused it.
//!
//! ## In a test
//!
//! ```
//! # use engine::types::{AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType};
//! use engine::{item, AttributeValue, Client, World};
//!
//! fn stock(client: &Client) -> u64 {
//!     let out = client.get_item().table_name("stock").key("sku", AttributeValue::S("hat".into()))
//!         .consistent_read(true).send().unwrap();
//!     out.item().unwrap()["n"].as_n().unwrap().parse().unwrap()
//! }
//!
//! /// Reads the stock and writes it back minus one: two buyers can read the same stock.
//! fn buy(client: &Client) {
//!     let left = stock(client);
//!     client.put_item().table_name("stock")
//!         .set_item(Some(item! { "sku" => "hat", "n" => left - 1 })).send().unwrap();
//! }
//!
//! let race = |seed| {
//!     let world = World::new(1);
//!     # world.client().create_table().table_name("stock")
//!     #     .attribute_definitions(AttributeDefinition::new("sku", ScalarAttributeType::S))
//!     #     .key_schema(KeySchemaElement::new("sku", KeyType::Hash))
//!     #     .billing_mode(BillingMode::PayPerRequest).send().unwrap();
//!     world.client().put_item().table_name("stock")
//!         .set_item(Some(item! { "sku" => "hat", "n" => 100 })).send().unwrap();
//!     world.concurrently(seed).run(4, |_, client| (0..10).for_each(|_| buy(&client)));
//!     (world.trace_hash(), stock(&world.client()))
//! };
//! let (trace, left) = race(7);
//! assert!(left > 60, "40 sales, yet {left} left: sales were lost in the race");
//! assert_eq!(race(7), (trace, left), "the same seed replays the same race");
//! ```
//!
//! ## Decisions
//!
//! - **A thread is scheduled, not a `Client` handle.** The gate looks up the calling thread's
//!   slot (a thread-local set when the body's thread starts). So every client a body uses —
//!   the one it is given, its clones, a `world.client()` made inside, one captured from the
//!   test — waits at the gate, and so does `advance` on any clone of the world. The
//!   alternative, a slot carried by the `Client`, misses requests made through other handles
//!   and deadlocks when a handle crosses into a thread of its own (the handle would wait for
//!   a turn its thread does not hold). Off a scheduled thread the lookup finds nothing and
//!   the request goes straight to the world: `world.client()` outside a schedule is what it
//!   always was, at the cost of one thread-local read per request.
//! - **Bodies start together.** Each thread stops at a start gate before its body runs, so
//!   the first draw is among all N and no body code runs before it (code before the first
//!   request is part of the first turn).
//! - **The schedule has its own generator**, seeded with `seed ^ SCHEDULE_SEED_SALT`; it
//!   never draws from the world's. A request then draws from the world's generator exactly
//!   what it would draw if the same requests were sent in the same order from one thread,
//!   and a change in the number of draws does not shift every replication delay. The salt
//!   keeps a test that passes the world's own seed from getting the world's own stream.
//! - **An `advance` (or `settle`) is one step.** Its gate lets the body through once; the
//!   whole advance, stream handlers included, runs inside that turn, and requests a handler
//!   sends (with any client) pass ungated and carry no client in the request log. Gating
//!   them would let another body's requests land while the clock is half moved and a
//!   consumer's handler is out of its slot; a Lambda is not one of the racing clients.
//! - **A panic stops everyone.** When a body panics, every thread stopped at a gate is
//!   unwound from there (with a private payload, through `resume_unwind`, so no panic
//!   message is printed for them), every thread is joined, and the first panic — first in
//!   schedule order, so the same one on every run — is re-raised on the caller's thread
//!   with its original payload. Running the others to completion instead would throw their
//!   results away anyway, and they might wait forever for what the panicked body would have
//!   done. A body that catches the unwinding meets it again at its next gate.
//!
//! ## Left out on purpose
//!
//! - **Locks and channels between bodies are not modelled** (loom models them). A body that
//!   blocks on a `Mutex` another body holds across a request deadlocks the schedule: the
//!   holder is stopped at its gate, and the scheduler waits for the blocked thread to reach
//!   one. Wait for another body through the world (poll with a request) or [`yield_now`].
//! - **Threads a body spawns are not scheduled.** The OS interleaves them with whichever
//!   body has the turn; a body that joins them before its next request keeps them inside
//!   its own turn, and the run deterministic.
//! - **Preemption is at gates only**, not at every memory access: a request is atomic on its
//!   partition's leader in DynamoDB too, so request boundaries are where races live. No
//!   exhaustive exploration either: one seed, one interleaving; sweep seeds to explore.
//! - **Every draw is uniform**: no priorities, no bounded-preemption strategies (PCT).
//! - **Requests take no simulated time**: the schedule orders them; it does not spread them
//!   over the clock.

use std::cell::{Cell, RefCell};
use std::panic;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use super::World;
use crate::client::Client;
use crate::rng::Rng;

impl World {
    /// A schedule for concurrent clients of this world, its order drawn from `seed` (see the
    /// [module essay](self)).
    ///
    /// ```
    /// use engine::World;
    /// let world = World::new(1);
    /// let tables = world.concurrently(7).run(3, |i, client| {
    ///     let names = client.list_tables().send().unwrap();
    ///     (i, names.table_names().len())
    /// });
    /// assert_eq!(tables, vec![(0, 0), (1, 0), (2, 0)]);
    /// ```
    pub fn concurrently(&self, seed: u64) -> Concurrent {
        Concurrent {
            world: self.clone(),
            seed,
        }
    }

    /// Runs `bodies` as concurrent clients on the schedule of `seed`; returns their results
    /// in order. The same as `self.concurrently(seed).run_each(bodies)`.
    pub fn run_concurrently<'b, T: Send + 'b>(
        &self,
        seed: u64,
        bodies: Vec<Box<dyn FnOnce(Client) -> T + Send + 'b>>,
    ) -> Vec<T> {
        self.concurrently(seed).run_each(bodies)
    }
}

/// Concurrent clients of one world, admitted one request at a time in an order drawn from a
/// seed. Made by [`World::concurrently`].
#[derive(Clone, Debug)]
pub struct Concurrent {
    world: World,
    seed: u64,
}

impl Concurrent {
    /// Runs `body(i, client)` for `i` in `0..n`, each on its own thread with its own client,
    /// on this schedule; returns the results in order of `i`. Bodies may borrow from the
    /// caller (the threads are scoped). A panic in a body is re-raised here, with its
    /// payload, once every thread has stopped.
    pub fn run<T, F>(&self, n: usize, body: F) -> Vec<T>
    where
        T: Send,
        F: Fn(usize, Client) -> T + Sync,
    {
        let body = &body;
        self.drive((0..n).map(|i| move |client| body(i, client)).collect())
    }

    /// Runs one thread per body, each with its own client, on this schedule; returns the
    /// results in order. For bodies that differ (a writer and a reader, say).
    pub fn run_each<'b, T: Send + 'b>(
        &self,
        bodies: Vec<Box<dyn FnOnce(Client) -> T + Send + 'b>>,
    ) -> Vec<T> {
        self.drive(bodies)
    }

    fn drive<T, B>(&self, bodies: Vec<B>) -> Vec<T>
    where
        T: Send,
        B: FnOnce(Client) -> T + Send,
    {
        let n = bodies.len();
        if n == 0 {
            return Vec::new();
        }
        let scheduler = Arc::new(Scheduler::new(n, self.seed));
        let (outcomes, spawn_error) = thread::scope(|scope| {
            let mut handles = Vec::with_capacity(n);
            let mut spawn_error = None;
            for (i, body) in bodies.into_iter().enumerate() {
                let (shared, client) = (scheduler.clone(), self.world.client());
                let spawned = thread::Builder::new()
                    .name(format!("client {i}"))
                    .spawn_scoped(scope, move || run_slot(shared, i, client, body));
                match spawned {
                    Ok(handle) => handles.push(handle),
                    Err(e) => {
                        // The threads already started wait for all n at their start gate:
                        // release them (they unwind) rather than wait forever.
                        scheduler.abandon(i);
                        spawn_error = Some((i, e));
                        break;
                    }
                }
            }
            let outcomes: Vec<thread::Result<T>> = handles.into_iter().map(|h| h.join()).collect();
            (outcomes, spawn_error)
        });
        if let Some((i, e)) = spawn_error {
            panic!("could not start the thread of concurrent client {i}: {e}");
        }
        if let Some(i) = scheduler.first_panic() {
            if let Some(Err(payload)) = outcomes.into_iter().nth(i) {
                panic::resume_unwind(payload);
            }
            unreachable!("client {i} panicked, so its thread ended in a panic");
        }
        outcomes
            .into_iter()
            .map(|o| o.unwrap_or_else(|payload| panic::resume_unwind(payload)))
            .collect()
    }
}

/// A gate with no request: gives the turn back so another scheduled client may run. A body
/// that waits for another body without sending requests (spinning on a flag) must call it,
/// or the schedule never moves on. Off a scheduled thread it does nothing.
pub fn yield_now() {
    gate();
}

/// The gate in front of every request: on a scheduled thread, waits for its turn and returns
/// the thread's client index; elsewhere (or inside an advance's turn) returns `None` at once.
#[inline]
pub(crate) fn gate() -> Option<usize> {
    // The usual path, inlined into every request: one read of a plain thread-local flag.
    if SCHEDULED.with(Cell::get) {
        wait_for_turn()
    } else {
        None
    }
}

#[cold]
fn wait_for_turn() -> Option<usize> {
    let (scheduler, index) = CURRENT.with(|current| {
        let current = current.borrow();
        let slot = current.as_ref()?;
        (slot.steps_open == 0).then(|| (slot.scheduler.clone(), slot.index))
    })?;
    scheduler.gate(index);
    Some(index)
}

/// Passes the gate, then keeps the turn until the returned guard is dropped: requests made
/// meanwhile on this thread (a stream handler's, during an advance) pass ungated.
pub(crate) fn step() -> Step {
    if !SCHEDULED.with(Cell::get) {
        return Step { open: false };
    }
    gate();
    CURRENT.with(|current| {
        if let Some(slot) = current.borrow_mut().as_mut() {
            slot.steps_open += 1;
        }
    });
    Step { open: true }
}

/// The turn held by an advance or a settle (see [`step`]).
pub(crate) struct Step {
    open: bool,
}

impl Drop for Step {
    fn drop(&mut self) {
        if self.open {
            CURRENT.with(|current| {
                if let Some(slot) = current.borrow_mut().as_mut() {
                    slot.steps_open -= 1;
                }
            });
        }
    }
}

thread_local! {
    /// The schedule slot of this thread, if it runs a scheduled body.
    static CURRENT: RefCell<Option<Slot>> = const { RefCell::new(None) };
    /// Whether `CURRENT` holds a slot. Kept apart because it needs no destructor, so reading
    /// it is a single load, where reading `CURRENT` first checks the thread-local is alive.
    static SCHEDULED: Cell<bool> = const { Cell::new(false) };
}

/// What a scheduled thread knows about itself.
struct Slot {
    scheduler: Arc<Scheduler>,
    index: usize,
    /// Advances (or settles) in progress on this thread; while one is, gates let it through.
    steps_open: u32,
}

/// The body of one scheduled thread: register, wait at the start gate, run.
fn run_slot<T>(
    scheduler: Arc<Scheduler>,
    index: usize,
    client: Client,
    body: impl FnOnce(Client) -> T,
) -> T {
    let _finish = Finish {
        scheduler: scheduler.clone(),
        index,
    };
    CURRENT.with(|current| {
        *current.borrow_mut() = Some(Slot {
            scheduler: scheduler.clone(),
            index,
            steps_open: 0,
        });
    });
    SCHEDULED.with(|s| s.set(true));
    scheduler.gate(index);
    body(client)
}

/// Marks a thread finished however its body ends (returned, panicked, cancelled).
struct Finish {
    scheduler: Arc<Scheduler>,
    index: usize,
}

impl Drop for Finish {
    fn drop(&mut self) {
        SCHEDULED.with(|s| s.set(false));
        CURRENT.with(|current| current.borrow_mut().take());
        self.scheduler.finish(self.index, thread::panicking());
    }
}

/// The payload a stopped thread unwinds with when another body panicked.
struct Cancelled;

/// Where a scheduled thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Running its body (or not yet at its start gate).
    Running,
    /// Stopped at a gate.
    AtGate,
    Finished,
}

/// The shared state of one schedule: who is where, whose turn it is, the generator.
struct Scheduler {
    inner: Mutex<Inner>,
    /// One per thread, each waited on by its thread only: a pick wakes the picked one.
    wake: Vec<Condvar>,
    /// The thread let through (`Inner::turn`), or [`NOBODY`]: a copy a stopped thread can
    /// watch without the lock while it spins before sleeping (see [`Scheduler::gate`]).
    turn_hint: AtomicUsize,
}

/// `turn_hint` when nobody has been let through (or the schedule was cancelled).
const NOBODY: usize = usize::MAX;

/// How many times a stopped thread looks at `turn_hint` (yielding its core in between)
/// before it sleeps on its condition variable. A count, not a duration: the engine reads no
/// clock. Measured on a 2-core VM: a handoff through the condition variable alone cost about
/// 35 µs (the picked thread's wake-up), five times the request it let through; with the spin,
/// 8 clients cost 9–13 µs per request instead of 39.
const SPINS: u32 = 200;

/// Schedules of more threads than this do not spin: every stopped thread spins, and with many
/// of them on a loaded machine the spinners starve the one running thread (change-feed-outbox's
/// 16 scheduled threads timed out at load 20). Eight is the most the measured win was seen at.
/// (Tried and dropped: waking only the thread the next draw will pick, drawn ahead on a copy
/// of the generator — its wake-up then overlapped little of the running thread's turn, and a
/// dev check ran slower than with no spin at all.)
const MOST_THREADS_THAT_SPIN: usize = 8;

struct Inner {
    status: Vec<Status>,
    /// The thread let through and not yet stopped again.
    turn: Option<usize>,
    rng: Rng,
    /// Set when a body panicked (or a thread could not start): every gate unwinds.
    cancelled: bool,
    /// The body that panicked first.
    first_panic: Option<usize>,
}

impl Scheduler {
    fn new(n: usize, seed: u64) -> Scheduler {
        Scheduler {
            inner: Mutex::new(Inner {
                status: vec![Status::Running; n],
                turn: None,
                rng: Rng::new(seed ^ SCHEDULE_SEED_SALT),
                cancelled: false,
                first_panic: None,
            }),
            wake: (0..n).map(|_| Condvar::new()).collect(),
            turn_hint: AtomicUsize::new(NOBODY),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // No user code runs under this lock, and every update to it is complete before it
        // can panic: a poisoned lock is still consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops thread `i` at a gate until it is picked (or unwinds it if the schedule was
    /// cancelled).
    fn gate(&self, i: usize) {
        let mut inner = self.lock();
        inner.status[i] = Status::AtGate;
        if inner.turn == Some(i) {
            inner.turn = None;
            self.turn_hint.store(NOBODY, Ordering::Release);
        }
        self.pick(&mut inner);
        if inner.turn != Some(i) && !inner.cancelled && self.wake.len() <= MOST_THREADS_THAT_SPIN {
            // Spin a little before sleeping: when this thread is drawn soon, it is let through
            // without the sleep and wake-up a condition variable costs. Yielding keeps the
            // spinners off the core the running thread needs.
            drop(inner);
            for _ in 0..SPINS {
                if self.turn_hint.load(Ordering::Acquire) == i {
                    break;
                }
                thread::yield_now();
            }
            inner = self.lock();
        }
        while inner.turn != Some(i) && !inner.cancelled {
            inner = self.wake[i]
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if inner.cancelled {
            drop(inner);
            panic::resume_unwind(Box::new(Cancelled));
        }
        inner.status[i] = Status::Running;
    }

    /// Once nobody runs and nobody has been let through, lets one stopped thread through.
    fn pick(&self, inner: &mut Inner) {
        if inner.cancelled || inner.turn.is_some() || inner.status.contains(&Status::Running) {
            return;
        }
        let at_gate = || {
            inner
                .status
                .iter()
                .enumerate()
                .filter(|(_, s)| **s == Status::AtGate)
                .map(|(i, _)| i)
        };
        let waiting = at_gate().count() as u64;
        if waiting == 0 {
            return; // everyone has finished
        }
        let k = inner.rng.below(waiting) as usize;
        let next = at_gate().nth(k).expect("k < waiting");
        inner.turn = Some(next);
        self.turn_hint.store(next, Ordering::Release);
        self.wake[next].notify_one();
    }

    /// Thread `i` has ended; `panicked` if its body unwound.
    fn finish(&self, i: usize, panicked: bool) {
        let mut inner = self.lock();
        inner.status[i] = Status::Finished;
        if inner.turn == Some(i) {
            inner.turn = None;
            self.turn_hint.store(NOBODY, Ordering::Release);
        }
        if panicked && !inner.cancelled {
            inner.first_panic = Some(i);
            self.cancel(&mut inner);
        }
        self.pick(&mut inner);
    }

    /// Threads `from..` will never start: cancels the schedule.
    fn abandon(&self, from: usize) {
        let mut inner = self.lock();
        for s in &mut inner.status[from..] {
            *s = Status::Finished;
        }
        self.cancel(&mut inner);
    }

    fn cancel(&self, inner: &mut Inner) {
        inner.cancelled = true;
        for wake in &self.wake {
            wake.notify_one();
        }
    }

    fn first_panic(&self) -> Option<usize> {
        self.lock().first_panic
    }
}

/// Mixed into a schedule's seed, so that a schedule seeded with the world's own seed does not
/// draw the world's own stream: SplitMix64 started from `seed ^ salt` is elsewhere in its
/// 2^64-long sequence, and the two streams would meet only after an astronomical number of
/// draws. The value is arbitrary; changing it changes every schedule, so it stays.
pub const SCHEDULE_SEED_SALT: u64 = 0x5C4E_D0E5_C11E_4751;
