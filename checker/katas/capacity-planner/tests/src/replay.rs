//! The replay: a table created from the learner's plan, the workload's items loaded, then the
//! workload's traffic sent second by second on the simulated clock.
//!
//! ```text
//!   CreateTable(plan) ─▶ load the items the reads read (≤ 2,000 WCU a second, never more
//!                        than the plan's WCU) ─▶ 5 minutes idle (burst bucket full)
//!   ─▶ second 0, 1, 2 … of the workload: its PutItems and GetItems, then the clock moves on
//! ```
//!
//! "Spread" traffic is spread evenly over the table's partitions, as many distinct keys
//! spread in DynamoDB: the replay picks, for each partition, a few keys that hash to it and
//! sends each second's spread requests to the partitions in turn. The hot key gets its share
//! of every second's requests on top, on its own partition.

use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, AttributeValue, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::inspect::PartitionSecond;
use engine::{Client, Item, World};
use given::{Keys, Plan, Workload, TABLE};
use katas_testkit::fail;

use crate::model::{hot_share, Kind, Need};

/// Keys per partition the spread traffic cycles through.
const KEYS_PER_PARTITION: usize = 8;
/// The fastest the items are loaded before the replay (WCU a second): half of what a new
/// on-demand table takes at once, so loading never raises its allowance.
const LOAD_WCU: u64 = 2_000;
/// Idle time between loading and the replay: the burst bucket fills up (300 s).
pub const IDLE_BEFORE: Duration = Duration::from_secs(300);

/// A world with the table the plan describes.
pub struct Scene {
    pub world: World,
    pub client: Client,
}

/// Creates the table from the plan, or says why CreateTable refused it.
pub fn create(plan: &Plan, seed: u64) -> Result<Scene, String> {
    let world = World::new(seed);
    let client = world.client();
    let sent = client
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .billing_mode(plan.billing_mode.clone())
        .set_provisioned_throughput(plan.provisioned_throughput.clone())
        .send();
    match sent {
        Ok(_) => Ok(Scene { world, client }),
        Err(e) => Err(format!(
            "{}: {}",
            e.code().unwrap_or("error"),
            e.message().unwrap_or_default()
        )),
    }
}

/// What one second of the workload did, per kind (`[writes, reads]`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Second {
    pub sent: [u32; 2],
    pub throttled: [u32; 2],
    pub hot_sent: [u32; 2],
    pub hot_throttled: [u32; 2],
}

/// The replay's record.
pub struct Replay {
    /// Engine second of the workload's second 0.
    pub start_s: u64,
    pub partitions: Vec<u32>,
    pub hot_partition: Option<u32>,
    pub seconds: Vec<Second>,
    pub metrics: Vec<PartitionSecond>,
    pub provisioned: Option<(i64, i64)>,
}

fn kind_index(kind: Kind) -> usize {
    match kind {
        Kind::Write => 0,
        Kind::Read => 1,
    }
}

impl Replay {
    pub fn second(&self, t: usize) -> Second {
        self.seconds[t]
    }

    /// The first second with a throttled request, and its kind.
    pub fn first_throttle(&self) -> Option<(usize, Kind)> {
        self.seconds.iter().enumerate().find_map(|(t, s)| {
            if s.throttled[0] > 0 {
                Some((t, Kind::Write))
            } else if s.throttled[1] > 0 {
                Some((t, Kind::Read))
            } else {
                None
            }
        })
    }

    /// Units the table consumed in engine second `s`, per the engine's partition metrics.
    pub fn table_consumed(&self, s: u64, kind: Kind) -> f64 {
        self.metrics
            .iter()
            .filter(|m| m.second == s)
            .map(|m| consumed(m, kind))
            .sum()
    }

    /// Units partition `p` consumed in engine second `s`.
    pub fn partition_consumed(&self, p: u32, s: u64, kind: Kind) -> f64 {
        self.metrics
            .iter()
            .filter(|m| m.second == s && m.partition == p)
            .map(|m| consumed(m, kind))
            .sum()
    }

    /// Requests throttled on partition `p` in engine second `s`.
    pub fn partition_throttled(&self, p: u32, s: u64, kind: Kind) -> u64 {
        self.metrics
            .iter()
            .filter(|m| m.second == s && m.partition == p)
            .map(|m| match kind {
                Kind::Write => m.throttled_writes,
                Kind::Read => m.throttled_reads,
            })
            .sum()
    }

    /// The busiest second of the table before engine second `s` (loading included).
    pub fn peak_before(&self, s: u64, kind: Kind) -> f64 {
        let mut by_second = std::collections::BTreeMap::new();
        for m in self.metrics.iter().filter(|m| m.second < s) {
            *by_second.entry(m.second).or_insert(0.0) += consumed(m, kind);
        }
        by_second.values().copied().fold(0.0, f64::max)
    }

    /// Units consumed over the workload's seconds.
    pub fn consumed_over_workload(&self, kind: Kind) -> f64 {
        let end = self.start_s + self.seconds.len() as u64;
        self.metrics
            .iter()
            .filter(|m| m.second >= self.start_s && m.second < end)
            .map(|m| consumed(m, kind))
            .sum()
    }
}

fn consumed(m: &PartitionSecond, kind: Kind) -> f64 {
    match kind {
        Kind::Write => m.consumed_write,
        Kind::Read => m.consumed_read,
    }
}

fn is_throttle(code: Option<&str>) -> bool {
    matches!(
        code,
        Some("ProvisionedThroughputExceededException" | "ThrottlingException")
    )
}

/// An item of exactly `bytes` under `key`.
fn item_of(key: &str, bytes: u32) -> Item {
    let pad = (bytes as usize).saturating_sub("PK".len() + key.len() + "data".len());
    Item::from([
        ("PK".to_string(), AttributeValue::S(key.to_string())),
        ("data".to_string(), AttributeValue::S("x".repeat(pad))),
    ])
}

/// Moves the clock to the start of the next whole second.
fn to_next_second(world: &World) {
    let ms = world.now().as_millis() as u64 % 1000;
    world.advance(Duration::from_millis(1000 - ms));
}

/// Loads the items, waits, and replays the workload on the scene's table.
pub fn replay(scene: &Scene, workload: &Workload, plan: &Plan) -> Replay {
    let (world, client) = (&scene.world, &scene.client);
    let infos = world.partitions(TABLE).expect("the replay's table");
    let partitions: Vec<u32> = infos.iter().map(|p| p.id).collect();
    let hot = match &workload.keys {
        Keys::OneHot { key, percent } => Some((key.clone(), *percent)),
        Keys::Spread => None,
    };
    // For each partition, keys that hash to it (the hot key is left out of the spread keys).
    let mut pools: Vec<Vec<String>> = vec![Vec::new(); partitions.len()];
    let mut n = 0u64;
    while pools.iter().any(|p| p.len() < KEYS_PER_PARTITION) {
        let key = format!("ITEM#{n:05}");
        n += 1;
        let id = world
            .partition_of(TABLE, &AttributeValue::S(key.clone()))
            .expect("a partition");
        let slot = partitions.iter().position(|&p| p == id).expect("known");
        if pools[slot].len() < KEYS_PER_PARTITION {
            pools[slot].push(key);
        }
    }
    let hot_partition = hot.as_ref().map(|(key, _)| {
        world
            .partition_of(TABLE, &AttributeValue::S(key.clone()))
            .expect("a partition")
    });
    let bytes = workload.item_bytes;
    let pool_items: Vec<Vec<Item>> = pools
        .iter()
        .map(|keys| keys.iter().map(|k| item_of(k, bytes)).collect())
        .collect();
    let hot_item = hot.as_ref().map(|(key, _)| item_of(key, bytes));

    // Load every item once, gently.
    let need = Need::of(workload);
    let plan_wcu = plan
        .provisioned_throughput
        .clone()
        .map_or(LOAD_WCU, |t| t.write_capacity_units.max(1) as u64);
    let per_second = (LOAD_WCU.min(plan_wcu) / need.wpi).max(1) as usize;
    let mut to_load: Vec<&Item> = pool_items.iter().flatten().collect();
    to_load.extend(hot_item.iter());
    let mut sent_this_second = 0;
    let mut i = 0;
    while i < to_load.len() {
        if sent_this_second == per_second {
            world.advance(Duration::from_secs(1));
            sent_this_second = 0;
        }
        let put = client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(to_load[i].clone()))
            .send();
        sent_this_second += 1;
        match put {
            Ok(_) => i += 1,
            Err(e) if is_throttle(e.code()) => {
                world.advance(Duration::from_secs(1));
                sent_this_second = 0;
            }
            Err(e) => fail(format!(
                "the tests could not load the workload's items: {e}"
            )),
        }
    }
    to_next_second(world);
    world.advance(IDLE_BEFORE);
    world.settle();
    to_next_second(world);
    let start_s = world.now().as_secs();

    let strong = workload.consistent_reads;
    let mut seconds = Vec::new();
    let mut turn = 0usize;
    let mut idle = 0u64;
    for (writes, reads) in workload.per_second() {
        let mut sec = Second::default();
        if writes == 0 && reads == 0 {
            idle += 1;
            seconds.push(sec);
            continue;
        }
        if idle > 0 {
            world.advance(Duration::from_secs(idle));
            idle = 0;
        }
        for (kind, total) in [(Kind::Write, writes), (Kind::Read, reads)] {
            let k = kind_index(kind);
            let hot_n = hot.as_ref().map_or(0, |(_, pct)| hot_share(total, *pct));
            for j in 0..total {
                // Hot requests interleaved evenly among the spread ones.
                let is_hot = (u64::from(j) + 1) * u64::from(hot_n) / u64::from(total)
                    > u64::from(j) * u64::from(hot_n) / u64::from(total);
                let (key, item) = if is_hot {
                    let (key, _) = hot.as_ref().expect("a hot key");
                    (key.as_str(), hot_item.as_ref().expect("its item"))
                } else {
                    let slot = turn % partitions.len();
                    let index = (turn / partitions.len()) % KEYS_PER_PARTITION;
                    turn += 1;
                    (pools[slot][index].as_str(), &pool_items[slot][index])
                };
                let code = match kind {
                    Kind::Write => client
                        .put_item()
                        .table_name(TABLE)
                        .set_item(Some(item.clone()))
                        .send()
                        .err()
                        .map(|e| (e.code().map(str::to_string), e.to_string())),
                    Kind::Read => client
                        .get_item()
                        .table_name(TABLE)
                        .key("PK", AttributeValue::S(key.to_string()))
                        .consistent_read(strong)
                        .send()
                        .err()
                        .map(|e| (e.code().map(str::to_string), e.to_string())),
                };
                sec.sent[k] += 1;
                sec.hot_sent[k] += u32::from(is_hot);
                match code {
                    None => {}
                    Some((code, _)) if is_throttle(code.as_deref()) => {
                        sec.throttled[k] += 1;
                        sec.hot_throttled[k] += u32::from(is_hot);
                    }
                    Some((_, text)) => fail(format!(
                        "a {} of the replay failed, not throttled: {text}",
                        if kind == Kind::Write {
                            "PutItem"
                        } else {
                            "GetItem"
                        }
                    )),
                }
            }
        }
        seconds.push(sec);
        world.advance(Duration::from_secs(1));
    }
    if idle > 0 {
        world.advance(Duration::from_secs(idle));
    }
    Replay {
        start_s,
        partitions,
        hot_partition,
        seconds,
        metrics: world.partition_metrics(TABLE, None).expect("metrics"),
        provisioned: plan
            .provisioned_throughput
            .clone()
            .map(|t| (t.read_capacity_units, t.write_capacity_units)),
    }
}
