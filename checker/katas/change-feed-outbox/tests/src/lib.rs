//! Hidden tests of the `change-feed-outbox` kata.
//!
//! Every test creates the kata's tables (`given::create_tables`), changes orders, calls the
//! learner's `relay` pass after pass as a poller would, and judges what reached the bus, the
//! audit and the dead-letter queue against the truth: every record of the stream of `orders`,
//! read by the test itself before any was trimmed.
//!
//! - `places_orders_and_relays_every_change`: `place_order` sends one PutItem to `orders` and
//!   nothing to the bus (a dual write is named by its requests); a refused order publishes
//!   nothing; each change reaches the bus once and the audit, per order in order.
//! - `a_crash_in_place_order_loses_and_invents_nothing`: `place_order` stopped after its 1st,
//!   2nd, … request on a seeded schedule; the table and the bus must agree.
//! - `a_relay_stopped_partway_publishes_each_change_once`: a relay pass stopped after its k-th
//!   request (k = 1, 2, …, each in a fresh world), then passes until caught up.
//! - `relays_in_order_across_shard_splits` (seeded): bursts of changes while `orders` splits,
//!   relay passes stopped at random: each order's events in the order of its changes.
//! - `a_poison_record_is_dead_lettered`: an order item over the bus's 256 KB goes to the
//!   dead-letter queue; the records after it in its shard are published.
//! - `a_bus_outage_is_retried_not_dead_lettered`: the bus table's leaders stopped for one
//!   election timeout; nothing dead-lettered, everything published afterwards.
//! - `a_relay_a_day_behind_reports_the_gap`: 25 h without a pass; the relay must return
//!   `RelayError::Trimmed` naming a shard, pass after pass.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::ShardIteratorType;
use engine::world::schedule::yield_now;
use engine::{AttributeValue, Client, Error, Item, World, WorldConfig};
use given::{
    create_tables, Order, RelayError, AUDIT_TABLE, BUS_TABLE, DEAD_LETTER_TABLE, EVENT_SIZE_LIMIT,
    HEAD, ORDERS_TABLE,
};
use katas_testkit::{fail, run, seeded, test, thousands, wrap, Failure, Rng};
use learner::{place_order, relay};

katas_testkit::learner! {
    /// Places a new order in `orders`.
    fn place_order(client: &Client, order: &given::Order) -> Result<(), Error>;
    /// One relay pass.
    fn relay(client: &Client) -> Result<(), given::RelayError>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        test(
            "places_orders_and_relays_every_change",
            places_orders_and_relays_every_change,
        ),
        test(
            "a_crash_in_place_order_loses_and_invents_nothing",
            a_crash_in_place_order_loses_and_invents_nothing,
        ),
        test(
            "a_relay_stopped_partway_publishes_each_change_once",
            a_relay_stopped_partway_publishes_each_change_once,
        ),
        seeded(
            "relays_in_order_across_shard_splits",
            relays_in_order_across_shard_splits,
        ),
        test(
            "a_poison_record_is_dead_lettered",
            a_poison_record_is_dead_lettered,
        ),
        test(
            "a_bus_outage_is_retried_not_dead_lettered",
            a_bus_outage_is_retried_not_dead_lettered,
        ),
        test(
            "a_relay_a_day_behind_reports_the_gap",
            a_relay_a_day_behind_reports_the_gap,
        ),
    ]);
}

/// Relay passes the tests allow before judging (a caught-up relay needs far fewer).
const MAX_PASSES: usize = 40;

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

fn places_orders_and_relays_every_change() {
    let scene = Scene::new(1, None);
    for (id, customer) in [("o-1", "c-1"), ("o-2", "c-2"), ("o-3", "c-1")] {
        let before = scene.world.request_totals().requests;
        if let Err(e) = place_order(&scene.client, &order(id, customer, 40)) {
            fail(format!("place_order({id}) failed: {e}"));
        }
        let sent = scene.requests_since(before);
        if sent.iter().any(|r| r.contains(BUS_TABLE)) || sent.len() != 1 {
            fail(wrap(&format!(
                "place_order({id}) sent {} — a dual write: the application wrote the order and \
                 published its event itself. A crash between the two requests loses the event \
                 (or invents one, the other way round). The table's stream already holds \
                 every committed change of {ORDERS_TABLE}, in order, and the relay reads it.",
                sent.join(", ")
            )));
        }
    }
    let before = scene.world.request_totals().requests;
    let again = place_order(&scene.client, &order("o-2", "c-9", 99));
    let sent = scene.requests_since(before);
    match again {
        Ok(()) => fail(wrap(&format!(
            "place_order(o-2) a second time returned Ok, though the order id was taken. A \
             PutItem replaces any item with the same key unless the write carries its own \
             condition, which DynamoDB checks before writing and refuses with \
             ConditionalCheckFailedException. Requests: {}",
            sent.join(", ")
        ))),
        Err(e) if e.code() != Some("ConditionalCheckFailedException") => fail(wrap(&format!(
            "place_order(o-2) a second time failed with {e}; expected DynamoDB's \
             ConditionalCheckFailedException, passed on"
        ))),
        Err(_) => {}
    }
    scene.update("o-1", "PAID");
    scene.update("o-1", "SHIPPED");
    scene.update("o-2", "PAID");
    scene.update("o-2", "PLACED"); // the payment bounced
    scene.update("o-2", "PAID"); // paid again: a second, distinct change to PAID
    scene.update("o-3", "CANCELLED");
    scene.delete("o-3");
    scene.catch_up("after placing o-1, o-2, o-3 and changing them (within one second)");
    scene.judge(
        "after placing o-1, o-2 and o-3 (o-2 a second time, refused), o-1 PAID then SHIPPED, \
         o-2 PAID, PLACED (the payment bounced) and PAID again, o-3 CANCELLED then deleted — \
         all within one second — and relay passes until caught up",
        &[],
    );
}

fn a_crash_in_place_order_loses_and_invents_nothing() {
    let mut cuts = 0;
    for k in 1..=4u64 {
        let scene = Scene::new(2, None);
        let before = scene.world.request_totals().requests;
        let placed = stopped_after(&scene.world, 0x0dd ^ k, k, |client| {
            place_order(client, &order("o-1", "c-1", 10)).map_err(|e| e.to_string())
        });
        let stopped = placed.as_ref().is_err_and(|e| e == STOPPED);
        let sent = scene.requests_since(before);
        scene.catch_up("after the stopped place_order");
        let in_table = scene.order_exists("o-1");
        let bus = scene.bus();
        let on_bus = bus.get("o-1").map_or(0, Vec::len);
        let story = format!(
            "place_order(o-1) was stopped (a crash) after its request{} {} — {}",
            if sent.len() == 1 { "" } else { "s" },
            sent.join(", "),
            if stopped {
                "the next one was never sent"
            } else {
                "it had returned already"
            }
        );
        if stopped {
            cuts += 1;
        }
        match (in_table, on_bus) {
            (true, 0) => fail(wrap(&format!(
                "{story}. The order is in {ORDERS_TABLE}, yet after relay passes until caught up \
                 the bus holds no event for it: the event was lost. The stream holds the INSERT \
                 record of o-1, yet the relay published nothing for it, and whatever else was \
                 to publish it did not survive the crash. A committed write is in the stream \
                 whatever becomes of the process after it."
            ))),
            (false, n) if n > 0 => fail(wrap(&format!(
                "{story}. The bus holds {n} event{} for o-1, yet the order is not in \
                 {ORDERS_TABLE}: the event was invented — published before a write that \
                 never happened. The stream carries only what was committed.",
                if n == 1 { "" } else { "s" }
            ))),
            _ => {}
        }
        scene.judge(&story, &[]);
    }
    let _ = cuts; // a one-request place_order is never cut: it has no next request
}

fn a_relay_stopped_partway_publishes_each_change_once() {
    let changes = |scene: &Scene| {
        scene.put("o-1", "c-1", 0);
        scene.put("o-2", "c-2", 0);
        scene.update("o-1", "PAID");
        scene.put("o-3", "c-1", 0);
        scene.update("o-2", "CANCELLED");
        scene.update("o-1", "SHIPPED");
        scene.delete("o-3");
    };
    let clean = Scene::new(3, None);
    changes(&clean);
    let before = clean.world.request_totals().requests;
    let _ = relay(&clean.client);
    let first_pass = clean.world.request_totals().requests - before;
    clean.catch_up("after seven changes, relayed without a stop");
    clean.judge(
        "after seven changes (o-1 and o-2 placed, o-1 PAID, o-3 placed, o-2 CANCELLED, o-1 \
         SHIPPED, o-3 deleted), relayed without a stop",
        &[],
    );
    for k in 1..first_pass.min(60) {
        let scene = Scene::new(3, None);
        changes(&scene);
        let before = scene.world.request_totals().requests;
        let result = stopped_after(&scene.world, 0x5109 ^ k, k, |client| {
            relay(client).map_err(|e| e.to_string())
        });
        let _ = result;
        let sent = scene.requests_since(before);
        let last = sent.last().cloned().unwrap_or_default();
        scene.catch_up("after the stopped pass");
        scene.judge(
            &format!(
                "after seven changes (o-1 and o-2 placed, o-1 PAID, o-3 placed, o-2 CANCELLED, \
                 o-1 SHIPPED, o-3 deleted), a relay pass stopped (a crash) after its first {} \
                 request{} (the last: {last}), then relay passes until caught up",
                sent.len(),
                if sent.len() == 1 { "" } else { "s" }
            ),
            &[],
        );
    }
}

fn relays_in_order_across_shard_splits(seed: u64) {
    let scene = Scene::new(seed, Some(4_000));
    let mut rng = Rng::new(seed);
    let mut live: Vec<String> = Vec::new();
    let mut next = 0;
    let mut stops = 0;
    // 6 bursts of 35 changes, 2 relay passes after each: enough for `orders` to split (items of
    // about 200 bytes against a 4,000-byte partition) and for passes to be stopped partway,
    // within the kata's 1 s for all its tests.
    const BURSTS: usize = 6;
    const CHANGES: usize = 35;
    const PASSES: usize = 2;
    for _round in 0..BURSTS {
        for _ in 0..CHANGES {
            if live.len() < 8 || rng.below(100) < 25 {
                next += 1;
                let id = format!("o-{next:03}");
                scene.put(&id, &format!("c-{}", rng.below(9)), 200);
                live.push(id);
            } else if rng.below(100) < 10 {
                let at = rng.below(live.len() as u64) as usize;
                scene.delete(&live.swap_remove(at));
            } else {
                let id = live[rng.below(live.len() as u64) as usize].clone();
                let status = given::STATUSES[1 + rng.below(3) as usize];
                scene.update(&id, status);
            }
        }
        for _ in 0..PASSES {
            let k = 5 + rng.below(60);
            let r = stopped_after(&scene.world, seed ^ k, k, |client| {
                relay(client).map_err(|e| e.to_string())
            });
            if r.as_ref().is_err_and(|e| e == STOPPED) {
                stops += 1;
            }
            scene.world.advance(Duration::from_millis(300));
        }
    }
    let splits = scene
        .world
        .partition_splits(ORDERS_TABLE)
        .map(|s| s.len())
        .unwrap_or(0);
    if splits == 0 || stops == 0 {
        fail(format!(
            "test setup: no partition split ({splits}) or no stopped pass ({stops}) {:?}",
            scene.world.partitions(ORDERS_TABLE).map(|p| p
                .iter()
                .map(|p| (p.item_count, p.bytes))
                .collect::<Vec<_>>())
        ));
    }
    scene.catch_up("after the workload");
    let shards = scene.truth_shards();
    scene.judge(
        &format!(
            "after {} changes in {BURSTS} bursts of {CHANGES} while `orders` split {splits} \
             time{} (its stream now has {shards} shards: each split closes a parent shard and \
             opens two children), {PASSES} relay passes after each burst ({stops} of them \
             stopped partway), then passes until caught up",
            BURSTS * CHANGES,
            if splits == 1 { "" } else { "s" }
        ),
        &[],
    );
}

fn a_poison_record_is_dead_lettered() {
    let scene = Scene::new(5, None);
    let poison_id = "o-big";
    scene.put("o-1", "c-1", 0);
    scene.put(poison_id, "c-2", 300 * 1024);
    for i in 2..=12 {
        scene.put(&format!("o-{i}"), "c-1", 0);
    }
    scene.update("o-1", "PAID");
    scene.update("o-5", "PAID");
    scene.update("o-8", "CANCELLED");
    let truth = scene.truth();
    let poison: Vec<&Change> = truth.iter().filter(|c| c.order_id == poison_id).collect();
    let poison_seq = poison[0].sequence.clone();
    let poison_shard = poison[0].shard.clone();
    let after = truth
        .iter()
        .filter(|c| c.shard == poison_shard && c.sequence > poison_seq)
        .count();
    if after == 0 {
        fail("test setup: no record after the poison one in its shard");
    }
    scene.world.advance(Duration::from_secs(1));
    let errors = scene.catch_up_quietly();
    let letters = scene.dead_letters();
    let bus = scene.bus();
    let published_after = truth
        .iter()
        .filter(|c| c.shard == poison_shard && c.sequence > poison_seq)
        .filter(|c| {
            bus.get(&c.order_id)
                .is_some_and(|e| e.iter().any(|e| e.matches(c)))
        })
        .count();
    let size = poison[0].size;
    let poison_number = poison_seq.trim_start_matches('0').to_string();
    let context = format!(
        "order {poison_id} was placed with {} bytes of notes: its event is {} bytes, over the \
         bus's {} (PublishError::TooLarge — no retry can fix it). {after} records come after it \
         in its shard {poison_shard}",
        thousands(300 * 1024),
        thousands(size as i64),
        thousands(EVENT_SIZE_LIMIT as i64)
    );
    if published_after < after {
        fail(wrap(&format!(
            "{context}; after {MAX_PASSES} relay passes {} of them were never published: the \
             shard is blocked by the poison record (sequence number {poison_number}) — every \
             pass stopped at it again{}. A record the bus refuses for good fails on every \
             retry, so a pass that stops at it holds back its whole shard for ever.",
            after - published_after,
            errors
                .last()
                .map(|e| format!(" (the last pass returned: {e})"))
                .unwrap_or_default()
        )));
    }
    if !letters.contains_key(&poison_seq) {
        fail(wrap(&format!(
            "{context}; the records after it were published, but the dead-letter queue holds \
             nothing for sequence number {poison_number}: the change was skipped without a \
             trace. A record the bus refuses for good can never be published, so it must be \
             kept where someone can find and repair it."
        )));
    }
    scene.judge(&context, &[poison_id]);
}

fn a_bus_outage_is_retried_not_dead_lettered() {
    let scene = Scene::new(6, None);
    for i in 1..=6 {
        scene.put(&format!("o-{i}"), "c-1", 0);
    }
    scene.update("o-2", "PAID");
    let partitions = scene
        .world
        .partitions(BUS_TABLE)
        .map(|p| p.len())
        .unwrap_or(1);
    for p in 0..partitions as u32 {
        let _ = scene.world.stop_leader(BUS_TABLE, p);
    }
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(match relay(&scene.client) {
            Ok(()) => "Ok".to_string(),
            Err(e) => e.to_string(),
        });
    }
    let letters = scene.dead_letters();
    let story = format!(
        "after six orders placed and one paid, the bus's table lost the leaders of its {} \
         partition{} (a new leader is elected after 2 s): every publish failed with \
         PublishError::Unavailable (InternalServerError, retryable) during 3 relay passes",
        partitions,
        if partitions == 1 { "" } else { "s" }
    );
    if !letters.is_empty() {
        fail(wrap(&format!(
            "{story}, and the relay sent {} record{} to the dead-letter queue ({}). A bus that \
             is unavailable is not a poison record: Unavailable is retryable, and a later \
             pass can publish the record as long as the checkpoint still stands before it. A \
             record dead-lettered for an outage is an event the subscribers never get.",
            letters.len(),
            if letters.len() == 1 { "" } else { "s" },
            letters
                .values()
                .take(2)
                .map(|l| l.split(" (").next().unwrap_or(l).to_string())
                .collect::<Vec<_>>()
                .join("; ")
                + if letters.len() > 2 { "; …" } else { "" }
        )));
    }
    scene.world.advance(Duration::from_secs(3));
    scene.catch_up("after the bus was back");
    scene.judge(
        &format!("{story}; then, the bus back, relay passes until caught up"),
        &[],
    );
}

fn a_relay_a_day_behind_reports_the_gap() {
    let scene = Scene::new(7, None);
    for i in 1..=4 {
        scene.put(&format!("o-{i}"), "c-1", 0);
    }
    scene.catch_up("before the relay stopped");
    scene.world.advance(Duration::from_secs(1));
    for i in 1..=4 {
        scene.update(&format!("o-{i}"), "PAID");
    }
    for i in 5..=12 {
        scene.put(&format!("o-{i}"), "c-2", 0);
    }
    scene.world.advance(Duration::from_secs(25 * 3600));
    scene.update("o-1", "SHIPPED");
    let before = scene.world.request_totals().requests;
    let answer = relay(&scene.client);
    let log = scene.world.request_log();
    let trimmed_request = log
        .iter()
        .filter(|r| r.seq >= before)
        .find(|r| r.error == Some("TrimmedDataAccessException"))
        .map(|r| r.operation);
    let story = "the relay caught up, then did not run for 25 hours while 12 orders changed \
                 (o-1…o-4 PAID, o-5…o-12 placed); the stream keeps records 24 hours, so those \
                 changes were trimmed before the relay read them";
    let shards = scene.shard_ids();
    match answer {
        Err(RelayError::Trimmed { shard_id }) if shards.contains(&shard_id) => {}
        Err(RelayError::Trimmed { shard_id }) => fail(wrap(&format!(
            "{story}. relay returned RelayError::Trimmed for shard {shard_id:?}, which the \
             stream does not have (its shards: {})",
            shards.join(", ")
        ))),
        other => fail(wrap(&format!(
            "{story}. The first relay pass then returned {} — {}. A checkpoint older than the \
             stream's 24 hours points at records that are gone, and DynamoDB says so \
             (TrimmedDataAccessException): those changes can no longer be published, and \
             only someone who is told can repair the bus from the table. A pass that goes on \
             without reporting the gap skips them in silence.",
            match &other {
                Ok(()) => "Ok(())".to_string(),
                Err(e) => format!("Err({e})"),
            },
            match trimmed_request {
                Some(op) => format!(
                    "its {op} failed with TrimmedDataAccessException, and the relay went on"
                ),
                None => "it sent no request that met the trimmed records".to_string(),
            }
        ))),
    }
    let before = scene.world.request_totals().requests;
    let second = relay(&scene.client);
    let trimmed_again = scene
        .world
        .request_log()
        .iter()
        .filter(|r| r.seq >= before)
        .find(|r| r.error == Some("TrimmedDataAccessException"))
        .map(|r| r.operation);
    match second {
        Err(RelayError::Trimmed { .. }) => {}
        other => fail(wrap(&format!(
            "{story}. The first pass returned RelayError::Trimmed, as it should; the second \
             returned {} — {}, so the loss was reported once and then forgotten. Nothing has \
             repaired the bus in between: the gap is still there.",
            match other {
                Ok(()) => "Ok(())".to_string(),
                Err(e) => format!("Err({e})"),
            },
            match trimmed_again {
                Some(op) => format!(
                    "its {op} failed with TrimmedDataAccessException again, and the relay went on"
                ),
                None => "it sent no request that met the trimmed records: the relay had moved \
                         past the gap on its own"
                    .to_string(),
            }
        ))),
    }
}

// ---------------------------------------------------------------------------------------
// The scene
// ---------------------------------------------------------------------------------------

/// One change of `orders`, as its stream record says.
#[derive(Clone, Debug, PartialEq)]
struct Change {
    order_id: String,
    shard: String,
    /// The sequence number, zero-padded to 40 digits (so that text order is number order).
    sequence: String,
    change: String,
    status: Option<String>,
    size: usize,
}

impl Change {
    fn text(&self) -> String {
        match &self.status {
            Some(s) => format!("{} {s}", self.change),
            None => self.change.clone(),
        }
    }
}

/// One event on the bus.
#[derive(Clone, Debug)]
struct BusEvent {
    id: String,
    position: u64,
    change: String,
    status: Option<String>,
}

impl BusEvent {
    fn text(&self) -> String {
        match &self.status {
            Some(s) if self.change != "REMOVE" => format!("{} {s}", self.change),
            _ => self.change.clone(),
        }
    }
    fn matches(&self, c: &Change) -> bool {
        self.text() == c.text()
    }
}

struct Scene {
    world: World,
    client: Client,
}

impl Scene {
    fn new(seed: u64, partition_size_limit: Option<usize>) -> Scene {
        let mut config = WorldConfig {
            seed,
            ..WorldConfig::default()
        };
        if let Some(limit) = partition_size_limit {
            config.partition_size_limit = limit;
        }
        let world = World::with_config(config);
        let client = world.client();
        if let Err(e) = create_tables(&client) {
            fail(format!("test setup: creating the tables failed: {e}"));
        }
        Scene { world, client }
    }

    /// The requests sent since `before`, as `Operation table`.
    fn requests_since(&self, before: u64) -> Vec<String> {
        self.world
            .request_log()
            .iter()
            .filter(|r| r.seq >= before)
            .map(|r| {
                let tables: Vec<&str> = r.tables.iter().map(|t| &**t).collect();
                let failed = r.error.map(|e| format!(" (failed: {e})"));
                format!(
                    "{} {}{}",
                    r.operation,
                    tables.join(", "),
                    failed.unwrap_or_default()
                )
            })
            .collect()
    }

    fn put(&self, id: &str, customer: &str, notes_bytes: usize) {
        let put = self
            .client
            .put_item()
            .table_name(ORDERS_TABLE)
            .item("order_id", AttributeValue::S(id.into()))
            .item("customer_id", AttributeValue::S(customer.into()))
            .item("status", AttributeValue::S("PLACED".into()))
            .item("total_cents", AttributeValue::N("1000".into()))
            .item("notes", AttributeValue::S("n".repeat(notes_bytes.max(1))))
            .send();
        if let Err(e) = put {
            fail(format!("test setup: writing order {id} failed: {e}"));
        }
    }

    fn update(&self, id: &str, status: &str) {
        let update = self
            .client
            .update_item()
            .table_name(ORDERS_TABLE)
            .key("order_id", AttributeValue::S(id.into()))
            .update_expression("SET #s = :s")
            .expression_attribute_names("#s", "status")
            .expression_attribute_values(":s", AttributeValue::S(status.into()))
            .condition_expression("attribute_exists(order_id)")
            .send();
        if let Err(e) = update {
            fail(format!("test setup: updating order {id} failed: {e}"));
        }
    }

    fn delete(&self, id: &str) {
        let delete = self
            .client
            .delete_item()
            .table_name(ORDERS_TABLE)
            .key("order_id", AttributeValue::S(id.into()))
            .send();
        if let Err(e) = delete {
            fail(format!("test setup: deleting order {id} failed: {e}"));
        }
    }

    fn order_exists(&self, id: &str) -> bool {
        self.client
            .get_item()
            .table_name(ORDERS_TABLE)
            .key("order_id", AttributeValue::S(id.into()))
            .consistent_read(true)
            .send()
            .map(|o| o.item().is_some())
            .unwrap_or_else(|e| fail(format!("test setup: reading order {id} failed: {e}")))
    }

    fn stream_arn(&self) -> String {
        self.client
            .describe_table()
            .table_name(ORDERS_TABLE)
            .send()
            .ok()
            .and_then(|t| {
                t.table()
                    .and_then(|t| t.latest_stream_arn().map(str::to_string))
            })
            .unwrap_or_else(|| fail("test setup: orders has no stream"))
    }

    fn shard_ids(&self) -> Vec<String> {
        let arn = self.stream_arn();
        self.client
            .describe_stream()
            .stream_arn(arn)
            .send()
            .map(|d| {
                d.stream_description()
                    .map(|d| {
                        d.shards()
                            .iter()
                            .filter_map(|s| s.shard_id().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .unwrap_or_else(|e| fail(format!("test setup: DescribeStream failed: {e}")))
    }

    /// Shard id → its parent's id.
    fn parents(&self) -> BTreeMap<String, String> {
        let arn = self.stream_arn();
        let described = self
            .client
            .describe_stream()
            .stream_arn(arn)
            .send()
            .unwrap_or_else(|e| fail(format!("test setup: DescribeStream failed: {e}")));
        described
            .stream_description()
            .map(|d| d.shards())
            .unwrap_or_default()
            .iter()
            .filter_map(|s| Some((s.shard_id()?.to_string(), s.parent_shard_id()?.to_string())))
            .collect()
    }

    fn truth_shards(&self) -> usize {
        self.shard_ids().len()
    }

    /// Every record of the stream, per shard in order (read by the test; nothing trimmed).
    fn truth(&self) -> Vec<Change> {
        let arn = self.stream_arn();
        let mut out = Vec::new();
        for shard in self.shard_ids() {
            let mut iterator = self
                .client
                .get_shard_iterator()
                .stream_arn(&arn)
                .shard_id(&shard)
                .shard_iterator_type(ShardIteratorType::TrimHorizon)
                .send()
                .ok()
                .and_then(|o| o.shard_iterator().map(str::to_string));
            while let Some(it) = iterator.take() {
                let page = self
                    .client
                    .get_records()
                    .shard_iterator(it)
                    .send()
                    .unwrap_or_else(|e| fail(format!("test setup: GetRecords failed: {e}")));
                for r in page.records() {
                    let image = r.new_image().or(r.old_image());
                    out.push(Change {
                        order_id: r.keys()["order_id"].as_s().cloned().unwrap_or_default(),
                        shard: shard.clone(),
                        sequence: format!("{:0>40}", r.sequence_number()),
                        change: r.event_name().as_str().to_string(),
                        status: r
                            .new_image()
                            .and_then(|i| i.get("status"))
                            .and_then(|v| v.as_s().ok())
                            .cloned(),
                        size: image.map(engine::item_size).unwrap_or(0),
                    });
                }
                if !page.records().is_empty() {
                    iterator = page.next_shard_iterator().map(str::to_string);
                }
            }
        }
        out
    }

    fn scan(&self, table: &str) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(table)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| fail(format!("test setup: scanning {table} failed: {e}")));
            items.extend(page.items().iter().cloned());
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return items,
            }
        }
    }

    /// The bus, per order in position order.
    fn bus(&self) -> BTreeMap<String, Vec<BusEvent>> {
        let mut out: BTreeMap<String, Vec<BusEvent>> = BTreeMap::new();
        for item in self.scan(BUS_TABLE) {
            let s = |k: &str| item.get(k).and_then(|v| v.as_s().ok()).cloned();
            let id = s("event_id").unwrap_or_default();
            if id == HEAD {
                continue;
            }
            let status = match item.get("order") {
                Some(AttributeValue::M(m)) => m.get("status").and_then(|v| v.as_s().ok()).cloned(),
                _ => None,
            };
            out.entry(s("order_id").unwrap_or_default())
                .or_default()
                .push(BusEvent {
                    id,
                    position: item
                        .get("position")
                        .and_then(|v| v.as_n().ok())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0),
                    change: s("change").unwrap_or_default(),
                    status,
                });
        }
        for events in out.values_mut() {
            events.sort_by_key(|e| e.position);
        }
        out
    }

    /// The audit, per order in sort-key order: (sequence number, `event status`).
    fn audit(&self) -> BTreeMap<String, Vec<(String, String)>> {
        let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for item in self.scan(AUDIT_TABLE) {
            let s = |k: &str| item.get(k).and_then(|v| v.as_s().ok()).cloned();
            let seq = item
                .get("sequence_number")
                .and_then(|v| v.as_n().ok())
                .map(|n| format!("{n:0>40}"))
                .unwrap_or_default();
            let text = match (s("event"), s("status")) {
                (Some(e), Some(st)) if e != "REMOVE" => format!("{e} {st}"),
                (Some(e), _) => e,
                (None, _) => "(no event attribute)".into(),
            };
            out.entry(s("order_id").unwrap_or_default())
                .or_default()
                .push((seq, text));
        }
        for entries in out.values_mut() {
            entries.sort();
        }
        out
    }

    /// The dead letters: sequence number (40 digits) → `order event: reason`.
    fn dead_letters(&self) -> BTreeMap<String, String> {
        self.scan(DEAD_LETTER_TABLE)
            .into_iter()
            .map(|item| {
                let s = |k: &str| item.get(k).and_then(|v| v.as_s().ok()).cloned();
                (
                    format!("{:0>40}", s("sequence_number").unwrap_or_default()),
                    format!(
                        "{} {}: {}",
                        s("order_id").unwrap_or_default(),
                        s("event").unwrap_or_default(),
                        s("reason").unwrap_or_default()
                    ),
                )
            })
            .collect()
    }

    /// Relay passes (a second apart) until one writes nothing; returns the errors passes
    /// returned.
    fn catch_up_quietly(&self) -> Vec<String> {
        let mut errors = Vec::new();
        for _ in 0..MAX_PASSES {
            let before = self.world.request_totals().requests;
            let result = relay(&self.client);
            let wrote = self.world.request_log().iter().any(|r| {
                r.seq >= before
                    && r.succeeded()
                    && matches!(r.operation, "PutItem" | "UpdateItem" | "DeleteItem")
            });
            if let Err(e) = &result {
                errors.push(e.to_string());
            }
            self.world.advance(Duration::from_secs(1));
            if result.is_ok() && !wrote {
                break;
            }
        }
        errors
    }

    /// Catches up; fails if the last pass still returned an error.
    fn catch_up(&self, moment: &str) {
        let errors = self.catch_up_quietly();
        let last = relay(&self.client);
        if let Err(e) = last {
            fail(wrap(&format!(
                "{moment}, relay passes kept failing ({} errors in {MAX_PASSES} passes); the \
                 last: {e}",
                errors.len()
            )));
        }
    }

    /// Compares the bus, the audit and the dead letters with the stream's records; orders in
    /// `poison` are expected in the dead-letter queue, not on the bus.
    fn judge(&self, moment: &str, poison: &[&str]) {
        let truth = self.truth();
        let mut want: BTreeMap<String, Vec<Change>> = BTreeMap::new();
        for c in &truth {
            want.entry(c.order_id.clone()).or_default().push(c.clone());
        }
        for changes in want.values_mut() {
            changes.sort_by(|a, b| a.sequence.cmp(&b.sequence));
        }
        let bus = self.bus();
        let letters = self.dead_letters();
        let parents = self.parents();
        let mut problems = Vec::new();
        let mut expected_text = String::new();
        let mut actual_text = String::new();
        let orders: std::collections::BTreeSet<&String> = want.keys().chain(bus.keys()).collect();
        for id in orders {
            let changes = want.get(id).cloned().unwrap_or_default();
            let events = bus.get(id).cloned().unwrap_or_default();
            let expected: Vec<String> = if poison.contains(&id.as_str()) {
                Vec::new()
            } else {
                changes.iter().map(Change::text).collect()
            };
            let got: Vec<String> = events.iter().map(BusEvent::text).collect();
            let _ = writeln!(expected_text, "{id}: {}", expected.join(", "));
            let _ = writeln!(actual_text, "{id}: {}", got.join(", "));
            if expected == got {
                continue;
            }
            let mut sorted_e = expected.clone();
            let mut sorted_g = got.clone();
            sorted_e.sort();
            sorted_g.sort();
            let why = if sorted_e == sorted_g {
                let i = (0..got.len()).find(|&i| got[i] != expected[i]).unwrap_or(0);
                let earlier = &changes[i];
                let later = (i + 1..changes.len())
                    .find(|&j| changes[j].text() == got[i])
                    .map(|j| &changes[j])
                    .unwrap_or(earlier);
                let relation = if parents.get(&later.shard) == Some(&earlier.shard) {
                    format!(
                        "the later change is in shard {}, a child of shard {}, which holds the \
                         earlier one: the child was read before its parent was finished",
                        later.shard, earlier.shard
                    )
                } else if later.shard == earlier.shard {
                    format!("both are in shard {}, in that order", later.shard)
                } else {
                    format!(
                        "the later change is in shard {}, the earlier one in shard {}",
                        later.shard, earlier.shard
                    )
                };
                format!(
                    "every change is there, but out of order — the bus got {} (sequence number \
                     {}) before {} (sequence number {}); {relation}",
                    later.text(),
                    later.sequence.trim_start_matches('0'),
                    earlier.text(),
                    earlier.sequence.trim_start_matches('0'),
                )
            } else if got.len() > expected.len() && expected.iter().all(|e| got.contains(e)) {
                let ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
                format!(
                    "published more than once, under the ids {} — the bus drops an event \
                     whose id it has seen, so a change published again after a stop must carry \
                     the id it had the first time",
                    ids.join(", ")
                )
            } else if got.len() < expected.len() {
                "changes missing from the bus: lost".to_string()
            } else {
                "the events differ from the changes".to_string()
            };
            problems.push(format!(
                "{id}: the stream holds {} — the bus got {}: {why}",
                if expected.is_empty() {
                    "(no publishable change)".into()
                } else {
                    expected.join(", ")
                },
                if got.is_empty() {
                    "nothing".to_string()
                } else {
                    got.join(", ")
                },
            ));
        }
        if !problems.is_empty() {
            let more = problems.len().saturating_sub(6);
            problems.truncate(6);
            if more > 0 {
                problems.push(format!("… and {more} more orders"));
            }
            let dead = if letters.is_empty() {
                String::new()
            } else {
                format!(
                    "\nThe dead-letter queue holds {} record{}.",
                    letters.len(),
                    if letters.len() == 1 { "" } else { "s" }
                )
            };
            Failure::compare(
                wrap(&format!(
                    "{moment}, the bus does not carry each change of each order once, in \
                     order:\n{}{dead}",
                    problems.join("\n")
                )),
                expected_text,
                actual_text,
            )
            .raise();
        }

        // The audit: every change, per order, sorted by sequence number.
        let audit = self.audit();
        let mut problems = Vec::new();
        let mut expected_text = String::new();
        let mut actual_text = String::new();
        for (id, changes) in &want {
            let expected: Vec<(String, String)> = changes
                .iter()
                .map(|c| (c.sequence.clone(), c.text()))
                .collect();
            let got = audit.get(id).cloned().unwrap_or_default();
            let show = |v: &[(String, String)]| {
                v.iter()
                    .map(|(_, t)| t.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = writeln!(expected_text, "{id}: {}", show(&expected));
            let _ = writeln!(actual_text, "{id}: {}", show(&got));
            if expected == got {
                continue;
            }
            let keys_differ = got
                .iter()
                .any(|(seq, _)| !expected.iter().any(|(s, _)| s == seq));
            let why = if keys_differ {
                format!(
                    "its sort keys are not the records' sequence numbers (got {}; the stream's \
                     are {}): entries keyed by anything coarser share a key and overwrite \
                     each other",
                    got.iter()
                        .map(|(s, _)| s.trim_start_matches('0'))
                        .collect::<Vec<_>>()
                        .join(", "),
                    expected
                        .iter()
                        .map(|(s, _)| s.trim_start_matches('0'))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else if got.len() < expected.len() {
                "entries missing".to_string()
            } else {
                "entries differ (event, or the new status)".to_string()
            };
            problems.push(format!(
                "{id}: the stream holds {} — the audit has {}: {why}",
                show(&expected),
                if got.is_empty() {
                    "nothing".to_string()
                } else {
                    show(&got)
                }
            ));
        }
        if !problems.is_empty() {
            problems.truncate(6);
            Failure::compare(
                wrap(&format!(
                    "{moment}, the bus is right, but the audit ({AUDIT_TABLE}: PK order_id, SK \
                     sequence_number) does not list every change of each order in \
                     sequence-number order:\n{}",
                    problems.join("\n")
                )),
                expected_text,
                actual_text,
            )
            .raise();
        }

        let poison_seqs: Vec<&String> = truth
            .iter()
            .filter(|c| poison.contains(&c.order_id.as_str()))
            .map(|c| &c.sequence)
            .collect();
        let stray: Vec<&String> = letters
            .iter()
            .filter(|(seq, _)| !poison_seqs.contains(seq))
            .map(|(_, v)| v)
            .collect();
        if !stray.is_empty() {
            fail(wrap(&format!(
                "{moment}, the dead-letter queue holds records the bus could have taken: {}",
                stray
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            )));
        }
    }
}

fn order(id: &str, customer: &str, notes: usize) -> Order {
    Order {
        order_id: id.into(),
        customer_id: customer.into(),
        total_cents: 2_500,
        notes: "n".repeat(notes),
    }
}

// ---------------------------------------------------------------------------------------
// Stopping a function partway: a crash between two of its requests
// ---------------------------------------------------------------------------------------

/// What a stopped call returns.
const STOPPED: &str = "stopped: the process crashed between two of its requests";

/// The payload the watchers unwind with.
struct Stop;

/// Watchers beside the function on the schedule.
const WATCHERS: usize = 15;

/// Runs `f` as a client on a seeded schedule beside watchers that stop it — a crash — once it
/// has sent `k` requests: those are applied, the next one is never sent.
fn stopped_after(
    world: &World,
    seed: u64,
    k: u64,
    f: impl FnOnce(&Client) -> Result<(), String> + Send,
) -> Result<(), String> {
    type Body<'a> = Box<dyn FnOnce(Client) -> Option<Result<(), String>> + Send + 'a>;
    let start = world.request_totals().requests;
    let done = AtomicBool::new(false);
    let done = &done;
    let mut bodies: Vec<Body<'_>> = vec![Box::new(move |client: Client| {
        let result = f(&client);
        done.store(true, Ordering::SeqCst);
        Some(result)
    })];
    for _ in 0..WATCHERS {
        bodies.push(Box::new(move |_: Client| loop {
            if done.load(Ordering::SeqCst) {
                return None;
            }
            if world.request_totals().requests - start >= k {
                panic::resume_unwind(Box::new(Stop));
            }
            yield_now();
        }));
    }
    match panic::catch_unwind(AssertUnwindSafe(|| world.run_concurrently(seed, bodies))) {
        Ok(results) => results.into_iter().next().flatten().unwrap_or(Ok(())),
        Err(payload) if payload.is::<Stop>() => Err(STOPPED.to_string()),
        Err(payload) => panic::resume_unwind(payload),
    }
}
