//! Admission: whether a partition may spend capacity *this second*.
//!
//! DynamoDB enforces throughput per partition, per second. This model keeps, for every
//! partition, one meter for reads and one for writes:
//!
//! ```text
//!               ┌──────────── one partition, one second ─────────────┐
//!  allocation   │████████████████████░░░░░░░░░░░░░│                   │  table capacity ÷ partitions
//!  adaptive     │                     ▒▒▒▒▒▒▒▒▒▒▒▒▒│                   │  other partitions' unused share
//!  burst        │                                 ▓▓▓▓▓▓▓│            │  saved from idle seconds (≤ 300 s)
//!  ceiling      │─────────────────────────────────────────┤ 1,000 WCU  │  never more, whatever the table has
//!               └────────────────────────────────────────────────────┘
//! ```
//!
//! A request is admitted when, after it, the partition's consumption this second stays
//! within its **allocation**; or within the table's total still unused this second
//! (**adaptive capacity** lends a busy partition what quiet ones do not use); or, failing
//! that, within what the partition saved in its **burst** bucket — and in every case under
//! the per-partition **ceiling** of 3,000 RCU / 1,000 WCU. The ceiling is what no table
//! setting can lift: every request for one partition key lands on one partition, so one hot
//! key is capped at about 1,000 writes a second however large the table.
//!
//! On-demand tables have no allocation to dilute: the table serves up to twice its previous
//! peak second (at first the 4,000 writes / 12,000 reads a new on-demand table takes at
//! once), never more than the per-table quota (40,000 units a second), and the partition
//! ceiling still applies — a hot key throttles on-demand tables too, as `ThrottlingException`.
//!
//! A refusal says which limit it ran into ([`Limit`]), and the client reads it in the error's
//! `ThrottlingReasons`:
//!
//! ```text
//!   refused …                                        limit                 e.g. reason
//!   past the partition's ceiling (either mode)   ──▶ KeyRange       TableWriteKeyRangeThroughputExceeded
//!   provisioned: allocation, loan, burst spent   ──▶ Provisioned    TableReadProvisionedThroughputExceeded
//!   on-demand: past the per-table quota          ──▶ AccountLimit   TableWriteAccountLimitExceeded
//!   on-demand: past twice the previous peak      ──▶ KeyRange       (the partitions have not split yet)
//! ```
//!
//! The first is the one that matters most to an application: a key-range reason means one
//! key (or a few on one partition) asks for more than a partition serves, and no capacity
//! setting cures it — the key design must spread the load.
//!
//! Two things soften an on-demand table's edges, as the service does (both **modelled**: a
//! peer suite run against DynamoDB sees them, the documentation gives no figure):
//!
//! - **Write headroom.** A partition may write past its ceiling as far as its *headroom*
//!   covers: at most one second of the ceiling (1,000 WCU), banked from seconds the
//!   partition wrote less than its ceiling, full on a new table. One key takes a batch of
//!   25 × 50 KB or 200 × 10 KB puts at once; a key kept above the ceiling spends the headroom
//!   in its first second and is held at the ceiling from then on — the hot-key lesson
//!   stands for any sustained load. Reads have none.
//! - **A transaction is one request.** Its actions meet the table's ramp (twice the previous
//!   peak) together — admitted with the first one — and, on a partition, pass as that
//!   partition's first request of the second when their first one did: ten 350 KB puts in
//!   one transaction (7,000 WRU) go through on a new table. A transaction is at most 4 MB, so
//!   this lets no sustained load past either limit; the per-table quota still holds.
//!
//! A new table starts with its buckets full: a provisioned partition's burst as if it had
//! been idle for the whole window (a fresh 5/5 table absorbs a burst of setup writes, as the
//! service does), an on-demand partition's headroom at its most (`enforce::start_full`).
//!
//! A second that has begun is never revisited: when the clock enters a new second, the unused
//! part of the old second's allocation is added to the burst bucket (capped at
//! `burst_window` seconds of allocation), and the meter starts again from zero.
//!
//! ## The seam: [`Admission`]
//!
//! The bucket itself — what a partition saves when a second closes, and whether it admits
//! one request — is a replaceable piece ([`crate::seams::Pieces::admission`]), so a learner
//! can write it and run real workloads through it (the Build-it kata `token-bucket`). The
//! trait is two pure functions over the bucket's state, which the engine keeps:
//!
//! ```text
//!   clock enters second t' > t        request of u units in second t
//!            │                                    │
//!   bank(&Closing { second: t, next: t',   admit(&Ask { units: u, consumed, burst,
//!         consumed, burst, rate }) ──▶ burst     rate, table_lends }) ──▶ Admit { burst } | Throttle
//! ```
//!
//! - [`Admission::bank`] gets the second being closed, the second the meter moves to (the
//!   seconds between were idle), what was consumed, the burst balance and the [`Rate`]
//!   (allocation, ceiling, burst window), and returns the new balance.
//! - [`Admission::admit`] gets one request and the meter as it stands, and returns the
//!   verdict with the balance after it.
//!
//! Why pure functions over engine-held state, and not a bucket object per partition: the
//! engine already keeps each partition's [`Meter`] (its per-second history is what
//! `World::partition_metrics` shows, and splits and Region failovers reset it), so a piece
//! that only *decides* cannot lose or corrupt that bookkeeping, reads and writes keep their
//! own balances by construction, and a world built with the engine's piece hashes exactly
//! as before the seam existed.
//!
//! What stays the engine's and not the piece's: the *allocation* (an even share of the
//! provisioned units, at most the ceiling) is computed by enforcement and handed in;
//! **adaptive capacity** is a table-level pool, so the engine decides whether the table's
//! unused capacity this second covers the request and says so in [`Ask::table_lends`];
//! **on-demand** tables have no bucket at all — their previous-peak rule and ceiling are
//! applied here, by [`admit`], without the piece.
//!
//! Left out on purpose: the storage-node level bucket of the paper, GAC's token leases, the
//! request-rate (not unit-rate) limits, the account-wide quota on provisioned capacity
//! (`RequestLimitExceeded`), and an on-demand table's configured maximum (`OnDemandThroughput`
//! is not modelled, so no request is refused with `MaxOnDemandThroughputExceeded`).

use std::collections::BTreeMap;

/// One meter: consumption of one kind (read or write) in the current second.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meter {
    /// The second being metered (simulated seconds since the world began).
    pub second: u64,
    pub consumed: f64,
    /// Unused capacity saved for bursts.
    pub burst: f64,
    /// Requests throttled this second.
    pub throttled: u64,
    /// Units requested by throttled requests this second.
    pub throttled_units: f64,
    /// On-demand writes only: what the partition may take above its ceiling now (see the
    /// module's essay). Unused for reads and on provisioned stores, whose bucket is `burst`.
    pub headroom: f64,
    /// On-demand: the transaction (by the world's request number) whose first action was
    /// this second's first request here; its other actions here pass as that one did.
    pub atomic: Option<u64>,
}

impl Meter {
    /// Moves the meter to `second`, the piece banking unused allocation as burst. Returns
    /// the closed second's (second, consumed, throttled, throttled units), or `None` when
    /// `second` is not later than the meter's.
    pub fn roll(
        &mut self,
        second: u64,
        partition: u32,
        kind: Kind,
        rate: Rate,
        piece: &dyn Admission,
    ) -> Option<(u64, f64, u64, f64)> {
        if second <= self.second {
            return None;
        }
        let closed = (
            self.second,
            self.consumed,
            self.throttled,
            self.throttled_units,
        );
        self.burst = piece.bank(&Closing {
            partition,
            kind,
            second: self.second,
            next: second,
            consumed: self.consumed,
            burst: self.burst,
            rate,
        });
        self.second = second;
        self.consumed = 0.0;
        self.throttled = 0;
        self.throttled_units = 0.0;
        self.atomic = None;
        Some(closed)
    }
}

/// Per-partition load: a read meter, a write meter, and the per-second history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartitionLoad {
    pub read: Meter,
    pub write: Meter,
    /// Closed seconds: second → stats (kept for `history_seconds`).
    pub history: BTreeMap<u64, SecondStats>,
    /// Units per partition-key hash in the current hot streak (to choose a split point).
    pub heat: BTreeMap<u64, f64>,
    /// Consecutive closed seconds at or above the split-for-heat threshold, for reads and
    /// for writes, and the last such second.
    pub hot_streak: [u32; 2],
    pub last_hot_second: [u64; 2],
}

/// What one partition did in one second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SecondStats {
    pub consumed_read: f64,
    pub consumed_write: f64,
    pub throttled_reads: u64,
    pub throttled_writes: u64,
    pub throttled_read_units: f64,
    pub throttled_write_units: f64,
    /// The leader's AZ (index) when the second closed; `None` during an election.
    pub leader: Option<usize>,
    /// How many writes the most lagging replica was behind when the second closed.
    pub replica_lag_writes: u64,
}

/// Table-level meter for one second (the adaptive pool, or the on-demand limit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableMeter {
    pub second: u64,
    pub read: f64,
    pub write: f64,
    /// Highest read / write units seen in any one second (on-demand ratchet).
    pub peak_read: f64,
    pub peak_write: f64,
    /// The transaction (by the world's request number) already admitted by the on-demand
    /// ramp this second: its further actions pass that check.
    pub atomic: Option<u64>,
}

impl TableMeter {
    pub fn roll(&mut self, second: u64) {
        if second > self.second {
            self.peak_read = self.peak_read.max(self.read);
            self.peak_write = self.peak_write.max(self.write);
            self.second = second;
            self.read = 0.0;
            self.write = 0.0;
            self.atomic = None;
        }
    }
}

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
}

/// The capacity rules for one store (a table or a global secondary index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Provisioned units per second for the whole store; `None` for on-demand.
    pub provisioned: Option<f64>,
    /// Units per second one partition may never exceed.
    pub ceiling: f64,
    /// On-demand: the units a new table serves at once.
    pub on_demand_initial: f64,
    /// On-demand: the units per second the store may never exceed (the per-table quota).
    pub on_demand_quota: f64,
    pub burst_window_s: u64,
}

/// Which limit a refused request ran into: the *limit* part of the throttling reason its
/// error carries (`TableWriteKeyRangeThroughputExceeded`, …).
///
/// Decision: the engine, not the [`Admission`] piece, names the limit. The piece answers
/// only admit or throttle; which limit a refusal broke is a fact of the request and the
/// rates it was judged by — past the per-partition ceiling is a key range over its
/// throughput, anything short of it is the store's provisioned rate (its allocation, the
/// table's loan and the burst balance all spent). The alternative, a reason inside
/// [`Decision::Throttle`], would make every bucket (the Build-it kata's included) restate a
/// rule that follows from the ask, and let a bucket name a limit its own verdict contradicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// One partition's ceiling (3,000 RCU / 1,000 WCU), in either mode: a hot key, which more
    /// capacity does not cure. On an on-demand store also growth past twice the previous peak
    /// (see [`admit`]).
    KeyRange,
    /// A provisioned store's units for this second, its burst and adaptive capacity spent.
    Provisioned,
    /// An on-demand store at the per-table quota (DynamoDB's default: 40,000 units a second).
    AccountLimit,
}

impl Limit {
    /// The limit as a throttling reason spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::KeyRange => "KeyRangeThroughputExceeded",
            Limit::Provisioned => "ProvisionedThroughputExceeded",
            Limit::AccountLimit => "AccountLimitExceeded",
        }
    }
}

/// Decides one request of `cost` units on a partition meter, and records it: the piece
/// decides on a provisioned store; an on-demand store has no bucket, and its rules are the
/// engine's. Returns `Err` with the limit the request ran into when it is refused.
///
/// On an on-demand store, growth past twice the previous peak is reported as a key range
/// over its throughput. DynamoDB documents four limits (key range, provisioned, account
/// quota, a maximum you set) and no fifth for the ramp; an on-demand table serves more by
/// splitting partitions, and until they split it is partitions that cannot take the load.
/// (A model decision: AWS does not say which reason the ramp carries.)
pub fn admit(
    piece: &dyn Admission,
    partition: u32,
    meter: &mut Meter,
    table: &mut TableMeter,
    demand: Demand,
    limits: Limits,
    partitions: usize,
) -> Result<(), Limit> {
    let Demand { kind, cost, atomic } = demand;
    let table_used = match kind {
        Kind::Read => table.read,
        Kind::Write => table.write,
    };
    let past_ceiling = meter.consumed + cost > limits.ceiling;
    let verdict = match limits.provisioned {
        Some(total) => {
            let ask = Ask {
                partition,
                kind,
                second: meter.second,
                units: cost,
                consumed: meter.consumed,
                burst: meter.burst,
                rate: Rate {
                    allocation: (total / partitions.max(1) as f64).min(limits.ceiling),
                    ceiling: limits.ceiling,
                    burst_window_s: limits.burst_window_s,
                },
                table_lends: table_used + cost <= total,
            };
            match piece.admit(&ask) {
                Decision::Admit { burst } => {
                    meter.burst = burst;
                    Ok(())
                }
                Decision::Throttle if past_ceiling => Err(Limit::KeyRange),
                Decision::Throttle => Err(Limit::Provisioned),
            }
        }
        None => {
            // On-demand: the partition ceiling (past a partition's first request of the
            // second, as in the bucket), writes past it as far as the partition's headroom
            // covers, the per-table quota, and twice the previous peak second for the table —
            // which a transaction's actions meet as one request.
            let first = meter.consumed == 0.0 || (atomic.is_some() && meter.atomic == atomic);
            let peak = match kind {
                Kind::Read => table.peak_read,
                Kind::Write => table.peak_write,
            };
            let ramp = (2.0 * peak).max(limits.on_demand_initial);
            let over = (meter.consumed + cost - limits.ceiling).clamp(0.0, cost);
            let past_headroom = match kind {
                Kind::Read => past_ceiling,
                Kind::Write => over > meter.headroom,
            };
            let ramp_passed = atomic.is_some() && table.atomic == atomic;
            let verdict = if first {
                Ok(())
            } else if past_headroom {
                Err(Limit::KeyRange)
            } else if table_used + cost > limits.on_demand_quota {
                Err(Limit::AccountLimit)
            } else if !ramp_passed && table_used + cost > ramp {
                Err(Limit::KeyRange)
            } else {
                Ok(())
            };
            if verdict.is_ok() {
                if !first && kind == Kind::Write {
                    meter.headroom -= over;
                }
                if atomic.is_some() {
                    table.atomic = atomic;
                    if first {
                        meter.atomic = atomic;
                    }
                }
            }
            verdict
        }
    };
    if verdict.is_err() {
        meter.throttled += 1;
        meter.throttled_units += cost;
        return verdict;
    }
    meter.consumed += cost;
    match kind {
        Kind::Read => table.read += cost,
        Kind::Write => table.write += cost,
    }
    Ok(())
}

/// What one request asks of a partition meter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Demand {
    pub kind: Kind,
    pub cost: f64,
    /// The world's number of the request when it is a transaction (see [`admit`]).
    pub atomic: Option<u64>,
}

/// A partition's rate for one kind of unit, as its bucket sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Units per second this partition is allocated: the store's provisioned units of this
    /// kind divided evenly among its partitions, at most `ceiling`.
    pub allocation: f64,
    /// Units per second one partition never serves more of (DynamoDB: 3,000 RCU, 1,000 WCU).
    pub ceiling: f64,
    /// Seconds of unused allocation the bucket may save (DynamoDB: 300).
    pub burst_window_s: u64,
}

/// A partition's meter of one kind leaving a second: what [`Admission::bank`] gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Closing {
    /// The partition's id (as `World::partitions` lists it).
    pub partition: u32,
    pub kind: Kind,
    /// The second being closed: the last second the meter measured (0 for a fresh meter).
    pub second: u64,
    /// The second the meter moves to, always later than `second`; the seconds strictly
    /// between were idle (nothing of this kind was asked of the partition).
    pub next: u64,
    /// Units admitted during `second`; may exceed the allocation (the table lent, or a
    /// second's first request went through).
    pub consumed: f64,
    /// The burst balance before closing.
    pub burst: f64,
    /// The rate now (after an UpdateTable, the new one).
    pub rate: Rate,
}

/// One request meeting a partition's meter of one kind: what [`Admission::admit`] gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ask {
    /// The partition's id (as `World::partitions` lists it).
    pub partition: u32,
    pub kind: Kind,
    /// The current second (the meter has been moved to it: `bank` ran first if it had to).
    pub second: u64,
    /// The request's units: already priced (4 KB per read unit, half for an eventual read;
    /// 1 KB per write unit), so fractional for eventual reads.
    pub units: f64,
    /// Units this partition admitted so far this second, of this kind.
    pub consumed: f64,
    /// The burst balance now.
    pub burst: f64,
    pub rate: Rate,
    /// Adaptive capacity: whether the table's (or global index's) capacity still unused this
    /// second covers the request, the other partitions' idle share lent to this one.
    pub table_lends: bool,
}

/// What [`Admission::admit`] decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Admitted; `burst` is the balance after it (the old one if no burst was spent).
    Admit { burst: f64 },
    /// Refused: the client gets the throttling exception and nothing is charged.
    Throttle,
}

/// A partition's admission bucket (one kind of unit at a time): the seam of
/// [`crate::seams::Pieces::admission`]. Both methods are pure: the engine keeps the state
/// (consumed this second, the burst balance) and calls `bank` before `admit` whenever the
/// clock has entered a later second since the meter's last request.
pub trait Admission: Send + Sync {
    /// The burst balance to carry into `closing.next`: the old balance plus what
    /// `closing.second` and the idle seconds after it left unused, at most
    /// `burst_window_s` seconds of allocation.
    fn bank(&self, closing: &Closing) -> f64;

    /// Admits the request or throttles it. Never past the ceiling (except the second's first
    /// request); free within the allocation, or when the table lends; otherwise only as far
    /// as the burst balance covers what goes past the allocation.
    fn admit(&self, ask: &Ask) -> Decision;
}

/// The engine's bucket: DynamoDB's rules as this model has them.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokenBucket;

impl Admission for TokenBucket {
    fn bank(&self, c: &Closing) -> f64 {
        crate::seams::guard::ADMISSION.refuse();
        let allocation = c.rate.allocation;
        let idle_seconds = (c.next - c.second - 1) as f64;
        let unused = (allocation - c.consumed).max(0.0) + idle_seconds * allocation;
        (c.burst + unused).min(allocation * c.rate.burst_window_s as f64)
    }

    fn admit(&self, ask: &Ask) -> Decision {
        crate::seams::guard::ADMISSION.refuse();
        let after = ask.consumed + ask.units;
        // A partition's first request of a second always goes through (its allocation may
        // be overdrawn), so a single item larger than the per-second allowance is not
        // unservable.
        let first = ask.consumed == 0.0;
        if first {
            return Decision::Admit { burst: ask.burst };
        }
        if after > ask.rate.ceiling {
            return Decision::Throttle;
        }
        if after <= ask.rate.allocation || ask.table_lends {
            return Decision::Admit { burst: ask.burst };
        }
        // Burst pays only for what goes past the allocation (all of the request when the
        // allocation was already spent).
        let overflow = (after - ask.rate.allocation).min(ask.units);
        if ask.burst >= overflow {
            Decision::Admit {
                burst: ask.burst - overflow,
            }
        } else {
            Decision::Throttle
        }
    }
}
