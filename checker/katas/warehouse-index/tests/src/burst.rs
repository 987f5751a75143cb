//! The peak: 4,500 orders in one second through the learner's `place_order`, and what
//! throttled them if anything did — the table, or the index pushing back on it (a hot index
//! partition at its 1,000 WCU ceiling, or an index provisioned with too little).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::seams::{EngineRouter, KeyBytes, PartitionRouter};
use engine::world::inspect::PartitionSecond;
use engine::AttributeValue;
use given::{INDEX, PEAK_ORDERS_PER_SECOND, TABLE};
use katas_testkit::{fail, thousands};

use crate::learner::place_order;
use crate::scene::{request, Scene};
use crate::{check_picks, listed};

/// Write units one partition serves per second, whatever is provisioned (DynamoDB's value).
const CEILING_WCU: f64 = 1000.0;

pub(crate) fn takes_the_peak_without_throttling(seed: u64) {
    let mut s = Scene::with_index(seed, 100, 20);
    // Start on a second boundary, so the peak is one metered second.
    let now = s.world.now().as_millis() as u64;
    s.world
        .advance(Duration::from_millis(1000 - now % 1000 + 1000));
    let second = s.world.now().as_millis() as u64 / 1000;
    let from = s.log_position();
    let mut refused = Vec::new();
    for n in 0..PEAK_ORDERS_PER_SECOND {
        let due = second * 1000 + n * 1000 / PEAK_ORDERS_PER_SECOND;
        let now = s.world.now().as_millis() as u64;
        if now < due {
            s.world.advance(Duration::from_millis(due - now));
        }
        let o = s.order(n % 1000);
        if let Err(e) = place_order(&s.client, &o) {
            refused.push((o.id.clone(), e));
        }
        s.orders.insert(o.id.clone(), o);
    }
    let sent = s.requests_since(from);
    let throttled: Vec<_> = sent.iter().filter(|r| r.throttled()).collect();
    if let Some(first) = throttled.first() {
        let message = refused
            .first()
            .and_then(|(_, e)| e.message().map(str::to_string));
        fail(throttle_message(
            &s,
            second,
            &throttled,
            first,
            refused.len(),
            message,
        ));
    }
    if let Some((id, e)) = refused.first() {
        fail(format!(
            "place_order({id}) failed during the peak of {} orders a second: {e}",
            thousands(PEAK_ORDERS_PER_SECOND)
        ));
    }
    s.world.settle();
    let want = s.expected_picks();
    let got = listed(&s, "after the peak");
    check_picks(&s, &want, &got, "after the peak");
}

fn throttle_message(
    s: &Scene,
    second: u64,
    throttled: &[&engine::world::log::RequestRecord],
    first: &engine::world::log::RequestRecord,
    refused: usize,
    refused_message: Option<String>,
) -> String {
    let metric = |index: Option<&str>| -> Vec<PartitionSecond> {
        s.world
            .partition_metrics(TABLE, index)
            .unwrap_or_else(|e| fail(format!("cannot read partition metrics: {e}")))
            .into_iter()
            .filter(|m| m.second == second)
            .collect()
    };
    let index_m = metric(Some(INDEX));
    let table_m = metric(None);
    let index_throttles: u64 = index_m.iter().map(|m| m.throttled_writes).sum();
    let table_throttles: u64 = table_m.iter().map(|m| m.throttled_writes).sum();
    let table_used: f64 = table_m.iter().map(|m| m.consumed_write).sum();
    let index_used: f64 = index_m.iter().map(|m| m.consumed_write).sum();
    let quoted = refused_message.map_or_else(String::new, |m| format!(": \"{m}\""));
    let head = format!(
        "{} of the {} PutItems of the peak second were throttled ({} of them returned as errors \
         by place_order); the first: {}, {}{quoted}.",
        thousands(throttled.len() as u64),
        thousands(PEAK_ORDERS_PER_SECOND),
        thousands(refused as u64),
        request(first),
        first.error.unwrap_or_default()
    );
    if index_throttles == 0 {
        let hottest = table_m
            .iter()
            .max_by(|a, b| a.consumed_write.total_cmp(&b.consumed_write));
        return format!(
            "{head} The table's own partitions refused them ({} throttled writes; the busiest, \
             partition {}, consumed {:.0} WCU that second), not the index.",
            thousands(table_throttles),
            hottest.map_or(0, |m| m.partition),
            hottest.map_or(0.0, |m| m.consumed_write)
        );
    }
    let index = s.index();
    let provisioned = index
        .as_ref()
        .and_then(|i| i.provisioned_throughput())
        .and_then(|t| t.write_capacity_units())
        .unwrap_or(0);
    let partitions = s
        .world
        .index_partitions(TABLE, INDEX)
        .unwrap_or_else(|e| fail(format!("cannot read the index's partitions: {e}")));
    let hot = index_m
        .iter()
        .max_by(|a, b| a.consumed_write.total_cmp(&b.consumed_write))
        .expect("the index throttled, so it has metrics");
    let back_pressure = format!(
        "The table itself consumed {} WCU of its {} that second and throttled nothing of its \
         own: the index {INDEX} did ({} throttled index writes). A table write is accepted only \
         if every global secondary index it changes can take the index write too — \
         back-pressure: the index throttles the table.",
        thousands(table_used as i64),
        thousands(given::TABLE_WCU),
        thousands(index_throttles)
    );
    if provisioned >= PEAK_ORDERS_PER_SECOND as i64 && hot.consumed_write >= CEILING_WCU - 1.0 {
        // Which of the orders' index key values live on the hot partition.
        let (pk, _) = s.index_keys();
        let range = partitions
            .iter()
            .find(|p| p.id == hot.partition)
            .map(|p| p.hash_range);
        let mut values: BTreeMap<String, u64> = BTreeMap::new();
        for id in s
            .awaiting_ids()
            .iter()
            .rev()
            .take(PEAK_ORDERS_PER_SECOND as usize)
        {
            if let Some(AttributeValue::S(v)) = s.stored(id).and_then(|i| i.get(&pk).cloned()) {
                *values.entry(v).or_insert(0) += 1;
            }
        }
        let on_hot: BTreeSet<&String> = values
            .keys()
            .filter(|v| {
                // The tests' world runs the engine's own router.
                let key = KeyBytes {
                    tag: b'S',
                    bytes: v.as_bytes(),
                };
                let h = EngineRouter.hash(key, None);
                matches!(range, Some((lo, hi)) if h >= lo && h <= hi)
            })
            .collect();
        let shown: Vec<String> = on_hot.iter().take(6).map(|v| format!("\"{v}\"")).collect();
        let written: u64 = values.values().sum();
        let on_hot_writes: u64 = on_hot.iter().map(|v| values[*v]).sum();
        let per_entry = if on_hot_writes > 0 {
            (hot.consumed_write / on_hot_writes as f64).max(1.0)
        } else {
            1.0
        };
        return format!(
            "{head} {back_pressure} Its partition {} consumed {} WCU in second {second}: the \
             ceiling of one partition, whatever the index is provisioned with ({} WCU over {} \
             partitions). It holds the {pk} value{} {}{} — {} of the {} distinct values among \
             the {} orders of the peak that were stored, and {} of their index entries, at \
             {per_entry:.0} WCU each. One partition-key value lives on one partition, and values fall on the \
             index's partitions by hash, so several values may share one: what an index \
             partition takes is capped at 1,000 WCU a second, whatever the index's \
             provisioned capacity.",
            hot.partition,
            thousands(hot.consumed_write as i64),
            thousands(provisioned),
            partitions.len(),
            if on_hot.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if on_hot.len() > shown.len() { ", …" } else { "" },
            on_hot.len(),
            values.len(),
            thousands(written),
            thousands(on_hot_writes),
        );
    }
    format!(
        "{head} {back_pressure} The index is provisioned with {} WCU over {} partitions, and \
         consumed {} WCU in second {second} (its busiest partition {}; one partition serves at \
         most 1,000 WCU, and the provisioned WCU is shared among the partitions): 4,500 orders a \
         second are 4,500 index writes a second, 1 WCU each even for an entry far under 1 KB. \
         An index's write capacity must cover every table write that changes it.",
        thousands(provisioned),
        partitions.len(),
        thousands(index_used as i64),
        thousands(hot.consumed_write as i64)
    )
}
