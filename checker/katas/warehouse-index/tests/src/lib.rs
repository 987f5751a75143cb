//! Hidden tests of the `warehouse-index` kata.
//!
//! Each test builds a fresh world with the kata's table (`orders`, provisioned 1,000 RCU /
//! 12,000 WCU), writes orders through the learner's `place_order` and `ship_order` on the
//! simulated clock, lets the learner add the index to the live table, and judges from the
//! outside: DescribeTable, the index's partitions and per-second metrics, the request log.
//!
//! - `waits_for_the_backfill`: 600 orders (60 awaiting) are in the table when
//!   `add_awaiting_index` runs; it must return only once the index is ACTIVE (the test
//!   queries it at once, which the engine refuses while it is CREATING), and
//!   `awaiting_shipment` must then list exactly the 60 backfilled orders, oldest first.
//! - `keeps_only_awaiting_orders`: the index holds one entry per order awaiting shipment, no
//!   more (sparse: a shipped order leaves it), before and after live traffic; the picking
//!   Query reads only what it returns.
//! - `projects_only_the_pick`: the index's entries carry the pick's attributes and none of the
//!   heavy ones (`customer`, `address`, `invoice`), and `awaiting_shipment` is served by the
//!   index alone (no GetItem, no Scan).
//! - `takes_the_peak_without_throttling`: 4,500 orders in one second: no PutItem is throttled
//!   — neither by the table nor by the index's back-pressure (a hot index partition, or an
//!   index with too little write capacity) — and the index then lists them all.
//! - `reads_its_own_writes`: `pick` right after `place_order` or `ship_order`, with no time
//!   in between, sees the write (the index lags by milliseconds: read the table by key,
//!   strongly consistent).
//! - `refuses_an_unknown_order`: `ship_order` of an order that does not exist fails and
//!   creates nothing; `pick` of it is None.

mod burst;
mod scene;

use std::collections::BTreeSet;

use engine::error::ProvideErrorMetadata;
use engine::types::{AttributeValue, IndexStatus, Select};
use engine::{Client, Error};
use given::{Order, Pick, INDEX, TABLE};
use katas_testkit::{fail, run, seeded, test, thousands};
use learner::{add_awaiting_index, awaiting_shipment, pick, ship_order};

use scene::{request, secs, Scene, HISTORY, HISTORY_SHIPPED};

/// The peak runs once, on one seed: 4,500 orders take most of the test budget, and what it
/// judges (where the index's key values fall, what the index is provisioned with) does not
/// depend on the seed.
const PEAK_SEED: u64 = 4_500;

katas_testkit::learner! {
    /// Stores a new order, awaiting shipment.
    fn place_order(client: &Client, order: &Order) -> Result<(), Error>;
    /// Marks an order shipped; it leaves the index.
    fn ship_order(client: &Client, order_id: &str) -> Result<(), Error>;
    /// Adds the index to the live table; returns once it is ACTIVE.
    fn add_awaiting_index(client: &Client) -> Result<(), Error>;
    /// Every order awaiting shipment, oldest first, from the index.
    fn awaiting_shipment(client: &Client) -> Result<Vec<Pick>, Error>;
    /// The pick of one order if it awaits shipment.
    fn pick(client: &Client, order_id: &str) -> Result<Option<Pick>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("waits_for_the_backfill", waits_for_the_backfill),
        seeded("keeps_only_awaiting_orders", keeps_only_awaiting_orders),
        seeded("projects_only_the_pick", projects_only_the_pick),
        test("takes_the_peak_without_throttling", || {
            burst::takes_the_peak_without_throttling(PEAK_SEED)
        }),
        seeded("reads_its_own_writes", reads_its_own_writes),
        seeded("refuses_an_unknown_order", refuses_an_unknown_order),
    ]);
}

/// Calls the learner's `awaiting_shipment`; fails the test if it fails.
fn listed(s: &Scene, when: &str) -> Vec<Pick> {
    awaiting_shipment(&s.client).unwrap_or_else(|e| {
        fail(format!(
            "awaiting_shipment() failed{}{when}, at {:.3} s on the simulated clock: {e}",
            if when.is_empty() { "" } else { " " },
            s.world.now().as_secs_f64()
        ))
    })
}

fn pick_line(p: &Pick) -> String {
    format!(
        "{}  {}  zone {}  {}",
        p.order_id, p.placed_at, p.zone, p.lines
    )
}

fn picks_text(picks: &[Pick]) -> String {
    if picks.is_empty() {
        return "(no picks)".to_string();
    }
    picks.iter().map(pick_line).collect::<Vec<_>>().join("\n")
}

/// Fails unless `got` is exactly `want` (both oldest first), naming what differs.
fn check_picks(s: &Scene, want: &[Pick], got: &[Pick], when: &str) {
    if want == got {
        return;
    }
    let wanted: BTreeSet<&str> = want.iter().map(|p| p.order_id.as_str()).collect();
    let listed: BTreeSet<&str> = got.iter().map(|p| p.order_id.as_str()).collect();
    let missing: Vec<&str> = wanted.difference(&listed).copied().collect();
    let extra: Vec<&str> = listed.difference(&wanted).copied().collect();
    let sample = |ids: &[&str]| {
        let shown: Vec<&str> = ids.iter().take(3).copied().collect();
        format!(
            "{}{}",
            shown.join(", "),
            if ids.len() > 3 { ", …" } else { "" }
        )
    };
    let why = if !extra.is_empty() && extra.iter().all(|id| s.shipped.contains(*id)) {
        format!(
            "it lists {} shipped order(s) ({}): an order leaves the picking screen when it ships",
            extra.len(),
            sample(&extra)
        )
    } else if !extra.is_empty() {
        format!(
            "it lists {} order(s) that do not await shipment ({})",
            extra.len(),
            sample(&extra)
        )
    } else if !missing.is_empty() {
        let entries = s.index_entries();
        format!(
            "{} awaiting order(s) are missing ({}); the index holds {} entries now. Read every \
             shard of the index's partition key, and every page of each Query \
             (LastEvaluatedKey)",
            thousands(missing.len() as u64),
            sample(&missing),
            thousands(entries as u64)
        )
    } else if got.len() != want.len() {
        "some orders are listed more than once".to_string()
    } else if want.iter().zip(got).all(|(a, b)| a.order_id == b.order_id) {
        "the right orders in the right order, but some pick's fields differ from the order's \
         placed_at, zone or lines"
            .to_string()
    } else {
        let at = want
            .iter()
            .zip(got)
            .position(|(a, b)| a.order_id != b.order_id)
            .unwrap_or(0);
        format!(
            "the right orders, but not oldest first: pick #{} is {} (placed {}) where {} (placed \
             {}) belongs. Each shard's Query returns its own orders in sort-key order; the \
             shards' results must be merged by placed_at (then order id)",
            at + 1,
            got[at].order_id,
            got[at].placed_at,
            want[at].order_id,
            want[at].placed_at
        )
    };
    katas_testkit::Failure::compare(
        format!(
            "awaiting_shipment(){}{when} returned {} picks where {} orders await shipment: {why}.",
            if when.is_empty() { "" } else { " " },
            thousands(got.len() as u64),
            thousands(want.len() as u64)
        ),
        picks_text(want),
        picks_text(got),
    )
    .raise()
}

/// The table already holds 600 orders (60 awaiting) when the index is added: it is
/// backfilled, CREATING and not queryable until the backfill ends. `add_awaiting_index` must
/// wait for ACTIVE on the simulated clock; the index then lists exactly the backfilled
/// awaiting orders, oldest first.
fn waits_for_the_backfill(seed: u64) {
    let mut s = Scene::new(seed);
    s.history(HISTORY, HISTORY_SHIPPED);
    let from = s.log_position();
    let started = s.world.now();
    if let Err(e) = add_awaiting_index(&s.client) {
        let hint = if e.message().unwrap_or_default().starts_with("TODO") {
            String::new()
        } else {
            "\nUpdateTable takes the new index's key attributes in AttributeDefinitions and one \
             GlobalSecondaryIndexUpdate whose create is a CreateGlobalSecondaryIndexAction \
             (name, key schema, projection, and — the table is provisioned — its own \
             ProvisionedThroughput)."
                .to_string()
        };
        fail(format!("add_awaiting_index() failed: {e}{hint}"));
    }
    let sent = s.requests_since(from);
    let update = sent
        .iter()
        .find(|r| r.operation == "UpdateTable" && r.succeeded());
    let Some(index) = s.index() else {
        fail(format!(
            "add_awaiting_index() returned Ok, but the table has no global secondary index named \
             {INDEX}{}",
            if update.is_none() {
                ": it sent no successful UpdateTable"
            } else {
                ""
            }
        ))
    };
    if index.index_status() != Some(&IndexStatus::Active) {
        // What a Query on the index says right now (the engine refuses it while CREATING).
        let refused = s
            .client
            .query()
            .table_name(TABLE)
            .index_name(INDEX)
            .key_condition_expression("#k = :v")
            .expression_attribute_names("#k", s.index_keys().0)
            .expression_attribute_values(":v", AttributeValue::S("AWAITING".into()))
            .send()
            .err()
            .map(|e| {
                format!(
                    "{}: {}",
                    e.code().unwrap_or("an error"),
                    e.message().unwrap_or_default()
                )
            })
            .unwrap_or_else(|| "refused".to_string());
        let polls: Vec<_> = sent
            .iter()
            .filter(|r| r.operation == "DescribeTable")
            .collect();
        let how = if polls.is_empty() {
            "It never called DescribeTable: UpdateTable only starts the index; the backfill \
             runs on after it returns."
                .to_string()
        } else {
            format!(
                "It called DescribeTable {} time(s), the last at {}, and returned although the \
                 index was CREATING: the table's own TableStatus stays ACTIVE while an index is \
                 built. Wait for the index's IndexStatus (the table's GlobalSecondaryIndexes, \
                 the entry named {INDEX}) to be ACTIVE.",
                polls.len(),
                secs(polls.last().map_or(0, |r| r.at_ms))
            )
        };
        fail(format!(
            "add_awaiting_index() returned at {} (UpdateTable at {}), while DescribeTable says the \
             index {INDEX} is {} (Backfilling: {}): the table's {} orders are still being copied \
             into it. A Query on it now is refused — {refused}. {how} Sleep on the simulated \
             clock between two calls (client.world().advance(..)).",
            secs(s.world.now().as_millis() as u64),
            secs(update.map_or(started.as_millis() as u64, |r| r.at_ms)),
            index.index_status().map_or("without a status", |st| st.as_str()),
            index.backfilling().unwrap_or(false),
            thousands(HISTORY)
        ));
    }
    // ACTIVE: every backfilled entry is written; the index's replicas catch up within
    // milliseconds (a GSI read is eventually consistent), so the screen asks a moment later.
    s.world.advance(std::time::Duration::from_secs(1));
    let want = s.expected_picks();
    let got = listed(&s, "a second after add_awaiting_index()");
    check_picks(&s, &want, &got, "after the backfill");
}

/// The index is sparse: one entry per order awaiting shipment, none for a shipped order,
/// after the backfill and after live traffic; the picking Query reads only what it returns.
fn keeps_only_awaiting_orders(seed: u64) {
    let mut s = Scene::with_index(seed, 300, 30);
    check_sparse(&s, "after the backfill", None);

    // Live traffic: 100 new orders, then 50 awaiting orders ship.
    for k in 0..100 {
        if k % 10 == 0 {
            s.world.advance(std::time::Duration::from_millis(10));
        }
        let o = s.order(k);
        s.place(o);
    }
    s.world.settle();
    let before = s.index_write_units();
    let awaiting = s.awaiting_ids();
    let to_ship: Vec<String> = awaiting.iter().step_by(2).take(50).cloned().collect();
    for (k, id) in to_ship.iter().enumerate() {
        if k % 10 == 0 {
            s.world.advance(std::time::Duration::from_millis(10));
        }
        s.ship(id);
    }
    s.world.settle();
    let per_ship = (s.index_write_units() - before) / to_ship.len() as f64;
    check_sparse(&s, "after 100 orders placed and 50 shipped", Some(per_ship));

    let from = s.log_position();
    let want = s.expected_picks();
    let got = listed(&s, "after live traffic");
    check_picks(&s, &want, &got, "after 100 orders placed and 50 shipped");
    let read: u64 = s
        .requests_since(from)
        .iter()
        .filter(|r| r.operation == "Query")
        .map(|r| r.items_read)
        .sum();
    if read > got.len() as u64 {
        fail(format!(
            "awaiting_shipment() returned the {} awaiting orders, but its Queries read {} index \
             entries: it filters out entries it paid to read (a FilterExpression runs after the \
             read). Keep shipped orders out of the index instead, and the Query reads only what \
             the screen shows.",
            thousands(got.len() as u64),
            thousands(read)
        ));
    }
}

/// Fails unless the index holds exactly one entry per awaiting order; names a shipped order
/// still in it, and what shipping one cost the index.
fn check_sparse(s: &Scene, when: &str, per_ship: Option<f64>) {
    let entries = s.index_entries() as u64;
    let awaiting = s.awaiting_ids().len() as u64;
    if entries == awaiting {
        return;
    }
    let (pk, sk) = s.index_keys();
    let shipped_in = s.shipped.iter().find_map(|id| {
        let item = s.stored(id)?;
        let has_keys = item.contains_key(&pk) && sk.as_ref().is_none_or(|k| item.contains_key(k));
        has_keys.then(|| (id.clone(), item))
    });
    let cost = per_ship
        .map(|u| {
            format!(
                " Shipping an order cost the index {u:.1} write unit(s) on average{}.",
                if u >= 1.5 {
                    " — a delete and a put, because its index key changed; an order that leaves \
                     the index costs one delete"
                } else {
                    ""
                }
            )
        })
        .unwrap_or_default();
    match shipped_in {
        Some((id, item)) => {
            let show = |name: &str| {
                item.get(name)
                    .map(|v| format!("{name} = {}", engine::value::value_to_json(v)))
                    .unwrap_or_default()
            };
            fail(format!(
                "{when}, the index {INDEX} holds {} entries, but only {} orders await shipment: \
                 shipped orders are in it. ORDER#{id} has {} and still carries the index's key: \
                 {}{}. An item is in a global secondary index only if it has the index's key \
                 attributes (a sparse index): give them to an order only while it awaits \
                 shipment, and REMOVE them when it ships. Every shipped order in the index is an \
                 index write and storage paid for nothing, and the picking Query has to read \
                 past it.{cost}",
                thousands(entries),
                thousands(awaiting),
                show("status"),
                show(&pk),
                sk.as_deref()
                    .map(|k| format!(", {}", show(k)))
                    .unwrap_or_default(),
            ));
        }
        None => fail(format!(
            "{when}, the index {INDEX} holds {} entries, but {} orders await shipment: every \
             order awaiting shipment must be in it exactly once (its items need the index's key \
             attributes {pk}{}).{cost}",
            thousands(entries),
            thousands(awaiting),
            sk.as_deref()
                .map(|k| format!(" and {k}"))
                .unwrap_or_default()
        )),
    }
}

/// The attributes an order's item has that the picking screen never shows.
const HEAVY: [&str; 3] = ["customer", "address", "invoice"];
/// The attributes a pick is made of, besides the table's key.
const PICKED: [&str; 3] = ["placedAt", "zone", "lines"];

/// The index stores the pick's attributes and none of the heavy ones; `awaiting_shipment` is
/// answered by the index alone.
fn projects_only_the_pick(seed: u64) {
    let mut s = Scene::with_index(seed, 200, 40);
    // 100 orders placed now: what do they cost the index?
    let before = s.index_write_units();
    for k in 0..100 {
        if k % 10 == 0 {
            s.world.advance(std::time::Duration::from_millis(10));
        }
        let o = s.order(k);
        s.place(o);
    }
    s.world.settle();
    let per_order = (s.index_write_units() - before) / 100.0;
    let entry = s
        .client
        .scan()
        .table_name(TABLE)
        .index_name(INDEX)
        .limit(1)
        .select(Select::AllProjectedAttributes)
        .send()
        .unwrap_or_else(|e| fail(format!("the test could not scan the index: {e}")))
        .items()
        .first()
        .cloned()
        .unwrap_or_else(|| fail("the index holds no entry after 100 orders were placed"));
    let projection = s
        .index()
        .and_then(|i| i.projection().cloned())
        .map(|p| {
            let kind = p
                .projection_type()
                .map_or("no type", |t| t.as_str())
                .to_string();
            if p.non_key_attributes().is_empty() {
                kind
            } else {
                format!("{kind} {}", p.non_key_attributes().join(", "))
            }
        })
        .unwrap_or_default();
    let heavy: Vec<&str> = HEAVY
        .into_iter()
        .filter(|a| entry.contains_key(*a))
        .collect();
    if !heavy.is_empty() {
        let bytes: usize = heavy
            .iter()
            .map(|a| a.len() + entry[*a].as_s().map_or(0, |v| v.len()))
            .sum();
        fail(format!(
            "the index {INDEX} (projection {projection}) stores {} in every entry: {} bytes the \
             picking screen never shows. Every projected byte is written again on each change \
             and stored again: placing 100 orders cost the index {per_order:.1} WCU per order, \
             where an entry of the pick's attributes alone — under 1 KB — costs 1. Project only \
             what the screen shows (INCLUDE).",
            heavy.join(", "),
            thousands(bytes as u64)
        ));
    }
    let from = s.log_position();
    let want = s.expected_picks();
    let got = listed(&s, "");
    let others: Vec<_> = s
        .requests_since(from)
        .into_iter()
        .filter(|r| !(r.operation == "Query" && r.index.as_deref() == Some(INDEX)))
        .collect();
    if let Some(first) = others.first() {
        let missing: Vec<&str> = PICKED
            .into_iter()
            .filter(|a| !entry.contains_key(*a))
            .collect();
        let ops: BTreeSet<&str> = others.iter().map(|r| r.operation).collect();
        fail(format!(
            "awaiting_shipment() sent {} request(s) besides its Queries of the index ({}; the \
             first: {}). The picking screen must be served by the index alone: one Query per \
             shard, reading entries that already hold the pick.{}",
            thousands(others.len() as u64),
            ops.into_iter().collect::<Vec<_>>().join(", "),
            request(first),
            if missing.is_empty() {
                String::new()
            } else {
                format!(
                    " The index (projection {projection}) does not store {}: project them \
                     (INCLUDE), so no second read of the table is needed.",
                    missing.join(", ")
                )
            }
        ));
    }
    check_picks(&s, &want, &got, "");
}

/// `pick` right after `place_order` or `ship_order` sees the write: the index lags by
/// milliseconds, so it must read the table by key, strongly consistent.
fn reads_its_own_writes(seed: u64) {
    let mut s = Scene::with_index(seed, 100, 20);
    for k in 0..60u64 {
        s.world.advance(std::time::Duration::from_millis(7));
        let o = s.order(k);
        let id = o.id.clone();
        let want = Pick::of(&o);
        s.place(o);
        let wrote = s.log_position();
        let got = pick(&s.client, &id).unwrap_or_else(|e| {
            fail(format!(
                "pick(\"{id}\") right after place_order failed: {e}"
            ))
        });
        if got.as_ref() != Some(&want) {
            explain_stale(
                &s,
                &id,
                wrote,
                got.is_none(),
                "place_order",
                "awaits shipment",
            );
        }
        if k % 3 == 2 {
            // Ship an order placed a moment ago and ask at once.
            let awaiting = s.awaiting_ids();
            let id = awaiting[awaiting.len() - 2].clone();
            s.ship(&id);
            let wrote = s.log_position();
            let got = pick(&s.client, &id).unwrap_or_else(|e| {
                fail(format!("pick(\"{id}\") right after ship_order failed: {e}"))
            });
            if got.is_some() {
                explain_stale(&s, &id, wrote, false, "ship_order", "has shipped");
            }
        }
    }
}

/// Fails with how `pick` read a stale answer: from the index, or with an eventually
/// consistent read of the table.
fn explain_stale(s: &Scene, id: &str, from: u64, missing: bool, wrote: &str, truth: &str) -> ! {
    let reads = s.requests_since(from);
    let write = s.world.request_log().into_iter().rfind(|r| {
        r.seq < from && r.succeeded() && (r.operation == "PutItem" || r.operation == "UpdateItem")
    });
    let write_text = write.as_ref().map_or_else(
        || wrote.to_string(),
        |w| format!("{wrote}'s {}", request(w)),
    );
    let answer = if missing { "None" } else { "a stale pick" };
    if let Some(q) = reads.iter().find(|r| r.index.as_deref() == Some(INDEX)) {
        fail(format!(
            "pick(\"{id}\") returned {answer}, but the order {truth}: it read the index — {} on \
             {INDEX}, {} ms after {write_text}. A global secondary index is updated \
             asynchronously, after the table write has succeeded (milliseconds later here): a \
             read of the index right after a write can miss it. Read your own write from the \
             table, by its key (GetItem, ConsistentRead).",
            request(q),
            q.at_ms - write.as_ref().map_or(q.at_ms, |w| w.at_ms)
        ));
    }
    if let Some(g) = reads
        .iter()
        .find(|r| r.operation == "GetItem" && r.consistent_read == Some(false))
    {
        fail(format!(
            "pick(\"{id}\") returned {answer}, but the order {truth}: its {} was eventually \
             consistent, {} ms after {write_text}, and was served by a replica that had not \
             received the write yet (a write is acknowledged by two of three replicas; the \
             third catches up later). Read your own write strongly consistent \
             (ConsistentRead = true).",
            request(g),
            g.at_ms - write.as_ref().map_or(g.at_ms, |w| w.at_ms)
        ));
    }
    fail(format!(
        "pick(\"{id}\") returned {answer} right after {write_text}, but the order {truth}"
    ))
}

/// `ship_order` of an order that does not exist fails and creates nothing; `pick` of it is
/// None.
fn refuses_an_unknown_order(seed: u64) {
    let mut s = Scene::new(seed);
    let o = s.order(0);
    s.place(o);
    s.world.settle();
    let ghost = "o-424242";
    let shipped = ship_order(&s.client, ghost);
    s.world.settle();
    if let Err(e) = &shipped {
        if e.message().unwrap_or_default().starts_with("TODO") {
            fail(format!("ship_order(\"{ghost}\") failed: {e}"));
        }
    }
    if let Some(item) = s.stored(ghost) {
        fail(format!(
            "ship_order(\"{ghost}\") of an order that does not exist created one: the table now \
             holds ORDER#{ghost} = {}. UpdateItem creates a missing item; condition the update \
             on the order existing (attribute_exists(PK)).",
            katas_testkit::items::item_text(&item)
        ));
    }
    if shipped.is_ok() {
        fail(format!(
            "ship_order(\"{ghost}\") returned Ok for an order that does not exist: return the \
             error (a ConditionalCheckFailedException, if the update is conditioned on the \
             order existing), so the picker learns the scan was wrong"
        ));
    }
    match pick(&s.client, ghost) {
        Ok(None) => {}
        Ok(Some(p)) => fail(format!(
            "pick(\"{ghost}\") of an order that does not exist returned {}",
            pick_line(&p)
        )),
        Err(e) => fail(format!(
            "pick(\"{ghost}\") of an order that does not exist failed: {e} — it should be None"
        )),
    }
}
