//! Hidden tests of the `stream-read-model` kata.
//!
//! Each test creates the `orders` table (stream `NEW_AND_OLD_IMAGES`, TTL on `expires_at`),
//! lets the learner create the read model's table, subscribes the learner's `handle` to the
//! stream through an event source mapping, changes orders, lets the world settle (every
//! record delivered, every TTL deletion done) and compares the learner's read model —
//! through `customer_stats` and `status_count` only — with one the test recomputes from the
//! orders table itself:
//!
//! - `applies_inserts_modifies_and_removes`: exactly-once delivery, one change at a time:
//!   INSERT counts an order, MODIFY moves a status count or adjusts spend, a delete takes the
//!   order out again. The readers answer from the read model, never from `orders`.
//! - `ttl_deletes_leave_the_read_model`: an order deleted by TTL (a REMOVE from the service)
//!   stops counting, like a deleted one.
//! - `survives_redelivery_retries_and_a_split`: a seeded random workload of inserts, status
//!   and total changes, overwrites, deletes and expiries, delivered at least once — 30% of the
//!   batches redelivered, the function "timing out" partway through some batches (so the batch
//!   is retried whole after part of it was applied), and the orders table split into more
//!   partitions (parent shards before child shards). Nothing may be counted twice or missed.
//! - `a_function_stopped_partway_through_a_record`: one batch of four records, its first
//!   delivery stopped (Lambda's timeout) after the handler's 1st, 2nd, … request, each in a
//!   fresh world: the requests sent are applied, the rest never sent, the batch retried whole.
//!   The handler runs on a seeded schedule (`World::concurrently`) beside watchers that stop it
//!   at the gate of its next request. No record may end half applied.
//! - `a_new_instance_starts_empty`: five records applied, then handed again to the same
//!   instance (nothing may move), then to a new instance — a process of its own given a copy
//!   of the learner's tables and the same records (nothing may move either). A handler that
//!   remembers applied records in memory passes the first and fails the second.
//!
//! Every test runs in a process of its own (`process`): the engine's event ids repeat from
//! world to world, so a handler's globals must not carry from one test into the next.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::types::{
    AttributeDefinition, EventSourceMapping, Identity, KeySchemaElement, KeyType, OperationType,
    ProvisionedThroughput, Record, ScalarAttributeType, StartingPosition, StreamRecord,
    StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use engine::world::schedule::yield_now;
use engine::{item, AttributeValue, Client, Error, Item, World, WorldConfig};
use given::{CustomerStats, ORDERS_TABLE, STATUSES};
use katas_testkit::{fail, run, seeded, test, thousands, wrap, Failure, Rng};
use learner::{create_read_model_table, customer_stats, handle, status_count};

katas_testkit::learner! {
    /// Creates the read model's table.
    fn create_read_model_table(client: &Client) -> Result<(), Error>;
    /// The stream handler.
    fn handle(client: &Client, records: &[engine::types::Record]) -> Result<(), Error>;
    /// A customer's figures, as the read model has them.
    fn customer_stats(client: &Client, customer_id: &str) -> Result<CustomerStats, Error>;
    /// How many orders are in `status`, as the read model has it.
    fn status_count(client: &Client, status: &str) -> Result<i64, Error>;
}

mod process;

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
/// Each test runs in a process of its own (see `process`).
pub fn main(kata: Kata) -> ! {
    install(kata);
    if std::env::var_os(process::INSTANCE_ENV).is_some() {
        process::serve_new_instance(serve_new_instance);
    }
    let plain =
        |name: &'static str, body: fn()| test(name, move || process::isolated(name, None, body));
    run(vec![
        plain(
            "applies_inserts_modifies_and_removes",
            applies_inserts_modifies_and_removes,
        ),
        plain(
            "ttl_deletes_leave_the_read_model",
            ttl_deletes_leave_the_read_model,
        ),
        seeded("survives_redelivery_retries_and_a_split", |seed| {
            process::isolated(
                "survives_redelivery_retries_and_a_split",
                Some(seed),
                || survives_redelivery_retries_and_a_split(seed),
            )
        }),
        plain(
            "a_function_stopped_partway_through_a_record",
            a_function_stopped_partway_through_a_record,
        ),
        plain("a_new_instance_starts_empty", a_new_instance_starts_empty),
    ]);
}

/// Retries of one failing batch before the event source mapping discards it.
const MAX_RETRIES: i64 = 8;

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// INSERT, MODIFY (status, total, both) and REMOVE, each delivered exactly once.
fn applies_inserts_modifies_and_removes() {
    let scene = Scene::new(1, Delivery::exactly_once());

    scene.put("o-1", "c-1", "PLACED", 1_000, None);
    scene.put("o-2", "c-1", "PLACED", 2_500, None);
    scene.put("o-3", "c-2", "PAID", 700, None);
    scene.check(
        "after three INSERT records (o-1 and o-2 of c-1, o-3 of c-2)",
        "An INSERT record's new image is a new order: count it for its customer (order_count \
         + 1, spend_cents + total_cents) and for its status.",
    );

    scene.update(
        "o-1",
        "SET #status = :v",
        AttributeValue::S("SHIPPED".into()),
    );
    scene.check(
        "after a MODIFY record moved o-1 from PLACED to SHIPPED",
        "A MODIFY record carries the old and the new image: the order leaves its old status \
         (PLACED − 1) and joins the new one (SHIPPED + 1); the customer still has the same \
         number of orders.",
    );

    scene.update(
        "o-2",
        "SET total_cents = :v",
        AttributeValue::N("3100".into()),
    );
    scene.check(
        "after a MODIFY record changed o-2's total from 2,500 to 3,100",
        "When the total changes, the customer's spend changes by new − old total (+600 here); \
         the order count does not move.",
    );

    scene.put("o-3", "c-2", "CANCELLED", 0, None);
    scene.check(
        "after a PutItem replaced o-3 (PAID, 700) with (CANCELLED, 0) — one MODIFY record",
        "An overwrite is a MODIFY too: take the old image's contribution out (PAID − 1, spend \
         − 700) and put the new one's in (CANCELLED + 1, spend + 0).",
    );

    scene.put("o-1", "c-2", "SHIPPED", 1_000, None);
    scene.check(
        "after a PutItem replaced o-1 (c-1, SHIPPED, 1,000) with (c-2, SHIPPED, 1,000) — one \
         MODIFY record that moves the order to another customer",
        "An overwrite can give an order to another customer: the old image's customer (c-1) \
         loses the order and its total, the new image's customer (c-2) gains them: each image \
         names its own customer.",
    );

    scene.delete("o-2");
    scene.check(
        "after a REMOVE record: o-2 (c-1, PLACED, 3,100) was deleted",
        "A REMOVE record has only the old image: the order leaves the read model — its \
         customer's count and spend, and its status count, go down. A handler that only looks \
         at new images misses every delete.",
    );

    // The readers answer from the read model.
    let first = scene.world.request_totals().requests;
    let _ = customer_stats(&scene.client, "c-1");
    let _ = status_count(&scene.client, "PLACED");
    let touched_orders = scene
        .world
        .request_log()
        .iter()
        .filter(|r| r.seq >= first)
        .any(|r| r.touches(ORDERS_TABLE));
    if touched_orders {
        fail(
            "customer_stats / status_count read the `orders` table: a read model answers from \
             its own items, kept up to date by the stream handler — computing the figures from \
             the orders on every read is the query the read model exists to avoid",
        );
    }
}

/// An order removed by TTL stops counting, like a deleted one.
fn ttl_deletes_leave_the_read_model() {
    let scene = Scene::new(2, Delivery::exactly_once());
    let soon = scene.world.epoch_seconds() + 30;
    scene.put("o-1", "c-1", "PLACED", 1_200, Some(soon));
    scene.put("o-2", "c-1", "PLACED", 800, None);
    scene.put("o-3", "c-2", "SHIPPED", 450, Some(soon + 5));
    scene.world.settle();
    if scene.order_exists("o-1") || scene.order_exists("o-3") {
        fail("test setup: the TTL sweeper did not delete the expired orders");
    }
    scene.check(
        "after DynamoDB's TTL sweeper deleted the expired orders o-1 (c-1, PLACED, 1,200) and \
         o-3 (c-2, SHIPPED, 450)",
        "A TTL deletion arrives as a REMOVE record made by the service (record.is_ttl_delete(), \
         userIdentity dynamodb.amazonaws.com). This read model mirrors the live table: an \
         expired order leaves it exactly like a deleted one.",
    );
}

/// A random workload delivered at least once — redeliveries, partial failures and retries,
/// partition splits — must leave the read model equal to the table.
fn survives_redelivery_retries_and_a_split(seed: u64) {
    let scene = Scene::new(seed, Delivery::at_least_once(seed));
    let mut rng = Rng::new(seed);
    let customers: Vec<String> = (1..=12).map(|n| format!("c-{n:02}")).collect();
    let mut live: Vec<String> = Vec::new();
    let mut next_id = 0;
    let mut ops: BTreeMap<&str, u32> = BTreeMap::new();
    for _ in 0..240 {
        let roll = rng.below(100);
        let kind = if live.len() < 5 || roll < 40 {
            next_id += 1;
            let id = format!("o-{next_id:04}");
            let customer = &customers[rng.below(customers.len() as u64) as usize];
            let status = STATUSES[rng.below(3) as usize];
            let expires =
                (rng.below(8) == 0).then(|| scene.world.epoch_seconds() + 5 + rng.below(60));
            scene.put(&id, customer, status, cents(&mut rng), expires);
            live.push(id);
            "insert"
        } else {
            let at = rng.below(live.len() as u64) as usize;
            let id = live[at].clone();
            if !scene.order_exists(&id) {
                // Expired and swept by TTL since it was written: its REMOVE is in the stream.
                live.swap_remove(at);
                "expiry seen"
            } else if roll < 65 {
                let status = STATUSES[rng.below(STATUSES.len() as u64) as usize];
                scene.update(&id, "SET #status = :v", AttributeValue::S(status.into()));
                "status change"
            } else if roll < 78 {
                let total = AttributeValue::N(cents(&mut rng).to_string());
                scene.update(&id, "SET total_cents = :v", total);
                "total change"
            } else if roll < 88 {
                // Half of the overwrites give the order to another customer.
                let customer = if rng.below(2) == 0 {
                    scene.customer_of(&id)
                } else {
                    customers[rng.below(customers.len() as u64) as usize].clone()
                };
                let status = STATUSES[rng.below(STATUSES.len() as u64) as usize];
                scene.put(&id, &customer, status, cents(&mut rng), None);
                "overwrite"
            } else {
                scene.delete(&id);
                live.swap_remove(at);
                "delete"
            }
        };
        if kind != "expiry seen" {
            *ops.entry(kind).or_default() += 1;
        }
        scene
            .world
            .advance(Duration::from_millis(20 + rng.below(150)));
    }
    scene.world.settle();

    let splits = scene
        .world
        .partition_splits(ORDERS_TABLE)
        .map(|s| s.len())
        .unwrap_or(0);
    let stats = scene
        .world
        .consumer_stats(scene.consumer)
        .unwrap_or_default();
    let delivery = scene.delivery.lock().map(|d| d.clone()).unwrap_or_default();
    if splits == 0 || stats.batches_redelivered == 0 || delivery.injected == 0 {
        fail(format!(
            "test setup: the scenario lacks a split ({splits}), a redelivery \
             ({}) or an injected failure ({})",
            stats.batches_redelivered, delivery.injected
        ));
    }
    let story = format!(
        "after {} changes to the orders table ({}) delivered at least once: {} of {} batches \
         delivered a second time after they succeeded, {} batches cut short partway (the \
         function \"timed out\") and retried whole, and {} partition split{} of `orders` (a \
         parent shard read before its children)",
        ops.values().sum::<u32>(),
        ops.iter()
            .map(|(k, v)| format!("{v} {k}s"))
            .collect::<Vec<_>>()
            .join(", "),
        stats.batches_redelivered,
        stats.batches_succeeded,
        delivery.injected,
        splits,
        if splits == 1 { "" } else { "s" },
    );
    scene.check(
        &story,
        "At-least-once delivery: the same record can reach handle() two, three times, and \
         applying it again must change nothing. A record is applied exactly once only if the \
         read model knows which records it has already applied — from a write that lands or \
         fails together with the figures.",
    );
}

/// The four changes of `a_function_stopped_partway_through_a_record`, one batch.
const FOUR_CHANGES: &str = "four records in one batch — INSERT o-1 (c-1, PLACED, 1,200), MODIFY \
                            o-1 (an overwrite: c-2, PAID, 900), INSERT o-2 (c-1, PLACED, 500), \
                            REMOVE o-1";

/// Cut points tried at most (a handler sending more requests for the batch is cut at the
/// first ones only).
const MAX_CUTS: u64 = 24;

/// Lambda stops a function when its timeout comes, between any two of its requests: the
/// requests sent are applied, the next one is never sent, and the whole batch comes again.
/// The batch is cut after its 1st, 2nd, … request, each time in a fresh world.
fn a_function_stopped_partway_through_a_record() {
    let changes = |scene: &Scene| {
        scene.put("o-1", "c-1", "PLACED", 1_200, None);
        scene.put("o-1", "c-2", "PAID", 900, None);
        scene.put("o-2", "c-1", "PLACED", 500, None);
        scene.delete("o-1");
    };
    let clean = Scene::new(3, Delivery::stopped_after(u64::MAX, 0));
    changes(&clean);
    clean.check(
        &format!("after {FOUR_CHANGES}, delivered once"),
        "Each record's images give its deltas: old image out, new image in.",
    );
    let sent = clean.delivery().first_requests.len() as u64;
    for k in 1..sent.min(MAX_CUTS + 1) {
        let scene = Scene::new(3, Delivery::stopped_after(k, 4 * k));
        changes(&scene);
        scene.world.settle();
        let d = scene.delivery();
        if !d.first_stopped {
            continue; // it finished before the stop came: nothing was cut
        }
        let moment = format!(
            "after {FOUR_CHANGES}: Lambda stopped the function (a timeout) after its first \
             {} ({}) — applied, the next one never sent — and delivered the whole batch again",
            match d.first_requests.len() {
                1 => "request".to_string(),
                n => format!("{n} requests"),
            },
            d.first_requests.join(", "),
        );
        scene.check(
            &moment,
            "A function can be stopped between any two of its requests, and the retried batch \
             then meets a record that is half applied. A marker written before the record's \
             figures makes the retry skip figures that were never written (too low); figures \
             written before their marker are written again on the retry (too high). \
             Separate requests are each atomic on their own items only; a record is applied \
             entirely or not at all only by a write that is all or nothing.",
        );
    }
}

/// The changes of `a_new_instance_starts_empty`.
const FIVE_CHANGES: &str = "five records — INSERT o-1 (c-1, PLACED, 1,200), INSERT o-2 (c-2, \
                            PAID, 800), MODIFY o-1 (SHIPPED), INSERT o-3 (c-1, PLACED, 300), \
                            REMOVE o-2";

/// Lambda runs a function in instances that come and go: after a timeout, a crash, a
/// deployment or a scale-out, a batch the old instance applied can reach a new one, which
/// shares nothing with the old one but DynamoDB. The new instance is a process of its own,
/// given a copy of the read model's tables and the same records.
fn a_new_instance_starts_empty() {
    let scene = Scene::new(4, Delivery::exactly_once());
    scene.put("o-1", "c-1", "PLACED", 1_200, None);
    scene.put("o-2", "c-2", "PAID", 800, None);
    scene.update(
        "o-1",
        "SET #status = :v",
        AttributeValue::S("SHIPPED".into()),
    );
    scene.put("o-3", "c-1", "PLACED", 300, None);
    scene.delete("o-2");
    scene.check(
        &format!("after {FIVE_CHANGES}, delivered once"),
        "Each record's images give its deltas: old image out, new image in.",
    );
    let batches = scene.delivery().batches;

    // The same instance, given every record again.
    for batch in &batches {
        if let Err(e) = handle(&scene.client, batch) {
            fail(format!(
                "after {FIVE_CHANGES}, delivered once: given the same records again, handle() \
                 returned an error: {e}"
            ));
        }
    }
    scene.check(
        &format!("after {FIVE_CHANGES}, delivered once, then given to the same instance again"),
        "A record delivered again must change nothing: remember which records were applied.",
    );

    // A new instance, given them again.
    let want = scene.expected();
    let tables = scene.learner_tables();
    let input = serde_json::json!({
        "tables": tables,
        "batches": batches.iter().map(|b| b.iter().map(record_to_json).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "customers": want.customers.keys().collect::<Vec<_>>(),
    });
    let answer = process::new_instance(&input);
    if let Some(problem) = answer.get("problem").and_then(serde_json::Value::as_str) {
        fail(format!(
            "after {FIVE_CHANGES}, delivered once and applied, a new instance of the function \
             was given the same records: {problem}"
        ));
    }
    let got = model_from_json(&answer);
    if got == want {
        return;
    }
    let writes = answer
        .get("writes")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    Failure::compare(
        wrap(&format!(
            "after {FIVE_CHANGES}, delivered once and applied: given every record again, the \
             same instance changed nothing — but a new instance of the function (a cold start: \
             Lambda stopped the old one before it reported the batch done and started another, \
             which shares nothing with it but DynamoDB), given a copy of the read model's \
             tables and the same records, sent {writes} successful write{} and moved the \
             figures again:\n{}\nThe handler remembered applied records in memory; a new \
             instance started empty and applied them again. An instance's memory is its own \
             and dies with it: what every instance shares is DynamoDB.",
            if writes == 1 { "" } else { "s" },
            want.differences(&got),
        )),
        want.text(),
        got.text(),
    )
    .raise();
}

/// The new instance's process: the tables restored, the records handled, the figures read.
fn serve_new_instance(input: serde_json::Value) -> serde_json::Value {
    use serde_json::{json, Value};
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let world = World::new(4);
        let client = world.client();
        create_orders_table(&client);
        if let Err(e) = create_read_model_table(&client) {
            return json!({"problem": format!("create_read_model_table() failed: {e}")});
        }
        let empty = serde_json::Map::new();
        for (table, items) in input["tables"].as_object().unwrap_or(&empty) {
            for item in items.as_array().into_iter().flatten() {
                let item = engine::value::item_from_json(item)
                    .unwrap_or_else(|e| fail(format!("test setup: an item of {table}: {e}")));
                let put = client
                    .put_item()
                    .table_name(table)
                    .set_item(Some(item))
                    .send();
                if let Err(e) = put {
                    return json!({"problem": format!("test setup: restoring {table} failed: {e}")});
                }
            }
        }
        let start = world.request_totals().requests;
        for batch in input["batches"].as_array().into_iter().flatten() {
            let records: Vec<Record> = batch
                .as_array()
                .into_iter()
                .flatten()
                .map(record_from_json)
                .collect();
            if let Err(e) = handle(&client, &records) {
                return json!({"problem": format!("handle() returned an error: {e}")});
            }
        }
        let writes = world
            .request_log()
            .iter()
            .filter(|r| r.seq >= start && r.succeeded() && !r.touches(ORDERS_TABLE))
            .filter(|r| {
                matches!(
                    r.operation,
                    "PutItem"
                        | "UpdateItem"
                        | "DeleteItem"
                        | "BatchWriteItem"
                        | "TransactWriteItems"
                )
            })
            .count();
        let mut want = Model::default();
        for c in input["customers"].as_array().into_iter().flatten() {
            want.customers.insert(
                c.as_str().unwrap_or_default().to_string(),
                CustomerStats::default(),
            );
        }
        for s in STATUSES {
            want.statuses.insert(s.to_string(), 0);
        }
        let got = read_model(&client, &want);
        let customers: serde_json::Map<String, Value> = got
            .customers
            .iter()
            .map(|(c, s)| (c.clone(), json!([s.order_count, s.spend_cents])))
            .collect();
        json!({"customers": customers, "statuses": got.statuses, "writes": writes})
    }));
    outcome.unwrap_or_else(|payload| {
        let text = payload
            .downcast_ref::<Failure>()
            .map(|f| f.message.clone())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        json!({"problem": format!("it panicked: {text}")})
    })
}

fn model_from_json(v: &serde_json::Value) -> Model {
    let mut m = Model::default();
    for (c, s) in v["customers"].as_object().into_iter().flatten() {
        m.customers.insert(
            c.clone(),
            CustomerStats {
                order_count: s[0].as_i64().unwrap_or(0),
                spend_cents: s[1].as_i64().unwrap_or(0),
            },
        );
    }
    for (st, n) in v["statuses"].as_object().into_iter().flatten() {
        m.statuses.insert(st.clone(), n.as_i64().unwrap_or(0));
    }
    m
}

fn record_to_json(r: &Record) -> serde_json::Value {
    use engine::value::item_to_json;
    serde_json::json!({
        "eventID": r.event_id,
        "eventName": r.event_name.as_str(),
        "ttl": r.is_ttl_delete(),
        "created": r.dynamodb.approximate_creation_date_time,
        "keys": item_to_json(&r.dynamodb.keys),
        "new": r.dynamodb.new_image.as_ref().map(item_to_json),
        "old": r.dynamodb.old_image.as_ref().map(item_to_json),
        "seq": r.dynamodb.sequence_number,
        "size": r.dynamodb.size_bytes,
    })
}

fn record_from_json(v: &serde_json::Value) -> Record {
    let item = |k: &str| engine::value::item_from_json(&v[k]).ok();
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    Record {
        event_id: text("eventID"),
        event_name: match v["eventName"].as_str() {
            Some("INSERT") => OperationType::Insert,
            Some("MODIFY") => OperationType::Modify,
            _ => OperationType::Remove,
        },
        event_version: "1.1".into(),
        event_source: "aws:dynamodb".into(),
        aws_region: "us-east-1".into(),
        user_identity: v["ttl"].as_bool().unwrap_or(false).then(|| Identity {
            r#type: "Service".into(),
            principal_id: "dynamodb.amazonaws.com".into(),
        }),
        dynamodb: StreamRecord {
            approximate_creation_date_time: v["created"].as_u64().unwrap_or(0),
            keys: item("keys").unwrap_or_default(),
            new_image: item("new"),
            old_image: item("old"),
            sequence_number: text("seq"),
            size_bytes: v["size"].as_u64().unwrap_or(0),
            stream_view_type: StreamViewType::NewAndOldImages,
        },
    }
}

/// What the stopped invocation returns to the event source mapping.
const STOPPED: &str = "Task timed out: the function was stopped between two of its requests";

/// The payload the watchers unwind with when they stop the function.
struct Stop;

/// Watchers beside the handler on the schedule: at each of its requests, one of them is
/// drawn before the handler goes on with probability WATCHERS / (WATCHERS + 1).
const WATCHERS: usize = 15;

/// Runs `handle(records)` as a client on a seeded schedule, beside watchers that stop it —
/// Lambda's timeout — once it has sent `k` requests: those are applied, and the handler is
/// unwound at the gate of its next one, which is never sent.
fn stopped_after(world: &World, seed: u64, k: u64, records: &[Record]) -> Result<(), String> {
    type Body<'a> = Box<dyn FnOnce(Client) -> Option<Result<(), String>> + Send + 'a>;
    let start = world.request_totals().requests;
    let done = AtomicBool::new(false);
    let done = &done;
    let mut bodies: Vec<Body<'_>> = vec![Box::new(move |client: Client| {
        let result = handle(&client, records).map_err(|e| e.to_string());
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

// ---------------------------------------------------------------------------------------
// The scene: the orders table, the learner's read model, the subscription
// ---------------------------------------------------------------------------------------

/// How the event source mapping delivers, and what the test injected.
#[derive(Clone, Debug, Default)]
struct Delivery {
    redelivery_probability: f64,
    /// Chance that an invocation "times out" after handling part of its batch.
    timeout_probability: f64,
    rng_seed: u64,
    /// Invocations cut short by the test.
    injected: u64,
    /// Errors handle() returned, newest last (at most 5 kept).
    errors: Vec<String>,
    error_count: u64,
    /// Stop the first invocation once it has sent this many requests (see
    /// `a_function_stopped_partway_through_a_record`).
    stop_first_after: Option<u64>,
    /// Schedule seed of that stop.
    stop_seed: u64,
    /// Records written (and skipped by the consumer) before the scene starts, so that this
    /// world's event ids differ from those of the worlds before it in the same process.
    sequence_offset: u64,
    /// The requests of the first invocation, `Operation table` (from the request log).
    first_requests: Vec<String>,
    /// Whether the first invocation was stopped before it returned.
    first_stopped: bool,
    invocations: u64,
    /// The batches handle() succeeded on, in order (exactly-once scenes only).
    batches: Vec<Vec<Record>>,
}

impl Delivery {
    fn exactly_once() -> Delivery {
        Delivery::default()
    }

    /// Exactly once, except that the first invocation is stopped once it has sent `k`
    /// requests (`u64::MAX`: never, but its requests are recorded); `offset` records are
    /// written before the scene starts (see `sequence_offset`).
    fn stopped_after(k: u64, offset: u64) -> Delivery {
        Delivery {
            stop_first_after: Some(k),
            stop_seed: 0x570b ^ k,
            sequence_offset: offset,
            ..Delivery::default()
        }
    }

    fn at_least_once(seed: u64) -> Delivery {
        Delivery {
            redelivery_probability: 0.3,
            timeout_probability: 0.15,
            rng_seed: seed ^ 0x5eed,
            ..Delivery::default()
        }
    }
}

struct Scene {
    world: World,
    client: Client,
    consumer: u32,
    delivery: Arc<Mutex<Delivery>>,
    /// Customers the test wrote orders for.
    written: Mutex<BTreeSet<String>>,
}

impl Scene {
    fn new(seed: u64, delivery: Delivery) -> Scene {
        let world = World::with_config(WorldConfig {
            seed,
            // Small partitions: the orders table splits while the workload runs, and its
            // stream's shards with it.
            partition_size_limit: 2_000,
            ttl_sweep_interval_s: 10,
            ttl_delete_delay_s: 0,
            ..WorldConfig::default()
        });
        let client = world.client();
        let setup = |what: &str, r: Result<(), Error>| {
            r.unwrap_or_else(|e| fail(format!("test setup: {what} failed: {e}")))
        };
        setup(
            "creating `orders`",
            client
                .create_table()
                .table_name(ORDERS_TABLE)
                // Provisioned small: one partition to start with, split as orders arrive.
                .provisioned_throughput(ProvisionedThroughput::new(
                    200,
                    200 + 2 * delivery.sequence_offset as i64,
                ))
                .attribute_definitions(AttributeDefinition::new("order_id", ScalarAttributeType::S))
                .key_schema(KeySchemaElement::new("order_id", KeyType::Hash))
                .stream_specification(StreamSpecification::enabled(
                    StreamViewType::NewAndOldImages,
                ))
                .send()
                .map(|_| ())
                .map_err(Into::into),
        );
        setup(
            "enabling TTL on `orders`",
            client
                .update_time_to_live()
                .table_name(ORDERS_TABLE)
                .time_to_live_specification(TimeToLiveSpecification::new(true, "expires_at"))
                .send()
                .map(|_| ())
                .map_err(Into::into),
        );
        if let Err(e) = create_read_model_table(&client) {
            fail(format!("create_read_model_table() failed: {e}"));
        }

        // Records this world's handler never sees: they only move its event ids on.
        for i in 0..delivery.sequence_offset {
            let burn = client
                .put_item()
                .table_name(ORDERS_TABLE)
                .item("order_id", AttributeValue::S(format!("burn-{i}")));
            setup(
                "moving the stream's sequence numbers on",
                burn.send().map(|_| ()).map_err(Into::into),
            );
            let gone = client
                .delete_item()
                .table_name(ORDERS_TABLE)
                .key("order_id", AttributeValue::S(format!("burn-{i}")));
            setup(
                "moving the stream's sequence numbers on",
                gone.send().map(|_| ()).map_err(Into::into),
            );
        }
        let mapping = EventSourceMapping {
            batch_size: 8,
            starting_position: if delivery.sequence_offset > 0 {
                StartingPosition::Latest
            } else {
                StartingPosition::TrimHorizon
            },
            maximum_retry_attempts: MAX_RETRIES,
            bisect_batch_on_function_error: false,
            poll_interval: Duration::from_millis(250),
            redelivery_probability: delivery.redelivery_probability,
        };
        let rng = Mutex::new(Rng::new(delivery.rng_seed));
        let delivery = Arc::new(Mutex::new(delivery));
        let shared = Arc::clone(&delivery);
        let handler_client = client.clone();
        let handler_world = world.clone();
        let consumer = world
            .subscribe(ORDERS_TABLE, mapping, move |records: &[Record]| {
                let (first, stop) = {
                    let mut d = shared.lock().unwrap_or_else(|p| p.into_inner());
                    d.invocations += 1;
                    (
                        d.invocations == 1,
                        d.stop_first_after.map(|k| (k, d.stop_seed)),
                    )
                };
                if let (true, Some((k, seed))) = (first, stop) {
                    let before = handler_world.request_totals().requests;
                    let result = match k {
                        u64::MAX => handle(&handler_client, records).map_err(|e| e.to_string()),
                        _ => stopped_after(&handler_world, seed, k, records),
                    };
                    let mut d = shared.lock().unwrap_or_else(|p| p.into_inner());
                    d.first_requests = handler_world
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
                        .collect();
                    d.first_stopped = result.as_ref().is_err_and(|e| e == STOPPED);
                    return result;
                }
                let cut = {
                    let mut d = shared.lock().unwrap_or_else(|p| p.into_inner());
                    let mut rng = rng.lock().unwrap_or_else(|p| p.into_inner());
                    let roll = rng.below(1_000) as f64 / 1_000.0;
                    if roll < d.timeout_probability {
                        d.injected += 1;
                        Some(rng.below(records.len() as u64 + 1) as usize)
                    } else {
                        None
                    }
                };
                if let Some(done) = cut {
                    // The function handles part of the batch, then Lambda stops it: the
                    // whole batch comes again.
                    let _ = handle(&handler_client, &records[..done]);
                    return Err(format!(
                        "Task timed out after handling {done} of {} records",
                        records.len()
                    ));
                }
                let result = handle(&handler_client, records);
                if result.is_ok() {
                    let mut d = shared.lock().unwrap_or_else(|p| p.into_inner());
                    if d.redelivery_probability == 0.0 && d.timeout_probability == 0.0 {
                        d.batches.push(records.to_vec());
                    }
                }
                result.map_err(|e| {
                    let mut d = shared.lock().unwrap_or_else(|p| p.into_inner());
                    d.error_count += 1;
                    d.errors.push(e.to_string());
                    if d.errors.len() > 5 {
                        d.errors.remove(0);
                    }
                    e.to_string()
                })
            })
            .unwrap_or_else(|e| fail(format!("test setup: subscribing failed: {e}")));
        Scene {
            world,
            client,
            consumer,
            delivery,
            written: Mutex::new(BTreeSet::new()),
        }
    }

    /// Every item of every table but `orders` (the read model's tables, as the learner laid
    /// them out), as DynamoDB JSON.
    fn learner_tables(&self) -> serde_json::Map<String, serde_json::Value> {
        let names = self
            .client
            .list_tables()
            .send()
            .unwrap_or_else(|e| fail(format!("test setup: listing tables failed: {e}")))
            .table_names
            .unwrap_or_default();
        let mut out = serde_json::Map::new();
        for table in names.into_iter().filter(|t| t != ORDERS_TABLE) {
            let mut items = Vec::new();
            let mut start: Option<Item> = None;
            loop {
                let page = self
                    .client
                    .scan()
                    .table_name(&table)
                    .consistent_read(true)
                    .set_exclusive_start_key(start.take())
                    .send()
                    .unwrap_or_else(|e| fail(format!("test setup: scanning {table} failed: {e}")));
                items.extend(page.items().iter().map(engine::value::item_to_json));
                match page.last_evaluated_key() {
                    Some(k) => start = Some(k.clone()),
                    None => break,
                }
            }
            out.insert(table, serde_json::Value::Array(items));
        }
        out
    }

    fn delivery(&self) -> Delivery {
        self.delivery
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn put(&self, id: &str, customer: &str, status: &str, total: u64, expires: Option<u64>) {
        let mut item = item! {
            "order_id" => id, "customer_id" => customer, "status" => status, "total_cents" => total,
        };
        self.written
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(customer.to_string());
        if let Some(at) = expires {
            item.insert("expires_at".into(), AttributeValue::N(at.to_string()));
        }
        self.client
            .put_item()
            .table_name(ORDERS_TABLE)
            .set_item(Some(item))
            .send()
            .unwrap_or_else(|e| fail(format!("test setup: writing order {id} failed: {e}")));
    }

    fn update(&self, id: &str, expression: &str, value: AttributeValue) {
        let mut update = self
            .client
            .update_item()
            .table_name(ORDERS_TABLE)
            .key("order_id", AttributeValue::S(id.into()))
            .update_expression(expression)
            .condition_expression("attribute_exists(order_id)")
            .expression_attribute_values(":v", value);
        if expression.contains("#status") {
            update = update.expression_attribute_names("#status", "status");
        }
        update
            .send()
            .unwrap_or_else(|e| fail(format!("test setup: updating order {id} failed: {e}")));
    }

    fn delete(&self, id: &str) {
        self.client
            .delete_item()
            .table_name(ORDERS_TABLE)
            .key("order_id", AttributeValue::S(id.into()))
            .send()
            .unwrap_or_else(|e| fail(format!("test setup: deleting order {id} failed: {e}")));
    }

    fn get(&self, id: &str) -> Option<Item> {
        self.client
            .get_item()
            .table_name(ORDERS_TABLE)
            .key("order_id", AttributeValue::S(id.into()))
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("test setup: reading order {id} failed: {e}")))
            .item()
            .cloned()
    }

    fn order_exists(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    fn customer_of(&self, id: &str) -> String {
        self.get(id)
            .and_then(|i| i.get("customer_id").and_then(|v| v.as_s().ok()).cloned())
            .unwrap_or_default()
    }

    /// Every order now in the table (strongly consistent).
    fn orders(&self) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(ORDERS_TABLE)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| fail(format!("test setup: scanning orders failed: {e}")));
            items.extend(page.items().iter().cloned());
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return items,
            }
        }
    }

    /// Settles the world, then compares the learner's read model with the one recomputed
    /// from the orders table; fails with `moment` and `lesson` if they differ.
    fn check(&self, moment: &str, lesson: &str) {
        self.world.settle();
        self.fail_on_handler_errors(moment);

        let want = self.expected();
        let got = read_model(&self.client, &want);
        if want == got {
            return;
        }
        let over = want
            .customers
            .iter()
            .any(|(k, w)| got.customers[k].order_count > w.order_count)
            || want.statuses.iter().any(|(k, w)| got.statuses[k] > *w);
        let under = want
            .customers
            .iter()
            .any(|(k, w)| got.customers[k].order_count < w.order_count)
            || want.statuses.iter().any(|(k, w)| got.statuses[k] < *w);
        let diffs = want.differences(&got);
        let d = self.delivery();
        let exactly_once =
            d.redelivery_probability == 0.0 && d.timeout_probability == 0.0 && !d.first_stopped;
        let verdict = match (over, under) {
            // Each record was delivered once: the deltas themselves are wrong.
            _ if exactly_once => "the figures the records moved are not the table's",
            (true, true) => {
                "some counts are too high and some too low: records were applied more than \
                 once (an INSERT counted twice, a REMOVE taken out twice) or not at all"
            }
            (true, false) => "it counts orders that are not in the table (or counts some twice)",
            (false, true) => "orders in the table are missing from it (or were taken out twice)",
            (false, false) => "the spend differs",
        };
        Failure::compare(
            wrap(&format!(
                "{moment}, the read model does not match the orders table — {verdict}:\n{diffs}\n{lesson}"
            )),
            want.text(),
            got.text(),
        )
        .raise();
    }

    /// The read model recomputed from the orders table (every status and every customer the
    /// test wrote for, with zeros).
    fn expected(&self) -> Model {
        let mut want = Model::default();
        for order in self.orders() {
            let text = |n: &str| order.get(n).and_then(|v| v.as_s().ok()).cloned();
            let (Some(customer), Some(status)) = (text("customer_id"), text("status")) else {
                continue;
            };
            let total = order
                .get("total_cents")
                .and_then(AttributeValue::as_number)
                .and_then(|n| n.to_i64())
                .unwrap_or(0);
            let c = want.customers.entry(customer).or_default();
            c.order_count += 1;
            c.spend_cents += total;
            *want.statuses.entry(status).or_default() += 1;
        }
        for s in STATUSES {
            want.statuses.entry(s.to_string()).or_default();
        }
        // Every customer the test wrote for, including those with no order left.
        for c in self.known_customers() {
            want.customers.entry(c).or_default();
        }
        want
    }

    /// Every customer an order was written for, including those with no order left.
    fn known_customers(&self) -> Vec<String> {
        let written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        written.iter().cloned().collect()
    }

    /// Fails if the consumer discarded records (the handler kept failing) or if handle()
    /// returned errors the test did not cause.
    fn fail_on_handler_errors(&self, moment: &str) {
        let stats = self.world.consumer_stats(self.consumer).unwrap_or_default();
        let d = self.delivery.lock().map(|d| d.clone()).unwrap_or_default();
        if stats.records_discarded > 0 {
            fail(format!(
                "{moment}: handle() returned an error for the same batch {} times in a row, so the \
                 event source mapping gave up and discarded {} record{} — those changes never \
                 reach the read model. handle() returned {} error{} in all; the last: {}",
                MAX_RETRIES + 1,
                stats.records_discarded,
                if stats.records_discarded == 1 { "" } else { "s" },
                d.error_count,
                if d.error_count == 1 { "" } else { "s" },
                d.errors.last().cloned().unwrap_or_default()
            ));
        }
    }
}

/// The orders table of a new instance's world: its key and stream, nothing else (the new
/// instance only handles records it is given).
fn create_orders_table(client: &Client) {
    let created = client
        .create_table()
        .table_name(ORDERS_TABLE)
        .billing_mode(engine::types::BillingMode::PayPerRequest)
        .attribute_definitions(AttributeDefinition::new("order_id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("order_id", KeyType::Hash))
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send();
    if let Err(e) = created {
        fail(format!("test setup: creating `orders` failed: {e}"));
    }
}

/// The learner's read model, through its readers, for the customers and statuses of `want`.
fn read_model(client: &Client, want: &Model) -> Model {
    let mut got = Model::default();
    for customer in want.customers.keys() {
        let stats = customer_stats(client, customer)
            .unwrap_or_else(|e| fail(format!("customer_stats({customer:?}) failed: {e}")));
        got.customers.insert(customer.clone(), stats);
    }
    for status in want.statuses.keys() {
        let n = status_count(client, status)
            .unwrap_or_else(|e| fail(format!("status_count({status:?}) failed: {e}")));
        got.statuses.insert(status.clone(), n);
    }
    got
}

/// A read model: per customer count and spend, per status count.
#[derive(Debug, Default, PartialEq)]
struct Model {
    customers: BTreeMap<String, CustomerStats>,
    statuses: BTreeMap<String, i64>,
}

impl Model {
    fn text(&self) -> String {
        let mut out = String::new();
        for (c, s) in &self.customers {
            let _ = writeln!(
                out,
                "customer {c}: {}, {} cents",
                orders(s.order_count),
                thousands(s.spend_cents)
            );
        }
        for (s, n) in &self.statuses {
            let _ = writeln!(out, "status {s}: {}", orders(*n));
        }
        out
    }

    /// The lines that differ, `table … / read model …`, at most eight.
    fn differences(&self, got: &Model) -> String {
        let mut lines = Vec::new();
        for (c, w) in &self.customers {
            let g = got.customers.get(c).copied().unwrap_or_default();
            if *w != g {
                lines.push(format!(
                    "  customer {c}: the table holds {} worth {} cents; the read model says {}, {} cents",
                    orders(w.order_count),
                    thousands(w.spend_cents),
                    orders(g.order_count),
                    thousands(g.spend_cents)
                ));
            }
        }
        for (s, w) in &self.statuses {
            let g = got.statuses.get(s).copied().unwrap_or_default();
            if *w != g {
                lines.push(format!(
                    "  status {s}: the table holds {}; the read model says {g}",
                    orders(*w)
                ));
            }
        }
        let more = lines.len().saturating_sub(8);
        lines.truncate(8);
        if more > 0 {
            lines.push(format!("  … and {more} more"));
        }
        lines.join("\n")
    }
}

/// `1 order`, `3 orders`.
fn orders(n: i64) -> String {
    format!("{n} order{}", if n == 1 { "" } else { "s" })
}

fn cents(rng: &mut Rng) -> u64 {
    (5 + rng.below(200)) * 50
}
