//! Hidden tests of the `token-bucket` kata.
//!
//! Every test is a mirror: two worlds from the same seed, one running DynamoDB's bucket (the
//! engine's `TokenBucket`), one running the learner's, get the same requests at the same
//! simulated seconds. The verdict compares what is observable — `World::partition_metrics`:
//! for each second and partition, units admitted and requests throttled, reads and writes
//! apart. Both pieces are wrapped in a `Recorder`, so when the metrics differ the message can
//! name the first *decision* that differed (the same input, two answers): that is the cause the
//! run confirms, not a guess from the symptom.
//!
//! - `spends_a_lesson_burst_then_runs_dry`: 5 WCU idle 600 s, then 20 writes/s for 110 s.
//! - `banks_what_each_second_leaves_unused`: idle gaps under the window, busy seconds of 1–4 KB
//!   writes past the allocation, quiet seconds under it, an UpdateTable halfway.
//! - `caps_a_hot_key_at_the_partition_ceiling`: one key past 1,000 WCU and 3,000 RCU with a
//!   large burst saved.
//! - `keeps_reads_and_writes_apart`: read spikes (eventual reads at 0.5 units) and write spikes
//!   on one partition, at different seconds.
//! - `serves_an_item_larger_than_the_allocation`: an 8 KB write each second on 5 WCU.
//! - `honours_the_tables_loan`: one partition of four past its allocation, within the table's.
//! - `follows_a_rate_change`: 3,000 units saved at 10 WCU, then UpdateTable to 4 WCU (a cap of
//!   1,200), then a spike.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::seams::{Learners, Pieces};
use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::{AttributeValue, Client, World, WorldConfig};
use given::{Admission, Ask, Closing, Decision, Kind};
use katas_testkit::{fail, run, seeded, test, thousands, wrap, Rng};

katas_testkit::learner! {
    /// The learner's bucket.
    fn token_bucket() -> Box<dyn Admission>;
}

/// Runs the hidden tests against the learner's bucket (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        test(
            "spends_a_lesson_burst_then_runs_dry",
            spends_a_lesson_burst_then_runs_dry,
        ),
        seeded(
            "banks_what_each_second_leaves_unused",
            banks_what_each_second_leaves_unused,
        ),
        seeded(
            "caps_a_hot_key_at_the_partition_ceiling",
            caps_a_hot_key_at_the_partition_ceiling,
        ),
        seeded("keeps_reads_and_writes_apart", keeps_reads_and_writes_apart),
        test(
            "serves_an_item_larger_than_the_allocation",
            serves_an_item_larger_than_the_allocation,
        ),
        seeded("honours_the_tables_loan", honours_the_tables_loan),
        test("follows_a_rate_change", follows_a_rate_change),
    ]);
}

const TABLE: &str = "bucket-test";

// ---------------------------------------------------------------------------------------------
// Workloads: a plan of requests per simulated second, the same for both worlds.

/// One request (or table change) of a plan.
#[derive(Clone, Debug)]
enum Op {
    /// A PutItem of an item of `kb` write units (just under `kb` KB).
    Put { key: String, kb: usize },
    /// A GetItem, strongly consistent or not.
    Get { key: String, strong: bool },
    /// UpdateTable to new provisioned throughput (read, write).
    Provision(i64, i64),
}

/// A workload: the table's throughput at creation and the requests of each second.
struct Plan {
    rcu: i64,
    wcu: i64,
    seconds: BTreeMap<u64, Vec<Op>>,
}

impl Plan {
    fn new(rcu: i64, wcu: i64) -> Plan {
        Plan {
            rcu,
            wcu,
            seconds: BTreeMap::new(),
        }
    }

    fn at(&mut self, second: u64, op: Op) {
        self.seconds.entry(second).or_default().push(op);
    }

    fn put(&mut self, second: u64, key: impl Into<String>, kb: usize) {
        self.at(
            second,
            Op::Put {
                key: key.into(),
                kb,
            },
        );
    }

    fn get(&mut self, second: u64, key: impl Into<String>, strong: bool) {
        self.at(
            second,
            Op::Get {
                key: key.into(),
                strong,
            },
        );
    }
}

/// One decision a piece took, with its input.
#[derive(Clone, Copy, Debug)]
enum Call {
    Bank(Closing, f64),
    Admit(Ask, Decision),
}

/// Wraps a piece and records every call it answers.
struct Recorder {
    inner: Box<dyn Admission>,
    calls: Mutex<Vec<Call>>,
}

impl Admission for Recorder {
    fn bank(&self, closing: &Closing) -> f64 {
        let out = self.inner.bank(closing);
        self.calls.lock().unwrap().push(Call::Bank(*closing, out));
        out
    }

    fn admit(&self, ask: &Ask) -> Decision {
        let out = self.inner.admit(ask);
        self.calls.lock().unwrap().push(Call::Admit(*ask, out));
        out
    }
}

/// (second, partition) → (read units, write units, reads throttled, writes throttled).
type Metrics = BTreeMap<(u64, u32), (f64, f64, u64, u64)>;

/// What one world did with a plan.
struct Run {
    metrics: Metrics,
    calls: Vec<Call>,
}

/// Runs `plan` in a world of `seed` whose admission piece is `piece`.
fn run_plan(seed: u64, plan: &Plan, piece: Box<dyn Admission>) -> Run {
    let recorder = Arc::new(Recorder {
        inner: piece,
        calls: Mutex::new(Vec::new()),
    });
    // The other pieces stay the engine's (the update is needless only while admission is the
    // one seam).
    #[allow(clippy::needless_update)]
    let pieces = Pieces {
        admission: recorder.clone(),
        ..Pieces::default()
    };
    // Both buckets start from nothing, so banking shows from the first second (a table
    // new to a world is born with its burst bucket full, which would hide it).
    let config = WorldConfig {
        seed,
        new_table_buckets_full: false,
        ..WorldConfig::default()
    };
    let world = World::with_pieces(config, pieces);
    let client = world.client();
    client
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(plan.rcu, plan.wcu))
        .send()
        .expect("the tests' table");
    for (second, ops) in &plan.seconds {
        let now = world.now().as_secs();
        world.advance(Duration::from_secs(second - now));
        for op in ops {
            send(&client, op);
        }
    }
    world.advance(Duration::from_secs(1));
    let mut metrics = Metrics::new();
    for m in world
        .partition_metrics(TABLE, None)
        .expect("the tests' table")
    {
        metrics.insert(
            (m.second, m.partition),
            (
                m.consumed_read,
                m.consumed_write,
                m.throttled_reads,
                m.throttled_writes,
            ),
        );
    }
    let calls = std::mem::take(&mut *recorder.calls.lock().unwrap());
    Run { metrics, calls }
}

/// Sends one op; a throttled request is what the metrics count, anything else is a bug.
fn send(client: &Client, op: &Op) {
    let result = match op {
        Op::Put { key, kb } => {
            // "id" + key + "pad" + padding stays within `kb` KB and above `kb - 1`.
            let pad = (kb * 1024).saturating_sub(2 + key.len() + 3 + 16);
            client
                .put_item()
                .table_name(TABLE)
                .item("id", AttributeValue::S(key.clone()))
                .item("pad", AttributeValue::S("x".repeat(pad)))
                .send()
                .map(|_| ())
                .map_err(engine::Error::from)
        }
        Op::Get { key, strong } => client
            .get_item()
            .table_name(TABLE)
            .key("id", AttributeValue::S(key.clone()))
            .consistent_read(*strong)
            .send()
            .map(|_| ())
            .map_err(engine::Error::from),
        Op::Provision(r, w) => client
            .update_table()
            .table_name(TABLE)
            .provisioned_throughput(ProvisionedThroughput::new(*r, *w))
            .send()
            .map(|_| ())
            .map_err(engine::Error::from),
    };
    if let Err(e) = result {
        if !e.is_throttling() {
            fail(format!("the test's {op:?} failed: {e}"));
        }
    }
}

/// Runs `plan` with DynamoDB's bucket and with the learner's and fails on the first second and
/// partition where what they admitted or throttled differs.
fn mirror(seed: u64, scenario: &str, plan: &Plan) {
    let dynamo = run_plan(seed, plan, Box::new(engine::seams::TokenBucket));
    // Under the guard: the engine's TokenBucket refuses to answer while the learner's runs.
    let yours = run_plan(seed, plan, Box::new(Learners::new(learner::token_bucket)));
    let Some((second, partition, kind)) = first_difference(&dynamo.metrics, &yours.metrics) else {
        return;
    };
    let (d_units, d_throttled) = figures(&dynamo.metrics, second, partition, kind);
    let (y_units, y_throttled) = figures(&yours.metrics, second, partition, kind);
    let unit = unit_name(kind);
    let mut message = format!(
        "{scenario}\n\nSecond {second}, partition {partition}, {}s: DynamoDB admits {} {unit} \
         and throttles {} requests; yours admitted {} {unit} and throttled {}.",
        kind_name(kind),
        units(d_units),
        thousands(d_throttled),
        units(y_units),
        thousands(y_throttled),
    );
    if let Some(cause) = first_decision_that_differs(&dynamo.calls, &yours.calls, kind) {
        message.push_str("\n\n");
        message.push_str(&cause);
    }
    message = wrap(&message);
    message.push_str("\n\n");
    message.push_str(&picture(
        &dynamo.metrics,
        &yours.metrics,
        second,
        partition,
        kind,
    ));
    fail(message);
}

/// The first (second, partition, kind) whose admitted units or throttled count differ.
fn first_difference(a: &Metrics, b: &Metrics) -> Option<(u64, u32, Kind)> {
    let keys: BTreeSet<(u64, u32)> = a.keys().chain(b.keys()).copied().collect();
    for (second, partition) in keys {
        for kind in [Kind::Write, Kind::Read] {
            let (ua, ta) = figures(a, second, partition, kind);
            let (ub, tb) = figures(b, second, partition, kind);
            if (ua - ub).abs() > 1e-6 || ta != tb {
                return Some((second, partition, kind));
            }
        }
    }
    None
}

/// Units admitted and requests throttled of `kind` on `partition` in `second`.
fn figures(m: &Metrics, second: u64, partition: u32, kind: Kind) -> (f64, u64) {
    let (r, w, tr, tw) = m
        .get(&(second, partition))
        .copied()
        .unwrap_or((0.0, 0.0, 0, 0));
    match kind {
        Kind::Read => (r, tr),
        Kind::Write => (w, tw),
    }
}

/// The seconds around the first difference, for that partition and kind, side by side.
fn picture(a: &Metrics, b: &Metrics, second: u64, partition: u32, kind: Kind) -> String {
    let seconds: BTreeSet<u64> = a
        .keys()
        .chain(b.keys())
        .filter(|(_, p)| *p == partition)
        .map(|(s, _)| *s)
        .collect();
    let before: Vec<u64> = seconds.range(..second).rev().take(3).copied().collect();
    let after: Vec<u64> = seconds.range(second..).take(4).copied().collect();
    let unit = unit_name(kind);
    let label = format!("partition {partition}, {}s", kind_name(kind));
    let mut out = format!("  {label:<20}│ DynamoDB {unit}  throttled │ yours {unit}  throttled\n");
    for s in before.into_iter().rev().chain(after) {
        let (du, dt) = figures(a, s, partition, kind);
        let (yu, yt) = figures(b, s, partition, kind);
        let mark = if s == second { "▶" } else { " " };
        out.push_str(&format!(
            "  {mark} second {s:>10} │ {:>12} {:>10} │ {:>9} {:>10}\n",
            units(du),
            thousands(dt),
            units(yu),
            thousands(yt)
        ));
    }
    out.pop();
    out
}

/// The first call for buckets of `kind` that both pieces got with the same input and answered
/// differently, explained. Only that kind: a partition's read and write buckets never affect
/// each other (the table's loan is per kind too), so the other kind's decisions cannot be the
/// cause — a read bucket banking wrongly is invisible until reads spend it.
fn first_decision_that_differs(dynamo: &[Call], yours: &[Call], kind: Kind) -> Option<String> {
    let of_kind = |c: &&Call| match c {
        Call::Bank(closing, _) => closing.kind == kind,
        Call::Admit(ask, _) => ask.kind == kind,
    };
    for (d, y) in dynamo
        .iter()
        .filter(of_kind)
        .zip(yours.iter().filter(of_kind))
    {
        match (d, y) {
            (Call::Bank(c, dk), Call::Bank(c2, yk)) if same_closing(c, c2) => {
                if (dk - yk).abs() > 1e-6 {
                    return Some(explain_bank(c, *dk, *yk));
                }
            }
            (Call::Admit(a, dd), Call::Admit(a2, yd)) if same_ask(a, a2) => {
                if !same_decision(dd, yd) {
                    return Some(explain_admit(a, *dd, *yd));
                }
            }
            // Inputs differ without an earlier different answer: the learner's piece answered
            // the same way but something else diverged; the metrics say the rest.
            _ => return None,
        }
    }
    None
}

fn same_closing(a: &Closing, b: &Closing) -> bool {
    a.partition == b.partition
        && a.kind == b.kind
        && a.second == b.second
        && a.next == b.next
        && (a.consumed - b.consumed).abs() < 1e-6
        && (a.burst - b.burst).abs() < 1e-6
        && a.rate == b.rate
}

fn same_ask(a: &Ask, b: &Ask) -> bool {
    a.partition == b.partition
        && a.kind == b.kind
        && a.second == b.second
        && (a.units - b.units).abs() < 1e-6
        && (a.consumed - b.consumed).abs() < 1e-6
        && (a.burst - b.burst).abs() < 1e-6
        && a.rate == b.rate
        && a.table_lends == b.table_lends
}

fn same_decision(a: &Decision, b: &Decision) -> bool {
    match (a, b) {
        (Decision::Admit { burst: x }, Decision::Admit { burst: y }) => (x - y).abs() < 1e-6,
        (Decision::Throttle, Decision::Throttle) => true,
        _ => false,
    }
}

fn explain_bank(c: &Closing, dynamo: f64, yours: f64) -> String {
    let unit = unit_name(c.kind);
    let a = c.rate.allocation;
    let idle = c.next - c.second - 1;
    let left = (a - c.consumed).max(0.0);
    let cap = a * c.rate.burst_window_s as f64;
    let diff = yours - dynamo;
    let more = if diff > 0.0 { "more" } else { "less" };
    format!(
        "The first decision of yours that differs: partition {}'s {} bucket leaving second {} \
         for second {} ({} idle seconds between), with {} of its {} {unit} allocation consumed \
         and {} saved. DynamoDB carries {}: the closed second's unused {} plus {} idle seconds \
         × {}, at most {} s × {} = {}. Yours carried {} ({} {more}).",
        c.partition,
        kind_name(c.kind),
        c.second,
        c.next,
        thousands(idle),
        units(c.consumed),
        units(a),
        units(c.burst),
        units(dynamo),
        units(left),
        thousands(idle),
        units(a),
        thousands(c.rate.burst_window_s),
        units(a),
        units(cap),
        units(yours),
        units(diff.abs()),
    )
}

fn explain_admit(a: &Ask, dynamo: Decision, yours: Decision) -> String {
    let unit = unit_name(a.kind);
    let after = a.consumed + a.units;
    let past = (after - a.rate.allocation).min(a.units);
    let reason = if a.consumed == 0.0 {
        format!(
            "it is the partition's first {} of the second, which always goes through",
            kind_name(a.kind)
        )
    } else if after > a.rate.ceiling {
        format!(
            "it would take the partition to {} {unit} this second, past the ceiling of {}",
            units(after),
            units(a.rate.ceiling)
        )
    } else if after <= a.rate.allocation {
        format!(
            "{} {unit} fit the allocation of {}",
            units(after),
            units(a.rate.allocation)
        )
    } else if a.table_lends {
        "the table's unused capacity this second covers it (adaptive capacity)".to_string()
    } else if past <= a.burst {
        format!(
            "burst pays the {} {unit} past the allocation of {}, leaving {}",
            units(past),
            units(a.rate.allocation),
            units(a.burst - past)
        )
    } else {
        format!(
            "the {} {unit} past the allocation of {} need burst, and only {} is saved",
            units(past),
            units(a.rate.allocation),
            units(a.burst)
        )
    };
    let dynamo_verdict = match dynamo {
        Decision::Admit { .. } => "admits it",
        Decision::Throttle => "throttles it",
    };
    let yours = match yours {
        Decision::Admit { burst } => format!("admitted it, leaving {} saved", units(burst)),
        Decision::Throttle => "throttled it".to_string(),
    };
    format!(
        "The first decision of yours that differs: second {}, partition {}, a {} of {} {unit} \
         with {} {unit} already admitted this second (allocation {}, ceiling {}, burst {} \
         saved, the table lends: {}). DynamoDB {} because {}. Yours {}.",
        a.second,
        a.partition,
        kind_name(a.kind),
        units(a.units),
        units(a.consumed),
        units(a.rate.allocation),
        units(a.rate.ceiling),
        units(a.burst),
        if a.table_lends { "yes" } else { "no" },
        dynamo_verdict,
        reason,
        yours,
    )
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Read => "read",
        Kind::Write => "write",
    }
}

fn unit_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Read => "RCU",
        Kind::Write => "WCU",
    }
}

/// Units as the lessons write them: `3,000`, `0.5`, `12.5`.
fn units(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        thousands(x as i64)
    } else {
        format!("{}{:.1}", thousands(x.trunc() as i64), x.fract().abs()).replacen("0.", ".", 1)
    }
}

// ---------------------------------------------------------------------------------------------
// The tests.

fn spends_a_lesson_burst_then_runs_dry() {
    // The lesson: 100 WCU idle five minutes banks 30,000 units and absorbs 400 writes/s for 100
    // seconds. Scaled down: 5 WCU idle ten minutes banks 300 s × 5 = 1,500 (not 3,000: the
    // window caps it), and 20 writes/s spend 15 a second from it for 100 seconds.
    let mut plan = Plan::new(1, 5);
    let mut rng = Rng::new(7);
    for second in 600..710 {
        for _ in 0..20 {
            plan.put(second, format!("user-{}", rng.below(50)), 1);
        }
    }
    mirror(
        7,
        "5 WCU, idle for 600 seconds, then 20 writes of 1 KB a second for 110 seconds.",
        &plan,
    );
}

fn banks_what_each_second_leaves_unused(seed: u64) {
    let mut rng = Rng::new(seed);
    let rates = [4, 6, 8, 10];
    let wcu = rates[rng.below(4) as usize];
    // A change must change something: DynamoDB refuses an UpdateTable to the throughput the
    // table has, so a draw equal to `wcu` takes the next rate instead.
    let drawn = rng.below(4) as usize;
    let later = if rates[drawn] == wcu {
        rates[(drawn + 1) % rates.len()]
    } else {
        rates[drawn]
    };
    let mut plan = Plan::new(1, wcu);
    let mut second = 1 + rng.below(20);
    let change_at = 70;
    let mut changed = false;
    while second < 150 {
        if !changed && second >= change_at {
            plan.at(second, Op::Provision(1, later));
            changed = true;
        }
        let allocation = if changed { later } else { wcu } as u64;
        // A busy stretch past the allocation, then quiet seconds under it, then idle.
        for _ in 0..1 + rng.below(3) {
            let mut demand = 0;
            let target = allocation * (2 + rng.below(3));
            while demand < target {
                let kb = 1 + rng.below(4) as usize;
                plan.put(second, format!("k{}", rng.below(40)), kb);
                demand += kb as u64;
            }
            second += 1;
        }
        for _ in 0..rng.below(3) {
            for _ in 0..rng.below(allocation) {
                plan.put(second, format!("k{}", rng.below(40)), 1);
            }
            second += 1;
        }
        second += 1 + rng.below(30);
    }
    let scenario = format!(
        "{wcu} WCU (then {later} WCU from second {change_at}, by UpdateTable): busy seconds of \
         1–4 KB writes past the allocation, quiet seconds under it, idle gaps of 1 to 30 seconds."
    );
    mirror(seed, &scenario, &plan);
}

fn caps_a_hot_key_at_the_partition_ceiling(seed: u64) {
    // 6,000 RCU and 2,000 WCU: four partitions of 1,500 RCU and 500 WCU each; 100 idle seconds
    // save 50,000 WCU and 150,000 RCU of burst on every partition — the ceiling must hold anyway.
    let mut rng = Rng::new(seed);
    let mut plan = Plan::new(6000, 2000);
    for second in 100..105 {
        // 40 KB writes (40 WCU each): 1,120 to 1,400 WCU on one key.
        for _ in 0..28 + rng.below(8) {
            plan.put(second, "GLOBAL_COUNTER", 40);
        }
        // Strong reads of the 40 KB item (10 RCU each): 3,200 to 3,800 RCU.
        for _ in 0..320 + rng.below(60) {
            plan.get(second, "GLOBAL_COUNTER", true);
        }
        for _ in 0..10 {
            plan.put(second, format!("other-{}", rng.below(1000)), 1);
        }
    }
    mirror(
        seed,
        "Four partitions of 1,500 RCU / 500 WCU, idle 100 seconds (a large burst saved), then \
         1,120–1,400 WCU of writes and 3,200–3,800 RCU of strong reads a second on one key.",
        &plan,
    );
}

fn keeps_reads_and_writes_apart(seed: u64) {
    let mut rng = Rng::new(seed);
    let rcu: u64 = [4, 6, 8][rng.below(3) as usize];
    let wcu: u64 = [3, 5][rng.below(2) as usize];
    let mut plan = Plan::new(rcu as i64, wcu as i64);
    let mut second = 1 + rng.below(10);
    while second < 120 {
        let reads = rng.below(2) == 0;
        for _ in 0..1 + rng.below(3) {
            if reads {
                // Mostly eventual reads (0.5 RCU each), some strong (1 RCU).
                for _ in 0..rcu * (6 + rng.below(5)) {
                    let strong = rng.below(4) == 0;
                    plan.get(second, format!("k{}", rng.below(20)), strong);
                }
                for _ in 0..rng.below(wcu) {
                    plan.put(second, format!("k{}", rng.below(20)), 1);
                }
            } else {
                for _ in 0..wcu * (2 + rng.below(3)) {
                    plan.put(second, format!("k{}", rng.below(20)), 1);
                }
                for _ in 0..rng.below(rcu) {
                    plan.get(second, format!("k{}", rng.below(20)), false);
                }
            }
            second += 1;
        }
        second += 1 + rng.below(15);
    }
    let scenario = format!(
        "{rcu} RCU and {wcu} WCU on one partition: read spikes (eventual reads at 0.5 RCU, some \
         strong at 1) and write spikes at different seconds, idle gaps between."
    );
    mirror(seed, &scenario, &plan);
}

fn serves_an_item_larger_than_the_allocation() {
    let mut plan = Plan::new(1, 5);
    for second in 1..40 {
        plan.put(second, "report", 8);
        plan.put(second, format!("small-{second}"), 1);
    }
    mirror(
        11,
        "5 WCU: each second, one 8 KB write (8 WCU, more than the allocation), then a 1 KB write.",
        &plan,
    );
}

fn honours_the_tables_loan(seed: u64) {
    // 3,000 WCU: four partitions of 750 WCU. One key takes 850–950 WCU a second — past its
    // partition's allocation, within the table's and under the ceiling.
    let mut rng = Rng::new(seed);
    let mut plan = Plan::new(1, 3000);
    for second in 1..25 {
        for _ in 0..85 + rng.below(11) {
            plan.put(second, "busy", 10);
        }
        for _ in 0..rng.below(5) {
            plan.put(second, format!("quiet-{}", rng.below(100)), 1);
        }
    }
    mirror(
        seed,
        "3,000 WCU on four partitions (750 each): one key writes 850–950 WCU a second while the \
         others are quiet.",
        &plan,
    );
}

fn follows_a_rate_change() {
    // 10 WCU: a write at second 350 banks the capped 3,000. UpdateTable to 4 WCU at second 360
    // lowers the cap to 1,200, so the next close shrinks the balance to it; 20 writes a second
    // from second 361 spend 16 a second from it for 75 seconds.
    let mut plan = Plan::new(1, 10);
    plan.put(350, "first", 1);
    plan.at(360, Op::Provision(1, 4));
    for second in 361..450 {
        for i in 0..20 {
            plan.put(second, format!("k{i}"), 1);
        }
    }
    mirror(
        5,
        "10 WCU idle until second 350 (3,000 saved), UpdateTable to 4 WCU at second 360, then \
         20 writes of 1 KB a second.",
        &plan,
    );
}
