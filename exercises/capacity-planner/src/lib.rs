//! # Kata: capacity planner
//!
//! Write `plan`: for a workload (its traffic second by second, its item size, how its keys
//! spread), the capacity mode and figures of the table that serves it — or, when one key
//! needs more than a partition serves, `Err(PlanError::HotKey { .. })`. The rules are in
//! `README.md`; the types and DynamoDB's figures in the kata's given part (`given`).

use engine::types::BillingMode;
use given::{Plan, PlanError, Workload};

/// The plan for `workload`, or why no plan serves it.
pub fn plan(workload: &Workload) -> Result<Plan, PlanError> {
    // TODO: work out the units every second needs (item size rounded up: 1 WCU per KB,
    // 1 RCU per 4 KB strong, half that eventual), then apply the README's rules in order:
    // a hot key, a jump on-demand cannot take at once, how well provisioned capacity would be
    // used. `workload.per_second()` gives the traffic second by second.
    let _ = workload;
    Ok(Plan {
        billing_mode: BillingMode::PayPerRequest,
        provisioned_throughput: None,
        partitions: 1,
    })
}
