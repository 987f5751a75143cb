//! # The given part of the kata: capacity planner
//!
//! What the tests and your code share: the workload you are handed, the plan you hand back,
//! and the DynamoDB figures the planning rules use. It is not yours to change — the checker
//! and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/capacity-planner/given/`), so an edit here would be judged at home and lost
//! in grading. Your crate reaches it as `given` (`use given::{...};`).

use std::fmt;

use engine::error::BuildError;
use engine::types::{BillingMode, ProvisionedThroughput};

/// The table the tests create from your plan and replay the workload on: partition key `PK`
/// (string), no sort key, no index.
pub const TABLE: &str = "planned";

/// Write units one partition serves per second, in either capacity mode. DynamoDB: 1,000.
pub const PARTITION_WCU: u32 = 1_000;
/// Read units one partition serves per second, in either capacity mode. DynamoDB: 3,000.
pub const PARTITION_RCU: u32 = 3_000;
/// Write request units a new on-demand table serves at once. DynamoDB: 4,000.
pub const ON_DEMAND_INITIAL_WCU: u32 = 4_000;
/// Read request units a new on-demand table serves at once. DynamoDB: 12,000.
pub const ON_DEMAND_INITIAL_RCU: u32 = 12_000;
/// The kata's cost rule: provision a table only if, provisioned for its busiest second, it
/// would use at least this share (percent) of what it pays for, reads and writes each.
pub const MIN_UTILISATION_PERCENT: u32 = 50;
/// The kata's headroom rule: a provisioned figure is at most this much (percent) above what
/// the busiest second needs.
pub const MAX_HEADROOM_PERCENT: u32 = 25;

/// One stretch of a workload: `seconds` seconds, each with the same requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    pub seconds: u32,
    /// PutItems per second, each writing a whole item of [`Workload::item_bytes`].
    pub writes_per_second: u32,
    /// GetItems per second, each reading an item of [`Workload::item_bytes`].
    pub reads_per_second: u32,
}

/// How a workload's requests spread over partition keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keys {
    /// Many distinct keys: every second's requests spread evenly over the table's partitions.
    Spread,
    /// One key takes `percent` % of every second's writes and of its reads (the item stays the
    /// same size); the other requests are spread.
    OneHot { key: String, percent: u32 },
}

/// A workload, as measured or forecast: the traffic second by second, and its items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    /// What it is, for messages (e.g. "order history").
    pub name: String,
    /// Size of every item read or written, in bytes (as DynamoDB counts it).
    pub item_bytes: u32,
    /// Whether the reads are strongly consistent (`ConsistentRead = true`); eventually
    /// consistent otherwise.
    pub consistent_reads: bool,
    /// The traffic, in order, from the table's first second.
    pub phases: Vec<Phase>,
    pub keys: Keys,
}

impl Workload {
    /// The traffic second by second: `(writes, reads)` of each second, in order.
    pub fn per_second(&self) -> Vec<(u32, u32)> {
        self.phases
            .iter()
            .flat_map(|p| (0..p.seconds).map(move |_| (p.writes_per_second, p.reads_per_second)))
            .collect()
    }
}

/// How to create the table for a workload: what `CreateTable` is sent (billing mode and,
/// when provisioned, its throughput), and how many partitions you expect the table to start
/// with.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub billing_mode: BillingMode,
    /// `Some` exactly when `billing_mode` is `BillingMode::Provisioned`.
    pub provisioned_throughput: Option<ProvisionedThroughput>,
    /// The partitions the table has right after `CreateTable`.
    pub partitions: u32,
}

/// Why there is no plan.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanError {
    /// One partition key needs more than one partition serves in some second: no capacity
    /// mode and no figure fixes that. `min_shards` is the fewest keys its load must be spread
    /// over so that each takes at most a partition's ceiling.
    HotKey { key: String, min_shards: u32 },
    /// A builder refused its input (`ProvisionedThroughput::builder()…build()?`).
    Build(BuildError),
}

impl From<BuildError> for PlanError {
    fn from(e: BuildError) -> Self {
        PlanError::Build(e)
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::HotKey { key, min_shards } => write!(
                f,
                "key {key:?} needs more than one partition: shard it over at least {min_shards} keys"
            ),
            PlanError::Build(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PlanError {}
