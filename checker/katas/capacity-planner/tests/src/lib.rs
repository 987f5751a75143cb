//! Hidden tests of the `capacity-planner` kata.
//!
//! Every test hands the learner's `plan` a workload drawn from the seed, works out on its
//! own what the README's rules decide (`model.rs`), and — when `plan` returns a plan —
//! creates the table from it and replays the workload on the simulated clock (`replay.rs`),
//! judging by what the engine measured: throttled requests, and units consumed against units
//! provisioned.
//!
//! - `steady_traffic_is_provisioned`: order history, the same traffic every second:
//!   provisioned, covering the busiest second without burst, at most 25 % headroom.
//! - `spiky_traffic_is_on_demand`: flash sales, idle for 9.5 minutes then a 30-second sale:
//!   on-demand. Provisioned for the average, burst (300 s of unused capacity) runs dry
//!   during the sale; provisioned for the sale, the table is paid for and idle.
//! - `a_launch_beyond_what_on_demand_takes_at_once`: a new table surging past 4,000 WCU:
//!   provisioned for the surge (a new on-demand table takes 4,000 WCU / 12,000 RCU at once,
//!   then up to twice its previous peak).
//! - `a_hot_key_is_not_a_capacity_problem`: one key needs more than a partition's 1,000 WCU
//!   (once item sizes are rounded up): `Err(HotKey)` with the fewest shards.
//! - `a_busy_key_under_the_ceiling_is_planned`: a key with 60 % of the writes, under the
//!   ceiling: planned like any steady workload.
//! - `partition_count_matches_the_engine`: six sizings: `plan.partitions` is what the engine
//!   creates for the plan.

mod model;
mod replay;

use engine::types::BillingMode;
use given::{Keys, Plan, PlanError, Workload, MAX_HEADROOM_PERCENT, PARTITION_WCU};
use katas_testkit::{fail, run, seeded, thousands, Rng};
use learner::plan;

use model::{halves_text, Expected, Kind, Need};
use replay::{create, replay, Replay};

katas_testkit::learner! {
    /// The plan for a workload, or why no plan serves it.
    fn plan(workload: &Workload) -> Result<Plan, PlanError>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("steady_traffic_is_provisioned", |seed| {
            judge(seed, model::steady(&mut Rng::new(seed)))
        }),
        seeded("spiky_traffic_is_on_demand", |seed| {
            judge(seed, model::spiky(&mut Rng::new(seed)))
        }),
        seeded("a_launch_beyond_what_on_demand_takes_at_once", |seed| {
            judge(seed, model::launch(&mut Rng::new(seed)))
        }),
        seeded("a_hot_key_is_not_a_capacity_problem", |seed| {
            judge(seed, model::hot(&mut Rng::new(seed)))
        }),
        seeded("a_busy_key_under_the_ceiling_is_planned", |seed| {
            judge(seed, model::warm(&mut Rng::new(seed)))
        }),
        seeded(
            "partition_count_matches_the_engine",
            partition_count_matches_the_engine,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// Describing workloads and plans
// ---------------------------------------------------------------------------------------

/// "order history (30,000-byte items, strongly consistent reads)".
fn about(w: &Workload) -> String {
    let reads = if w.consistent_reads {
        "strongly consistent reads"
    } else {
        "eventually consistent reads"
    };
    let keys = match &w.keys {
        Keys::Spread => String::new(),
        Keys::OneHot { key, percent } => format!(", {percent} % of requests to key {key:?}"),
    };
    format!(
        "the {:?} workload ({}-byte items, {reads}{keys})",
        w.name,
        thousands(w.item_bytes)
    )
}

fn show_plan(p: &Plan) -> String {
    let mode = match p.billing_mode {
        BillingMode::Provisioned => "PROVISIONED",
        BillingMode::PayPerRequest => "PAY_PER_REQUEST",
    };
    let throughput = match &p.provisioned_throughput {
        Some(t) => format!(
            "{} RCU / {} WCU",
            thousands(t.read_capacity_units),
            thousands(t.write_capacity_units)
        ),
        None => "no provisioned throughput".into(),
    };
    format!("{mode}, {throughput}, {} partition(s)", p.partitions)
}

/// How one request of `kind` is priced for this workload.
fn unit_rule(w: &Workload, need: &Need, kind: Kind) -> String {
    let bytes = thousands(w.item_bytes);
    match kind {
        Kind::Write => format!(
            "a write of {bytes} bytes is {} WCU (1 per KB of 1,024 bytes, rounded up)",
            need.wpi
        ),
        Kind::Read => {
            let blocks = w.item_bytes.div_ceil(4096);
            if w.consistent_reads {
                format!(
                    "a strongly consistent read of {bytes} bytes is {} RCU (1 per 4 KB, rounded \
                     up)",
                    halves_text(need.rpi)
                )
            } else {
                format!(
                    "an eventually consistent read of {bytes} bytes is {} RCU ({blocks} blocks \
                     of 4 KB, rounded up, at half a unit each)",
                    halves_text(need.rpi)
                )
            }
        }
    }
}

/// "second 12 (41 writes × 30 WCU = 1,230 WCU)".
fn peak_text(need: &Need, kind: Kind) -> String {
    let (t, units) = need.peak(kind);
    let (writes, reads) = need.per_second[t];
    let (n, per) = match kind {
        Kind::Write => (writes, need.wpi),
        Kind::Read => (reads, need.rpi),
    };
    format!(
        "second {t} ({} {} × {} {} = {} {})",
        thousands(n),
        kind.requests(),
        kind.text(per),
        kind.unit(),
        kind.text(units),
        kind.unit()
    )
}

fn figure(p: &Plan, kind: Kind) -> Option<i64> {
    p.provisioned_throughput.clone().map(|t| match kind {
        Kind::Write => t.write_capacity_units,
        Kind::Read => t.read_capacity_units,
    })
}

fn units(kind: Kind, x: f64) -> String {
    match kind {
        Kind::Write => thousands(x.round() as i64),
        Kind::Read => halves_text((x * 2.0).round() as u64),
    }
}

// ---------------------------------------------------------------------------------------
// The judge
// ---------------------------------------------------------------------------------------

/// Asks for a plan, and judges it by the rules and by a replay.
fn judge(seed: u64, w: Workload) {
    let need = Need::of(&w);
    let expected = model::expected(&w);
    let got = plan(&w);
    let what = about(&w);
    match (expected, got) {
        (Expected::Hot(h), Err(PlanError::HotKey { key, min_shards })) => {
            if key != h.key || min_shards != h.min_shards {
                fail(format!(
                    "plan(..) for {what} returned Err(HotKey {{ key: {key:?}, min_shards: \
                     {min_shards} }}); expected Err(HotKey {{ key: {:?}, min_shards: {} }}). In \
                     second {} the key takes {} {} ({}), {} {}: {} keys of at most a partition's \
                     {} {} each.",
                    h.key,
                    h.min_shards,
                    h.second,
                    thousands(h.requests),
                    h.kind.requests(),
                    unit_rule(&w, &need, h.kind),
                    h.kind.text(h.units),
                    h.kind.unit(),
                    h.min_shards,
                    h.kind.text(h.kind.ceiling()),
                    h.kind.unit(),
                ));
            }
        }
        (Expected::Hot(h), Ok(p)) => hot_key_planned(seed, &w, &need, &h, &p),
        (_, Err(PlanError::HotKey { key, min_shards })) => {
            let busiest = match &w.keys {
                Keys::Spread => "no key takes more than a sliver of it (Keys::Spread)".into(),
                Keys::OneHot { key: hot, percent } => {
                    let (tw, tr) = (need.peak(Kind::Write).0, need.peak(Kind::Read).0);
                    let hw =
                        u64::from(model::hot_share(need.per_second[tw].0, *percent)) * need.wpi;
                    let hr =
                        u64::from(model::hot_share(need.per_second[tr].1, *percent)) * need.rpi;
                    format!(
                        "key {hot:?} needs at most {} WCU and {} RCU in a second, under one \
                         partition's {} WCU / 3,000 RCU ({} ; {})",
                        thousands(hw),
                        halves_text(hr),
                        thousands(PARTITION_WCU),
                        unit_rule(&w, &need, Kind::Write),
                        unit_rule(&w, &need, Kind::Read),
                    )
                }
            };
            fail(format!(
                "plan(..) for {what} returned Err(HotKey {{ key: {key:?}, min_shards: \
                 {min_shards} }}), but {busiest}. A busy key is a problem only when one key \
                 alone needs more than a partition serves; this workload needs a plan."
            ));
        }
        (_, Err(e)) => fail(format!(
            "plan(..) for {what} returned Err({e:?}): it needs a plan"
        )),
        (expected, Ok(p)) => judge_plan(seed, &w, &need, &expected, &p),
    }
}

/// Creates the table from the plan, or fails saying why CreateTable refused it.
fn table_for(seed: u64, what: &str, p: &Plan) -> replay::Scene {
    match create(p, seed) {
        Ok(scene) => scene,
        Err(why) => fail(format!(
            "plan(..) for {what} returned {}, and CreateTable refused it — {why}. A \
             PROVISIONED plan carries its ProvisionedThroughput (at least 1 RCU and 1 WCU); \
             a PAY_PER_REQUEST plan carries none.",
            show_plan(p)
        )),
    }
}

/// The partition count of the plan against the engine's.
fn check_partitions(what: &str, scene: &replay::Scene, p: &Plan) {
    let made = scene
        .world
        .partitions(given::TABLE)
        .expect("the table")
        .len() as u32;
    if made == p.partitions {
        return;
    }
    let rule = match &p.provisioned_throughput {
        Some(t) => format!(
            "a provisioned table starts with max(1, ceil(RCU / 3,000 + WCU / 1,000)) = \
             ceil({} / 3,000 + {} / 1,000) = ceil({:.2}) = {made}",
            thousands(t.read_capacity_units),
            thousands(t.write_capacity_units),
            t.read_capacity_units as f64 / 3000.0 + t.write_capacity_units as f64 / 1000.0,
        ),
        None => format!(
            "a new on-demand table starts as if provisioned for what it takes at once: \
             ceil(12,000 RCU / 3,000 + 4,000 WCU / 1,000) = {made}"
        ),
    };
    fail(format!(
        "plan(..) for {what} returned {}, but CreateTable made {made} partition(s): {rule}.",
        show_plan(p)
    ));
}

/// A plan for a workload whose hot key no plan serves: replay it and show the ceiling.
fn hot_key_planned(seed: u64, w: &Workload, need: &Need, h: &model::HotKey, p: &Plan) {
    let what = about(w);
    let scene = table_for(seed, &what, p);
    let r = replay(&scene, w, p);
    let verdict = format!(
        "Expected Err(HotKey {{ key: {:?}, min_shards: {} }}): in second {} the key alone takes \
         {} {} ({}), {} {} — more than the {} {} one partition serves. A key lives on one \
         partition, in either capacity mode: on-demand, more capacity or adaptive capacity \
         cannot lift that ceiling; only spreading the key's load over {} keys (write sharding) \
         can.",
        h.key,
        h.min_shards,
        h.second,
        thousands(h.requests),
        h.kind.requests(),
        unit_rule(w, need, h.kind),
        h.kind.text(h.units),
        h.kind.unit(),
        h.kind.text(h.kind.ceiling()),
        h.kind.unit(),
        h.min_shards,
    );
    let hot_p = r.hot_partition.expect("a hot key's partition");
    let worst = (0..r.seconds.len())
        .max_by_key(|&t| r.second(t).hot_throttled[0] + r.second(t).hot_throttled[1]);
    match worst {
        Some(t) if r.second(t).hot_throttled.iter().sum::<u32>() > 0 => {
            let s = r.second(t);
            let kind = if s.hot_throttled[0] > 0 {
                Kind::Write
            } else {
                Kind::Read
            };
            let k = usize::from(kind == Kind::Read);
            let engine_s = r.start_s + t as u64;
            fail(format!(
                "plan(..) for {what} returned {} — and the key was throttled anyway. In the \
                 replay, second {t}: partition {hot_p}, which holds {:?}, consumed {} {} (its \
                 ceiling) and throttled {} of the key's {} {} ({} throttled requests on the \
                 partition), while the whole table consumed {} {}. {verdict}",
                show_plan(p),
                h.key,
                units(kind, r.partition_consumed(hot_p, engine_s, kind)),
                kind.unit(),
                thousands(s.hot_throttled[k]),
                thousands(s.hot_sent[k]),
                kind.requests(),
                thousands(r.partition_throttled(hot_p, engine_s, kind)),
                units(kind, r.table_consumed(engine_s, kind)),
                kind.unit(),
            ));
        }
        _ => fail(format!(
            "plan(..) for {what} returned {}. {verdict}",
            show_plan(p)
        )),
    }
}

/// Judges a plan for a workload that needs one.
fn judge_plan(seed: u64, w: &Workload, need: &Need, expected: &Expected, p: &Plan) {
    let what = about(w);
    let scene = table_for(seed, &what, p);
    check_partitions(&what, &scene, p);
    let r = replay(&scene, w, p);
    if let Some((t, kind)) = r.first_throttle() {
        explain_throttle(w, need, p, &r, t, kind);
    }
    let provisioned = p.billing_mode == BillingMode::Provisioned;
    match expected {
        Expected::ProvisionedWellUsed if !provisioned => {
            let wu = need.utilisation_at_peak(Kind::Write).unwrap_or(100.0);
            let ru = need.utilisation_at_peak(Kind::Read).unwrap_or(100.0);
            fail(format!(
                "plan(..) for {what} returned {}. The replay was not throttled, but this \
                 traffic is steady: provisioned for its busiest second, the table would use \
                 {wu:.0} % of the WCU and {ru:.0} % of the RCU it pays for — at least {} % \
                 each, so by the kata's rule it is provisioned (the lesson: provisioned for \
                 steady, predictable traffic, cheaper per request when well used; on-demand \
                 charges more per request).",
                show_plan(p),
                given::MIN_UTILISATION_PERCENT
            ));
        }
        Expected::ProvisionedForJump(j) if !provisioned => fail(format!(
            "plan(..) for {what} returned {}. In second {} the workload needs {} {}, more than \
             a new on-demand table takes at once (max({} {}, twice its previous peak of {}) = \
             {}): it is provisioned for its busiest second.",
            show_plan(p),
            j.second,
            j.kind.text(j.need),
            j.kind.unit(),
            j.kind.text(j.kind.on_demand_initial()),
            j.kind.unit(),
            j.kind.text(j.previous_peak),
            j.kind.text(j.allowance),
        )),
        Expected::OnDemand { kind, utilisation } if provisioned => {
            let fig = figure(p, *kind).unwrap_or(1) as f64;
            let secs = r.seconds.len() as f64;
            let used = r.consumed_over_workload(*kind);
            fail(format!(
                "plan(..) for {what} returned {}. The replay was not throttled, but the table \
                 paid for {} {} every second of the workload's {} seconds ({} {}-seconds) and \
                 consumed {} of them: {:.0} % used (provisioned for its busiest second, the \
                 best a provisioned table does here is {utilisation:.0} %). Below {} %, the \
                 kata's rule is on-demand: it bills only the request units consumed — spiky \
                 or mostly idle traffic is what on-demand is for.",
                show_plan(p),
                thousands(fig as i64),
                kind.unit(),
                thousands(secs as i64),
                thousands((fig * secs) as i64),
                kind.unit(),
                units(*kind, used),
                100.0 * used / (fig * secs),
                given::MIN_UTILISATION_PERCENT,
            ));
        }
        _ => {}
    }
    if provisioned {
        check_figures(w, need, p, &r);
    }
}

/// Provisioned figures: the busiest second covered without burst, with bounded headroom.
fn check_figures(w: &Workload, need: &Need, p: &Plan, r: &Replay) {
    let what = about(w);
    for kind in [Kind::Write, Kind::Read] {
        let fig = figure(p, kind).unwrap_or(0);
        let want = need.peak_figure(kind) as i64;
        let (t, _) = need.peak(kind);
        if fig < want {
            let engine_s = r.start_s + t as u64;
            let consumed = r.table_consumed(engine_s, kind);
            fail(format!(
                "plan(..) for {what} returned {}: {} {}, but the busiest second, {}, needs {} \
                 {} ({}). The replay was not throttled — in that second the table consumed {} \
                 {}, and burst capacity (unused capacity of the last 300 s) paid for what \
                 the provisioned figure did not. Burst is best effort — DynamoDB may spend it \
                 on background work — so a plan never counts on it: the busiest second is \
                 covered by the provisioned figure alone.",
                show_plan(p),
                thousands(fig),
                kind.unit(),
                peak_text(need, kind),
                thousands(want),
                kind.unit(),
                unit_rule(w, need, kind),
                units(kind, consumed),
                kind.unit(),
            ));
        }
        let cap = want + want * i64::from(MAX_HEADROOM_PERCENT) / 100;
        if fig > cap.max(1) {
            fail(format!(
                "plan(..) for {what} returned {}: {} {}, but the busiest second, {}, needs only \
                 {} {} ({}) — the plan pays for {:.0} % more than that, and the kata allows at \
                 most {} % headroom ({} {}).",
                show_plan(p),
                thousands(fig),
                kind.unit(),
                peak_text(need, kind),
                thousands(want),
                kind.unit(),
                unit_rule(w, need, kind),
                100.0 * (fig - want) as f64 / want as f64,
                MAX_HEADROOM_PERCENT,
                thousands(cap),
                kind.unit(),
            ));
        }
    }
}

/// Explains the first throttled second of a replay from the engine's metrics.
fn explain_throttle(w: &Workload, need: &Need, p: &Plan, r: &Replay, t: usize, kind: Kind) {
    let what = about(w);
    let s = r.second(t);
    let k = usize::from(kind == Kind::Read);
    let engine_s = r.start_s + t as u64;
    let table = r.table_consumed(engine_s, kind);
    let total: u32 = r.seconds.iter().map(|x| x.throttled[k]).sum();
    let head = format!(
        "plan(..) for {what} returned {}, and the replay was throttled: {} {} in all. The first, \
         second {t} of the workload: {} of its {} {} throttled; the table consumed {} {}.",
        show_plan(p),
        thousands(total),
        kind.requests(),
        thousands(s.throttled[k]),
        thousands(s.sent[k]),
        kind.requests(),
        units(kind, table),
        kind.unit(),
    );
    // A partition at its ceiling?
    let ceiling = kind.ceiling() as f64 / if kind == Kind::Read { 2.0 } else { 1.0 };
    for &part in &r.partitions {
        let c = r.partition_consumed(part, engine_s, kind);
        if r.partition_throttled(part, engine_s, kind) > 0 && c >= ceiling * 0.97 {
            let n = r.partitions.len();
            let why = match (&w.keys, r.hot_partition) {
                (Keys::OneHot { key, .. }, Some(hp)) if hp == part => format!(
                    "It holds the hot key {key:?}, and {} of the key's {} {} were throttled.",
                    thousands(s.hot_throttled[k]),
                    thousands(s.hot_sent[k]),
                    kind.requests()
                ),
                _ => format!(
                    "The traffic is spread evenly: the table's {n} partition(s) serve at most \
                     {} {} a second, whatever the provisioned figure or burst capacity, and \
                     this second asked for {} {} ({}). A table provisioned for the busiest \
                     second starts with enough partitions for it.",
                    thousands(n as u64 * kind.ceiling() / if kind == Kind::Read { 2 } else { 1 }),
                    kind.unit(),
                    kind.text(need.series(kind)[t]),
                    kind.unit(),
                    unit_rule(w, need, kind),
                ),
            };
            fail(format!(
                "{head} Partition {part} consumed {} {}, one partition's ceiling, and throttled \
                 {} requests. {why}",
                units(kind, c),
                kind.unit(),
                thousands(r.partition_throttled(part, engine_s, kind)),
            ));
        }
    }
    match r.provisioned {
        None => {
            let before = r.peak_before(engine_s, kind);
            let initial =
                kind.on_demand_initial() as f64 / if kind == Kind::Read { 2.0 } else { 1.0 };
            let allowance = initial.max(2.0 * before);
            fail(format!(
                "{head} The table is on-demand and new: it takes {} {} at once, and after that \
                 up to twice its previous peak — the busiest second before this one was {} {} \
                 (loading the items included), so this second it took max({}, 2 × {}) = {} {}, \
                 and the workload asked for {} {} ({}). DynamoDB grows an on-demand table \
                 past twice its previous peak only over time (AWS: spread growth beyond it \
                 over at least 30 minutes): a jump like this one is throttled. A table \
                 provisioned (or pre-warmed) for its busiest second takes it from the start.",
                units(kind, initial),
                kind.unit(),
                units(kind, before),
                kind.unit(),
                units(kind, initial),
                units(kind, before),
                units(kind, allowance),
                kind.unit(),
                kind.text(need.series(kind)[t]),
                kind.unit(),
                unit_rule(w, need, kind),
            ));
        }
        Some((rcu, wcu)) => {
            let fig = if kind == Kind::Write { wcu } else { rcu } as f64;
            // The burst drawn since the table was last under its provisioned rate.
            let mut drawn = 0.0;
            let mut from = t;
            while from > 0 {
                let c = r.table_consumed(r.start_s + from as u64 - 1, kind);
                if c <= fig {
                    break;
                }
                from -= 1;
            }
            for x in from..t {
                drawn += (r.table_consumed(r.start_s + x as u64, kind) - fig).max(0.0);
            }
            fail(format!(
                "{head} The table is provisioned with {} {}: above that rate, a request is \
                 served only from burst capacity — at most 300 s of unused capacity, {} {} for \
                 this table. Since second {from} the workload needed more than {} {} a \
                 second and drew {} {} from it; by second {t} it was spent. Its busiest \
                 second, {}, needs {} {}: provisioned for the average, a spiky load is throttled \
                 at its peaks once burst runs out.",
                thousands(fig as i64),
                kind.unit(),
                thousands((fig * 300.0) as i64),
                kind.unit(),
                thousands(fig as i64),
                kind.unit(),
                units(kind, drawn),
                kind.unit(),
                peak_text(need, kind),
                thousands(need.peak_figure(kind)),
                kind.unit(),
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Partition counts
// ---------------------------------------------------------------------------------------

/// Six steady sizings: each plan's partition count against the table the engine creates.
fn partition_count_matches_the_engine(seed: u64) {
    let mut rng = Rng::new(seed);
    for w in model::sizing(&mut rng) {
        let what = about(&w);
        let p = match plan(&w) {
            Ok(p) => p,
            Err(e) => fail(format!(
                "plan(..) for {what} returned Err({e:?}): every key is spread, it needs a plan"
            )),
        };
        let scene = table_for(seed, &what, &p);
        check_partitions(&what, &scene, &p);
        if let Some(t) = p.provisioned_throughput {
            let formula = model::partitions_for(t.read_capacity_units, t.write_capacity_units);
            debug_assert_eq!(formula, p.partitions);
        }
    }
}
