//! Alternative: start from the metrics. The partition-seconds with throttled writes say where
//! and when; only the keys of the workload on those partitions are priced, and only in those
//! seconds. Eight shards, chosen by the event id's number; a short table gets 50 % headroom.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use engine::types::{AttributeValue, ProvisionedThroughput};
use engine::{Error, World};
use given::{tenant_key, Diagnosis, Event, Workload, PARTITION_WCU, TABLE};

const SHARDS: u64 = 8;

fn units(event: &Event) -> u64 {
    let size = engine::item_size(&event.item(&tenant_key(&event.tenant))) as u64;
    size.div_ceil(1024)
}

pub fn diagnose(world: &World, workload: &Workload) -> Result<Diagnosis, Error> {
    let throttled: Vec<_> = world
        .partition_metrics(TABLE, None)?
        .into_iter()
        .filter(|m| m.throttled_writes > 0)
        .collect();
    if throttled.is_empty() {
        return Ok(Diagnosis::Healthy);
    }
    // Which partition each tenant's key is on.
    let mut partition_of: BTreeMap<String, u32> = BTreeMap::new();
    for event in &workload.events {
        if let Entry::Vacant(slot) = partition_of.entry(tenant_key(&event.tenant)) {
            let p = world.partition_of(TABLE, &AttributeValue::S(slot.key().clone()))?;
            slot.insert(p);
        }
    }
    let mut best: Option<(u64, String, u32)> = None;
    for m in &throttled {
        let mut asked: BTreeMap<&str, u64> = BTreeMap::new();
        for event in workload
            .events
            .iter()
            .filter(|e| e.at_ms / 1000 == m.second)
        {
            let key = tenant_key(&event.tenant);
            if partition_of[&key] == m.partition {
                *asked
                    .entry(partition_of.get_key_value(&key).unwrap().0)
                    .or_insert(0) += units(event);
            }
        }
        for (key, units) in asked {
            if best.as_ref().is_none_or(|(u, _, _)| units > *u) {
                best = Some((units, key.to_string(), m.partition));
            }
        }
    }
    Ok(match best {
        Some((units, key, partition)) if units > PARTITION_WCU => {
            Diagnosis::HotKey { key, partition }
        }
        _ => Diagnosis::TableCapacity,
    })
}

pub fn throughput(
    workload: &Workload,
    diagnosis: &Diagnosis,
) -> Result<ProvisionedThroughput, Error> {
    match diagnosis {
        Diagnosis::TableCapacity => {
            let mut per_second: BTreeMap<u64, u64> = BTreeMap::new();
            for event in &workload.events {
                *per_second.entry(event.at_ms / 1000).or_insert(0) += units(event);
            }
            let peak = per_second.into_values().max().unwrap_or(1);
            Ok(ProvisionedThroughput::builder()
                .read_capacity_units(workload.throughput.read_capacity_units())
                .write_capacity_units((peak * 3 / 2) as i64)
                .build()?)
        }
        _ => Ok(workload.throughput.clone()),
    }
}

fn hot_key(diagnosis: &Diagnosis) -> Option<&str> {
    match diagnosis {
        Diagnosis::HotKey { key, .. } => Some(key),
        _ => None,
    }
}

/// The event id's digits (`e-000042` → 42), or its length if it has none.
fn number(id: &str) -> u64 {
    let digits: String = id.chars().filter(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(id.len() as u64)
}

pub fn partition_key(event: &Event, diagnosis: &Diagnosis) -> String {
    let key = tenant_key(&event.tenant);
    if hot_key(diagnosis) == Some(key.as_str()) {
        format!("{key}-s{}", number(&event.id) % SHARDS)
    } else {
        key
    }
}

pub fn read_keys(tenant: &str, diagnosis: &Diagnosis) -> Vec<String> {
    let key = tenant_key(tenant);
    if hot_key(diagnosis) == Some(key.as_str()) {
        (0..SHARDS).map(|s| format!("{key}-s{s}")).collect()
    } else {
        vec![key]
    }
}
