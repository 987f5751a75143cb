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
    /// The table's `TableId`, a UUID. Decision: derived from the table's name, Region and
    /// creation time by the world's hash ([`table_id`]), not drawn from the world's seeded
    /// generator, so that adding it changed no other draw (a seed replays the same runs as
    /// before); two tables never share one unless created with the same name in the same
    /// Region at the same simulated millisecond.
    pub table_id: String,
    /// When the table last became on-demand (simulated ms): at creation or by UpdateTable.
    pub pay_per_request_since_ms: Option<u64>,
}

/// A UUID-shaped `TableId` for a table (see [`Settings::table_id`]).
pub fn table_id(region: &str, name: &str, created_ms: u64) -> String {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in region.bytes().chain([0]).chain(name.bytes()) {
        h = crate::rng::splitmix_finalize(h ^ u64::from(b));
    }
    let a = crate::rng::splitmix_finalize(h ^ created_ms);
    let b = crate::rng::splitmix_finalize(a);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

/// Point-in-time recovery: off, or on since a simulated time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointInTimeRecovery {
    /// When it was turned on (simulated ms); `None` while off.
    pub enabled_at_ms: Option<u64>,
    /// The recovery period in days (1–35) while on.
    pub recovery_period_in_days: i32,
}
