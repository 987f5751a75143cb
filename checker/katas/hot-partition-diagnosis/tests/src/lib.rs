//! Hidden tests of the `hot-partition-diagnosis` kata.
//!
//! Every workload is drawn from the seed (`scene.rs`) and captured on a fresh `events` table:
//! one PutItem per event at its `at_ms`, today's keys (`TENANT#<tenant>`), nothing retried.
//!
//! - `names_the_hot_key`: on the hot-key workload (a 1,200 WCU tenant sharing a partition with
//!   a busier-by-count 400 WCU tenant), `diagnose` returns `HotKey` with the key by units, as
//!   stored, and its partition (`world.partition_of`).
//! - `a_short_table_has_no_hot_key`: 750 WCU of small tenants on 500 WCU → `TableCapacity`.
//! - `a_calm_table_is_healthy`: nothing throttled → `Healthy`.
//! - `the_fix_runs_unthrottled` / `more_capacity_fixes_a_short_table`: the learner's own
//!   diagnosis, `throughput` and `partition_key` replayed on a fresh table; judged by the
//!   engine's per-partition metrics: no throttled write in any second.
//! - `reads_find_every_event`: the hot-key workload stored under the learner's keys (the right
//!   diagnosis given); Querying each of `read_keys` finds exactly a tenant's events, with at
//!   most `MAX_READ_KEYS` keys and one key for a tenant that is not hot.

mod scene;

use std::collections::{BTreeMap, BTreeSet};

use engine::error::ProvideErrorMetadata;
use engine::types::{AttributeValue, ProvisionedThroughput};
use engine::{Error, Item, World};
use given::{tenant_key, Diagnosis, Event, Workload, MAX_READ_KEYS, PARTITION_WCU, TABLE};
use katas_testkit::{fail, run, seeded, thousands};
use learner::{diagnose, partition_key, read_keys, throughput};

use scene::{capture, keys_lines, partition_of, picture, today, Asked, Scene};

katas_testkit::learner! {
    /// What the capture in `world` shows.
    fn diagnose(world: &World, workload: &Workload) -> Result<Diagnosis, Error>;
    /// The table's capacity for the replay of the fix.
    fn throughput(workload: &Workload, diagnosis: &Diagnosis) -> Result<ProvisionedThroughput, Error>;
    /// The partition key an event is stored under in the fixed design.
    fn partition_key(event: &Event, diagnosis: &Diagnosis) -> String;
    /// The partition keys to Query for every event of a tenant.
    fn read_keys(tenant: &str, diagnosis: &Diagnosis) -> Vec<String>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("names_the_hot_key", names_the_hot_key),
        seeded("a_short_table_has_no_hot_key", a_short_table_has_no_hot_key),
        seeded("a_calm_table_is_healthy", a_calm_table_is_healthy),
        seeded("the_fix_runs_unthrottled", the_fix_runs_unthrottled),
        seeded(
            "more_capacity_fixes_a_short_table",
            more_capacity_fixes_a_short_table,
        ),
        seeded("reads_find_every_event", reads_find_every_event),
    ]);
}

/// Captures `scene` with today's keys and runs the learner's `diagnose` on it.
fn captured(seed: u64, scene: &Scene) -> (World, Diagnosis) {
    let w = &scene.workload;
    let world = capture(seed, w, w.throughput.clone(), &today(w));
    let diagnosis = match diagnose(&world, w) {
        Ok(d) => d,
        Err(e) => fail(format!("diagnose(world, {}) failed: {e}", w.name)),
    };
    (world, diagnosis)
}

/// The partition-second with the most throttled writes: (second, partition, throttled,
/// consumed WCU).
fn worst_throttle(world: &World) -> Option<(u64, u32, u64, f64)> {
    world
        .partition_metrics(TABLE, None)
        .unwrap_or_default()
        .iter()
        .filter(|m| m.throttled_writes > 0)
        .max_by_key(|m| m.throttled_writes)
        .map(|m| (m.second, m.partition, m.throttled_writes, m.consumed_write))
}

fn throttled_writes(world: &World) -> u64 {
    world
        .partition_metrics(TABLE, None)
        .unwrap_or_default()
        .iter()
        .map(|m| m.throttled_writes)
        .sum()
}

fn table_consumed(world: &World, second: u64) -> f64 {
    world
        .partition_metrics(TABLE, None)
        .unwrap_or_default()
        .iter()
        .filter(|m| m.second == second)
        .map(|m| m.consumed_write)
        .sum()
}

/// The hot-key workload: the tenant by units, not the busier one by count.
fn names_the_hot_key(seed: u64) {
    let scene = scene::hot_key(seed);
    let w = &scene.workload;
    let (world, got) = captured(seed, &scene);
    let hot = scene.hot.clone().unwrap_or_default();
    let hot_key = tenant_key(&hot);
    let partition = partition_of(&world, &hot_key);
    let expected = Diagnosis::HotKey {
        key: hot_key.clone(),
        partition,
    };
    if got == expected {
        return;
    }
    let asked = Asked::of(w, &today(w));
    let (worst_second, worst_p, worst_n, worst_consumed) =
        worst_throttle(&world).unwrap_or((0, partition, 0, 0.0));
    let on = asked.on(&world, worst_second, worst_p);
    let figures = |key: &str| {
        on.iter()
            .find(|(k, _, _)| k == key)
            .map_or((0, 0), |(_, u, n)| (*u, *n))
    };
    let (hot_units, hot_writes) = figures(&hot_key);
    let evidence = format!(
        "In second {worst_second} of the capture, partition {worst_p} consumed {} WCU — a \
         partition's ceiling is {} — and throttled {} writes, while the table as a whole \
         consumed {} of its {} WCU. The keys on partition {worst_p} asked for, that second:\n{}",
        thousands(worst_consumed.round() as i64),
        thousands(PARTITION_WCU),
        thousands(worst_n),
        thousands(table_consumed(&world, worst_second).round() as i64),
        thousands(w.throughput.write_capacity_units),
        keys_lines(&on)
    );
    let why = match &got {
        Diagnosis::HotKey { key, partition: p } if *key == hot && *p == partition => format!(
            "diagnose named {key:?}, the tenant; the key is the partition key's value as stored: \
             {hot_key:?}."
        ),
        Diagnosis::HotKey { key, partition: p } if *key == hot_key => format!(
            "diagnose named the right key, {hot_key}, but partition {p}: the key lives on \
             partition {partition}, and the world knows which partition holds any key."
        ),
        Diagnosis::HotKey { key, .. } if on.iter().any(|(k, _, _)| k == key) => {
            let (units, writes) = figures(key);
            let most = on.iter().map(|(_, _, n)| *n).max().unwrap_or(0);
            format!(
                "diagnose named {key:?}: it is on the throttled partition, {partition}, but a \
                 partition is not a key — partition {partition} holds {} keys of the workload, \
                 and {key} asked for {} WCU ({} writes{}). DynamoDB charges a write by size, \
                 ceil(item size / 1,024) WCU, not by count: {hot_key}'s items are about 3.2 KB, \
                 rounded up to 4 WCU each, so its {} writes asked for {} WCU — more than any \
                 partition serves. That key is the hot one; the others stay where they are.",
                on.len(),
                thousands(units),
                thousands(writes),
                if writes == most && writes > hot_writes {
                    format!(
                        ", the most writes of any key, vs {} of {hot_key}",
                        thousands(hot_writes)
                    )
                } else {
                    String::new()
                },
                thousands(hot_writes),
                thousands(hot_units)
            )
        }
        Diagnosis::HotKey { key, partition: p } => format!(
            "diagnose named {key:?} on partition {p}; the throttles were on partition \
             {partition}, and the key that asked for more than a partition serves is {hot_key} \
             ({} WCU in second {worst_second}).",
            thousands(hot_units)
        ),
        Diagnosis::TableCapacity => format!(
            "diagnose said TableCapacity, but one key asked for more than a partition serves: \
             {hot_key}, {} writes of about 3.2 KB, each rounded up to 4 KB = 4 WCU: {} WCU. \
             (Unrounded, 3.1 WCU a write looks like {} WCU — under the ceiling. DynamoDB \
             rounds every item up.) The table had capacity to spare; only one partition was \
             throttled.",
            thousands(hot_writes),
            thousands(hot_units),
            thousands((hot_units as f64 * 3_200.0 / 4_096.0).round() as i64)
        ),
        Diagnosis::Healthy => format!(
            "diagnose said Healthy, but the engine's metrics show {} throttled writes.",
            thousands(throttled_writes(&world))
        ),
    };
    fail(format!(
        "diagnose(world, {}) returned {got:?}; expected {expected:?}.\n{why}\n{evidence}{}",
        w.name,
        picture(&world)
    ));
}

/// Small tenants on a table short of capacity: every partition throttled, none at its
/// ceiling.
fn a_short_table_has_no_hot_key(seed: u64) {
    let scene = scene::short_table(seed);
    let w = &scene.workload;
    let (world, got) = captured(seed, &scene);
    if got == Diagnosis::TableCapacity {
        return;
    }
    let asked = Asked::of(w, &today(w));
    let (top_units, top_writes, top_second, top_key) = asked.hottest().unwrap_or_default();
    let (busiest, busiest_second) = asked.busiest_second();
    let metrics = world.partition_metrics(TABLE, None).unwrap_or_default();
    let throttled_partitions: BTreeSet<u32> = metrics
        .iter()
        .filter(|m| m.throttled_writes > 0)
        .map(|m| m.partition)
        .collect();
    let peak = metrics.iter().map(|m| m.consumed_write).fold(0.0, f64::max);
    let why = match &got {
        Diagnosis::HotKey { key, .. } => format!(
            "{key:?} is not hot: the most any key asked for in one second was {} WCU ({top_key}, \
             {} writes in second {top_second}), far under the {} WCU a partition serves.",
            thousands(top_units),
            thousands(top_writes),
            thousands(PARTITION_WCU)
        ),
        _ => format!(
            "The engine's metrics show {} throttled writes.",
            thousands(throttled_writes(&world))
        ),
    };
    fail(format!(
        "diagnose(world, {}) returned {got:?}; expected TableCapacity.\n{why} Writes were \
         throttled on {} of the table's partitions, and none reached its ceiling (the busiest \
         consumed {} WCU of {}): the whole workload asked for {} WCU in second \
         {busiest_second}, and the table has {} WCU. The table is short of capacity.\n{}",
        w.name,
        throttled_partitions.len(),
        thousands(peak.round() as i64),
        thousands(PARTITION_WCU),
        thousands(busiest),
        thousands(w.throughput.write_capacity_units),
        picture(&world)
    ));
}

/// Quiet tenants: nothing throttled.
fn a_calm_table_is_healthy(seed: u64) {
    let scene = scene::calm(seed);
    let w = &scene.workload;
    let (world, got) = captured(seed, &scene);
    if got == Diagnosis::Healthy {
        return;
    }
    let peak = world
        .partition_metrics(TABLE, None)
        .unwrap_or_default()
        .iter()
        .map(|m| m.consumed_write)
        .fold(0.0, f64::max);
    fail(format!(
        "diagnose(world, {}) returned {got:?}; expected Healthy: the engine's metrics show {} \
         throttled writes in every partition and second, and the busiest partition consumed {} \
         WCU of the {} it serves. Without a throttle there is no symptom to name a cause \
         for.",
        w.name,
        thousands(throttled_writes(&world)),
        thousands(peak.round() as i64),
        thousands(PARTITION_WCU)
    ));
}

/// The learner's keys for every event, refusing a key DynamoDB would refuse.
fn learner_keys(workload: &Workload, diagnosis: &Diagnosis) -> Vec<String> {
    let keys: Vec<String> = workload
        .events
        .iter()
        .map(|e| partition_key(e, diagnosis))
        .collect();
    if let Some((e, k)) = workload
        .events
        .iter()
        .zip(&keys)
        .find(|(_, k)| k.is_empty() || k.len() > 2048)
    {
        fail(format!(
            "partition_key(event {} of tenant {}, {diagnosis:?}) returned a key of {} bytes: a \
             partition key is 1 to 2,048 bytes.",
            e.id,
            e.tenant,
            k.len()
        ));
    }
    keys
}

/// Replays the learner's fix of `scene` and fails with what the metrics show if any write was
/// throttled.
fn replay_fix(seed: u64, scene: &Scene, expected: &Diagnosis) {
    let w = &scene.workload;
    let (_, diagnosis) = captured(seed, scene);
    let fix = match throughput(w, &diagnosis) {
        Ok(t) => t,
        Err(e) => fail(format!(
            "throughput({}, {diagnosis:?}) failed: {e}{}",
            w.name,
            if e.message().unwrap_or_default().starts_with("TODO") {
                ""
            } else {
                "\nthroughput returns the capacity the fixed table is to have: without it there \
                 is nothing to replay."
            }
        )),
    };
    if fix.read_capacity_units < 1 || fix.write_capacity_units < 1 {
        fail(format!(
            "throughput({}, {diagnosis:?}) returned {} RCU / {} WCU: a provisioned table has at \
             least 1 of each (workload.throughput has {} RCU).",
            w.name,
            fix.read_capacity_units,
            fix.write_capacity_units,
            w.throughput.read_capacity_units
        ));
    }
    let keys = learner_keys(w, &diagnosis);
    let world = capture(seed, w, fix.clone(), &keys);
    let Some((second, p, n, consumed)) = worst_throttle(&world) else {
        return;
    };
    let asked = Asked::of(w, &keys);
    let on = asked.on(&world, second, p);
    let table = table_consumed(&world, second);
    let (top_key, top_units, top_writes) = on.first().cloned().unwrap_or_default();
    let tenants: BTreeSet<String> = asked
        .by_key
        .get(&(second, top_key.clone()))
        .map(|x| x.2.clone())
        .unwrap_or_default();
    let tenant = tenants.iter().next().cloned().unwrap_or_default();
    let mut cause = if top_units > PARTITION_WCU {
        let mut c = format!(
            "One key alone, {top_key:?}, asked for {} WCU ({} writes) in second {second}: more \
             than any partition serves, whatever the table's capacity.",
            thousands(top_units),
            thousands(top_writes)
        );
        if top_key == tenant_key(&tenant) {
            c.push_str(&format!(
                " partition_key kept every event of {tenant} under its one key."
            ));
        } else {
            c.push_str(&format!(
                " It is one of {tenant}'s new keys: every write of {tenant} in second {second} \
                 went to it. A suffix that is the same for all of a second's writes moves the \
                 hot key to a new name instead of spreading it."
            ));
        }
        if fix.write_capacity_units > w.throughput.write_capacity_units {
            c.push_str(&format!(
                " The table had {} WCU and consumed {} that second: raising capacity adds \
                 partitions, and the key still lives on one of them.",
                thousands(fix.write_capacity_units),
                thousands(table.round() as i64)
            ));
        }
        c
    } else if consumed + 4.5 >= PARTITION_WCU as f64 {
        format!(
            "{} of your keys share partition {p}, and together they asked for more than its \
             {} WCU: shards hash onto partitions like any key, and several can land on one, \
             each bringing its share of the hot key's writes.",
            on.len(),
            thousands(PARTITION_WCU)
        )
    } else {
        let (busiest, _) = asked.busiest_second();
        format!(
            "No partition was at its ceiling: the table ran out. It had {} WCU, and the \
             workload asks for {} WCU in its busiest second (every event priced by size).",
            thousands(fix.write_capacity_units),
            thousands(busiest)
        )
    };
    if diagnosis != *expected {
        cause = format!(
            "Your diagnosis was {diagnosis:?}, and the capture shows {expected:?} (see \
             names_the_hot_key and its siblings). {cause}"
        );
    }
    fail(format!(
        "The replay of {} with your fix — {} RCU / {} WCU, keys from partition_key — was \
         throttled: in second {second}, partition {p} consumed {} WCU and throttled {} writes, \
         {} in all.\n{cause}\nThe keys on partition {p} asked for, that second:\n{}{}",
        w.name,
        thousands(fix.read_capacity_units),
        thousands(fix.write_capacity_units),
        thousands(consumed.round() as i64),
        thousands(n),
        thousands(throttled_writes(&world)),
        keys_lines(&on),
        picture(&world)
    ));
}

/// The hot-key workload, replayed with the learner's fix: nothing throttled.
fn the_fix_runs_unthrottled(seed: u64) {
    let scene = scene::hot_key(seed);
    let hot = tenant_key(scene.hot.as_deref().unwrap_or_default());
    let layout = capture(
        seed,
        &scene.workload,
        scene.workload.throughput.clone(),
        &[],
    );
    let partition = partition_of(&layout, &hot);
    replay_fix(
        seed,
        &scene,
        &Diagnosis::HotKey {
            key: hot,
            partition,
        },
    );
}

/// The short table, replayed with the learner's fix: nothing throttled.
fn more_capacity_fixes_a_short_table(seed: u64) {
    let scene = scene::short_table(seed);
    replay_fix(seed, &scene, &Diagnosis::TableCapacity);
}

/// Every item under one partition key (strongly consistent Query, every page).
fn query_all(world: &World, key: &str) -> Vec<Item> {
    let client = world.client();
    let mut items = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(key.to_string()))
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .unwrap_or_else(|e| fail(format!("the test's Query of PK = {key:?} failed: {e}")));
        items.extend(page.items().iter().cloned());
        match page.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => return items,
        }
    }
}

/// The hot-key workload stored under the learner's keys: each tenant's events found by
/// Querying its read keys, bounded; and one key per tenant without a hot key.
fn reads_find_every_event(seed: u64) {
    let scene = scene::hot_key(seed);
    let w = &scene.workload;
    let hot = scene.hot.clone().unwrap_or_default();
    let busy = scene.busy.clone().unwrap_or_default();
    let layout = capture(seed, w, w.throughput.clone(), &[]);
    let diagnosis = Diagnosis::HotKey {
        key: tenant_key(&hot),
        partition: partition_of(&layout, &tenant_key(&hot)),
    };

    // Without a hot key, nobody is sharded.
    for other in [Diagnosis::TableCapacity, Diagnosis::Healthy] {
        for tenant in scene.quiet.iter().take(3).chain([&hot]) {
            let read = read_keys(tenant, &other);
            let event = w.events.iter().find(|e| e.tenant == *tenant);
            let written = event.map(|e| partition_key(e, &other)).unwrap_or_default();
            if read != [written.clone()] {
                fail(format!(
                    "With {other:?}, no key is hot, and tenant {tenant} should keep its one key: \
                     partition_key put its event under {written:?}, and read_keys({tenant:?}, \
                     {other:?}) returned {read:?} — expected [{written:?}], one Query."
                ));
            }
        }
    }

    let keys = learner_keys(w, &diagnosis);
    let world = scene::store_all(seed, w, &keys);
    let mut tenants = vec![hot.clone(), busy.clone()];
    tenants.extend(scene.quiet.iter().take(2).cloned());
    for tenant in &tenants {
        let read = read_keys(tenant, &diagnosis);
        let call = format!("read_keys({tenant:?}, {diagnosis:?})");
        let distinct: BTreeSet<&String> = read.iter().collect();
        let is_hot = *tenant == hot;
        if read.is_empty() {
            fail(format!(
                "{call} returned no keys: the service could not read tenant {tenant}'s events at \
                 all: a tenant's events are found only under the keys read_keys names."
            ));
        }
        if distinct.len() > MAX_READ_KEYS {
            fail(format!(
                "{call} returned {} keys: the read pattern reads a tenant with at most {} \
                 Queries, one per key.",
                distinct.len(),
                MAX_READ_KEYS
            ));
        }
        if !is_hot && distinct.len() != 1 {
            let units: u64 = w
                .events
                .iter()
                .filter(|e| e.tenant == *tenant && e.at_ms < 1000)
                .map(|e| scene::units(e, &tenant_key(tenant)))
                .sum();
            fail(format!(
                "{call} returned {} keys for {tenant}, which is not hot: it asked for {} WCU a \
                 second, well within one partition. Sharding is for the hot key only — every \
                 other tenant's read now takes {} Queries instead of one.",
                distinct.len(),
                thousands(units),
                distinct.len()
            ));
        }
        // Where partition_key put the tenant's events, and what the Queries find.
        let mut written: BTreeMap<&str, u64> = BTreeMap::new();
        let mut expected: BTreeSet<&str> = BTreeSet::new();
        for (e, k) in w.events.iter().zip(&keys) {
            if e.tenant == *tenant {
                *written.entry(k).or_insert(0) += 1;
                expected.insert(&e.id);
            }
        }
        let mut found: BTreeSet<String> = BTreeSet::new();
        let mut strangers: BTreeMap<String, u64> = BTreeMap::new();
        for key in &distinct {
            for item in query_all(&world, key) {
                let of = item.get("tenant").and_then(|v| v.as_s().ok()).cloned();
                let sk = item.get("SK").and_then(|v| v.as_s().ok()).cloned();
                match (of, sk) {
                    (Some(of), Some(sk)) if of == *tenant => {
                        found.insert(sk);
                    }
                    (of, _) => *strangers.entry(of.unwrap_or_default()).or_insert(0) += 1,
                }
            }
        }
        let missing: Vec<&str> = expected
            .iter()
            .filter(|id| !found.contains(**id))
            .copied()
            .collect();
        if !missing.is_empty() {
            let unread: Vec<(&str, u64)> = written
                .iter()
                .filter(|(k, _)| !distinct.contains(&k.to_string()))
                .map(|(k, n)| (*k, *n))
                .collect();
            let sample: Vec<String> = unread
                .iter()
                .take(4)
                .map(|(k, n)| format!("{k:?} ({n})"))
                .collect();
            let shape = if written.len() > MAX_READ_KEYS {
                format!(
                    " partition_key put its {} events under {} different keys, more than the {} \
                     Queries a tenant's read may take: a suffix from an unbounded set of values \
                     cannot be read back with a bounded number of Queries.",
                    thousands(expected.len() as u64),
                    thousands(written.len() as u64),
                    MAX_READ_KEYS
                )
            } else {
                String::new()
            };
            fail(format!(
                "Querying the {} key(s) of {call} found {} of tenant {tenant}'s {} events: {} \
                 are missing (e.g. {}).{shape} Keys partition_key wrote them under that \
                 read_keys does not name: {}{}.",
                distinct.len(),
                thousands(found.len() as u64),
                thousands(expected.len() as u64),
                thousands(missing.len() as u64),
                missing
                    .iter()
                    .take(3)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", "),
                sample.join(", "),
                if unread.len() > sample.len() {
                    format!(
                        " and {} more",
                        thousands((unread.len() - sample.len()) as u64)
                    )
                } else {
                    String::new()
                }
            ));
        }
        if let Some((other, n)) = strangers.iter().next() {
            fail(format!(
                "Querying the keys of {call} returned {n} items of tenant {other:?} too: a \
                 tenant's keys must hold only its own events, or its reads pay for another's."
            ));
        }
    }
}
