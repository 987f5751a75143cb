//! # The given part of the kata: hot partition diagnosis
//!
//! What the tests and your code share: the table, today's key design, the workload you are
//! handed, the diagnosis you hand back and the DynamoDB figures the rules use. It is not yours
//! to change — the checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/hot-partition-diagnosis/given/`), so an edit here would be judged at home
//! and lost in grading. Your crate reaches it as `given` (`use given::{...};`).

use engine::types::{AttributeValue, ProvisionedThroughput};
use engine::{Error, Item};

/// The table: `events`, partition key `PK` (string), sort key `SK` (string), provisioned
/// (the workload says with how much: [`Workload::throughput`]).
pub const TABLE: &str = "events";

/// Write units one partition serves per second, whatever the table's capacity. DynamoDB: 1,000.
pub const PARTITION_WCU: u64 = 1_000;

/// The read pattern's budget: all events of one tenant are read with at most this many
/// Queries, one per partition key of the tenant.
pub const MAX_READ_KEYS: usize = 10;

/// Today's key design: every event of a tenant under one partition key, `TENANT#<tenant>`.
pub fn tenant_key(tenant: &str) -> String {
    format!("TENANT#{tenant}")
}

/// One event a tenant's app sent: stored as one item (see [`Event::item`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The tenant (a customer of the service), e.g. `"lumen"`.
    pub tenant: String,
    /// Unique over the workload, e.g. `"e-000042"`: the item's sort key.
    pub id: String,
    /// When the app sent it: simulated milliseconds since the table was created.
    pub at_ms: u64,
    /// The payload (its length is most of the item's size).
    pub body: String,
}

impl Event {
    /// The item this event is stored as, under the partition key `partition_key`:
    /// `PK = partition_key`, `SK = id`, `tenant`, `body`. The replay writes exactly this item
    /// with one PutItem.
    pub fn item(&self, partition_key: &str) -> Item {
        Item::from([
            (
                "PK".to_string(),
                AttributeValue::S(partition_key.to_string()),
            ),
            ("SK".to_string(), AttributeValue::S(self.id.clone())),
            ("tenant".to_string(), AttributeValue::S(self.tenant.clone())),
            ("body".to_string(), AttributeValue::S(self.body.clone())),
        ])
    }
}

/// A captured workload: what the apps sent, in order, and the table it ran on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    /// What it is, for messages (e.g. "Monday's import").
    pub name: String,
    /// The table's provisioned capacity during the capture.
    pub throughput: ProvisionedThroughput,
    /// Every event, in the order it was sent (`at_ms` never decreases).
    pub events: Vec<Event>,
}

/// What the capture shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnosis {
    /// No write was throttled.
    Healthy,
    /// Writes were throttled, and no partition key asked for more than a partition serves
    /// ([`PARTITION_WCU`]) in any second: the table as a whole is short of capacity.
    TableCapacity,
    /// One partition key asked for more than a partition serves in some second: `key` is
    /// that partition key's value as stored (e.g. `"TENANT#lumen"`), `partition` the id of
    /// the partition that holds it (`world.partition_of`).
    HotKey { key: String, partition: u32 },
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/hot-partition-diagnosis/README.md)"
    ))
}
