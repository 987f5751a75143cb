//! # Kata: capacity planner — another route
//!
//! Prices every request in floating-point units (the item size rounded up to whole KB and
//! 4 KB blocks first, so nothing is under-counted), decides the mode by asking what an
//! on-demand table would do second by second (its allowance: the initial figure or twice the
//! previous peak), and provisions 20 % above the busiest second, inside the kata's 25 %
//! headroom. The partition count is the lesson's formula on the figures actually provisioned.

use engine::types::{BillingMode, ProvisionedThroughput};
use given::{
    Keys, Plan, PlanError, Workload, MAX_HEADROOM_PERCENT, MIN_UTILISATION_PERCENT,
    ON_DEMAND_INITIAL_RCU, ON_DEMAND_INITIAL_WCU, PARTITION_RCU, PARTITION_WCU,
};

/// Headroom over the busiest second (percent); the kata allows up to 25.
const HEADROOM_PERCENT: f64 = 20.0;

/// Units of one write and one read of the workload's item.
fn unit_costs(w: &Workload) -> (f64, f64) {
    let kb = f64::from(w.item_bytes.div_ceil(1024));
    let blocks = f64::from(w.item_bytes.div_ceil(4096));
    (
        kb,
        if w.consistent_reads {
            blocks
        } else {
            blocks / 2.0
        },
    )
}

/// Per second: (write units, read units) of `share` of the requests.
fn series(w: &Workload, share: &dyn Fn(u32) -> u32) -> Vec<(f64, f64)> {
    let (wc, rc) = unit_costs(w);
    w.per_second()
        .into_iter()
        .map(|(writes, reads)| (f64::from(share(writes)) * wc, f64::from(share(reads)) * rc))
        .collect()
}

/// Whether an on-demand table, new, throttles any second of `units`.
fn on_demand_throttles(units: impl Iterator<Item = f64>, initial: f64) -> bool {
    let mut peak: f64 = 0.0;
    for u in units {
        if u > initial.max(2.0 * peak) {
            return true;
        }
        peak = peak.max(u);
    }
    false
}

fn peak(units: impl Iterator<Item = f64>) -> f64 {
    units.fold(0.0, f64::max)
}

/// The plan for a workload, or why no plan serves it.
pub fn plan(workload: &Workload) -> Result<Plan, PlanError> {
    if let Keys::OneHot { key, percent } = &workload.keys {
        let hot = series(workload, &|n| n * percent / 100);
        let shards = (peak(hot.iter().map(|s| s.0)) / f64::from(PARTITION_WCU))
            .ceil()
            .max((peak(hot.iter().map(|s| s.1)) / f64::from(PARTITION_RCU)).ceil());
        if shards >= 2.0 {
            return Err(PlanError::HotKey {
                key: key.clone(),
                min_shards: shards as u32,
            });
        }
    }
    let all = series(workload, &|n| n);
    let (wcu, rcu) = (peak(all.iter().map(|s| s.0)), peak(all.iter().map(|s| s.1)));
    let seconds = all.len().max(1) as f64;
    let used = |peak: f64, total: f64| {
        peak == 0.0 || total / (peak * seconds) * 100.0 >= f64::from(MIN_UTILISATION_PERCENT)
    };
    let well_used =
        used(wcu, all.iter().map(|s| s.0).sum()) && used(rcu, all.iter().map(|s| s.1).sum());
    let surge = on_demand_throttles(all.iter().map(|s| s.0), f64::from(ON_DEMAND_INITIAL_WCU))
        || on_demand_throttles(all.iter().map(|s| s.1), f64::from(ON_DEMAND_INITIAL_RCU));
    if !surge && !well_used {
        let partitions = f64::from(ON_DEMAND_INITIAL_RCU) / f64::from(PARTITION_RCU)
            + f64::from(ON_DEMAND_INITIAL_WCU) / f64::from(PARTITION_WCU);
        return Ok(Plan {
            billing_mode: BillingMode::PayPerRequest,
            provisioned_throughput: None,
            partitions: partitions.ceil() as u32,
        });
    }
    debug_assert!(HEADROOM_PERCENT <= f64::from(MAX_HEADROOM_PERCENT));
    let with_headroom =
        |units: f64| ((units.ceil() * (1.0 + HEADROOM_PERCENT / 100.0)).floor() as i64).max(1);
    let (rcu, wcu) = (with_headroom(rcu), with_headroom(wcu));
    let partitions = (rcu as f64 / f64::from(PARTITION_RCU)
        + wcu as f64 / f64::from(PARTITION_WCU))
    .ceil()
    .max(1.0);
    Ok(Plan {
        billing_mode: BillingMode::Provisioned,
        provisioned_throughput: Some(
            ProvisionedThroughput::builder()
                .read_capacity_units(rcu)
                .write_capacity_units(wcu)
                .build()?,
        ),
        partitions: partitions as u32,
    })
}
