//! Known-wrong: spreads the hot tenant by the event id itself — every event its own partition
//! key. Writes spread perfectly; the tenant's events can no longer be read with a bounded
//! number of Queries (read_keys still names the old key).

use std::collections::BTreeMap;

use engine::types::{AttributeValue, ProvisionedThroughput};
use engine::{Error, World};
use given::{tenant_key, Diagnosis, Event, Workload, PARTITION_WCU, TABLE};

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

fn is_hot(tenant: &str, diagnosis: &Diagnosis) -> bool {
    matches!(diagnosis, Diagnosis::HotKey { key, .. } if *key == tenant_key(tenant))
}

pub fn partition_key(event: &Event, diagnosis: &Diagnosis) -> String {
    let key = tenant_key(&event.tenant);
    if is_hot(&event.tenant, diagnosis) {
        // The highest cardinality there is: the event's own id.
        format!("{key}#{}", event.id)
    } else {
        key
    }
}

pub fn read_keys(tenant: &str, diagnosis: &Diagnosis) -> Vec<String> {
    let _ = diagnosis;
    vec![tenant_key(tenant)]
}
