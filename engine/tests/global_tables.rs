//! Global tables, multi-Region eventual consistency (MREC): a table with a replica in each
//! of several Regions, each written through its own Region's client; writes replicated
//! asynchronously after a seeded delay; conflicts settled by last writer wins, the loser
//! listed; a Region down, a replication link slowed; one seed, one run.
mod common;

use std::time::Duration;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::types::{
    CreateReplicationGroupMemberAction, MultiRegionConsistency, ReplicaStatus,
    ReplicationGroupUpdate, StreamViewType,
};
use engine::{item, Client, Item, Region, World, WorldConfig};

const US: &str = "us-east-1";
const EU: &str = "eu-west-1";
const AP: &str = "ap-southeast-2";

/// A world whose replication takes 300–800 ms per write, with table `app` created in
/// us-east-1 and replicated to `others`.
fn global_app(seed: u64, others: &[&str]) -> World {
    let world = World::with_config(WorldConfig {
        seed,
        global_replication_delay_ms: (300, 800),
        ..WorldConfig::default()
    });
    let us = world.client_in(US);
    create_app(&us);
    for region in others {
        add_replica(&us, region);
    }
    world
}

fn add_replica(client: &Client, region: &str) {
    client
        .update_table()
        .table_name("app")
        .replica_updates(
            ReplicationGroupUpdate::builder()
                .create(
                    CreateReplicationGroupMemberAction::builder()
                        .region_name(region)
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap();
}

/// The counter `n` of item `k` as a strongly consistent read in this client's Region sees it.
fn n_of(client: &Client) -> Option<String> {
    get(client, "k", "v").map(|i| i["n"].as_n().unwrap().clone())
}

fn set_n(client: &Client, value: u64) {
    put_into(
        client,
        "app",
        item! { "PK" => "k", "SK" => "v", "n" => value },
    );
}

/// `SET n = n + :one`: the non-idempotent update the lesson warns about.
fn increment(client: &Client) {
    client
        .update_item()
        .table_name("app")
        .key("PK", s("k"))
        .key("SK", s("v"))
        .update_expression("SET n = n + :one")
        .expression_attribute_values(":one", n("1"))
        .send()
        .unwrap();
}

#[test]
fn update_table_with_a_replica_create_makes_the_table_global_and_describe_table_lists_it() {
    let world = World::new(3);
    let us = world.client_in(US);
    create_app(&us);
    put(&us, item! { "PK" => "k", "SK" => "v", "n" => 1 });
    add_replica(&us, EU);

    let here = us.describe_table().table_name("app").send().unwrap();
    let table = here.table().unwrap();
    let replicas: Vec<(&str, &ReplicaStatus)> = table
        .replicas()
        .iter()
        .map(|r| (r.region_name().unwrap(), r.replica_status().unwrap()))
        .collect();
    assert_eq!(replicas, vec![(EU, &ReplicaStatus::Active)]);
    assert_eq!(table.global_table_version(), Some("2019.11.21"));
    assert_eq!(
        table.multi_region_consistency(),
        Some(&MultiRegionConsistency::Eventual)
    );
    // DynamoDB replicates through the table's stream: the table got one.
    assert_eq!(
        table
            .stream_specification()
            .and_then(|s| s.stream_view_type()),
        Some(&StreamViewType::NewAndOldImages)
    );
    assert!(table.table_arn().unwrap().contains(":us-east-1:"));

    // The new replica has the items the table had (it is backfilled), its own ARN, and
    // lists the first Region as its replica.
    let eu = world.client_in(EU);
    assert_eq!(n_of(&eu).as_deref(), Some("1"));
    let there = eu.describe_table().table_name("app").send().unwrap();
    let table = there.table().unwrap();
    assert!(table.table_arn().unwrap().contains(":eu-west-1:"));
    assert_eq!(table.replicas()[0].region_name(), Some(US));
    assert_eq!(
        world.replica_regions("app").unwrap_err().name(),
        "ResourceNotFoundException",
        "the default Region holds no replica of a table created in us-east-1"
    );
    assert_eq!(
        world.in_region(EU).replica_regions("app").unwrap(),
        vec![Region::new(EU), Region::new(US)]
    );
}

#[test]
fn the_default_client_is_a_region_of_its_own() {
    let world = global_app(1, &[EU]);
    let default = world.client();
    let err = default
        .get_item()
        .table_name("app")
        .key("PK", s("k"))
        .key("SK", s("v"))
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("ResourceNotFoundException"));
    assert_eq!(
        world.regions(),
        vec![Region::new(EU), Region::new("local-1"), Region::new(US)]
    );
}

#[test]
fn a_write_reaches_the_other_region_after_its_delay_and_not_before() {
    let world = global_app(11, &[EU]);
    let (us, eu) = (world.client_in(US), world.client_in(EU));
    set_n(&us, 7);
    let pending = world.pending_replication("app");
    assert_eq!(pending.len(), 1);
    let due = pending[0].due_at;
    assert_eq!((pending[0].from.as_str(), pending[0].to.as_str()), (US, EU));
    assert!(
        (Duration::from_millis(300)..=Duration::from_millis(800)).contains(&due),
        "the delay is drawn from the configured 300–800 ms, got {due:?}"
    );

    world.advance(due - Duration::from_millis(1));
    assert_eq!(
        n_of(&eu),
        None,
        "1 ms before it is due, eu-west-1 has nothing"
    );
    world.advance(Duration::from_millis(1));
    assert_eq!(n_of(&eu).as_deref(), Some("7"));
    assert!(world.pending_replication("app").is_empty());

    // The replicated write is a write of the eu-west-1 replica: charged to its partitions,
    // recorded in its own stream.
    let eu_world = world.in_region(EU);
    let charged: f64 = eu_world
        .partition_metrics("app", None)
        .unwrap()
        .iter()
        .map(|m| m.consumed_write)
        .sum();
    assert_eq!(charged, 1.0);
    let streams = eu.list_streams().table_name("app").send().unwrap();
    assert!(streams.streams()[0]
        .stream_arn()
        .unwrap()
        .contains(":eu-west-1:"));
}

#[test]
fn a_strongly_consistent_read_in_another_region_right_after_a_write_sees_the_old_value() {
    let world = global_app(5, &[EU]);
    let (us, eu) = (world.client_in(US), world.client_in(EU));
    set_n(&us, 1);
    world.advance(Duration::from_secs(1));
    assert_eq!(n_of(&eu).as_deref(), Some("1"));

    set_n(&us, 2);
    assert_eq!(
        n_of(&us).as_deref(),
        Some("2"),
        "the writer's Region reads its write"
    );
    assert_eq!(
        n_of(&eu).as_deref(),
        Some("1"),
        "ConsistentRead is strong within one Region only"
    );
    world.advance(Duration::from_secs(1));
    assert_eq!(n_of(&eu).as_deref(), Some("2"));
}

#[test]
fn concurrent_increments_in_two_regions_lose_one_under_last_writer_wins() {
    let world = global_app(8, &[EU]);
    let (us, eu) = (world.client_in(US), world.client_in(EU));
    set_n(&us, 0);
    world.advance(Duration::from_secs(1));

    // Both Regions add one to n = 0 before either write reaches the other.
    increment(&us);
    increment(&eu);
    world.settle();

    assert_eq!(n_of(&us).as_deref(), Some("1"), "one increment is lost");
    assert_eq!(n_of(&eu).as_deref(), Some("1"), "the replicas converge");
    let conflicts = world.replication_conflicts("app");
    assert_eq!(
        conflicts.len(),
        1,
        "listed once, though both replicas saw it"
    );
    let c = &conflicts[0];
    assert_eq!(c.key, item! { "PK" => "k", "SK" => "v" });
    // Same instant: the tie goes to the Region whose name sorts last.
    assert_eq!(c.winner.at, c.loser.at);
    assert_eq!(c.winner.region.as_str(), US);
    assert_eq!(c.loser.region.as_str(), EU);
    let loser_n = c.loser.item.as_ref().map(|i| i["n"].clone());
    assert_eq!(loser_n, Some(n("1")), "what eu-west-1 wrote is gone");
}

#[test]
fn a_later_write_wins_everywhere_and_a_sequential_update_is_no_conflict() {
    let world = global_app(21, &[EU, AP]);
    let (us, eu, ap) = (
        world.client_in(US),
        world.client_in(EU),
        world.client_in(AP),
    );
    set_n(&us, 1);
    world.advance(Duration::from_secs(1));
    increment(&eu); // seen n = 1 from us-east-1: not a conflict
    world.advance(Duration::from_secs(1));
    assert!(world.replication_conflicts("app").is_empty());

    set_n(&ap, 10);
    world.advance(Duration::from_millis(10));
    set_n(&eu, 20); // 10 ms later, before ap-southeast-2's write arrived: it wins
    world.settle();
    for c in [&us, &eu, &ap] {
        assert_eq!(n_of(c).as_deref(), Some("20"));
    }
    let conflicts = world.replication_conflicts("app");
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].winner.region.as_str(), EU);
    assert_eq!(conflicts[0].loser.region.as_str(), AP);
    assert_eq!(
        conflicts[0].winner.at - conflicts[0].loser.at,
        Duration::from_millis(10)
    );
}

#[test]
fn a_region_down_refuses_its_clients_and_catches_up_when_it_is_back() {
    let world = global_app(2, &[EU]);
    let (us, eu) = (world.client_in(US), world.client_in(EU));
    set_n(&eu, 1); // written in eu-west-1, not yet shipped when the Region fails
    world.fail_region(EU);

    let err = eu
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "x", "SK" => "v" }))
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("ServiceUnavailable"));
    assert!(err.is_retryable());
    assert_eq!(err.raw_response().map(|r| r.status()), Some(503));

    put_into(&us, "app", item! { "PK" => "u", "SK" => "v" });
    world.advance(Duration::from_secs(30));
    assert_eq!(
        n_of(&us),
        None,
        "eu-west-1's last write is stuck there while it is down"
    );
    let stuck: Vec<(String, String)> = world
        .pending_replication("app")
        .iter()
        .map(|p| (p.from.to_string(), p.to.to_string()))
        .collect();
    assert_eq!(
        stuck,
        vec![
            (EU.to_string(), US.to_string()),
            (US.to_string(), EU.to_string())
        ]
    );
    assert!(
        world.settle() < Duration::from_secs(1),
        "nothing can move while it is down"
    );

    world.heal_region(EU);
    assert_eq!(n_of(&us).as_deref(), Some("1"));
    assert!(
        get(&eu, "u", "v").is_some(),
        "what queued for eu-west-1 arrived"
    );
    assert!(world.pending_replication("app").is_empty());
}

#[test]
fn a_lagging_link_delays_one_direction_only() {
    let world = global_app(4, &[EU]);
    let (us, eu) = (world.client_in(US), world.client_in(EU));
    world.lag_replication(US, EU, Duration::from_secs(5));
    put_into(&us, "app", item! { "PK" => "from-us", "SK" => "v" });
    put_into(&eu, "app", item! { "PK" => "from-eu", "SK" => "v" });
    world.advance(Duration::from_secs(1));
    assert!(
        get(&us, "from-eu", "v").is_some(),
        "eu-west-1 → us-east-1 is not lagged"
    );
    assert!(
        get(&eu, "from-us", "v").is_none(),
        "us-east-1 → eu-west-1 is 5 s slower"
    );
    world.advance(Duration::from_secs(5));
    assert!(get(&eu, "from-us", "v").is_some());

    world.heal_all();
    put_into(&us, "app", item! { "PK" => "after-heal", "SK" => "v" });
    world.advance(Duration::from_secs(1));
    assert!(get(&eu, "after-heal", "v").is_some());
}

#[test]
fn multi_region_strong_consistency_is_refused_as_not_modelled() {
    let world = World::new(1);
    let us = world.client_in(US);
    create_app(&us);
    let err = us
        .update_table()
        .table_name("app")
        .multi_region_consistency(MultiRegionConsistency::Strong)
        .replica_updates(
            ReplicationGroupUpdate::builder()
                .create(
                    CreateReplicationGroupMemberAction::builder()
                        .region_name(EU)
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    assert!(err.message().unwrap().contains("MRSC"));
    assert!(world.in_region(EU).replica_regions("app").is_err());
}

/// Writes in three Regions, a conflict, a Region down and back, a lagging link.
fn scenario(seed: u64) -> (u64, Vec<Item>) {
    let world = global_app(seed, &[EU, AP]);
    let clients: Vec<Client> = [US, EU, AP].iter().map(|r| world.client_in(*r)).collect();
    for (i, c) in clients.iter().enumerate() {
        for k in 0..5 {
            put_into(
                c,
                "app",
                item! { "PK" => format!("k{k}"), "SK" => "v", "by" => i as u64 },
            );
        }
    }
    world.lag_replication(EU, AP, Duration::from_millis(700));
    world.fail_region(AP);
    reset_counter_in(&clients[..2]); // a conflict: both Regions write k at once
    world.advance(Duration::from_millis(1500));
    world.heal_region(AP);
    world.settle();
    let items = clients
        .iter()
        .map(|c| get(c, "k3", "v").unwrap_or_default())
        .collect();
    (world.trace_hash(), items)
}

fn reset_counter_in(clients: &[Client]) {
    for c in clients {
        put_into(c, "app", item! { "PK" => "k", "SK" => "v", "n" => 0 });
    }
}

#[test]
fn the_same_seed_replays_the_same_run_and_every_replica_converges() {
    let (a, items_a) = scenario(42);
    let (b, items_b) = scenario(42);
    assert_eq!(a, b, "same seed, same trace");
    assert_eq!(items_a, items_b);
    assert!(
        items_a.windows(2).all(|w| w[0] == w[1]),
        "all three replicas hold the same k3: {items_a:?}"
    );
    let (c, _) = scenario(43);
    assert_ne!(a, c, "the delays come from the seed");
}
