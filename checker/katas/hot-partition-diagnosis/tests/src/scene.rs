//! The workloads the tests capture, the replay that captures them, and the accounting a
//! failure message is built from: which units each partition key asked for in each second,
//! and where each key lives.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use engine::types::{
    AttributeDefinition, AttributeValue, KeySchemaElement, KeyType, ProvisionedThroughput,
    ScalarAttributeType,
};
use engine::{Client, Error, World};
use given::{tenant_key, Event, Workload, TABLE};
use katas_testkit::{fail, thousands, Rng};

/// Names tenants are drawn from.
const NAMES: &[&str] = &[
    "acorn", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "jasper",
    "kestrel", "lumen", "maple", "nimbus", "onyx", "pebble", "quartz", "raven", "sierra", "tundra",
    "umber", "vega", "willow", "xenon", "yarrow", "zephyr", "alder", "basalt", "cedar", "dune",
    "egret", "flint", "grove", "heron", "iris", "juniper", "kelp", "lark", "moss", "nova",
    "orchid", "pine", "quill", "reef", "sage", "thistle", "upland", "vale", "wren", "yew", "aspen",
    "brook", "clover", "dawn", "elm", "fern", "glade", "hazel", "ivy", "jade",
];

/// Seconds every workload lasts.
pub(crate) const SECONDS: u64 = 1;
/// The hot tenant's writes per second, and its items' size range (bytes): 4 WCU each.
pub(crate) const HOT_WRITES: u64 = 300;
const HOT_BYTES: (u64, u64) = (3_150, 3_250);
/// The busy tenant's writes per second (more than the hot one's), items of 1 WCU.
pub(crate) const BUSY_WRITES: u64 = 400;
const BUSY_BYTES: (u64, u64) = (150, 250);
/// Quiet tenants and their writes per second.
const QUIET_TENANTS: usize = 30;
const QUIET_WRITES: u64 = 8;
const QUIET_BYTES: (u64, u64) = (200, 900);
/// The short table's tenants and their writes per second.
const SHORT_TENANTS: usize = 30;
const SHORT_WRITES: u64 = 25;

/// A workload and who is who in it.
pub(crate) struct Scene {
    pub(crate) workload: Workload,
    /// The hot tenant and the busy one (hot-key workload only).
    pub(crate) hot: Option<String>,
    pub(crate) busy: Option<String>,
    pub(crate) quiet: Vec<String>,
}

fn throughput(rcu: i64, wcu: i64) -> ProvisionedThroughput {
    ProvisionedThroughput::new(rcu, wcu)
}

/// Draws `n` distinct names.
fn names(rng: &mut Rng, n: usize) -> Vec<String> {
    let mut pool: Vec<&str> = NAMES.to_vec();
    let mut out = Vec::new();
    while out.len() < n {
        let i = rng.below(pool.len() as u64) as usize;
        out.push(pool.swap_remove(i).to_string());
    }
    out
}

/// One tenant's events: `per_second` each second, at random moments, items of a size in
/// `bytes` (as DynamoDB counts them, under today's key). Ids are given later, in time order.
fn events(rng: &mut Rng, tenant: &str, per_second: u64, bytes: (u64, u64)) -> Vec<Event> {
    let mut out = Vec::new();
    for second in 0..SECONDS {
        for _ in 0..per_second {
            let size = bytes.0 + rng.below(bytes.1 - bytes.0 + 1);
            let mut event = Event {
                tenant: tenant.to_string(),
                id: "e-000000".to_string(),
                at_ms: second * 1000 + rng.below(1000),
                body: String::new(),
            };
            let bare = engine::item_size(&event.item(&tenant_key(tenant))) as u64;
            event.body = "x".repeat(size.saturating_sub(bare) as usize);
            out.push(event);
        }
    }
    out
}

fn workload(name: &str, throughput: ProvisionedThroughput, mut events: Vec<Event>) -> Workload {
    events.sort_by_key(|e| e.at_ms);
    for (i, e) in events.iter_mut().enumerate() {
        e.id = format!("e-{i:06}");
    }
    Workload {
        name: name.to_string(),
        throughput,
        events,
    }
}

/// A world for the production table: it has served traffic for long, so it starts with
/// nothing saved for bursts (a table new to a world is born with its buckets full).
fn production_world(seed: u64) -> World {
    World::with_config(engine::WorldConfig {
        seed,
        new_table_buckets_full: false,
        ..engine::WorldConfig::default()
    })
}

/// A fresh table of `throughput`, to see where keys would live.
fn layout(throughput: ProvisionedThroughput) -> World {
    let world = production_world(0);
    create_table(&world.client(), throughput);
    world
}

/// Monday's import: a hot tenant (300 writes a second of 3.2 KB: 1,200 WCU) and a busy one
/// (400 writes a second of 200 bytes: 400 WCU) on the same partition of a 9,000 WCU table of
/// ten partitions, and 30 quiet tenants.
pub(crate) fn hot_key(seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let table = throughput(3_000, 9_000);
    let mut tenants = names(&mut rng, QUIET_TENANTS + 8);
    let hot = tenants.remove(0);
    let layout = layout(table.clone());
    let hot_partition = partition_of(&layout, &tenant_key(&hot));
    let busy_at = tenants
        .iter()
        .position(|t| partition_of(&layout, &tenant_key(t)) == hot_partition)
        .unwrap_or(0);
    let busy = tenants.remove(busy_at);
    tenants.truncate(QUIET_TENANTS);
    let mut all = events(&mut rng, &hot, HOT_WRITES, HOT_BYTES);
    all.extend(events(&mut rng, &busy, BUSY_WRITES, BUSY_BYTES));
    for t in &tenants {
        all.extend(events(&mut rng, t, QUIET_WRITES, QUIET_BYTES));
    }
    Scene {
        workload: workload("Monday's import", table, all),
        hot: Some(hot),
        busy: Some(busy),
        quiet: tenants,
    }
}

/// Tuesday's sign-up wave: 30 tenants of 25 small writes a second (750 WCU) on a table of
/// 500 WCU. No key is hot; the table is short.
pub(crate) fn short_table(seed: u64) -> Scene {
    let mut rng = Rng::new(seed ^ 0x5107);
    let tenants = names(&mut rng, SHORT_TENANTS);
    let mut all = Vec::new();
    for t in &tenants {
        all.extend(events(&mut rng, t, SHORT_WRITES, QUIET_BYTES));
    }
    Scene {
        workload: workload("Tuesday's sign-up wave", throughput(3_000, 500), all),
        hot: None,
        busy: None,
        quiet: tenants,
    }
}

/// A quiet Wednesday: 30 quiet tenants on the 9,000 WCU table.
pub(crate) fn calm(seed: u64) -> Scene {
    let mut rng = Rng::new(seed ^ 0xca1);
    let tenants = names(&mut rng, QUIET_TENANTS);
    let mut all = Vec::new();
    for t in &tenants {
        all.extend(events(&mut rng, t, QUIET_WRITES, QUIET_BYTES));
    }
    Scene {
        workload: workload("a quiet Wednesday", throughput(3_000, 9_000), all),
        hot: None,
        busy: None,
        quiet: tenants,
    }
}

/// The table, as the tests create it.
pub(crate) fn create_table(client: &Client, throughput: ProvisionedThroughput) {
    let made = client
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .provisioned_throughput(throughput.clone())
        .send();
    if let Err(e) = made {
        fail(format!(
            "CreateTable with {} RCU / {} WCU failed: {}",
            throughput.read_capacity_units,
            throughput.write_capacity_units,
            Error::from(e)
        ));
    }
}

/// Replays `workload` on a fresh table of `throughput`: one PutItem per event at its `at_ms`,
/// under the partition key `keys` gives it, nothing retried (a throttled event is lost, as it
/// was in production). `None` keys mean today's design.
pub(crate) fn capture(
    seed: u64,
    workload: &Workload,
    throughput: ProvisionedThroughput,
    keys: &[String],
) -> World {
    let world = production_world(seed);
    let client = world.client();
    create_table(&client, throughput);
    for (event, key) in workload.events.iter().zip(keys) {
        let now = world.now().as_millis() as u64;
        if event.at_ms > now {
            world.advance(Duration::from_millis(event.at_ms - now));
        }
        let sent = client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(event.item(key)))
            .send();
        if let Err(e) = sent {
            let e = Error::from(e);
            if !e.is_throttling() {
                fail(format!(
                    "PutItem of event {} of tenant {} under PK = {key:?} failed: {e}",
                    event.id, event.tenant
                ));
            }
        }
    }
    world
}

/// Stores every event under `keys`, retrying throttled writes (slowly, on the clock): for the
/// read test, where only where the items are matters.
pub(crate) fn store_all(seed: u64, workload: &Workload, keys: &[String]) -> World {
    let world = production_world(seed);
    let client = world.client();
    create_table(&client, workload.throughput.clone());
    for (event, key) in workload.events.iter().zip(keys) {
        loop {
            let sent = client
                .put_item()
                .table_name(TABLE)
                .set_item(Some(event.item(key)))
                .send();
            match sent.map_err(Error::from) {
                Ok(_) => break,
                Err(e) if e.is_throttling() => world.advance(Duration::from_millis(200)),
                Err(e) => fail(format!(
                    "PutItem of event {} of tenant {} under PK = {key:?} failed: {e}",
                    event.id, event.tenant
                )),
            }
        }
    }
    world.settle();
    world
}

/// Today's keys, one per event.
pub(crate) fn today(workload: &Workload) -> Vec<String> {
    workload
        .events
        .iter()
        .map(|e| tenant_key(&e.tenant))
        .collect()
}

/// Write units an event's PutItem asks for under `key`.
pub(crate) fn units(event: &Event, key: &str) -> u64 {
    (engine::item_size(&event.item(key)) as u64).div_ceil(1024)
}

/// What each partition key asked for in each second of a replay: units and writes.
#[derive(Default)]
pub(crate) struct Asked {
    /// (second, key) → (units, writes, tenants).
    pub(crate) by_key: BTreeMap<(u64, String), (u64, u64, BTreeSet<String>)>,
}

impl Asked {
    pub(crate) fn of(workload: &Workload, keys: &[String]) -> Asked {
        let mut asked = Asked::default();
        for (event, key) in workload.events.iter().zip(keys) {
            let entry = asked
                .by_key
                .entry((event.at_ms / 1000, key.clone()))
                .or_default();
            entry.0 += units(event, key);
            entry.1 += 1;
            entry.2.insert(event.tenant.clone());
        }
        asked
    }

    /// The keys of `second` on `partition`, busiest (by units) first.
    pub(crate) fn on(&self, world: &World, second: u64, partition: u32) -> Vec<(String, u64, u64)> {
        let mut out: Vec<(String, u64, u64)> = self
            .by_key
            .iter()
            .filter(|((s, key), _)| *s == second && partition_of(world, key) == partition)
            .map(|((_, key), (units, writes, _))| (key.clone(), *units, *writes))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// The most units one key asked for in one second: (units, writes, second, key).
    pub(crate) fn hottest(&self) -> Option<(u64, u64, u64, String)> {
        self.by_key
            .iter()
            .map(|((s, key), (units, writes, _))| (*units, *writes, *s, key.clone()))
            .max_by(|a, b| a.0.cmp(&b.0).then(b.3.cmp(&a.3)))
    }

    /// Units the whole workload asked for in its busiest second.
    pub(crate) fn busiest_second(&self) -> (u64, u64) {
        let mut per_second: BTreeMap<u64, u64> = BTreeMap::new();
        for ((s, _), (units, _, _)) in &self.by_key {
            *per_second.entry(*s).or_insert(0) += units;
        }
        per_second
            .into_iter()
            .max_by_key(|(_, u)| *u)
            .map(|(s, u)| (u, s))
            .unwrap_or((0, 0))
    }
}

pub(crate) fn partition_of(world: &World, key: &str) -> u32 {
    world
        .partition_of(TABLE, &AttributeValue::S(key.to_string()))
        .unwrap_or_else(|e| fail(format!("the test could not locate key {key:?}: {e}")))
}

/// `key  1,200 WCU (300 writes of 4 WCU)` lines for the keys of a partition-second, the
/// quiet ones folded into one line.
pub(crate) fn keys_lines(keys: &[(String, u64, u64)]) -> String {
    let mut out = String::new();
    let mut quiet = (0, 0, 0);
    for (key, units, writes) in keys {
        if *units >= 100 || out.lines().count() < 3 {
            let each = if writes > &0 && units % writes == 0 {
                format!(" of {} WCU", units / writes)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "    {key:<22} asked {:>6} WCU ({} writes{each})\n",
                thousands(*units),
                thousands(*writes)
            ));
        } else {
            quiet = (quiet.0 + 1, quiet.1 + units, quiet.2 + writes);
        }
    }
    if quiet.0 > 0 {
        out.push_str(&format!(
            "    … and {} more keys, {} WCU ({} writes) together\n",
            quiet.0,
            thousands(quiet.1),
            thousands(quiet.2)
        ));
    }
    out
}

/// The table's partitions during the replay, as the engine draws them: the header, every
/// partition that was throttled or took 100 WCU or more, and a count of the rest.
pub(crate) fn picture(world: &World) -> String {
    let full = world.render_partitions(TABLE, SECONDS).unwrap_or_default();
    let mut folded = 0;
    let mut out = String::new();
    for (i, line) in full.lines().enumerate() {
        let peak = line
            .split(" WCU/s peak")
            .next()
            .and_then(|head| head.rsplit(' ').next())
            .and_then(|n| n.parse::<f64>().ok())
            .unwrap_or(0.0);
        if i == 0 || line.contains("THROTTLED") || peak >= 100.0 {
            out.push_str(line);
            out.push('\n');
        } else {
            folded += 1;
        }
    }
    if folded > 0 {
        out.push_str(&format!(
            "    … and {folded} partitions under 100 WCU/s, none throttled\n"
        ));
    }
    out
}
