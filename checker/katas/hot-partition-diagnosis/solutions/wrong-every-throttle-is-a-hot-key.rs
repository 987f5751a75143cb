//! Known-wrong: takes every throttle for a hot key — names the busiest key of the most
//! throttled partition even when that key asked for 30 WCU, and never adds capacity. A short
//! table stays short.

use std::collections::BTreeMap;

use engine::types::{AttributeValue, ProvisionedThroughput};
use engine::{Error, World};
use given::{tenant_key, Diagnosis, Event, Workload, TABLE};

/// Shards of the hot key: 1,200 WCU over ten keys is about 120 WCU each, so even three shards
/// hashed onto one partition stay far under its 1,000 WCU.
const SHARDS: u64 = 10;

/// Write units one event's PutItem asks for under `key`: its item, rounded up to 1 KB.
fn write_units(event: &Event, key: &str) -> u64 {
    (engine::item_size(&event.item(key)) as u64).div_ceil(1024)
}

pub fn diagnose(world: &World, workload: &Workload) -> Result<Diagnosis, Error> {
    let metrics = world.partition_metrics(TABLE, None)?;
    let Some(worst) = metrics
        .iter()
        .filter(|m| m.throttled_writes > 0)
        .max_by_key(|m| m.throttled_writes)
    else {
        return Ok(Diagnosis::Healthy);
    };
    // Throttled: the key that asked this partition for the most units that second is hot.
    let mut asked: BTreeMap<String, u64> = BTreeMap::new();
    for event in workload
        .events
        .iter()
        .filter(|e| e.at_ms / 1000 == worst.second)
    {
        let key = tenant_key(&event.tenant);
        if world.partition_of(TABLE, &AttributeValue::S(key.clone()))? == worst.partition {
            *asked.entry(key.clone()).or_insert(0) += write_units(event, &key);
        }
    }
    let key = asked
        .into_iter()
        .max_by_key(|(_, units)| *units)
        .map(|(key, _)| key)
        .unwrap_or_default();
    Ok(Diagnosis::HotKey {
        key,
        partition: worst.partition,
    })
}

pub fn throughput(
    workload: &Workload,
    diagnosis: &Diagnosis,
) -> Result<ProvisionedThroughput, Error> {
    let _ = diagnosis;
    Ok(workload.throughput.clone())
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
        format!("{key}#{}", shard_of(&event.id))
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
