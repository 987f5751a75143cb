//! Hidden tests of the `conditional-stock` kata.
//!
//! Each test builds a fresh world with the kata's table (`inventory`, partition key `sku`,
//! on-demand; the stock is the number attribute `stock`) and judges the learner's `reserve`
//! and `restock` from the outside: their return values, the stock the table holds (read by the
//! test with strongly consistent GetItems) and the requests the request log saw. Every call
//! may send one write (the README's budget: one product is one item on one partition, which
//! takes at most 1,000 WCU a second), and a refused reservation no read.
//!
//! - `reserves_and_restocks_exactly`: a scripted sequence; the transcript of results must
//!   match exactly, no call sends more than one write, and the stock never goes below zero.
//! - `no_oversell_under_contention`: 8 concurrent clients race, in four waves, for 800 units
//!   with 800 reservations (every one must succeed, each remainder handed out once, in the
//!   one second each wave has: 800 WCU of the partition's 1,000), then 16 reservations for
//!   the last 5 units (exactly 5 succeed), then restock together (no restock lost). The
//!   clients run on the engine's seeded schedule (`World::concurrently`), so a seed replays
//!   the same interleaving, the same numbers and the same message; each failure is explained
//!   from the request log (which client sent what, in which order, with what outcome).
//! - `no_oversell_with_stale_reads`: every replica of the product's partition lags 60 s, so an
//!   eventually consistent read returns stock that is long gone; 45 buyers, one after another,
//!   for 40 units. A solution that decides from a read oversells, refuses buyers while stock
//!   is left, or pays a second write for every stale read — deterministically for a given
//!   seed, since the seed fixes which replica serves each read.
//! - `out_of_stock_reports_current_stock`: a refused reservation carries the real stock, taken
//!   from the failed condition — no read request is sent.
//!
//! The order is the order a learner meets the lessons in: exact counts, the race, stale reads,
//! then the refinement (the stock in the error without a read).

use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::{AttributeValue, Client, Error, World};
use given::ReserveError;
use katas_testkit::{check_eq, check_eq_text, fail, run, seeded, thousands};
use learner::{reserve, restock};

const TABLE: &str = "inventory";
/// Waves of 800 buyers for 800 units in the contention test: more waves, more interleavings
/// for a read-then-write race to show in. Two, not the four it had: every known-wrong solution
/// fails in the first wave of the first seed already (checked with one wave), the test runs
/// three seeds, and each wave of 8 clients costs about 20 ms (quiet) of a check that targets half a
/// second from save to verdict.
const WAVES: u64 = 2;
/// Concurrent clients in the contention test.
const CLIENTS: usize = 8;
/// How far every replica of the product's partition lags in the stale-reads test.
const LAG: Duration = Duration::from_secs(60);
/// What one partition accepts per second, whatever the table's capacity mode.
const PARTITION_WCU: u64 = 1_000;
/// Operations that read items: none of them may be part of a refused reservation.
const READS: [&str; 5] = [
    "GetItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "TransactGetItems",
];
/// Operations that write items: a call may send one.
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
const CONDITION_FAILED: &str = "ConditionalCheckFailedException";

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

/// A scripted day in the shop, one call a second: every result must be exact, every call
/// sends at most one write, and the stock never goes below zero.
fn reserves_and_restocks_exactly(seed: u64) {
    let s = Scene::new(seed);
    let script: [(&str, &str, u64, &str); 10] = [
        ("reserve", "sku-0", 1, "OutOfStock { available: 0 }"),
        ("restock", "sku-1", 10, "Ok(10)"),
        ("reserve", "sku-1", 3, "Ok(7)"),
        ("reserve", "sku-1", 7, "Ok(0)"),
        ("reserve", "sku-1", 1, "OutOfStock { available: 0 }"),
        ("restock", "sku-1", 5, "Ok(5)"),
        ("restock", "sku-2", 2, "Ok(2)"),
        ("reserve", "sku-1", 2, "Ok(3)"),
        ("reserve", "sku-1", 4, "OutOfStock { available: 3 }"),
        ("reserve", "sku-2", 2, "Ok(0)"),
    ];
    let (mut want, mut got) = (String::new(), String::new());
    for (call, sku, qty, expected) in script {
        // One call a second: replication has long caught up between calls.
        s.world.advance(Duration::from_secs(1));
        let shown = format!("{call}(\"{sku}\", {qty})");
        let before = s.stock_in_table(sku);
        let from = s.next_seq();
        let engine_error = match call {
            "reserve" => match reserve(&s.client, sku, qty) {
                Err(ReserveError::Engine(e)) => Err(e),
                other => Ok(show_reserve(&other)),
            },
            _ => restock(&s.client, sku, qty).map(|n| format!("Ok({n})")),
        };
        let sent = s.requests_since(from);
        // An engine error is not a wrong count: stop at it and show it as it is.
        let result = engine_error.unwrap_or_else(|e| {
            let before = if got.is_empty() {
                String::new()
            } else {
                format!("\nthe calls before it:\n{got}")
            };
            fail(format!("{}{before}", engine_failure(&shown, &e)))
        });
        let context = format!(
            "{shown} with {} in stock returned {result}",
            show_stock(before)
        );
        s.check_not_negative(sku, &context);
        check_one_write(&context, &sent);
        want.push_str(&format!("{shown} → {expected}\n"));
        got.push_str(&format!("{shown} → {result}\n"));
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
    let from = s.next_seq();
    let refused = reserve(&s.client, "sku-7", 5);
    let sent = s.requests_since(from);
    s.check_not_negative(
        "sku-7",
        &format!(
            "reserve(\"sku-7\", 5) with 4 in stock returned {}",
            show_reserve(&refused)
        ),
    );
    check_eq_text(
        "OutOfStock { available: 4 }",
        &show_reserve(&refused),
        format!(
            "reserve(\"sku-7\", 5) with 4 units in stock sent {} and must be refused with the \
             current stock, the item as DynamoDB had it when the condition failed: a failed \
             condition can bring that item back in its error",
            show_requests(&sent)
        ),
    );
    let reads: Vec<&RequestRecord> = sent
        .iter()
        .filter(|r| READS.contains(&r.operation))
        .collect();
    if !reads.is_empty() {
        fail(format!(
            "reserve(\"sku-7\", 5) sent {}: a refused reservation must not read. The current \
             stock can come with the failed condition itself — a separate read costs a request \
             and can already be out of date when it arrives",
            show_requests(&sent)
        ));
    }
    check_one_write("reserve(\"sku-7\", 5) with 4 in stock", &sent);
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

/// Flash sale, three rounds of 8 concurrent clients on the world's seeded schedule: four
/// waves of 800 buyers for exactly 800 units, each wave in a second of its own (every one
/// must get a unit, no unit may go twice, and the wave's writes must fit the partition's
/// 1,000 WCU); 16 buyers for the last 5 units (exactly 5 sell); then 8 suppliers restock at
/// the same time (no restock may be lost).
fn no_oversell_under_contention(seed: u64) {
    let s = Scene::new(seed);
    let sku = "sku-hot";
    let partition = s.partition_of(sku);

    // Round 1: as many buyers as units, four times over, each wave within one second.
    let units = 800u64;
    for wave in 1..=WAVES {
        s.world.advance(Duration::from_secs(1));
        let wave_from = s.next_seq();
        s.restock_or_fail(sku, units);
        let calls = race(&s, seed ^ wave, units as usize / CLIENTS, |client| {
            reserve(client, sku, 1)
        });
        let log = s.world.request_log();
        let round = format!("wave {wave} of {WAVES}: {units} buyers raced for {units} units");
        if let Some((call, e)) = calls.iter().find_map(|c| match &c.result {
            Err(ReserveError::Engine(e)) => Some((c, e)),
            _ => None,
        }) {
            if is_throttle(e) {
                fail(throttled(&round, &log, &calls, call, wave_from, partition));
            }
            fail(format!(
                "{round}, and client {}'s {}",
                call.client,
                engine_failure(&format!("reserve(\"{sku}\", 1)"), e)
            ));
        }
        let mut left: Vec<u64> = calls.iter().filter_map(|c| c.result.clone().ok()).collect();
        left.sort_unstable();
        s.check_not_negative(
            sku,
            &format!("{round} and {} reservations succeeded", left.len()),
        );
        let table = s.stock_in_table(sku).unwrap_or(0);
        if let Some(twice) = left.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]) {
            let same: Vec<&Call> = calls.iter().filter(|c| c.result == Ok(twice)).collect();
            fail(format!(
                "{round} and {} reservations succeeded, yet the table still holds {table}: units \
                 were sold more than once. Two reservations were told the same stock left, {twice}:\n\
                 {}\n{}\n{}\nNothing checked the stock at the moment each write was applied.",
                left.len(),
                show_call(&log, same[0]),
                show_call(&log, same[1]),
                race_note(&log, same[0], same[1]),
            ));
        }
        if table as u64 + left.len() as u64 > units {
            fail(format!(
                "{round} and {} reservations succeeded, yet the table still holds {table}: \
                 {} units were sold that the table still counts as in stock: the stock written \
                 back was computed from what a read saw, and nothing checked it when the write \
                 was applied.",
                left.len(),
                table as u64 + left.len() as u64 - units
            ));
        }
        let refused: Vec<&Call> = calls.iter().filter(|c| c.result.is_err()).collect();
        if let Some(first) = refused.first() {
            fail(format!(
                "{round}, one each, and {} of them were refused while units were left: \
                 reservations that should have succeeded were lost. The first refusal, \
                 {}:\n{}\n{}",
                refused.len(),
                show_reserve(&first.result),
                show_call(&log, first),
                why_refused(&log, first),
            ));
        }
        check_budget(&round, &log, &calls);
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
    let calls = race(&s, seed ^ (WAVES + 1), 2, |client| reserve(client, sku, 1));
    let round = format!("{} buyers raced for the last {last} units", 2 * CLIENTS);
    if let Some((call, e)) = calls.iter().find_map(|c| match &c.result {
        Err(ReserveError::Engine(e)) => Some((c, e)),
        _ => None,
    }) {
        fail(format!(
            "{round}, and client {}'s {}",
            call.client,
            engine_failure(&format!("reserve(\"{sku}\", 1)"), e)
        ));
    }
    let sold = calls.iter().filter(|c| c.result.is_ok()).count() as u64;
    s.check_not_negative(sku, &format!("{round} and {sold} reservations succeeded"));
    check_eq(
        format!("{last} sold, 0 left"),
        format!("{sold} sold, {} left", show_stock(s.stock_in_table(sku))),
        format!(
            "{round}: exactly {last} reservations succeed, the other {} are refused, and the \
             stock never goes below zero",
            2 * CLIENTS as u64 - last
        ),
    );

    // Round 3: suppliers restock at the same time: no restock may be lost.
    let (rounds, qty) = (5u64, 3u64);
    let calls = race(&s, seed ^ (WAVES + 2), rounds as usize, |client| {
        restock(client, sku, qty).map_err(ReserveError::Engine)
    });
    let mut new_stock: Vec<u64> = calls
        .iter()
        .map(|c| match &c.result {
            Ok(n) => *n,
            Err(ReserveError::Engine(e)) => fail(engine_failure(
                &format!("restock(\"{sku}\", {qty}) from client {}", c.client),
                e,
            )),
            Err(e) => fail(format!("restock(\"{sku}\", {qty}) failed: {e}")),
        })
        .collect();
    new_stock.sort_unstable();
    check_eq(
        Some(CLIENTS as i64 * (rounds * qty) as i64),
        s.stock_in_table(sku),
        format!(
            "stock after {CLIENTS} suppliers each restocked {rounds} × {qty} units at the same \
             time: a restock that reads, adds and writes back loses the restocks that land in \
             between, while an update expression adds to a number on the leader, in one request"
        ),
    );
    check_eq(
        (1..=CLIENTS as u64 * rounds)
            .map(|i| i * qty)
            .collect::<Vec<_>>(),
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
    let partition = s.partition_of(sku);
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
    for buyer in 1..=units as i64 + 5 {
        s.world.advance(Duration::from_millis(10));
        let before = s.stock_in_table(sku).unwrap_or(0);
        let from = s.next_seq();
        let result = reserve(&s.client, sku, 1);
        let sent = s.requests_since(from);
        let after = s.stock_in_table(sku).unwrap_or(0);
        let call = format!("reserve(\"{sku}\", 1) sent {}", show_requests(&sent));
        let eventual = sent
            .iter()
            .filter(|r| r.consistent_read == Some(false))
            .count();
        let reads_note = if eventual > 0 {
            format!(
                " This reserve sent {eventual} eventually consistent read(s) and decided from \
                 what they returned."
            )
        } else {
            String::new()
        };
        s.check_not_negative(
            sku,
            &format!(
                "buyer #{buyer} reserved 1 unit with {before} in stock, reserve returned {}",
                show_reserve(&result)
            ),
        );
        match result {
            Ok(left) if before >= 1 && after == before - 1 => check_eq(
                after as u64,
                left,
                format!("buyer #{buyer}: reserve returns the stock left after the reservation"),
            ),
            Ok(left) if before == 0 || after >= before => fail(format!(
                "buyer #{buyer} reserved 1 unit with {before} in stock, reserve returned \
                 Ok({left}), and the stock in the table went from {before} to {after}: {} — an \
                 oversell. Its {call}.\n{lag_note}{reads_note}\nA decision taken from a read is only as \
                 fresh as the replica that answered it. A write can carry its own condition, \
                 checked against the leader's current item when it is applied, however stale \
                 anything read before.",
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
            Err(ReserveError::OutOfStock { available }) if before >= 1 => {
                // Blame the stale read only when there was one; otherwise the condition itself.
                let cause = if eventual > 0 {
                    format!(
                        "\n{lag_note}{reads_note}\nA condition that compares the stock with \
                         a value read from a stale replica fails for the wrong reason; a \
                         condition on what the order needs fails only when there really is not \
                         enough."
                    )
                } else {
                    " It read nothing that could be stale: the refusal is the condition's own, \
                     which refuses while there is stock. A reservation is refused only when \
                     fewer units are left than it asks for."
                        .to_string()
                };
                fail(format!(
                    "buyer #{buyer} was refused with OutOfStock {{ available: {available} }} \
                     although {before} units were in stock: a reservation that should have \
                     succeeded was lost. Its {call}.{cause}",
                ))
            }
            Err(ReserveError::OutOfStock { available }) => {
                check_eq(
                    0,
                    available,
                    format!("buyer #{buyer}: OutOfStock after the last unit was sold"),
                );
                check_eq(0, after, format!("stock after buyer #{buyer} was refused"));
            }
            Err(ReserveError::Engine(e)) => fail(format!(
                "buyer #{buyer}: {}",
                engine_failure(
                    &format!("reserve(\"{sku}\", 1) with {before} units in stock"),
                    &e
                )
            )),
        }
        if writes_in(&sent) > 1 {
            fail(format!(
                "buyer #{buyer} got its unit, but its {call}: {} writes for one reservation. \
                 {}\n{lag_note}\nEvery write to this product lands on one partition, which takes \
                 at most 1,000 WCU a second, and a write whose condition fails still pays its \
                 WCU: the budget is one write per reservation. A condition on the stock itself \
                 needs no value read first, so it never has to be retried.",
                writes_in(&sent),
                stale_retry_note(&sent),
            ));
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
        // A table whose burst is spent, as the scenes were written (a fresh table is born
        // with its burst saved; the contention test's budget is about the per-second ceiling).
        let world = World::with_config(engine::WorldConfig {
            seed,
            new_table_buckets_full: false,
            ..engine::WorldConfig::default()
        });
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
        let before = self.stock_in_table(sku).unwrap_or(0);
        match restock(&self.client, sku, qty) {
            Ok(n) if n as i64 == before + qty as i64 => {}
            Ok(n) => fail(format!(
                "restock(\"{sku}\", {qty}) with {before} in stock returned {n}: it must return \
                 the new stock, {}",
                before + qty as i64
            )),
            Err(e) => fail(engine_failure(&format!("restock(\"{sku}\", {qty})"), &e)),
        }
    }

    /// The `stock` attribute of a product as the leader has it (the test's own strongly
    /// consistent read); `None` when there is no item or no number `stock`. Signed: a stock
    /// below zero is what an oversell leaves behind, and the test must be able to say so.
    fn stock_in_table(&self, sku: &str) -> Option<i64> {
        let out = self
            .client
            .get_item()
            .table_name(TABLE)
            .key("sku", AttributeValue::S(sku.into()))
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not read the stock: {e}")));
        out.item()?.get("stock")?.as_number()?.to_i64()
    }

    /// Fails, in words, when the table holds a stock below zero for `sku`.
    fn check_not_negative(&self, sku: &str, what_happened: &str) {
        if let Some(stock) = self.stock_in_table(sku).filter(|n| *n < 0) {
            let sold = -stock;
            fail(format!(
                "{what_happened}, and the table holds stock {stock} for {sku}: {} sold that did \
                 not exist. The write took more than was there, and nothing refused it: a \
                 write's condition is checked atomically with the write, against the leader's \
                 current item, and can refuse a decrement the stock cannot cover.",
                if sold == 1 {
                    "1 unit was".to_string()
                } else {
                    format!("{sold} units were")
                }
            ));
        }
    }

    fn partition_of(&self, sku: &str) -> u32 {
        self.world
            .partition_of(TABLE, &AttributeValue::S(sku.into()))
            .unwrap_or_else(|e| fail(format!("the test could not find the partition: {e}")))
    }

    /// The position in the request log of the next request.
    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    /// The requests sent since `from` (the test's own reads come after them).
    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }
}

/// One call of the learner's code in a race: the client that made it, what it returned, and
/// the span of the request log it ran in (the client's own requests in that span are the
/// call's: a client's calls run one after another).
struct Call {
    client: usize,
    result: Result<u64, ReserveError>,
    from: u64,
    to: u64,
}

/// Runs `calls` calls of `call` on each of [`CLIENTS`] concurrent clients, on the world's
/// schedule for `seed` (one request at a time, in an order drawn from the seed: the same seed
/// gives the same interleaving); returns every call, client by client.
fn race(
    s: &Scene,
    seed: u64,
    calls: usize,
    call: impl Fn(&Client) -> Result<u64, ReserveError> + Sync,
) -> Vec<Call> {
    let world = &s.world;
    let raced = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(seed).run(CLIENTS, |i, client| {
            (0..calls)
                .map(|_| {
                    // Read within this client's turn: no other client runs until its next
                    // request.
                    let from = world.request_totals().requests;
                    let result = call(&client);
                    let to = world.request_totals().requests;
                    Call {
                        client: i,
                        result,
                        from,
                        to,
                    }
                })
                .collect::<Vec<_>>()
        })
    }));
    match raced {
        Ok(per_client) => per_client.into_iter().flatten().collect(),
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            fail(format!(
                "your code panicked in one of the concurrent clients: {text}"
            ))
        }
    }
}

/// The requests `call` sent, in order. The log is in `seq` order, so the call's span is found
/// by binary search: a linear scan per call made the contention test quadratic (a third of its
/// time went to this filter).
fn requests_of<'a>(log: &'a [RequestRecord], call: &Call) -> Vec<&'a RequestRecord> {
    let start = log.partition_point(|r| r.seq < call.from);
    let end = log.partition_point(|r| r.seq < call.to).max(start);
    log[start..end]
        .iter()
        .filter(|r| r.client == Some(call.client))
        .collect()
}

fn is_write(r: &RequestRecord) -> bool {
    WRITES.contains(&r.operation)
}

fn writes_in(requests: &[RequestRecord]) -> usize {
    requests.iter().filter(|r| is_write(r)).count()
}

fn is_throttle(e: &Error) -> bool {
    matches!(
        e,
        Error::ProvisionedThroughputExceededException(_) | Error::ThrottlingException(_)
    )
}

/// `GetItem #12 (eventually consistent), UpdateItem #14 (ConditionalCheckFailedException)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    match r.consistent_read {
        Some(true) => notes.push("strongly consistent".to_string()),
        Some(false) => notes.push("eventually consistent".to_string()),
        None => {}
    }
    if let Some(error) = r.error {
        notes.push(error.to_string());
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    format!("{} #{}{notes}", r.operation, r.seq)
}

fn show_requests(requests: &[RequestRecord]) -> String {
    if requests.is_empty() {
        return "no request".to_string();
    }
    let shown: Vec<String> = requests.iter().map(show_request).collect();
    shown.join(", ")
}

/// The call, then its requests, one a line (indented: the wrap leaves them as they are):
/// `  client 3's reserve → Ok(411):` / `    GetItem #1041 (eventually consistent)` / ….
fn show_call(log: &[RequestRecord], call: &Call) -> String {
    let mut text = format!(
        "  client {}'s reserve → {}:",
        call.client,
        show_reserve(&call.result)
    );
    let sent = requests_of(log, call);
    if sent.is_empty() {
        text.push_str("\n    (no request)");
    }
    for r in sent {
        text.push_str(&format!("\n    {}", show_request(r)));
    }
    text
}

/// Why two buyers who were told the same stock left both sold, read off their requests.
fn race_note(log: &[RequestRecord], a: &Call, b: &Call) -> String {
    let last_write = |c: &Call| {
        requests_of(log, c)
            .into_iter()
            .rev()
            .find(|r| is_write(r) && r.succeeded())
    };
    let first_read = |c: &Call| {
        requests_of(log, c)
            .into_iter()
            .find(|r| READS.contains(&r.operation))
    };
    let (Some(wa), Some(wb)) = (last_write(a), last_write(b)) else {
        return "Both were told they got a unit, but only one unit was taken.".to_string();
    };
    let (first, second, first_write) = if wa.seq < wb.seq {
        (a, b, wa)
    } else {
        (b, a, wb)
    };
    let whose = if first.client == second.client {
        "its own earlier".to_string()
    } else {
        format!("client {}'s", first.client)
    };
    match first_read(second) {
        Some(read) if read.seq < first_write.seq => format!(
            "Client {} read the stock (#{}) before {whose} write (#{}) landed, and its own \
             write did not check the stock again: both wrote the same new stock.",
            second.client, read.seq, first_write.seq
        ),
        Some(read) if read.consistent_read == Some(false) => format!(
            "Client {} read the stock (#{}) after {whose} write (#{}), but eventually \
             consistently: a replica the write had not reached yet answered, and its own write \
             did not check the stock again.",
            second.client, read.seq, first_write.seq
        ),
        _ => "Both writes succeeded, so neither checked the stock the other had left.".to_string(),
    }
}

/// Why a reservation was refused while units were left, read off the request log: a stale
/// eventually consistent read, another buyer's write between the read and the write, or a
/// condition that refuses on its own.
fn why_refused(log: &[RequestRecord], call: &Call) -> String {
    let sent = requests_of(log, call);
    let failed = sent
        .iter()
        .rev()
        .find(|r| is_write(r) && r.error == Some(CONDITION_FAILED));
    let Some(failed) = failed else {
        return if sent.iter().any(|r| READS.contains(&r.operation)) {
            "It refused from what it read, without trying to write: a read tells you the stock \
             as it was, not as it is when your write lands. A write can carry its own \
             condition, checked atomically when it is applied."
                .to_string()
        } else {
            "It refused without a failed condition to show for it.".to_string()
        };
    };
    let read = sent
        .iter()
        .rev()
        .find(|r| r.seq < failed.seq && READS.contains(&r.operation));
    let Some(read) = read else {
        return format!(
            "Its {} failed its condition although units were left: the condition refuses \
             while there is stock. A reservation is refused only when fewer units are left \
             than it asks for.",
            show_request(failed)
        );
    };
    let between: Vec<&RequestRecord> = log
        .iter()
        .filter(|r| r.seq > read.seq && r.seq < failed.seq)
        .filter(|r| r.client != Some(call.client) && is_write(r) && r.succeeded())
        .collect();
    let fix = "A condition that compares the stock with the value read fails whenever the \
               stock changed since that read, not only when there is not enough: its failure \
               does not mean \"out of stock\".";
    match between.first() {
        None if read.consistent_read == Some(false) => format!(
            "No other buyer wrote between its read (#{}) and its write (#{}), yet the write's \
             condition failed: the read was eventually consistent and was answered by a replica \
             the latest writes had not reached, so the stock it showed was already gone. {fix}",
            read.seq, failed.seq
        ),
        None => format!(
            "No other buyer wrote between its read (#{}) and its write (#{}), yet the write's \
             condition failed: the condition refuses while there is stock. A reservation is \
             refused only when fewer units are left than it asks for.",
            read.seq, failed.seq
        ),
        Some(other) => format!(
            "Between its read (#{}) and its write (#{}), {} changed the stock (the first: \
             client {}'s {}). {fix}",
            read.seq,
            failed.seq,
            if between.len() == 1 {
                "another buyer's write".to_string()
            } else {
                format!("{} other buyers' writes", between.len())
            },
            other.client.map_or("?".to_string(), |c| c.to_string()),
            show_request(other)
        ),
    }
}

/// A reservation was throttled in a wave: names the partition, the second, the WCU the wave
/// had spent there and how many writes each reservation cost, from the request log.
fn throttled(
    round: &str,
    log: &[RequestRecord],
    calls: &[Call],
    call: &Call,
    wave_from: u64,
    partition: u32,
) -> String {
    let wave: Vec<&RequestRecord> = log
        .iter()
        .filter(|r| r.seq >= wave_from && r.touches(TABLE) && is_write(r))
        .collect();
    let Some(first) = wave.iter().find(|r| r.throttled()) else {
        return format!(
            "{round}, and client {}'s reserve was throttled: {}",
            call.client,
            show_reserve(&call.result)
        );
    };
    let before: Vec<&&RequestRecord> = wave.iter().filter(|r| r.seq < first.seq).collect();
    let wcu: f64 = before.iter().map(|r| r.write_units).sum();
    let failed_conditions = before
        .iter()
        .filter(|r| r.error == Some(CONDITION_FAILED))
        .count();
    let done = calls
        .iter()
        .filter(|c| c.to <= first.seq && c.result.is_ok())
        .count();
    // The test's own restock opened the wave: one write that is not a reservation.
    let reservation_writes = before.len().saturating_sub(1);
    let reservation_wcu = wcu - before.first().map_or(0.0, |r| r.write_units);
    let per = if done > 0 {
        format!(
            " — {:.1} writes and {:.1} WCU per reservation",
            reservation_writes as f64 / done as f64,
            reservation_wcu / done as f64
        )
    } else {
        String::new()
    };
    format!(
        "{round}, and the reservations were throttled: {} #{} was refused with {}, in second \
         {} of the test. Every reservation of one product writes one item, and one item lives on one \
         partition (partition {partition} of {TABLE}), which accepts at most {} WCU per second. \
         By then the partition had taken {} WCU in that second: the restock that opened the \
         wave, then {} writes from the reservations for the {} reservations that had \
         succeeded{per}; {} of those writes failed their condition \
         ({CONDITION_FAILED}) and still paid their WCU.\nThe budget is one write per \
         reservation: {} reservations in one second fit the partition only if none of them \
         writes twice. A compare-and-set pays a write for every expected value that was out \
         of date, retry after retry; a condition on the stock itself needs no expected value \
         and fails only when there is not enough.",
        first.operation,
        first.seq,
        first.error.unwrap_or("a throttle"),
        first.at_ms / 1000,
        thousands(PARTITION_WCU),
        thousands(wcu as i64),
        thousands(reservation_writes as i64),
        thousands(done as i64),
        thousands(failed_conditions as i64),
        thousands(calls.len() as i64),
    )
}

/// Fails when any reservation of a wave sent more than one write (the README's budget),
/// naming how many did and showing the first.
fn check_budget(round: &str, log: &[RequestRecord], calls: &[Call]) {
    let over: Vec<&Call> = calls
        .iter()
        .filter(|c| requests_of(log, c).iter().filter(|r| is_write(r)).count() > 1)
        .collect();
    if let Some(first) = over.first() {
        let writes: usize = calls
            .iter()
            .map(|c| requests_of(log, c).iter().filter(|r| is_write(r)).count())
            .sum();
        fail(format!(
            "{round}, and every buyer got a unit, but {} of the {} reservations sent more than \
             one write ({} writes in all). The first:\n{}\nEvery write to this product lands on \
             one partition, which takes at most {} WCU a second, and a write whose condition \
             fails still pays its WCU: the budget is one write per reservation. A condition on \
             the stock itself needs no value read first, so it never has to be retried.",
            over.len(),
            calls.len(),
            thousands(writes as i64),
            show_call(log, first),
            thousands(PARTITION_WCU),
        ));
    }
}

/// Fails a call (made alone) that sent more than one write: the README's budget.
fn check_one_write(context: &str, sent: &[RequestRecord]) {
    let writes = writes_in(sent);
    if writes > 1 {
        fail(format!(
            "{context}, but it sent {}: {writes} writes for one call. {}\nEvery write to a \
             product lands on its one partition, which takes at most {} WCU a second, and a \
             write whose condition fails still pays its WCU: the budget is one write per call. \
             A condition on the stock itself needs no expected value, so it never has to be \
             retried.",
            show_requests(sent),
            stale_retry_note(sent),
            thousands(PARTITION_WCU),
        ));
    }
}

/// What a stale read costs a compare-and-set: its first write fails, and it writes again.
fn stale_retry_note(sent: &[RequestRecord]) -> String {
    let read = sent
        .iter()
        .find(|r| READS.contains(&r.operation) && r.consistent_read == Some(false));
    let failed = sent
        .iter()
        .find(|r| is_write(r) && r.error == Some(CONDITION_FAILED));
    match (read, failed) {
        (Some(read), Some(failed)) => format!(
            "Nobody else was buying: its write #{} failed its condition because its eventually \
             consistent read #{} showed a stock that was already gone, and it had to write \
             again.",
            failed.seq, read.seq
        ),
        (None, Some(failed)) => format!(
            "Nobody else was buying, yet its write #{} failed its condition, and it had to write \
             again.",
            failed.seq
        ),
        _ => String::new(),
    }
}

/// An engine error from the learner's call, with a pointer where the cause is a classic.
fn engine_failure(call: &str, e: &Error) -> String {
    let missing_attribute = e.code() == Some("ValidationException")
        && e.message()
            .is_some_and(|m| m.contains("attribute that does not exist"));
    let note = if missing_attribute {
        "\nThe update expression reads an attribute the item does not have: a product that was \
         never restocked has no item, so a `stock` operand in a SET refers to nothing, and \
         DynamoDB refuses the whole update. Not every update action needs the old value to \
         exist: some treat a missing number as 0."
    } else {
        ""
    };
    format!("{call} failed: {e}{note}")
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

fn show_stock(stock: Option<i64>) -> String {
    stock.map_or("(none)".to_string(), |n| n.to_string())
}
