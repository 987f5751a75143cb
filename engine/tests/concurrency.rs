//! Concurrent clients on a seeded schedule (`World::concurrently`): the same seed replays the
//! same race — same interleaving, same numbers — and the race is a real one.
mod common;

use std::collections::BTreeSet;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use common::*;
use engine::types::{
    AttributeDefinition, BillingMode, EventSourceMapping, KeySchemaElement, KeyType, Record,
    ScalarAttributeType, StreamSpecification, StreamViewType,
};
use engine::world::log::RequestRecord;
use engine::world::schedule::yield_now;
use engine::{item, Client, World};

/// Clients racing in the read-then-write workloads.
const CLIENTS: usize = 8;
/// Increments each client makes.
const ROUNDS: u64 = 50;

/// The counter's value, read strongly.
fn read_counter(client: &Client) -> u64 {
    get(client, "counter", "c").map_or(0, |i| i["n"].as_n().unwrap().parse().unwrap())
}

/// Reads the counter and writes it back plus one: the read-modify-write that loses updates
/// when another client writes in between.
fn increment_by_read_then_put(client: &Client) {
    let n = read_counter(client);
    client
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "counter", "SK" => "c", "n" => n + 1 }))
        .send()
        .unwrap();
}

/// Adds one in a single request.
fn increment_by_add(client: &Client) {
    client
        .update_item()
        .table_name("app")
        .key("PK", s("counter"))
        .key("SK", s("c"))
        .update_expression("ADD n :one")
        .expression_attribute_values(":one", n("1"))
        .send()
        .unwrap();
}

/// A world whose counter `CLIENTS` clients incremented `ROUNDS` times each, on the schedule
/// of `seed`.
fn race(seed: u64, increment: fn(&Client)) -> World {
    let (world, _) = app();
    world.concurrently(seed).run(CLIENTS, |_, client| {
        for _ in 0..ROUNDS {
            increment(&client);
        }
    });
    world
}

/// The client of each request, in the order the world served them.
fn interleaving(world: &World) -> Vec<Option<usize>> {
    world.request_log().iter().map(|r| r.client).collect()
}

/// What a test can see of a race: the order of its requests, its trace and the counter.
fn outcome(world: &World) -> (Vec<Option<usize>>, u64, u64) {
    let (order, hash) = (interleaving(world), world.trace_hash());
    (order, hash, read_counter(&world.client()))
}

#[test]
fn the_same_seed_replays_the_same_race() {
    let (order, hash, counter) = outcome(&race(11, increment_by_read_then_put));
    for run in 1..5 {
        let again = outcome(&race(11, increment_by_read_then_put));
        assert_eq!(order, again.0, "run {run}: the order of requests");
        assert_eq!(hash, again.1, "run {run}: the trace");
        assert_eq!(counter, again.2, "run {run}: the counter");
    }
}

#[test]
fn different_seeds_give_different_interleavings() {
    let hashes: BTreeSet<u64> = (0..6)
        .map(|seed| race(seed, increment_by_read_then_put).trace_hash())
        .collect();
    assert!(
        hashes.len() >= 5,
        "6 seeds gave only {} distinct traces: the seed does not drive the schedule",
        hashes.len()
    );
}

#[test]
fn a_read_then_write_loses_updates_under_the_schedule() {
    let total = CLIENTS as u64 * ROUNDS;
    for seed in 0..4 {
        let world = race(seed, increment_by_read_then_put);
        let counter = read_counter(&world.client());
        assert!(
            counter < total,
            "seed {seed}: {total} read-then-write increments all survived ({counter}): the \
             clients ran one after another, not concurrently"
        );
        // The race is visible in the log: another client's request between a client's read
        // and its write.
        let log: Vec<RequestRecord> = world.request_log();
        let cut_in = log
            .windows(2)
            .filter(|w| w[0].operation == "GetItem" && w[1].client != w[0].client)
            .count();
        assert!(
            cut_in > 0,
            "seed {seed}: no read was followed by another client"
        );
    }
}

#[test]
fn an_atomic_add_never_loses_an_update() {
    for seed in 0..4 {
        let world = race(seed, increment_by_add);
        assert_eq!(
            read_counter(&world.client()),
            CLIENTS as u64 * ROUNDS,
            "seed {seed}"
        );
    }
}

#[test]
fn only_one_client_runs_at_a_time() {
    let (world, _) = app();
    let running = AtomicUsize::new(0);
    let overlaps = AtomicUsize::new(0);
    world.concurrently(5).run(CLIENTS, |i, client| {
        for round in 0..20 {
            if running.fetch_add(1, Ordering::SeqCst) != 0 {
                overlaps.fetch_add(1, Ordering::SeqCst);
            }
            // Own work between two requests: on plain threads, others would run meanwhile.
            for _ in 0..2_000 {
                std::hint::spin_loop();
            }
            running.fetch_sub(1, Ordering::SeqCst);
            put(
                &client,
                item! { "PK" => format!("C{i}"), "SK" => format!("{round}") },
            );
        }
    });
    assert_eq!(overlaps.load(Ordering::SeqCst), 0);
}

#[test]
fn results_come_back_in_client_order() {
    let world = World::new(1);
    let base = 10; // borrowed by the bodies: the threads are scoped
    let out = world.concurrently(3).run(5, |i, client| {
        (
            i * base,
            client.list_tables().send().unwrap().table_names().len(),
        )
    });
    assert_eq!(out, vec![(0, 0), (10, 0), (20, 0), (30, 0), (40, 0)]);

    let out: Vec<String> = world.run_concurrently(
        3,
        vec![
            Box::new(|_| "writer".to_string()),
            Box::new(|client: Client| {
                let tables = client
                    .list_tables()
                    .send()
                    .unwrap()
                    .table_names
                    .unwrap_or_default();
                format!("reader saw {} tables", tables.len())
            }),
        ],
    );
    assert_eq!(out, ["writer", "reader saw 0 tables"]);
}

#[test]
fn no_clients_and_one_client() {
    let (world, c) = app();
    let none: Vec<u64> = world
        .concurrently(1)
        .run(0, |_, client| read_counter(&client));
    assert!(none.is_empty());
    assert_eq!(
        world.run_concurrently::<u64>(1, Vec::new()),
        Vec::<u64>::new()
    );

    put(&c, item! { "PK" => "counter", "SK" => "c", "n" => 41 });
    let one = world.concurrently(1).run(1, |_, client| {
        increment_by_read_then_put(&client);
        read_counter(&client)
    });
    assert_eq!(one, [42]);
}

/// What a panic in a body carries (the test kit raises payloads of its own type).
#[derive(Debug, PartialEq)]
struct Verdict(&'static str);

#[test]
fn a_panic_stops_every_client_and_reaches_the_caller_with_its_payload() {
    let (world, _) = app();
    let rounds = 2_000u64;
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(9).run(4, |i, client| {
            for round in 0..rounds {
                if i == 2 && round == 5 {
                    panic::panic_any(Verdict("client 2 gives up"));
                }
                read_counter(&client);
            }
        })
    }));
    let payload = caught.expect_err("the body's panic reaches the caller");
    assert_eq!(
        payload.downcast_ref::<Verdict>(),
        Some(&Verdict("client 2 gives up"))
    );
    let served = world.request_totals().requests;
    assert!(
        served < 4 * rounds / 2,
        "{served} requests served: the other clients ran on after the panic"
    );
    // The world and the schedule work afterwards.
    let again = world
        .concurrently(9)
        .run(2, |_, client| read_counter(&client));
    assert_eq!(again, [0, 0]);
}

#[test]
fn a_panic_replays_at_the_same_point() {
    let served = || {
        let (world, _) = app();
        let _ = panic::catch_unwind(AssertUnwindSafe(|| {
            world.concurrently(4).run(4, |i, client| {
                for _ in 0..100 {
                    if i == 1 && read_counter(&client) >= 30 {
                        panic!("client 1 saw 30");
                    }
                    increment_by_read_then_put(&client);
                }
            })
        }));
        (world.trace_hash(), world.request_totals().requests)
    };
    assert_eq!(served(), served());
}

#[test]
fn clones_and_other_handles_stay_on_the_clients_schedule() {
    let run = |seed| {
        let (world, _) = app();
        world.concurrently(seed).run(4, |i, client| {
            let clone = client.clone();
            let made_inside = world.client();
            for (round, c) in [&client, &clone, &made_inside].into_iter().enumerate() {
                put(
                    c,
                    item! { "PK" => format!("C{i}"), "SK" => format!("{round}") },
                );
            }
        });
        world
    };
    let world = run(2);
    let log = world.request_log();
    let puts: Vec<&RequestRecord> = log.iter().filter(|r| r.operation == "PutItem").collect();
    assert_eq!(puts.len(), 12);
    for i in 0..4 {
        assert_eq!(
            puts.iter().filter(|r| r.client == Some(i)).count(),
            3,
            "client {i}'s puts, through its client, a clone and world.client()"
        );
    }
    assert_eq!(world.trace_hash(), run(2).trace_hash());
}

#[test]
fn requests_outside_a_schedule_name_no_client() {
    let (world, c) = app();
    put(&c, item! { "PK" => "a", "SK" => "1" });
    assert_eq!(interleaving(&world), [None, None]);
}

/// A table `app` with a stream, and a consumer copying each new image into `model`.
fn table_with_read_model(world: &World) {
    let c = world.client();
    for (name, stream) in [("app", true), ("model", false)] {
        let mut create = c
            .create_table()
            .table_name(name)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .key_schema(KeySchemaElement::new("SK", KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest);
        if stream {
            create =
                create.stream_specification(StreamSpecification::enabled(StreamViewType::NewImage));
        }
        create.send().unwrap();
    }
    let handler_client = world.client();
    world
        .subscribe(
            "app",
            EventSourceMapping::default(),
            move |batch: &[Record]| {
                for r in batch {
                    if let Some(image) = r.new_image() {
                        put_into(&handler_client, "model", image.clone());
                    }
                }
                Ok::<(), String>(())
            },
        )
        .unwrap();
}

#[test]
fn advancing_the_clock_inside_a_body_is_one_turn_and_runs_the_handlers() {
    let run = || {
        let world = World::new(3);
        table_with_read_model(&world);
        world.concurrently(8).run(4, |i, client| {
            for round in 0..3 {
                put(
                    &client,
                    item! { "PK" => format!("C{i}"), "SK" => format!("{round}") },
                );
                // A clone of the world captured from the test advances on the schedule too.
                world.advance(Duration::from_millis(300));
            }
            client.world().settle();
        });
        world
    };
    let world = run();
    let hash = world.trace_hash();
    // Every advance moved the clock (the settles may have moved it further).
    assert!(
        world.now() >= Duration::from_millis(4 * 3 * 300),
        "{:?}",
        world.now()
    );
    let model = world.client().scan().table_name("model").send().unwrap();
    assert_eq!(
        model.items().len(),
        12,
        "every change reached the read model"
    );
    // The handler's writes ran inside an advancing client's turn, ungated, under no client.
    let handler_puts: Vec<Option<usize>> = world
        .request_log()
        .iter()
        .filter(|r| r.touches("model") && r.operation == "PutItem")
        .map(|r| r.client)
        .collect();
    assert_eq!(handler_puts, vec![None; 12]);
    assert_eq!(hash, run().trace_hash());
}

#[test]
fn a_client_waiting_for_another_yields_its_turn() {
    let world = World::new(1);
    let ready = AtomicBool::new(false);
    let seen = Mutex::new(Vec::new());
    world.concurrently(6).run(2, |i, _client| {
        if i == 0 {
            while !ready.load(Ordering::SeqCst) {
                yield_now(); // without it, client 1 would never get a turn
            }
            seen.lock().unwrap().push("0 saw the flag");
        } else {
            seen.lock().unwrap().push("1 set the flag");
            ready.store(true, Ordering::SeqCst);
        }
    });
    assert_eq!(*seen.lock().unwrap(), ["1 set the flag", "0 saw the flag"]);
    yield_now(); // off a schedule: nothing to wait for
}

/// The same requests from one scheduled client and from the test's own thread: the schedule
/// draws nothing from the world's generator, so the world makes the same choices.
#[test]
fn a_schedule_leaves_the_worlds_own_random_choices_alone() {
    fn workload(client: &Client) -> Vec<Option<String>> {
        (0..40)
            .map(|i| {
                put(
                    client,
                    item! { "PK" => format!("K{}", i % 5), "SK" => "x", "v" => i },
                );
                client.world().advance(Duration::from_millis(3));
                client
                    .get_item()
                    .table_name("app")
                    .key("PK", s(&format!("K{}", (i + 2) % 5)))
                    .key("SK", s("x"))
                    .send()
                    .unwrap()
                    .into_item()
                    .map(|item| item["v"].as_n().unwrap().clone())
            })
            .collect()
    }
    let without_clients = |world: &World| {
        world
            .request_log()
            .into_iter()
            .map(|r| RequestRecord { client: None, ..r })
            .collect::<Vec<_>>()
    };
    let (plain, c) = app();
    let plain_reads = workload(&c);
    let (scheduled, _) = app();
    let scheduled_reads = scheduled
        .concurrently(plain.config().seed)
        .run(1, |_, client| workload(&client))
        .remove(0);
    assert_eq!(plain_reads, scheduled_reads, "eventually consistent reads");
    assert_eq!(without_clients(&plain), without_clients(&scheduled));
    assert_eq!(plain.partitions("app"), scheduled.partitions("app"));
}
