//! Bad input never panics the engine, and a failed operation changes nothing.
//!
//! Random and mutated requests — items with odd values, expressions from a token soup and
//! from mutated valid ones, placeholder maps that do not match, keys of the wrong shape — are
//! sent through the client against a table with indexes and a stream. Every request must
//! either succeed or fail with an error; when it fails, the table's data must be exactly what
//! it was before (checked with a strongly consistent Scan of everything and the stream's
//! length). `cargo test` runs a few thousand requests; the ignored test runs `FUZZ_ITERS`
//! (default 1,000,000) in release: `cargo test --release -p dynamodb-katas-engine --test
//! ops_fuzz -- --ignored`.
mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    Put, ReturnValue, ScalarAttributeType, StreamSpecification, StreamViewType, TransactWriteItem,
    Update,
};
use engine::{AttributeValue, Blob, Client, Item, World};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const NAMES: &[&str] = &[
    "PK", "SK", "a", "b", "n", "l", "m", "GSI1PK", "status", "#x", "", "name", "a.b",
];
const TOKENS: &[&str] = &[
    "a",
    "b",
    "n",
    "l[0]",
    "m.x",
    "#x",
    ":v",
    ":w",
    "=",
    "<>",
    "<",
    ">=",
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    ",",
    "SET",
    "REMOVE",
    "ADD",
    "DELETE",
    "+",
    "-",
    "size(",
    "attribute_exists(",
    "attribute_not_exists(",
    "begins_with(",
    "contains(",
    "if_not_exists(",
    "list_append(",
    "BETWEEN",
    "IN",
    "PK",
    "SK",
    "status",
    "attribute_type(",
    "  ",
    "[",
    "]",
    ".",
    "1",
    "#",
    ":",
];
const VALID: &[&str] = &[
    "attribute_not_exists(PK)",
    "n > :v AND begins_with(a, :w)",
    "SET n = n + :v, a = :w",
    "SET l = list_append(if_not_exists(l, :e), :l) REMOVE b",
    "ADD n :v DELETE s :s",
    "#x = :v OR (size(a) < :v AND NOT contains(a, :w))",
];

fn value(r: &mut Rng, depth: usize) -> AttributeValue {
    match r.below(if depth > 3 { 7 } else { 10 }) {
        0 => AttributeValue::S(["", "x", "hello", "ORDER#1"][r.below(4)].to_string()),
        1 => AttributeValue::N(
            [
                "0", "1", "-1.5", "1e130", "9.99e125", "abc", "", "00.100", "1E-131",
            ][r.below(9)]
            .to_string(),
        ),
        2 => AttributeValue::B(Blob::new(vec![0u8; r.below(3)])),
        3 => AttributeValue::Bool(r.below(2) == 0),
        4 => AttributeValue::Null(r.below(3) != 0),
        5 => AttributeValue::Ss(
            (0..r.below(3))
                .map(|i| ["a", "b", "a"][i].to_string())
                .collect(),
        ),
        6 => AttributeValue::Ns(
            (0..r.below(3))
                .map(|i| ["1", "1.0", "2"][i].to_string())
                .collect(),
        ),
        7 => AttributeValue::L((0..r.below(3)).map(|_| value(r, depth + 1)).collect()),
        8 => AttributeValue::M(
            (0..r.below(3))
                .map(|i| (NAMES[i + 2].to_string(), value(r, depth + 1)))
                .collect(),
        ),
        _ => AttributeValue::Bs(vec![Blob::new(vec![1]); r.below(2)]),
    }
}

fn item(r: &mut Rng) -> Item {
    let mut it = Item::new();
    if r.below(10) != 0 {
        it.insert(
            "PK".into(),
            if r.below(10) == 0 {
                value(r, 0)
            } else {
                AttributeValue::S(format!("k{}", r.below(20)))
            },
        );
    }
    if r.below(10) != 0 {
        it.insert(
            "SK".into(),
            AttributeValue::S(["s", "", "t"][r.below(3)].to_string()),
        );
    }
    for _ in 0..r.below(4) {
        it.insert(r.pick(NAMES).to_string(), value(r, 0));
    }
    it
}

fn expression(r: &mut Rng) -> String {
    if r.below(2) == 0 {
        let mut s: Vec<char> = r.pick(VALID).chars().collect();
        for _ in 0..r.below(3) {
            let i = r.below(s.len() + 1);
            match r.below(3) {
                0 if i < s.len() => {
                    s.remove(i);
                }
                1 => s.insert(i, *r.pick(&['(', ')', ':', '#', ' ', ',', 'x', '='])),
                _ => {}
            }
        }
        s.into_iter().collect()
    } else {
        (0..r.below(8))
            .map(|_| *r.pick(TOKENS))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn with_placeholders<B>(
    r: &mut Rng,
    mut b: B,
    names: fn(B, &str, &str) -> B,
    values: fn(B, &str, AttributeValue) -> B,
) -> B {
    if r.below(2) == 0 {
        let name = *r.pick(NAMES);
        b = names(b, "#x", name);
    }
    for key in [":v", ":w", ":e", ":l", ":s"] {
        if r.below(3) != 0 {
            b = values(b, key, value(r, 0));
        }
    }
    b
}

fn setup(seed: u64) -> (World, Client) {
    let world = World::new(seed);
    let c = world.client();
    c.create_table()
        .table_name("fuzz")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("GSI1PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .global_secondary_indexes(GlobalSecondaryIndex::new(
            "GSI",
            vec![KeySchemaElement::new("GSI1PK", KeyType::Hash)],
            Projection::all(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send()
        .unwrap();
    (world, c)
}

/// Everything observable about the table's data: all items (strongly consistent) and the
/// stream's length.
fn snapshot(c: &Client) -> (Vec<Item>, usize) {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = c
            .scan()
            .table_name("fuzz")
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .unwrap();
        items.extend(page.items().iter().cloned());
        match page.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => break,
        }
    }
    let arn = c
        .list_streams()
        .table_name("fuzz")
        .send()
        .unwrap()
        .streams()[0]
        .stream_arn()
        .unwrap()
        .to_string();
    let d = c.describe_stream().stream_arn(&arn).send().unwrap();
    let mut records = 0;
    for s in d.stream_description().unwrap().shards() {
        let it = c
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(s.shard_id().unwrap())
            .shard_iterator_type(engine::types::ShardIteratorType::TrimHorizon)
            .send()
            .unwrap()
            .shard_iterator()
            .unwrap()
            .to_string();
        records += c
            .get_records()
            .shard_iterator(it)
            .send()
            .unwrap()
            .records()
            .len();
    }
    (items, records)
}

/// A valid value (no bad numbers, no empty or duplicate sets).
fn good_value(r: &mut Rng) -> AttributeValue {
    match r.below(5) {
        0 => AttributeValue::S(format!("v{}", r.below(100))),
        1 => AttributeValue::N(format!("{}", r.below(1000) as i64 - 500)),
        2 => AttributeValue::Bool(true),
        3 => AttributeValue::L(vec![AttributeValue::N("1".into())]),
        _ => AttributeValue::Ss(vec!["a".into(), "b".into()]),
    }
}

fn good_key(r: &mut Rng) -> Item {
    let mut k = Item::new();
    k.insert("PK".into(), AttributeValue::S(format!("k{}", r.below(20))));
    k.insert(
        "SK".into(),
        AttributeValue::S(["s", "t"][r.below(2)].to_string()),
    );
    k
}

/// Sends one well-formed request (most succeed; conditions may fail); returns whether it
/// failed.
fn clean(r: &mut Rng, c: &Client) -> bool {
    let result: Result<(), engine::Error> = match r.below(5) {
        0 => {
            let mut it = good_key(r);
            it.insert("a".into(), good_value(r));
            if r.below(2) == 0 {
                it.insert(
                    "GSI1PK".into(),
                    AttributeValue::S(format!("G{}", r.below(3))),
                );
            }
            c.put_item()
                .table_name("fuzz")
                .set_item(Some(it))
                .send()
                .map(|_| ())
                .map_err(engine::Error::from)
        }
        1 => c
            .update_item()
            .table_name("fuzz")
            .set_key(Some(good_key(r)))
            .update_expression(
                "SET n = if_not_exists(n, :z) + :v, l = list_append(if_not_exists(l, :e), :l)",
            )
            .condition_expression("attribute_not_exists(n) OR n < :max")
            .expression_attribute_values(":z", AttributeValue::N("0".into()))
            .expression_attribute_values(":v", AttributeValue::N("1".into()))
            .expression_attribute_values(":e", AttributeValue::L(vec![]))
            .expression_attribute_values(":l", AttributeValue::L(vec![good_value(r)]))
            .expression_attribute_values(":max", AttributeValue::N("5".into()))
            .send()
            .map(|_| ())
            .map_err(engine::Error::from),
        2 => c
            .delete_item()
            .table_name("fuzz")
            .set_key(Some(good_key(r)))
            .send()
            .map(|_| ())
            .map_err(engine::Error::from),
        3 => c
            .query()
            .table_name("fuzz")
            .key_condition_expression("PK = :pk AND begins_with(SK, :p)")
            .filter_expression("attribute_exists(a)")
            .expression_attribute_values(":pk", AttributeValue::S(format!("k{}", r.below(20))))
            .expression_attribute_values(":p", AttributeValue::S("s".into()))
            .send()
            .map(|_| ())
            .map_err(engine::Error::from),
        _ => {
            let put = Put::builder()
                .table_name("fuzz")
                .set_item(Some(good_key(r)))
                .build()
                .unwrap();
            let mut other = good_key(r);
            other.insert("SK".into(), AttributeValue::S("u".into()));
            let upd = Update::builder()
                .table_name("fuzz")
                .set_key(Some(other))
                .update_expression("ADD n :v")
                .condition_expression("attribute_not_exists(n) OR n < :max")
                .expression_attribute_values(":v", AttributeValue::N("1".into()))
                .expression_attribute_values(":max", AttributeValue::N("3".into()))
                .build()
                .unwrap();
            c.transact_write_items()
                .transact_items(TransactWriteItem::builder().put(put).build())
                .transact_items(TransactWriteItem::builder().update(upd).build())
                .send()
                .map(|_| ())
                .map_err(engine::Error::from)
        }
    };
    result.is_err()
}

/// Sends one random request; returns whether it failed.
fn one(r: &mut Rng, c: &Client) -> bool {
    if r.below(2) == 0 {
        return clean(r, c);
    }
    let result: Result<(), engine::Error> = match r.below(6) {
        0 => {
            let b = c.put_item().table_name("fuzz").set_item(Some(item(r)));
            let b = if r.below(2) == 0 {
                b.condition_expression(expression(r))
            } else {
                b
            };
            let b = with_placeholders(
                r,
                b,
                |b, k, v| b.expression_attribute_names(k, v),
                |b, k, v| b.expression_attribute_values(k, v),
            );
            b.return_values(
                r.pick(&[ReturnValue::None, ReturnValue::AllOld, ReturnValue::AllNew])
                    .clone(),
            )
            .send()
            .map(|_| ())
            .map_err(engine::Error::from)
        }
        1 => {
            let key = item(r);
            let b = c
                .update_item()
                .table_name("fuzz")
                .set_key(Some(key))
                .update_expression(expression(r));
            let b = if r.below(2) == 0 {
                b.condition_expression(expression(r))
            } else {
                b
            };
            let b = with_placeholders(
                r,
                b,
                |b, k, v| b.expression_attribute_names(k, v),
                |b, k, v| b.expression_attribute_values(k, v),
            );
            b.return_values(
                r.pick(&[ReturnValue::UpdatedNew, ReturnValue::AllOld])
                    .clone(),
            )
            .send()
            .map(|_| ())
            .map_err(engine::Error::from)
        }
        2 => {
            let b = c.delete_item().table_name("fuzz").set_key(Some(item(r)));
            let b = if r.below(2) == 0 {
                b.condition_expression(expression(r))
            } else {
                b
            };
            with_placeholders(
                r,
                b,
                |b, k, v| b.expression_attribute_names(k, v),
                |b, k, v| b.expression_attribute_values(k, v),
            )
            .send()
            .map(|_| ())
            .map_err(engine::Error::from)
        }
        3 => {
            let b = c
                .query()
                .table_name("fuzz")
                .key_condition_expression(expression(r));
            let b = if r.below(2) == 0 {
                b.filter_expression(expression(r))
            } else {
                b
            };
            let b = if r.below(2) == 0 {
                b.projection_expression(expression(r))
            } else {
                b
            };
            let b = if r.below(4) == 0 {
                b.index_name("GSI")
            } else {
                b
            };
            with_placeholders(
                r,
                b,
                |b, k, v| b.expression_attribute_names(k, v),
                |b, k, v| b.expression_attribute_values(k, v),
            )
            .limit(r.below(4) as i32)
            .send()
            .map(|_| ())
            .map_err(engine::Error::from)
        }
        4 => {
            let b = c.scan().table_name("fuzz").filter_expression(expression(r));
            with_placeholders(
                r,
                b,
                |b, k, v| b.expression_attribute_names(k, v),
                |b, k, v| b.expression_attribute_values(k, v),
            )
            .segment(r.below(3) as i32 - 1)
            .total_segments(r.below(3) as i32)
            .send()
            .map(|_| ())
            .map_err(engine::Error::from)
        }
        _ => {
            let put = Put::builder()
                .table_name("fuzz")
                .set_item(Some(item(r)))
                .condition_expression(expression(r))
                .build()
                .unwrap();
            let upd = Update::builder()
                .table_name("fuzz")
                .set_key(Some(item(r)))
                .update_expression(expression(r));
            let upd = with_placeholders(
                r,
                upd,
                |b, k, v| b.expression_attribute_names(k, v),
                |b, k, v| b.expression_attribute_values(k, v),
            )
            .build()
            .unwrap();
            c.transact_write_items()
                .transact_items(TransactWriteItem::builder().put(put).build())
                .transact_items(TransactWriteItem::builder().update(upd).build())
                .send()
                .map(|_| ())
                .map_err(engine::Error::from)
        }
    };
    result.is_err()
}

fn run(seed: u64, iterations: usize, check_every: usize) -> (usize, usize, usize) {
    let (world, c) = setup(seed);
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut failed = 0;
    let mut checked = 0;
    for i in 0..iterations {
        let check = check_every > 0 && i % check_every == 0;
        let before = check.then(|| snapshot(&c));
        let state = r.0;
        let outcome = catch_unwind(AssertUnwindSafe(|| one(&mut r, &c)));
        let Ok(was_error) = outcome else {
            panic!("seed {seed}, iteration {i} (rng state {state:#x}): the engine panicked");
        };
        if was_error {
            failed += 1;
            if let Some(before) = before {
                assert_eq!(
                    snapshot(&c),
                    before,
                    "seed {seed}, iteration {i}: a failed request changed the table"
                );
                checked += 1;
            }
        }
        if i % 500 == 499 {
            world.advance(std::time::Duration::from_secs(1));
        }
    }
    let items = snapshot(&c).0.len();
    (failed, checked, items)
}

#[test]
fn random_requests_never_panic_and_failures_change_nothing() {
    let (failed, checked, items) = run(11, 4_000, 4);
    assert!(
        failed > 1000,
        "the fuzzer must produce many rejected requests ({failed})"
    );
    assert!(
        failed < 3500,
        "half the requests are well-formed; most must succeed ({failed} failed)"
    );
    assert!(items > 10, "successful writes must leave items ({items})");
    assert!(
        checked > 200,
        "failures must be compared against a snapshot ({checked})"
    );
}

#[test]
#[ignore = "long: run in release with --ignored (FUZZ_ITERS, default 1,000,000)"]
fn a_million_random_requests() {
    let iters = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let (failed, checked, items) = run(0xF00D, iters, 1000);
    eprintln!(
        "{iters} requests, {failed} rejected, {checked} failures compared against a snapshot, {items} items at the end, no panic"
    );
}
