//! Quorum replication and its promise: no acknowledged write is lost when an availability
//! zone fails; a strongly consistent read never returns stale data; an eventually
//! consistent read can. Plus the determinism of the whole world.
mod common;

use std::time::Duration;

use common::*;
use engine::world::faults::Az;
use engine::{item, Client, Error, World};

fn counter(c: &Client, pk: &str) -> Option<String> {
    let out = c
        .get_item()
        .table_name("app")
        .key("PK", s(pk))
        .key("SK", s("v"))
        .consistent_read(true)
        .send()
        .unwrap();
    out.item().map(|i| i["n"].as_n().unwrap().clone())
}

fn write(c: &Client, pk: &str, n: u64) -> engine::Result<()> {
    c.put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => pk, "SK" => "v", "n" => n }))
        .send()?;
    Ok(())
}

#[test]
fn a_write_is_acknowledged_with_one_az_down() {
    let (world, c) = app();
    world.fail_az(Az::A);
    world.advance(Duration::from_secs(5)); // elections for partitions that led from az-a
    write(&c, "k", 1).unwrap();
    assert_eq!(counter(&c, "k").as_deref(), Some("1"));
}

#[test]
fn with_two_azs_down_writes_fail_but_eventually_consistent_reads_are_served() {
    let (world, c) = app();
    write(&c, "k", 1).unwrap();
    world.settle();
    world.fail_az(Az::A);
    world.fail_az(Az::B);
    world.advance(Duration::from_secs(5));
    let e = write(&c, "k", 2).unwrap_err();
    assert!(matches!(e, Error::InternalServerError(_)), "{e:?}");
    assert!(e.is_retryable());
    let eventual = c
        .get_item()
        .table_name("app")
        .key("PK", s("k"))
        .key("SK", s("v"))
        .send()
        .unwrap();
    assert_eq!(eventual.item().unwrap()["n"], n("1"));
}

#[test]
fn with_the_leader_and_the_quorum_peer_lost_the_stale_replica_is_not_elected_alone() {
    let (world, c) = app();
    write(&c, "k", 1).unwrap();
    world.settle();
    let p = world.partition_of("app", &s("k")).unwrap();
    let leader = world.leader_az("app", p).unwrap().unwrap();
    let others: Vec<Az> = Az::ALL.into_iter().filter(|&az| az != leader).collect();
    let (peer, stale) = (others[0], others[1]);
    // The stale follower answers last, so the other one is the quorum peer of write 2.
    world
        .lag_replica("app", p, stale, Duration::from_secs(60))
        .unwrap();
    write(&c, "k", 2).unwrap();
    world.fail_az(leader);
    world.fail_az(peer);
    world.advance(Duration::from_secs(5));
    assert_eq!(
        world.leader_az("app", p).unwrap(),
        None,
        "one replica of three is no majority: it cannot be elected"
    );
    let strong = c
        .get_item()
        .table_name("app")
        .key("PK", s("k"))
        .key("SK", s("v"))
        .consistent_read(true)
        .send();
    assert!(
        strong.is_err_and(|e| e.into_service_error().is_internal_server_error()),
        "a strong read has no leader to serve it (rather than the stale value 1)"
    );
    let e = write(&c, "k", 3).unwrap_err();
    assert!(e.to_string().contains("cannot reach a quorum"), "{e}");
    world.heal_az(peer);
    assert_eq!(
        world.leader_az("app", p).unwrap(),
        Some(peer),
        "the replica with write 2"
    );
    assert_eq!(counter(&c, "k").as_deref(), Some("2"));
}

#[test]
fn while_a_partition_elects_a_leader_writes_and_strong_reads_fail_then_recover() {
    let (world, c) = app();
    write(&c, "k", 1).unwrap();
    let p = world.partition_of("app", &s("k")).unwrap();
    world.stop_leader("app", p).unwrap();
    assert_eq!(world.leader_az("app", p).unwrap(), None);
    let e = write(&c, "k", 2).unwrap_err();
    assert!(e.is_retryable(), "{e:?}");
    let strong = c
        .get_item()
        .table_name("app")
        .key("PK", s("k"))
        .key("SK", s("v"))
        .consistent_read(true)
        .send();
    assert!(strong.is_err_and(|e| e.into_service_error().is_internal_server_error()));
    world.advance(Duration::from_secs(2)); // the election timeout
    assert!(world.leader_az("app", p).unwrap().is_some());
    write(&c, "k", 3).unwrap();
    assert_eq!(counter(&c, "k").as_deref(), Some("3"));
}

#[test]
fn an_eventually_consistent_read_from_a_lagging_replica_returns_the_old_value_a_strong_one_never_does(
) {
    let (world, c) = app();
    write(&c, "k", 1).unwrap();
    world.settle();
    let p = world.partition_of("app", &s("k")).unwrap();
    // Make every follower lag by a minute: the write is acknowledged by the quorum peer,
    // but the other follower will not see it for 60 s.
    for az in Az::ALL {
        world
            .lag_replica("app", p, az, Duration::from_secs(60))
            .unwrap();
    }
    write(&c, "k", 2).unwrap();
    let mut stale = 0;
    for _ in 0..60 {
        let e = c
            .get_item()
            .table_name("app")
            .key("PK", s("k"))
            .key("SK", s("v"))
            .send()
            .unwrap();
        if e.item().unwrap()["n"] == n("1") {
            stale += 1;
        }
        assert_eq!(
            counter(&c, "k").as_deref(),
            Some("2"),
            "a strongly consistent read is never stale"
        );
    }
    assert!(
        stale > 0,
        "one replica in three is behind: some eventual reads must be stale"
    );
    world.settle();
    for _ in 0..30 {
        let e = c
            .get_item()
            .table_name("app")
            .key("PK", s("k"))
            .key("SK", s("v"))
            .send()
            .unwrap();
        assert_eq!(
            e.item().unwrap()["n"],
            n("2"),
            "after settling every replica has the write"
        );
    }
}

/// Runs a seeded workload with a seeded schedule of single-AZ faults; returns the world.
fn chaos(seed: u64, writes: usize) -> (World, Client, Vec<(String, u64)>) {
    let world = World::new(seed);
    let c = world.client();
    common::create_app(&c);
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut acked: Vec<(String, u64)> = Vec::new();
    let mut down: Option<Az> = None;
    for i in 0..writes {
        match next() % 10 {
            0 => {
                if let Some(az) = down.take() {
                    world.heal_az(az);
                }
                let az = Az::ALL[(next() % 3) as usize];
                world.fail_az(az);
                down = Some(az);
            }
            1 => {
                if let Some(az) = down.take() {
                    world.heal_az(az);
                }
            }
            2 => world.advance(Duration::from_millis(next() % 3000)),
            _ => {}
        }
        let key = format!("k{}", next() % 8);
        let r = write(&c, &key, i as u64);
        if r.is_ok() {
            acked.retain(|(k, _)| *k != key);
            acked.push((key, i as u64));
        }
    }
    world.heal_all();
    world.settle();
    (world, c, acked)
}

#[test]
fn no_acknowledged_write_is_lost_under_any_single_az_failure() {
    for seed in 0..1000u64 {
        let (_world, c, acked) = chaos(seed, 60);
        for (key, value) in &acked {
            let got = counter(&c, key);
            assert_eq!(
                got.as_deref(),
                Some(value.to_string().as_str()),
                "seed {seed}: key {key} lost its last acknowledged write"
            );
        }
    }
}

#[test]
fn same_seed_same_requests_same_trace() {
    let (a, _, _) = chaos(77, 300);
    let (b, _, _) = chaos(77, 300);
    assert_eq!(a.trace_hash(), b.trace_hash());
    let (other, _, _) = chaos(78, 300);
    assert_ne!(
        a.trace_hash(),
        other.trace_hash(),
        "the trace depends on the seed"
    );
}

#[test]
fn with_both_followers_of_a_partition_stopped_its_leader_reads_but_cannot_write() {
    let (world, c) = app();
    write(&c, "k", 1).unwrap();
    write(&c, "other", 1).unwrap();
    world.settle();
    let p = world.partition_of("app", &s("k")).unwrap();
    let leader = world.leader_az("app", p).unwrap().unwrap();
    for az in Az::ALL.into_iter().filter(|&az| az != leader) {
        world.stop_replica("app", p, az).unwrap();
    }
    world.advance(Duration::from_secs(5));
    // The leader stays (nothing stopped it) and serves the strong read; a write reaches no
    // quorum of two.
    assert_eq!(world.leader_az("app", p).unwrap(), Some(leader));
    assert_eq!(counter(&c, "k").as_deref(), Some("1"));
    let e = write(&c, "k", 2).unwrap_err();
    assert!(matches!(e, Error::InternalServerError(_)), "{e:?}");
    // Only that partition lost its replicas: a key elsewhere still takes writes.
    let q = world.partition_of("app", &s("other")).unwrap();
    if q != p {
        write(&c, "other", 2).unwrap();
    }
    world.heal_all();
    world.advance(Duration::from_secs(5));
    write(&c, "k", 3).unwrap();
    assert_eq!(counter(&c, "k").as_deref(), Some("3"));
}
