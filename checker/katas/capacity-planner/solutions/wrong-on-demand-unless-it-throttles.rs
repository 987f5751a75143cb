//! # Kata: capacity planner — known wrong: on-demand for everything a new on-demand table can take,
//! steady traffic included (no cost rule).

use engine::types::{BillingMode, ProvisionedThroughput};
use given::{
    Keys, Plan, PlanError, Workload, ON_DEMAND_INITIAL_RCU, ON_DEMAND_INITIAL_WCU, PARTITION_RCU,
    PARTITION_WCU,
};

/// What every second needs: write units, and read units in halves.
struct Need {
    writes: Vec<u64>,
    read_halves: Vec<u64>,
}

fn need_of(workload: &Workload, share: impl Fn(u32) -> u32) -> Need {
    let write_units = u64::from(workload.item_bytes.div_ceil(1024));
    let blocks = u64::from(workload.item_bytes.div_ceil(4096));
    let read_halves = if workload.consistent_reads {
        2 * blocks
    } else {
        blocks
    };
    let seconds = workload.per_second();
    Need {
        writes: seconds
            .iter()
            .map(|&(w, _)| u64::from(share(w)) * write_units)
            .collect(),
        read_halves: seconds
            .iter()
            .map(|&(_, r)| u64::from(share(r)) * read_halves)
            .collect(),
    }
}

/// True if a new on-demand table would throttle some second of `series`: more than it takes
/// at once (`initial`), and more than twice the busiest second before it.
fn on_demand_throttles(series: &[u64], initial: u64) -> bool {
    let mut previous_peak = 0;
    for &units in series {
        if units > initial.max(2 * previous_peak) {
            return true;
        }
        previous_peak = previous_peak.max(units);
    }
    false
}

/// The plan for a workload, or why no plan serves it.
pub fn plan(workload: &Workload) -> Result<Plan, PlanError> {
    if let Keys::OneHot { key, percent } = &workload.keys {
        let hot = need_of(workload, |n| n * percent / 100);
        let wcu = hot.writes.iter().copied().max().unwrap_or(0);
        let rcu_halves = hot.read_halves.iter().copied().max().unwrap_or(0);
        let shards = wcu
            .div_ceil(u64::from(PARTITION_WCU))
            .max(rcu_halves.div_ceil(2 * u64::from(PARTITION_RCU)));
        if shards > 1 {
            return Err(PlanError::HotKey {
                key: key.clone(),
                min_shards: shards as u32,
            });
        }
    }
    let need = need_of(workload, |n| n);
    let jump = on_demand_throttles(&need.writes, u64::from(ON_DEMAND_INITIAL_WCU))
        || on_demand_throttles(&need.read_halves, 2 * u64::from(ON_DEMAND_INITIAL_RCU));
    if !jump {
        // The partitions of a new on-demand table: as if provisioned for what it takes at once.
        let partitions = partitions_for(ON_DEMAND_INITIAL_RCU.into(), ON_DEMAND_INITIAL_WCU.into());
        return Ok(Plan {
            billing_mode: BillingMode::PayPerRequest,
            provisioned_throughput: None,
            partitions,
        });
    }
    let wcu = need.writes.iter().copied().max().unwrap_or(0).max(1);
    let rcu = need
        .read_halves
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .div_ceil(2)
        .max(1);
    let throughput = ProvisionedThroughput::builder()
        .read_capacity_units(rcu as i64)
        .write_capacity_units(wcu as i64)
        .build()?;
    Ok(Plan {
        billing_mode: BillingMode::Provisioned,
        provisioned_throughput: Some(throughput),
        partitions: partitions_for(rcu, wcu),
    })
}

/// max(1, ceil(RCU / 3,000 + WCU / 1,000)), in whole numbers.
fn partitions_for(rcu: u64, wcu: u64) -> u32 {
    // RCU / 3,000 + WCU / 1,000 = (RCU + 3 × WCU) / 3,000: one division, no fractions.
    let per_partition = u64::from(PARTITION_RCU);
    let ratio = u64::from(PARTITION_RCU / PARTITION_WCU);
    ((rcu + ratio * wcu).div_ceil(per_partition) as u32).max(1)
}
