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
//! once), and the partition ceiling still applies — a hot key throttles on-demand tables too,
//! as `ThrottlingException`.
//!
//! A second that has begun is never revisited: when the clock enters a new second, the unused
//! part of the old second's allocation is added to the burst bucket (capped at
//! `burst_window` seconds of allocation), and the meter starts again from zero.
//!
//! Left out on purpose: the storage-node level bucket of the paper, GAC's token leases, and
//! the request-rate (not unit-rate) limits.

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
}

impl Meter {
    /// Moves the meter to `second`, banking unused allocation as burst.
    pub fn roll(
        &mut self,
        second: u64,
        allocation: f64,
        burst_window_s: u64,
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
        let idle_seconds = (second - self.second - 1) as f64;
        let unused = (allocation - self.consumed).max(0.0) + idle_seconds * allocation;
        self.burst = (self.burst + unused).min(allocation * burst_window_s as f64);
        self.second = second;
        self.consumed = 0.0;
        self.throttled = 0;
        self.throttled_units = 0.0;
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
}

impl TableMeter {
    pub fn roll(&mut self, second: u64) {
        if second > self.second {
            self.peak_read = self.peak_read.max(self.read);
            self.peak_write = self.peak_write.max(self.write);
            self.second = second;
            self.read = 0.0;
            self.write = 0.0;
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
    pub burst_window_s: u64,
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The partition reached its ceiling (hot key / hot partition).
    PartitionCeiling,
    /// The table (or index) used all its capacity, adaptive and burst included.
    TableCapacity,
}

/// Decides one request of `cost` units on a partition meter, and records it.
pub fn admit(
    meter: &mut Meter,
    table: &mut TableMeter,
    kind: Kind,
    cost: f64,
    limits: Limits,
    partitions: usize,
) -> Result<(), Refusal> {
    let table_used = match kind {
        Kind::Read => table.read,
        Kind::Write => table.write,
    };
    let after = meter.consumed + cost;
    // A partition's first request of a second always goes through (its bucket may go into
    // debt), so a single item larger than the per-second allowance is not unservable.
    let first = meter.consumed == 0.0;
    let refuse = |meter: &mut Meter, why| {
        meter.throttled += 1;
        meter.throttled_units += cost;
        Err(why)
    };
    if after > limits.ceiling && !first {
        return refuse(meter, Refusal::PartitionCeiling);
    }
    match limits.provisioned {
        Some(total) => {
            let allocation = (total / partitions.max(1) as f64).min(limits.ceiling);
            let within_share = after <= allocation;
            let adaptive = table_used + cost <= total;
            if !(within_share || adaptive || first) {
                let overflow = (after - allocation).min(cost);
                if meter.burst >= overflow {
                    meter.burst -= overflow;
                } else {
                    return refuse(meter, Refusal::TableCapacity);
                }
            }
        }
        None => {
            let peak = match kind {
                Kind::Read => table.peak_read,
                Kind::Write => table.peak_write,
            };
            let limit = (2.0 * peak).max(limits.on_demand_initial);
            if table_used + cost > limit && !first {
                return refuse(meter, Refusal::TableCapacity);
            }
        }
    }
    meter.consumed = after;
    match kind {
        Kind::Read => table.read += cost,
        Kind::Write => table.write += cost,
    }
    Ok(())
}
