//! The replication seam: a world runs quorum replication — whether a partition takes a
//! write, where the write goes, which replica serves a read, who leads after a failure —
//! through `engine::seams::Pieces::replication`, the engine's own `QuorumReplication` by
//! default.
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use engine::seams::{
    Az, Delivery, Draw, Group, Pieces, QuorumReplication, Replication, Unavailable,
};
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ScalarAttributeType, StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use engine::{item, Client, World, WorldConfig};

/// A small xorshift for the workload's own choices (the world's generator is the world's).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `orders`: PK/SK, on-demand, a GSI on `status`, a stream, TTL on `ttl`.
fn create_orders(c: &Client) {
    c.create_table()
        .table_name("orders")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("status", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("by-status")
                .key_schema(KeySchemaElement::new("status", KeyType::Hash))
                .projection(Projection::all())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send()
        .unwrap();
    c.update_time_to_live()
        .table_name("orders")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "ttl"))
        .send()
        .unwrap();
}

/// Heals every AZ in `down`.
fn heal_every(world: &World, down: &mut Vec<Az>) {
    while let Some(az) = down.pop() {
        world.heal_az(az);
    }
}

/// Every path replication decides on, under seeded faults: puts, updates and deletes on a
/// table with an index, a stream and TTL; strong and eventual GetItems, Queries, Scans,
/// TransactGetItems; AZ failures and heals and stopped leaders (one replica down at a time
/// when `single_az`, else two or more), lagging replicas, expiring items. Returns the world's trace hash
/// and how many writes were acknowledged.
fn workload(world: &World, seed: u64, steps: usize, single_az: bool) -> (u64, usize) {
    let c = world.client();
    create_orders(&c);
    let mut dice = Dice(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut down: Vec<Az> = Vec::new();
    let mut acked = 0;
    for i in 0..steps {
        match dice.below(16) {
            0 => {
                if single_az {
                    heal_every(world, &mut down);
                }
                let az = Az::ALL[dice.below(3) as usize];
                if !down.contains(&az) && down.len() < 2 {
                    world.fail_az(az);
                    down.push(az);
                }
            }
            1 => {
                if let Some(az) = down.pop() {
                    world.heal_az(az);
                }
            }
            2 => world.advance(Duration::from_millis(dice.below(3000))),
            3 => {
                let p = world
                    .partition_of("orders", &s(&format!("c{}", dice.below(6))))
                    .unwrap();
                if single_az {
                    heal_every(world, &mut down);
                }
                if let Some(az) = world.leader_az("orders", p).unwrap() {
                    world.stop_leader("orders", p).unwrap();
                    if !down.contains(&az) {
                        down.push(az);
                    }
                }
            }
            4 => {
                let p = world
                    .partition_of("orders", &s(&format!("c{}", dice.below(6))))
                    .unwrap();
                let az = Az::ALL[dice.below(3) as usize];
                let lag = Duration::from_millis(dice.below(5000));
                world.lag_replica("orders", p, az, lag).unwrap();
            }
            5 => world.advance(Duration::from_millis(dice.below(200))),
            _ => {}
        }
        let pk = format!("c{}", dice.below(6));
        let sk = format!("o{}", dice.below(4));
        let now = world.epoch_seconds();
        let ok = match dice.below(10) {
            0..=3 => c
                .put_item()
                .table_name("orders")
                .set_item(Some(item! {
                    "PK" => pk.as_str(), "SK" => sk.as_str(), "n" => i as u64,
                    "status" => if i % 3 == 0 { "open" } else { "shipped" },
                    "ttl" => now + dice.below(4000),
                }))
                .send()
                .is_ok(),
            4 => c
                .update_item()
                .table_name("orders")
                .key("PK", s(&pk))
                .key("SK", s(&sk))
                .update_expression("ADD n :one")
                .expression_attribute_values(":one", n("1"))
                .send()
                .is_ok(),
            5 => c
                .delete_item()
                .table_name("orders")
                .key("PK", s(&pk))
                .key("SK", s(&sk))
                .send()
                .is_ok(),
            6 => {
                let _ = c
                    .get_item()
                    .table_name("orders")
                    .key("PK", s(&pk))
                    .key("SK", s(&sk))
                    .consistent_read(dice.below(2) == 0)
                    .send();
                false
            }
            7 => {
                let _ = c
                    .query()
                    .table_name("orders")
                    .key_condition_expression("PK = :p")
                    .expression_attribute_values(":p", s(&pk))
                    .consistent_read(dice.below(2) == 0)
                    .send();
                let _ = c
                    .query()
                    .table_name("orders")
                    .index_name("by-status")
                    .key_condition_expression("#s = :s")
                    .expression_attribute_names("#s", "status")
                    .expression_attribute_values(":s", s("open"))
                    .send();
                false
            }
            8 => {
                let _ = c
                    .scan()
                    .table_name("orders")
                    .consistent_read(dice.below(2) == 0)
                    .send();
                false
            }
            _ => {
                let _ = c
                    .transact_get_items()
                    .transact_items(
                        engine::types::TransactGetItem::builder()
                            .get(
                                engine::types::Get::builder()
                                    .table_name("orders")
                                    .key("PK", s(&pk))
                                    .key("SK", s(&sk))
                                    .build()
                                    .unwrap(),
                            )
                            .build(),
                    )
                    .send();
                false
            }
        };
        acked += usize::from(ok);
    }
    world.heal_all();
    world.settle();
    (world.trace_hash(), acked)
}

/// Trace hashes of `workload` recorded before replication moved behind the seam (commit
/// bbb6264): (seed, one replica down at a time?, hash, writes acknowledged). The engine's
/// own piece must run each exactly as the inline code did. (With two AZs down the engine
/// now differs on purpose: a lone replica is not elected — see `world_replication.rs`.)
// Re-pinned when issue 18's fidelity changes landed (tables born with full buckets — these
// worlds keep empty ones, as when the pin was taken — and descriptions on the world's calendar
// change what the trace hashes); the acknowledged-write counts are unchanged.
const BEFORE_THE_SEAM: [(u64, bool, u64, usize); 3] = [
    (11, true, 17239347969064194534, 123),
    (12, true, 1525806540749524212, 133),
    (21, true, 3219564299753834580, 172),
];

#[test]
fn the_engines_piece_runs_the_workloads_exactly_as_before_the_seam() {
    for (seed, single_az, hash, acked) in BEFORE_THE_SEAM {
        assert_eq!(
            workload(
                &common::world_with_empty_buckets(seed),
                seed,
                400,
                single_az
            ),
            (hash, acked),
            "seed {seed}"
        );
        let explicit = World::with_pieces(
            WorldConfig {
                seed,
                new_table_buckets_full: false,
                ..WorldConfig::default()
            },
            Pieces::default().with_replication(Arc::new(QuorumReplication)),
        );
        assert_eq!(
            workload(&explicit, seed, 400, single_az),
            (hash, acked),
            "seed {seed}, the engine's piece given explicitly"
        );
    }
}

/// The engine's piece, counting each decision it is asked for.
#[derive(Default)]
struct Counting {
    accept: AtomicUsize,
    replicate: AtomicUsize,
    serve: AtomicUsize,
    elect: AtomicUsize,
}

impl Replication for Counting {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        self.accept.fetch_add(1, Ordering::Relaxed);
        QuorumReplication.accept_write(group)
    }
    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        self.replicate.fetch_add(1, Ordering::Relaxed);
        QuorumReplication.replicate(group, draw)
    }
    fn serve_read(&self, g: &Group, consistent: bool, d: &mut Draw<'_>) -> Result<Az, Unavailable> {
        self.serve.fetch_add(1, Ordering::Relaxed);
        QuorumReplication.serve_read(g, consistent, d)
    }
    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        self.elect.fetch_add(1, Ordering::Relaxed);
        QuorumReplication.elect(group, draw)
    }
}

#[test]
fn every_decision_of_the_engine_goes_through_the_worlds_piece() {
    let counting = Arc::new(Counting::default());
    let world = World::with_pieces(
        WorldConfig {
            seed: 11,
            new_table_buckets_full: false,
            ..WorldConfig::default()
        },
        Pieces::default().with_replication(counting.clone()),
    );
    let (hash, _) = workload(&world, 11, 400, true);
    assert_eq!(
        hash, BEFORE_THE_SEAM[0].2,
        "a piece that only delegates changes nothing"
    );
    for (what, n) in [
        ("accept_write", &counting.accept),
        ("replicate", &counting.replicate),
        ("serve_read", &counting.serve),
        ("elect", &counting.elect),
    ] {
        assert!(n.load(Ordering::Relaxed) > 0, "{what} was never asked");
    }
}

/// A quorum that forgets the follower: every follower gets the write later, none
/// acknowledges it with the leader.
struct LeaderAlone;

impl Replication for LeaderAlone {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        QuorumReplication.accept_write(group)
    }
    fn replicate(&self, group: &Group, _: &mut Draw<'_>) -> [Delivery; 3] {
        group.replicas.map(|r| {
            if r.up {
                Delivery::Later
            } else {
                Delivery::Skip
            }
        })
    }
    fn serve_read(&self, g: &Group, consistent: bool, d: &mut Draw<'_>) -> Result<Az, Unavailable> {
        QuorumReplication.serve_read(g, consistent, d)
    }
    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        QuorumReplication.elect(group, draw)
    }
}

/// Strong reads served like eventual ones, by any live replica.
struct StrongFromAnyone;

impl Replication for StrongFromAnyone {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        QuorumReplication.accept_write(group)
    }
    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        QuorumReplication.replicate(group, draw)
    }
    fn serve_read(&self, g: &Group, _: bool, d: &mut Draw<'_>) -> Result<Az, Unavailable> {
        QuorumReplication.serve_read(g, false, d)
    }
    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        QuorumReplication.elect(group, draw)
    }
}

fn world_with(seed: u64, piece: Arc<dyn Replication>) -> (World, Client) {
    let world = World::with_pieces(
        WorldConfig {
            seed,
            new_table_buckets_full: false,
            ..WorldConfig::default()
        },
        Pieces::default().with_replication(piece),
    );
    let c = world.client();
    create_app(&c);
    (world, c)
}

fn put_v(c: &Client, v: u64) {
    c.put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "k", "SK" => "v", "n" => v }))
        .send()
        .unwrap();
}

fn strong_v(c: &Client) -> Option<engine::AttributeValue> {
    get(c, "k", "v").map(|i| i["n"].clone())
}

/// The followers lag a minute; the leader's AZ fails right after a write; the election.
/// Returns what a strong read then sees.
fn failover_after_one_write(piece: Arc<dyn Replication>) -> Option<engine::AttributeValue> {
    let (world, c) = world_with(3, piece);
    put_v(&c, 1);
    world.settle();
    let p = world.partition_of("app", &s("k")).unwrap();
    let leader = world.leader_az("app", p).unwrap().unwrap();
    for az in Az::ALL.into_iter().filter(|&az| az != leader) {
        world
            .lag_replica("app", p, az, Duration::from_secs(60))
            .unwrap();
    }
    put_v(&c, 2);
    world.fail_az(leader);
    world.advance(Duration::from_secs(3));
    assert!(world.leader_az("app", p).unwrap().is_some(), "a new leader");
    strong_v(&c)
}

#[test]
fn a_write_acknowledged_by_the_leader_alone_is_lost_when_the_leader_fails() {
    assert_eq!(
        failover_after_one_write(Arc::new(QuorumReplication)),
        Some(n("2")),
        "the engine's quorum peer holds the write: the new leader has it"
    );
    assert_eq!(
        failover_after_one_write(Arc::new(LeaderAlone)),
        Some(n("1")),
        "acknowledged by the leader alone, the write died with it"
    );
}

#[test]
fn strong_reads_served_by_any_replica_can_be_stale() {
    let stale = |piece: Arc<dyn Replication>| {
        let (world, c) = world_with(5, piece);
        put_v(&c, 1);
        world.settle();
        let p = world.partition_of("app", &s("k")).unwrap();
        for az in Az::ALL {
            world
                .lag_replica("app", p, az, Duration::from_secs(60))
                .unwrap();
        }
        put_v(&c, 2);
        (0..30).filter(|_| strong_v(&c) == Some(n("1"))).count()
    };
    assert_eq!(stale(Arc::new(QuorumReplication)), 0);
    assert!(stale(Arc::new(StrongFromAnyone)) > 0);
}
