//! What a table carries besides its data and its capacity: the settings the control plane
//! keeps and the data path never reads — its tags, its encryption at rest, its
//! point-in-time recovery.
//!
//! Decision: one struct on [`Table`](super::Table), rather than a field per setting there
//! or a map beside the tables in the world's state: the settings live and die with the
//! table (DeleteTable drops them, a replica of a global table is a copy), and adding one
//! is one edit here, not in the table's core.

use std::collections::BTreeMap;

use crate::types::SseDescription;

/// The control-plane settings of one table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Tag key → value, in key order (ListTagsOfResource lists them so).
    pub tags: BTreeMap<String, String>,
    /// Encryption with a KMS key, as DescribeTable reports it; `None` for the AWS owned key.
    pub sse: Option<SseDescription>,
    /// Point-in-time recovery.
    pub point_in_time_recovery: PointInTimeRecovery,
}

/// Point-in-time recovery: off, or on since a simulated time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointInTimeRecovery {
    /// When it was turned on (simulated ms); `None` while off.
    pub enabled_at_ms: Option<u64>,
    /// The recovery period in days (1–35) while on.
    pub recovery_period_in_days: i32,
}
