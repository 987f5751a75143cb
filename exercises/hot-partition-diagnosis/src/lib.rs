//! # Kata: hot partition diagnosis
//!
//! The `events` table is throttled while it uses a fraction of its 9,000 WCU. Find out why from
//! the engine's metrics, then change the design so the same workload runs unthrottled — task,
//! table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::types::ProvisionedThroughput;
use engine::{Error, World};
use given::{tenant_key, Diagnosis, Event, Workload};

// The table (`given::TABLE`: `events`, partition key `PK`, sort key `SK`, both strings), today's
// key design (`given::tenant_key`), the workload's types and `PARTITION_WCU`, `MAX_READ_KEYS`
// are the kata's given part: checker/katas/hot-partition-diagnosis/given/src/lib.rs.

/// What the capture shows: `HotKey { key, partition }` when one partition key asked for more
/// than a partition's 1,000 WCU in some second (throttled writes included, each write
/// `ceil(item size / 1,024)` WCU), `TableCapacity` when writes were throttled without such a
/// key, `Healthy` when none was.
///
/// `world` is right after the capture: one PutItem per event of `workload`, in order, each at
/// its `at_ms`, under `tenant_key(&event.tenant)`. Read `world.partition_metrics(..)`,
/// `world.request_log()`, `world.partition_of(..)`.
pub fn diagnose(world: &World, workload: &Workload) -> Result<Diagnosis, Error> {
    // TODO: find the throttled partition and the key that asked for the most write units.
    let _ = (world, workload);
    Err(given::not_written_yet("diagnose"))
}

/// The table's capacity for the replay of your fix: enough for every second of the workload.
/// Build a new one with `ProvisionedThroughput::builder()…build()?`, or keep
/// `workload.throughput`.
pub fn throughput(
    workload: &Workload,
    diagnosis: &Diagnosis,
) -> Result<ProvisionedThroughput, Error> {
    // TODO: decide whether capacity is the fix.
    let _ = (workload, diagnosis);
    Err(given::not_written_yet("throughput"))
}

/// The partition key `event` is stored under in your design.
pub fn partition_key(event: &Event, diagnosis: &Diagnosis) -> String {
    // TODO: today's design, one key per tenant. Spread the hot key over a few keys.
    let _ = diagnosis;
    tenant_key(&event.tenant)
}

/// The partition keys to Query to read every event of `tenant` (at most `MAX_READ_KEYS`; one
/// for a tenant that is not hot).
pub fn read_keys(tenant: &str, diagnosis: &Diagnosis) -> Vec<String> {
    // TODO: every key `partition_key` can give an event of `tenant`.
    let _ = (tenant, diagnosis);
    Vec::new()
}
