//! Known-wrong: diagnoses right, then "fixes" any throttle by raising the table to 40,000 WCU
//! and keeps one key per tenant. The hot key's partition still serves 1,000 WCU at most.

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
    if *diagnosis == Diagnosis::Healthy {
        return Ok(workload.throughput.clone());
    }
    // Throttled: give the table the most a table gets by default.
    Ok(ProvisionedThroughput::builder()
        .read_capacity_units(workload.throughput.read_capacity_units())
        .write_capacity_units(40_000)
        .build()?)
}

pub fn partition_key(event: &Event, diagnosis: &Diagnosis) -> String {
    let _ = diagnosis;
    tenant_key(&event.tenant)
}

pub fn read_keys(tenant: &str, diagnosis: &Diagnosis) -> Vec<String> {
    let _ = diagnosis;
    vec![tenant_key(tenant)]
}
