//! Known-wrong: writes the hot tenant to shards 1..=10 and reads shards 0..10: shard 10 is
//! written and never read, shard 0 read and never written.

use std::collections::BTreeMap;

use engine::types::{AttributeValue, ProvisionedThroughput};
use engine::{Error, World};
use given::{tenant_key, Diagnosis, Event, Workload, PARTITION_WCU, TABLE};

/// Shards of the hot key: 1,200 WCU over ten keys is about 120 WCU each, so even three shards
/// hashed onto one partition stay far under its 1,000 WCU.
const SHARDS: u64 = 10;

/// Write units one event's PutItem asks for under `key`: its item, rounded up to 1 KB.
fn write_units(event: &Event, key: &str) -> u64 {
    (engine::item_size(&event.item(key)) as u64).div_ceil(1024)
}

/// Units the workload asked for, per (second, partition key), under today's keys.
fn demand(workload: &Workload) -> BTreeMap<(u64, String), u64> {
    let mut demand = BTreeMap::new();
    for event in &workload.events {
        let key = tenant_key(&event.tenant);
        let units = write_units(event, &key);
        *demand.entry((event.at_ms / 1000, key)).or_insert(0) += units;
    }
    demand
}

pub fn diagnose(world: &World, workload: &Workload) -> Result<Diagnosis, Error> {
    let demand = demand(workload);
    let hottest = demand
        .iter()
        .filter(|(_, units)| **units > PARTITION_WCU)
        .max_by_key(|(_, units)| **units);
    if let Some(((_, key), _)) = hottest {
        let partition = world.partition_of(TABLE, &AttributeValue::S(key.clone()))?;
        return Ok(Diagnosis::HotKey {
            key: key.clone(),
            partition,
        });
    }
    let throttled = world
        .partition_metrics(TABLE, None)?
        .iter()
        .any(|second| second.throttled_writes > 0);
    Ok(if throttled {
        Diagnosis::TableCapacity
    } else {
        Diagnosis::Healthy
    })
}

pub fn throughput(
    workload: &Workload,
    diagnosis: &Diagnosis,
) -> Result<ProvisionedThroughput, Error> {
    if *diagnosis != Diagnosis::TableCapacity {
        // A hot key is one partition's limit: more table capacity would not reach it.
        return Ok(workload.throughput.clone());
    }
    let mut per_second: BTreeMap<u64, u64> = BTreeMap::new();
    for ((second, _), units) in demand(workload) {
        *per_second.entry(second).or_insert(0) += units;
    }
    let busiest = per_second.values().copied().max().unwrap_or(1);
    let wcu = (busiest * 5).div_ceil(4); // 25 % headroom
    Ok(ProvisionedThroughput::builder()
        .read_capacity_units(workload.throughput.read_capacity_units())
        .write_capacity_units(wcu as i64)
        .build()?)
}

/// FNV-1a of the event id: the same event always gets the same shard, and ids spread evenly.
fn shard_of(id: &str) -> u64 {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % SHARDS
}

fn is_hot(tenant: &str, diagnosis: &Diagnosis) -> bool {
    matches!(diagnosis, Diagnosis::HotKey { key, .. } if *key == tenant_key(tenant))
}

pub fn partition_key(event: &Event, diagnosis: &Diagnosis) -> String {
    let key = tenant_key(&event.tenant);
    if is_hot(&event.tenant, diagnosis) {
        format!("{key}#{}", shard_of(&event.id) + 1)
    } else {
        key
    }
}

pub fn read_keys(tenant: &str, diagnosis: &Diagnosis) -> Vec<String> {
    let key = tenant_key(tenant);
    if is_hot(tenant, diagnosis) {
        (0..SHARDS).map(|shard| format!("{key}#{shard}")).collect()
    } else {
        vec![key]
    }
}
