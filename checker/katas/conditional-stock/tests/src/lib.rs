//! Hidden tests of the `conditional-stock` kata.
//!
//! Each test builds a fresh world with the kata's table (`inventory`, partition key `sku`,
//! on-demand; the stock is the number attribute `stock`) and judges the learner's `reserve`
//! and `restock` from the outside: their return values, the stock the table holds (read by the
//! test with strongly consistent GetItems) and the requests the request log saw.
//!
//! - `reserves_and_restocks_exactly`: a scripted sequence; the transcript of results must
//!   match exactly.
//! - `no_oversell_under_contention`: 8 threads race, in four waves, for 800 units with 800
//!   reservations (every one must succeed, each remainder handed out once), then 16
//!   reservations for the last 5 units (exactly 5 succeed), then restock together (no restock
//!   lost).
//! - `no_oversell_with_stale_reads`: every replica of the product's partition lags 60 s, so an
//!   eventually consistent read returns stock that is long gone; 45 buyers, one after another,
//!   for 40 units. A solution that decides from a read oversells or refuses buyers while stock
//!   is left — deterministically for a given seed, since the seed fixes which replica serves
//!   each read.
//! - `out_of_stock_reports_current_stock`: a refused reservation carries the real stock, taken
//!   from the failed condition — no read request is sent.
//!
//! The order is the order a learner meets the lessons in: exact counts, the race, stale reads,
//! then the refinement (the stock in the error without a read).

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::faults::Az;
use engine::{AttributeValue, Client, World};
use given::ReserveError;
use katas_testkit::{check_eq, check_eq_text, fail, run, seeded};
use learner::{reserve, restock};

const TABLE: &str = "inventory";
/// Waves of 800 buyers for 800 units in the contention test: more waves, more chances for a
/// read-then-write race to show, however the threads happen to be scheduled.
const WAVES: u64 = 4;
/// How far every replica of the product's partition lags in the stale-reads test.
const LAG: Duration = Duration::from_secs(60);
/// Operations that read items: none of them may be part of a refused reservation.
const READS: [&str; 5] = [
    "GetItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "TransactGetItems",
];

katas_testkit::learner! {
    /// Takes `qty` units of `sku` out of stock; returns the stock left.
    fn reserve(client: &Client, sku: &str, qty: u64) -> Result<u64, ReserveError>;
    /// Adds `qty` units to the stock of `sku`; returns the new stock.
    fn restock(client: &Client, sku: &str, qty: u64) -> Result<u64, engine::Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "reserves_and_restocks_exactly",
            reserves_and_restocks_exactly,
        ),
        seeded("no_oversell_under_contention", no_oversell_under_contention),
        seeded("no_oversell_with_stale_reads", no_oversell_with_stale_reads),
        seeded(
            "out_of_stock_reports_current_stock",
            out_of_stock_reports_current_stock,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// A scripted day in the shop, one call a second: every result must be exact.
fn reserves_and_restocks_exactly(seed: u64) {
    let s = Scene::new(seed);
    let script: [(&str, &str, u64, &str); 9] = [
        ("reserve", "sku-0", 1, "OutOfStock { available: 0 }"),
        ("restock", "sku-1", 10, "Ok(10)"),
        ("reserve", "sku-1", 3, "Ok(7)"),
        ("reserve", "sku-1", 7, "Ok(0)"),
        ("reserve", "sku-1", 1, "OutOfStock { available: 0 }"),
        ("restock", "sku-1", 5, "Ok(5)"),
        ("restock", "sku-2", 2, "Ok(2)"),
        ("reserve", "sku-1", 2, "Ok(3)"),
        ("reserve", "sku-2", 2, "Ok(0)"),
    ];
    let (mut want, mut got) = (String::new(), String::new());
    for (call, sku, qty, expected) in script {
        // One call a second: replication has long caught up between calls.
        s.world.advance(Duration::from_secs(1));
        let engine_error = match call {
            "reserve" => match reserve(&s.client, sku, qty) {
                Err(ReserveError::Engine(e)) => Err(e),
                other => Ok(show_reserve(&other)),
            },
            _ => restock(&s.client, sku, qty).map(|n| format!("Ok({n})")),
        };
        // An engine error is not a wrong count: stop at it and show it as it is.
        let result = engine_error.unwrap_or_else(|e| {
            let before = if got.is_empty() {
                String::new()
            } else {
                format!("\nthe calls before it:\n{got}")
            };
            fail(format!("{call}(\"{sku}\", {qty}) failed: {e}{before}"))
        });
        want.push_str(&format!("{call}(\"{sku}\", {qty}) → {expected}\n"));
        got.push_str(&format!("{call}(\"{sku}\", {qty}) → {result}\n"));
    }
    for (sku, stock) in [("sku-0", None), ("sku-1", Some(3)), ("sku-2", Some(0))] {
        want.push_str(&format!("table: {sku} stock = {}\n", show_stock(stock)));
        got.push_str(&format!(
            "table: {sku} stock = {}\n",
            show_stock(s.stock_in_table(sku))
        ));
    }
    check_eq_text(
        &want,
        &got,
        "each call, in order, and the table afterwards: reserve returns the stock left (or \
         OutOfStock with the current stock, changing nothing), restock returns the new stock, \
         and a product never restocked has no stock to reserve",
    );
}

/// A buyer asks for more than is left: the refusal carries the real stock, read from the
/// failed condition (`ReturnValuesOnConditionCheckFailure = ALL_OLD`), not from a read.
fn out_of_stock_reports_current_stock(seed: u64) {
    let s = Scene::new(seed);
    s.restock_or_fail("sku-7", 4);
    s.world.settle();
    let before = s.world.request_totals();
    let refused = reserve(&s.client, "sku-7", 5);
    let after = s.world.request_totals();
    check_eq_text(
        "OutOfStock { available: 4 }",
        &show_reserve(&refused),
        "reserve(\"sku-7\", 5) with 4 units in stock must be refused with the current stock. \
         Ask for the item with the failure: ReturnValuesOnConditionCheckFailure = ALL_OLD, then \
         read `stock` from the item Error::ConditionalCheckFailed carries",
    );
    let reads: Vec<String> = READS
        .iter()
        .filter_map(|op| {
            let n = after.by_operation.get(op).copied().unwrap_or(0)
                - before.by_operation.get(op).copied().unwrap_or(0);
            (n > 0).then(|| format!("{n} {op}"))
        })
        .collect();
    if !reads.is_empty() {
        fail(format!(
            "reserve(\"sku-7\", 5) sent {}: a refused reservation must not read. The current \
             stock comes with the failed condition itself (ReturnValuesOnConditionCheckFailure = \
             ALL_OLD puts the item in the error) — a separate read costs a request and can \
             already be out of date when it arrives",
            reads.join(" and ")
        ));
    }
    check_eq(
        Some(4),
        s.stock_in_table("sku-7"),
        "stock of sku-7 in the table after the refused reservation: a refusal writes nothing",
    );
    check_eq_text(
        "Ok(0)",
        &show_reserve(&reserve(&s.client, "sku-7", 4)),
        "reserve(\"sku-7\", 4) right after, with 4 units in stock",
    );
}

/// Flash sale, three rounds on 8 threads that start together: four waves of 800 buyers for
/// exactly 800 units (every one must get a unit, and no unit may go twice); 16 buyers for the
/// last 5 units (exactly 5 sell); then 8 suppliers restock at the same time (no restock may be
/// lost).
fn no_oversell_under_contention(seed: u64) {
    let s = Scene::new(seed);
    let threads = 8u64;
    let sku = "sku-hot";

    // Round 1: as many buyers as units, four times over (a partition takes 1,000 writes a
    // second, so each wave gets a second of its own).
    let units = 800u64;
    for wave in 1..=WAVES {
        s.world.advance(Duration::from_secs(1));
        s.restock_or_fail(sku, units);
        let results = race(&s.client, threads, move |client| {
            (0..units / threads)
                .map(|_| reserve(client, sku, 1))
                .collect()
        });
        let mut left: Vec<u64> = Vec::new();
        let mut refusals: Vec<u64> = Vec::new();
        for r in &results {
            match r {
                Ok(l) => left.push(*l),
                Err(ReserveError::OutOfStock { available }) => refusals.push(*available),
                Err(ReserveError::Engine(e)) => fail(format!(
                    "reserve(\"{sku}\", 1) failed while 8 buyers raced: {e}"
                )),
            }
        }
        left.sort_unstable();
        let table = s.stock_in_table(sku).unwrap_or(0);
        let sold_twice = left.windows(2).filter(|w| w[0] == w[1]).count();
        let round = format!("wave {wave} of {WAVES}: {units} buyers raced for {units} units");
        if sold_twice > 0 || table + left.len() as u64 > units {
            fail(format!(
                "{round} and {} reservations succeeded, yet the table still holds {table}: units \
                 were sold more than once ({sold_twice} times two buyers were told the same \
                 number of units left). Two buyers read the same stock, both decided there was \
                 enough, both wrote the same new stock. Make the write itself check the stock: \
                 one UpdateItem, ConditionExpression stock >= :qty, applied atomically on the \
                 partition's leader.",
                left.len()
            ));
        }
        if let Some(available) = refusals.first() {
            fail(format!(
                "{round}, one each, and {} of them were refused (one with OutOfStock {{ \
                 available: {available} }}): reservations that should have succeeded were lost. \
                 A condition that fails because another buyer changed the stock first \
                 (stock = :what_i_read) is not \"out of stock\": use a condition on the stock \
                 itself (stock >= :qty), which fails only when there really is not enough.",
                refusals.len()
            ));
        }
        check_eq(
            (0..units).collect::<Vec<_>>(),
            left,
            format!(
                "{round}: the stock left that each reservation returned, sorted — sold one at a \
                 time, each remainder {} … 0 is handed out exactly once",
                units - 1
            ),
        );
    }

    // Round 2: the last units.
    let last = 5u64;
    s.restock_or_fail(sku, last);
    let results = race(&s.client, threads, |client| {
        (0..2).map(|_| reserve(client, sku, 1)).collect()
    });
    let sold = results.iter().filter(|r| r.is_ok()).count() as u64;
    if let Some(Err(ReserveError::Engine(e))) = results
        .iter()
        .find(|r| matches!(r, Err(ReserveError::Engine(_))))
    {
        fail(format!(
            "reserve(\"{sku}\", 1) failed while 16 buyers raced: {e}"
        ));
    }
    check_eq(
        format!("{last} sold, 0 left"),
        format!("{sold} sold, {} left", show_stock(s.stock_in_table(sku))),
        format!(
            "16 buyers raced for the last {last} units: exactly {last} reservations succeed, the \
             other 11 are refused, and the stock never goes below zero"
        ),
    );

    // Round 3: suppliers restock at the same time: no restock may be lost.
    let (rounds, qty) = (5u64, 3u64);
    let results = race(&s.client, threads, move |client| {
        (0..rounds)
            .map(|_| restock(client, sku, qty).map_err(ReserveError::Engine))
            .collect()
    });
    let mut new_stock: Vec<u64> = results
        .iter()
        .map(|r| match r {
            Ok(n) => *n,
            Err(e) => fail(format!("restock(\"{sku}\", {qty}) failed: {e}")),
        })
        .collect();
    new_stock.sort_unstable();
    check_eq(
        Some(threads * rounds * qty),
        s.stock_in_table(sku),
        format!(
            "stock after {threads} suppliers each restocked {rounds} × {qty} units at the same \
             time: a restock that reads, adds and writes back loses the restocks that land in \
             between — add in one request (UpdateItem ADD stock :qty)"
        ),
    );
    check_eq(
        (1..=threads * rounds).map(|i| i * qty).collect::<Vec<_>>(),
        new_stock,
        "the new stock each concurrent restock returned, sorted: each is handed out once",
    );
}

/// Every replica of the product's partition lags 60 s behind its leader; 45 buyers, one every
/// 10 ms, each want 1 of 40 units.
fn no_oversell_with_stale_reads(seed: u64) {
    let s = Scene::new(seed);
    let sku = "sku-lag";
    let units = 40;
    s.restock_or_fail(sku, units);
    s.world.settle();
    let partition = s
        .world
        .partition_of(TABLE, &AttributeValue::S(sku.into()))
        .unwrap_or_else(|e| fail(format!("the test could not find the partition: {e}")));
    for az in Az::ALL {
        s.world
            .lag_replica(TABLE, partition, az, LAG)
            .unwrap_or_else(|e| fail(format!("the test could not make replicas lag: {e}")));
    }
    let lag_note = format!(
        "In this test every replica of partition {partition} receives writes {} s late, so an \
         eventually consistent read (GetItem without ConsistentRead) is often served by a \
         replica that still shows stock that was sold long ago.",
        LAG.as_secs()
    );
    for buyer in 1..=units + 5 {
        s.world.advance(Duration::from_millis(10));
        let before = s.stock_in_table(sku).unwrap_or(0);
        let log_from = s.world.request_totals().requests;
        let result = reserve(&s.client, sku, 1);
        let eventual_reads = s.eventual_reads_since(log_from);
        let after = s.stock_in_table(sku).unwrap_or(0);
        let reads_note = if eventual_reads > 0 {
            format!(
                " This reserve sent {eventual_reads} eventually consistent GetItem(s) (0.5 RCU \
                 each) and decided from what they returned."
            )
        } else {
            String::new()
        };
        match result {
            Ok(left) if before >= 1 && after == before - 1 => check_eq(
                after,
                left,
                format!("buyer #{buyer}: reserve returns the stock left after the reservation"),
            ),
            Ok(left) if before == 0 || after >= before => fail(format!(
                "buyer #{buyer} reserved 1 unit with {before} in stock, reserve returned \
                 Ok({left}), and the stock in the table went from {before} to {after}: {} — an \
                 oversell.\n{lag_note}{reads_note}\nDon't decide from a read: let the write \
                 decide. One UpdateItem with ConditionExpression stock >= :qty is checked \
                 against the leader's current item, however stale anything you read before.",
                if before == 0 {
                    "a unit that did not exist was sold".to_string()
                } else {
                    format!(
                        "{} unit(s) that were already sold are for sale again",
                        after + 1 - before
                    )
                }
            )),
            Ok(left) => fail(format!(
                "buyer #{buyer} reserved 1 unit (reserve returned Ok({left})) and the stock fell \
                 from {before} to {after}: a reservation of 1 must take exactly 1"
            )),
            Err(ReserveError::OutOfStock { available }) if before >= 1 => fail(format!(
                "buyer #{buyer} was refused with OutOfStock {{ available: {available} }} although \
                 {before} units were in stock: a reservation that should have succeeded was \
                 lost.\n{lag_note}{reads_note}\nA condition built from a stale read \
                 (stock = :what_i_read) fails for the wrong reason; a condition on the stock \
                 itself (stock >= :qty) only fails when there really is not enough.",
            )),
            Err(ReserveError::OutOfStock { available }) => {
                check_eq(
                    0,
                    available,
                    format!("buyer #{buyer}: OutOfStock after the last unit was sold"),
                );
                check_eq(0, after, format!("stock after buyer #{buyer} was refused"));
            }
            Err(ReserveError::Engine(e)) => fail(format!(
                "buyer #{buyer}: reserve(\"{sku}\", 1) failed with {before} units in stock: {e}"
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The scene, and helpers
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("sku", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("sku", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        Scene { world, client }
    }

    fn restock_or_fail(&self, sku: &str, qty: u64) {
        match restock(&self.client, sku, qty) {
            Ok(n) if n == qty => {}
            Ok(n) => fail(format!(
                "restock(\"{sku}\", {qty}) of a new product returned {n}: it must return the new \
                 stock, {qty}"
            )),
            Err(e) => fail(format!("restock(\"{sku}\", {qty}) failed: {e}")),
        }
    }

    /// The `stock` attribute of a product as the leader has it (the test's own strongly
    /// consistent read); `None` when there is no item or no number `stock`.
    fn stock_in_table(&self, sku: &str) -> Option<u64> {
        let out = self
            .client
            .get_item()
            .table_name(TABLE)
            .key("sku", AttributeValue::S(sku.into()))
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not read the stock: {e}")));
        out.item()?.get("stock")?.as_number()?.to_u64()
    }

    /// Eventually consistent GetItems among the requests numbered `from` onwards.
    fn eventual_reads_since(&self, from: u64) -> usize {
        self.world
            .request_log()
            .iter()
            .filter(|r| r.seq >= from && r.operation == "GetItem")
            // A strongly consistent read of a small item costs 1 RCU; an eventual one 0.5.
            .filter(|r| r.read_units.fract() != 0.0)
            .count()
    }
}

/// Runs `work` on `threads` threads that start together; returns every result.
fn race(
    client: &Client,
    threads: u64,
    work: impl Fn(&Client) -> Vec<Result<u64, ReserveError>> + Send + Sync + 'static,
) -> Vec<Result<u64, ReserveError>> {
    let start = Arc::new(Barrier::new(threads as usize));
    let work = Arc::new(work);
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (client, start, work) = (client.clone(), start.clone(), work.clone());
            thread::spawn(move || {
                start.wait();
                work(&client)
            })
        })
        .collect();
    let mut all = Vec::new();
    for h in handles {
        match h.join() {
            Ok(results) => all.extend(results),
            Err(panic) => {
                let text = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                fail(format!(
                    "your code panicked in one of the racing threads: {text}"
                ))
            }
        }
    }
    all
}

fn show_reserve(r: &Result<u64, ReserveError>) -> String {
    match r {
        Ok(n) => format!("Ok({n})"),
        Err(ReserveError::OutOfStock { available }) => {
            format!("OutOfStock {{ available: {available} }}")
        }
        Err(ReserveError::Engine(e)) => format!("Err({e})"),
    }
}

fn show_stock(stock: Option<u64>) -> String {
    stock.map_or("(none)".to_string(), |n| n.to_string())
}
