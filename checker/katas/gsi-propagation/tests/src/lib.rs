//! Hidden tests of the `gsi-propagation` kata.
//!
//! Every test runs one workload twice, in two worlds built from the same seed: one with the
//! engine's index propagation, one with the learner's (`Pieces::with_index_propagator`), on
//! the table `orders` (`PK`, `SK`) with three global secondary indexes — `by-status`
//! (`status`, `placed_at`; INCLUDE `total`, `customer`), `by-customer` (`customer`, `total`
//! as a Number; KEYS_ONLY), `by-email` (`email`; ALL) — and in some tests `by-region`
//! (`region`; INCLUDE `email`) added to a table that already holds orders. After each
//! request the two worlds must agree on its result (admitted, throttled) and on the write
//! units it cost each index (`ReturnConsumedCapacity = INDEXES`), and the learner's units
//! must be what the rules say; once both worlds have settled, every index must hold the
//! same entries in both, and in the learner's exactly the items with the index's key, each
//! holding what its projection keeps. A difference is traced to the learner's answer that
//! caused it (`scene.rs` records the questions, `explain.rs` tells them).
//!
//! - `the_lessons_order_moves_through_the_status_index`: the README's worked example — a
//!   cart, placed, its note edited, its total changed, shipped, its status removed — with
//!   seeded sizes and dates; `by-status` must cost 0, 1, 0, 1, 2, 1 WCU.
//! - `the_index_holds_exactly_the_items_with_its_key`: items with every, some or none of each
//!   index's key attributes; key attributes set and removed by updates; deletes; re-puts.
//! - `entries_hold_exactly_what_the_projection_keeps`: items in every index, with and without
//!   the INCLUDE attributes, with lists, maps, sets and Booleans no index but ALL keeps.
//! - `index_writes_are_sized_by_the_entry`: notes of up to 6 KB behind narrow projections and
//!   in the ALL index; items a few bytes past a KB boundary (past it only with the names
//!   counted); key changes whose old and new entries weigh different amounts; deletes.
//! - `only_a_change_to_the_entry_writes_to_the_index`: updates of attributes no index keeps,
//!   of projected ones, of key attributes; PutItems that rewrite the item.
//! - `a_backfill_copies_only_items_that_carry_the_key`: `by-region` added to orders of which
//!   some have a `region` Number (the index's key is a String); afterwards those are deleted,
//!   lose their region, or get a String one.
//! - `an_under_provisioned_index_throttles_the_table`: bursts of new and moved orders against a
//!   `by-status` of 3 to 8 WCU, on a table with 400.
//! - `seeded_workloads_match_dynamodb`: all of the above at random, with batches,
//!   transactions and sometimes `by-region` added midway.

mod explain;
mod scene;

use engine::{item_size, AttributeValue, Item};
use given::IndexPropagator;
use katas_testkit::{check, run, seeded, Rng};

use scene::{Op, Scene, Setup, BY_STATUS};

katas_testkit::learner! {
    /// The learner's index propagator.
    fn propagator() -> Box<dyn IndexPropagator>;
}

/// Runs the hidden tests against the learner's propagator (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "the_lessons_order_moves_through_the_status_index",
            the_lessons_order,
        ),
        seeded("the_index_holds_exactly_the_items_with_its_key", sparse),
        seeded(
            "entries_hold_exactly_what_the_projection_keeps",
            projections,
        ),
        seeded("index_writes_are_sized_by_the_entry", sizes),
        seeded(
            "only_a_change_to_the_entry_writes_to_the_index",
            only_changes,
        ),
        seeded("a_backfill_copies_only_items_that_carry_the_key", backfill),
        seeded(
            "an_under_provisioned_index_throttles_the_table",
            back_pressure,
        ),
        seeded("seeded_workloads_match_dynamodb", seeded_workloads),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

fn the_lessons_order(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sc = Scene::new(seed, Setup::ON_DEMAND, "the lesson's order");
    let id = format!("ORDER#{}", 100 + rng.below(900));
    let date = format!("2026-01-{:02}", 1 + rng.below(28));
    let mut cart = order(&id, &mut rng);
    cart.insert(
        "note".into(),
        s(&"n".repeat(2300 + rng.below(200) as usize)),
    );
    let steps: Vec<(Op, f64, &str)> = vec![
        (
            Op::Put(cart),
            0.0,
            "a cart: no status yet, not in by-status",
        ),
        (
            Op::update(
                &id,
                "SET status = :s, placed_at = :p",
                vec![(":s", s("PLACED")), (":p", s(&date))],
            ),
            1.0,
            "placed: it enters by-status (one put)",
        ),
        (
            Op::update(&id, "SET note = :n", vec![(":n", s(&"m".repeat(2400)))]),
            0.0,
            "its note edited: by-status does not keep note",
        ),
        (
            Op::update(
                &id,
                "SET total = :t",
                vec![(":t", n(10 + rng.below(990) as i64))],
            ),
            1.0,
            "its total changed: by-status keeps total (one put, in place)",
        ),
        (
            Op::update(&id, "SET status = :s", vec![(":s", s("SHIPPED"))]),
            2.0,
            "shipped: its index key changes (delete PLACED, put SHIPPED)",
        ),
        (
            Op::update(&id, "REMOVE status", vec![]),
            1.0,
            "its status removed: it leaves by-status (one delete)",
        ),
    ];
    for (step, (op, units, what)) in steps.into_iter().enumerate() {
        let shown = sc.send(op);
        let yours = &sc.sent[step].yours;
        check(
            shown.units(BY_STATUS.name) == units && yours.units(BY_STATUS.name) == units,
            format!(
                "Step {} of the lesson's order — {what}: by-status costs {} WCU; your world \
                 charged {}.",
                step + 1,
                explain::number(units),
                explain::number(yours.units(BY_STATUS.name))
            ),
        );
        sc.advance_ms(200 + rng.below(400));
        sc.settle_and_compare();
    }
}

fn sparse(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sc = Scene::new(
        seed,
        Setup::ON_DEMAND,
        "orders with and without each index's key attributes",
    );
    let keys = 14;
    for i in 0..keys {
        let mut it = base(&format!("ORDER#{i}"));
        for (name, value) in key_attributes(&mut rng) {
            if rng.below(2) == 0 {
                it.insert(name.into(), value);
            }
        }
        sc.send(Op::Put(it));
        sc.advance_ms(rng.below(200));
    }
    for step in 0..36 {
        let id = format!("ORDER#{}", rng.below(keys));
        let (name, value) = key_attributes(&mut rng).swap_remove(rng.below(5) as usize);
        let op = match rng.below(6) {
            0 | 1 => Op::update(&id, &format!("SET {name} = :v"), vec![(":v", value)]),
            2 | 3 => Op::update(&id, &format!("REMOVE {name}"), vec![]),
            4 => Op::Delete(id),
            _ => {
                let mut it = base(&id);
                for (name, value) in key_attributes(&mut rng) {
                    if rng.below(3) != 0 {
                        it.insert(name.into(), value);
                    }
                }
                Op::Put(it)
            }
        };
        sc.send(op);
        sc.advance_ms(rng.below(300));
        if step == 18 {
            sc.settle_and_compare();
        }
    }
    sc.settle_and_compare();
}

fn projections(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sc = Scene::new(
        seed,
        Setup::ON_DEMAND,
        "orders with and without the projected attributes",
    );
    let keys = 10;
    for i in 0..keys {
        let id = format!("ORDER#{i}");
        let mut it = order(&id, &mut rng);
        it.insert("status".into(), s(status(&mut rng)));
        it.insert("placed_at".into(), s("2026-02-01"));
        if rng.below(3) == 0 {
            it.remove("customer"); // by-status INCLUDEs it; by-customer needs it as its key
        }
        if rng.below(3) == 0 {
            it.remove("total");
        }
        for (name, value) in extras(&mut rng) {
            if rng.below(2) == 0 {
                it.insert(name.into(), value);
            }
        }
        sc.send(Op::Put(it));
    }
    for _ in 0..24 {
        let id = format!("ORDER#{}", rng.below(keys));
        let op = match rng.below(5) {
            0 => Op::update(
                &id,
                "SET customer = :c",
                vec![(":c", s(&format!("C#{}", rng.below(4))))],
            ),
            1 => Op::update(&id, "REMOVE customer, total", vec![]),
            2 => Op::update(
                &id,
                "SET total = :t",
                vec![(":t", n(rng.below(500) as i64))],
            ),
            3 => {
                let (name, value) = extras(&mut rng).swap_remove(rng.below(4) as usize);
                Op::update(&id, &format!("SET {name} = :x"), vec![(":x", value)])
            }
            _ => Op::update(&id, "REMOVE tags, prefs, flag", vec![]),
        };
        sc.send(op);
        sc.advance_ms(rng.below(300));
    }
    sc.settle_and_compare();
}

fn sizes(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sc = Scene::new(
        seed,
        Setup::ON_DEMAND,
        "orders of many sizes (notes of up to 6 KB)",
    );
    let keys = 10;
    for i in 0..keys {
        let id = format!("ORDER#{i}");
        let mut it = order(&id, &mut rng);
        it.insert("status".into(), s(status(&mut rng)));
        it.insert("placed_at".into(), s("2026-03-01"));
        if i % 2 == 0 {
            // In the ALL index, an entry a few bytes past a KB boundary — and below it
            // without the attribute names.
            it.insert("email".into(), s(&format!("big{i}@shop.example")));
            let kb = 1 + rng.below(4) as usize;
            past_boundary(&mut it, kb * 1024 + 1 + rng.below(20) as usize);
        } else {
            it.insert("note".into(), s(&"x".repeat(rng.below(6000) as usize)));
        }
        sc.send(Op::Put(it));
    }
    // In the ALL index: a key change whose old entry outweighs the new one, an entry that
    // grows, and the delete of a large entry.
    let big = "ORDER#BIG";
    let mut it = order(big, &mut rng);
    it.insert("email".into(), s("big@shop.example"));
    it.insert(
        "note".into(),
        s(&"x".repeat(3100 + rng.below(400) as usize)),
    );
    sc.send(Op::Put(it));
    sc.send(Op::update(
        big,
        "SET email = :e, note = :n",
        vec![
            (":e", s("moved@shop.example")),
            (":n", s(&"y".repeat(1200 + rng.below(400) as usize))),
        ],
    ));
    sc.send(Op::update(
        big,
        "SET note = :n",
        vec![(":n", s(&"z".repeat(4200 + rng.below(800) as usize)))],
    ));
    sc.send(Op::Delete(big.to_string()));
    for _ in 0..24 {
        let id = format!("ORDER#{}", rng.below(keys));
        let note = s(&"y".repeat(rng.below(6000) as usize));
        let op = match rng.below(6) {
            // The ALL index's key moves while the entry grows or shrinks.
            0 | 1 => Op::update(
                &id,
                "SET email = :e, note = :n",
                vec![
                    (":e", s(&format!("{}@shop.example", rng.below(99)))),
                    (":n", note),
                ],
            ),
            2 => Op::update(&id, "SET note = :n", vec![(":n", note)]),
            3 => Op::update(&id, "SET status = :s", vec![(":s", s(status(&mut rng)))]),
            4 => Op::Delete(id),
            _ => {
                let mut it = order(&id, &mut rng);
                it.insert("note".into(), note);
                Op::Put(it)
            }
        };
        sc.send(op);
        sc.advance_ms(rng.below(300));
    }
    sc.settle_and_compare();
}

fn only_changes(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sc = Scene::new(
        seed,
        Setup::ON_DEMAND,
        "updates of kept and of unkept attributes",
    );
    let keys = 8;
    let mut items = Vec::new();
    for i in 0..keys {
        let id = format!("ORDER#{i}");
        let mut it = order(&id, &mut rng);
        it.insert("status".into(), s(status(&mut rng)));
        it.insert("placed_at".into(), s("2026-04-01"));
        it.insert("note".into(), s(&"z".repeat(rng.below(1500) as usize)));
        sc.send(Op::Put(it.clone()));
        items.push(it);
    }
    for _ in 0..30 {
        let i = rng.below(keys) as usize;
        let id = format!("ORDER#{i}");
        let op = match rng.below(7) {
            0 => Op::update(
                &id,
                "SET note = :n",
                vec![(":n", s(&"w".repeat(rng.below(1500) as usize)))],
            ),
            1 => Op::update(
                &id,
                "SET flag = :f",
                vec![(":f", AttributeValue::Bool(rng.below(2) == 0))],
            ),
            2 => Op::update(
                &id,
                "SET total = :t",
                vec![(":t", n(rng.below(500) as i64))],
            ),
            3 => Op::update(
                &id,
                "SET customer = :c",
                vec![(":c", s(&format!("C#{}", rng.below(4))))],
            ),
            4 => Op::update(&id, "SET status = :s", vec![(":s", s(status(&mut rng)))]),
            5 => {
                // The same order again, its note changed: a whole-item PutItem.
                let mut it = items[i].clone();
                it.insert("note".into(), s(&"v".repeat(rng.below(1500) as usize)));
                items[i] = it.clone();
                Op::Put(it)
            }
            _ => Op::Put(items[i].clone()),
        };
        sc.send(op);
        sc.advance_ms(rng.below(300));
    }
    sc.settle_and_compare();
}

fn backfill(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut sc = Scene::new(
        seed,
        Setup::ON_DEMAND,
        "by-region added to a table of orders, some with a Number region",
    );
    let keys = 16;
    let mut numbers = Vec::new();
    for i in 0..keys {
        let id = format!("ORDER#{i}");
        let mut it = order(&id, &mut rng);
        // ORDER#0 always has a Number region: the case the test is about.
        match if i == 0 { 0 } else { rng.below(3) } {
            0 => {
                it.insert("region".into(), n(rng.below(9) as i64));
                numbers.push(id);
            }
            1 => {
                it.insert("region".into(), s(region(&mut rng)));
            }
            _ => {}
        }
        sc.send(Op::Put(it));
    }
    sc.add_region_index();
    sc.settle_and_compare();
    for id in &numbers {
        let op = match rng.below(3) {
            0 => Op::Delete(id.clone()),
            1 => Op::update(id, "REMOVE region", vec![]),
            _ => Op::update(id, "SET region = :r", vec![(":r", s(region(&mut rng)))]),
        };
        sc.send(op);
        sc.advance_ms(rng.below(200));
    }
    for _ in 0..12 {
        let id = format!("ORDER#{}", rng.below(keys));
        let op = match rng.below(3) {
            0 => Op::update(&id, "SET region = :r", vec![(":r", s(region(&mut rng)))]),
            1 => Op::update(&id, "SET email = :e", vec![(":e", s("new@shop.example"))]),
            _ => Op::update(&id, "REMOVE region", vec![]),
        };
        sc.send(op);
        sc.advance_ms(rng.below(200));
    }
    sc.settle_and_compare();
}

fn back_pressure(seed: u64) {
    let mut rng = Rng::new(seed);
    let status_wcu = 3 + rng.below(6) as i64;
    let mut sc = Scene::new(
        seed,
        Setup {
            provisioned: Some((400, status_wcu)),
        },
        &format!("bursts against a by-status of {status_wcu} WCU (the table has 400)"),
    );
    let mut placed = 0;
    let mut throttled = 0;
    for second in 0..6u64 {
        for _ in 0..(10 + rng.below(10)) {
            let op = if placed < 6 || rng.below(2) == 0 {
                let id = format!("ORDER#{placed}");
                placed += 1;
                let mut it = order(&id, &mut rng);
                it.insert("status".into(), s("PLACED"));
                it.insert("placed_at".into(), s(&format!("2026-05-{:02}", second + 1)));
                Op::Put(it)
            } else {
                let id = format!("ORDER#{}", rng.below(placed));
                Op::update(&id, "SET status = :s", vec![(":s", s(status(&mut rng)))])
            };
            if sc.send(op).throttled() {
                throttled += 1;
            }
            sc.advance_ms(10);
        }
        sc.advance_ms(1000);
    }
    check(
        throttled > 0,
        format!(
            "In DynamoDB's world no write was throttled, though by-status has only {status_wcu} \
             WCU: the test's workload is wrong, not your code."
        ),
    );
    sc.settle_and_compare();
}

fn seeded_workloads(seed: u64) {
    let mut rng = Rng::new(seed);
    let setup = if rng.below(3) == 0 {
        Setup {
            provisioned: Some((400, 10 + rng.below(20) as i64)),
        }
    } else {
        Setup::ON_DEMAND
    };
    let mut sc = Scene::new(seed, setup, "a seeded mix of everything");
    let keys = 20;
    let with_region = rng.below(2) == 0;
    for step in 0..90 {
        let id = format!("ORDER#{}", rng.below(keys));
        let op = match rng.below(10) {
            0 | 1 => Op::Put(random_order(&id, &mut rng, sc.indexes.len() > 3)),
            2 => Op::update(
                &id,
                "SET status = :s, placed_at = :p",
                vec![
                    (":s", s(status(&mut rng))),
                    (":p", s(&format!("2026-06-{:02}", 1 + rng.below(28)))),
                ],
            ),
            3 => Op::update(&id, "REMOVE status", vec![]),
            4 => Op::update(
                &id,
                "SET total = :t",
                vec![(":t", n(rng.below(900) as i64))],
            ),
            5 => Op::update(
                &id,
                "SET note = :n",
                vec![(":n", s(&"q".repeat(rng.below(3000) as usize)))],
            ),
            6 => Op::Delete(id),
            7 => Op::Batch(
                (0..2 + rng.below(3))
                    .map(|j| random_order(&format!("BATCH#{step}-{j}"), &mut rng, false))
                    .collect(),
            ),
            8 => Op::Transact(vec![
                Op::Put(random_order(&format!("TX#{step}"), &mut rng, false)),
                Op::update(
                    &id,
                    "SET customer = :c",
                    vec![(":c", s(&format!("C#{}", rng.below(5))))],
                ),
            ]),
            _ => Op::update(
                &id,
                "SET email = :e",
                vec![(":e", s(&format!("{}@shop.example", rng.below(30))))],
            ),
        };
        sc.send(op);
        sc.advance_ms(rng.below(250));
        if with_region && step == 30 {
            sc.add_region_index();
        }
        if step == 60 {
            sc.settle_and_compare();
        }
    }
    sc.settle_and_compare();
}

// ---------------------------------------------------------------------------------------
// Orders
// ---------------------------------------------------------------------------------------

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn status(rng: &mut Rng) -> &'static str {
    ["PLACED", "PACKED", "SHIPPED", "RETURNED"][rng.below(4) as usize]
}

fn region(rng: &mut Rng) -> &'static str {
    ["EU", "US", "APAC"][rng.below(3) as usize]
}

/// An order's key alone.
fn base(id: &str) -> Item {
    let mut it = Item::new();
    it.insert("PK".into(), s(id));
    it.insert("SK".into(), s("META"));
    it
}

/// An order with a customer, a total and (mostly) an email: in by-customer and by-email,
/// not yet in by-status.
fn order(id: &str, rng: &mut Rng) -> Item {
    let mut it = base(id);
    it.insert("customer".into(), s(&format!("C#{}", rng.below(6))));
    it.insert("total".into(), n(rng.below(1000) as i64));
    if rng.below(4) != 0 {
        it.insert(
            "email".into(),
            s(&format!("c{}@shop.example", rng.below(50))),
        );
    }
    it
}

/// Values for each key attribute of the three indexes.
fn key_attributes(rng: &mut Rng) -> Vec<(&'static str, AttributeValue)> {
    vec![
        ("status", s(status(rng))),
        ("placed_at", s(&format!("2026-01-{:02}", 1 + rng.below(28)))),
        ("customer", s(&format!("C#{}", rng.below(6)))),
        ("total", n(rng.below(1000) as i64)),
        ("email", s(&format!("c{}@shop.example", rng.below(20)))),
    ]
}

/// Attributes only `ALL` keeps, of every kind.
fn extras(rng: &mut Rng) -> Vec<(&'static str, AttributeValue)> {
    let mut prefs = Item::new();
    prefs.insert("gift".into(), AttributeValue::Bool(rng.below(2) == 0));
    vec![
        (
            "tags",
            AttributeValue::L(vec![s("fragile"), n(rng.below(9) as i64)]),
        ),
        ("prefs", AttributeValue::M(prefs)),
        ("flag", AttributeValue::Bool(true)),
        ("note", s(&"p".repeat(rng.below(800) as usize))),
    ]
}

fn random_order(id: &str, rng: &mut Rng, region: bool) -> Item {
    let mut it = order(id, rng);
    if rng.below(3) != 0 {
        it.insert("status".into(), s(status(rng)));
    }
    if rng.below(3) != 0 {
        it.insert(
            "placed_at".into(),
            s(&format!("2026-07-{:02}", 1 + rng.below(28))),
        );
    }
    if rng.below(2) == 0 {
        it.insert("note".into(), s(&"r".repeat(rng.below(2500) as usize)));
    }
    if region && rng.below(2) == 0 {
        it.insert("region".into(), s(self::region(rng)));
    }
    it
}

/// Gives `it` a `note` that makes the whole item `bytes` long.
fn past_boundary(it: &mut Item, bytes: usize) {
    it.insert("note".into(), s(""));
    let without = item_size(it);
    it.insert("note".into(), s(&"b".repeat(bytes.saturating_sub(without))));
}
