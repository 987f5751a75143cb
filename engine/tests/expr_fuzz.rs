//! Randomized robustness test for the expression parsers and evaluators.
//!
//! Property: no input makes `parse_request`, `Condition::evaluate`, `UpdateExpr::apply`,
//! `Projection::apply` or `KeyConditionExpr::resolve` panic, every refusal is a
//! `ValidationException`, and evaluation is deterministic (`NOT (c)` is the negation of `c`).
//!
//! Inputs come from a seeded SplitMix64 generator (no dependency): token soup, expressions
//! generated from the grammars and then mutated (characters and tokens inserted, deleted,
//! swapped), random placeholder maps (including invalid values and reserved-word targets) and
//! random nested items. A failure prints the seed, the iteration and the input.
//!
//! `cargo test` runs 20,000 iterations; the ignored test runs `FUZZ_ITERS` (default
//! 1,000,000): `cargo test --release -p dynamodb-katas-engine --test expr_fuzz -- --ignored`.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use engine::expr::{parse_request, ExpressionInput, ScalarType};
use engine::{AttributeValue, Blob, Item};

/// SplitMix64: tiny, fast, good enough to drive a fuzzer.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

const NAMES: [&str; 12] = [
    "a", "b", "c", "l", "m", "x", "pk", "sk", "#n0", "#n1", "#n2", "#n3",
];
const VALUES: [&str; 4] = [":v0", ":v1", ":v2", ":v3"];
const COMPARATORS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];
const SOUP: [&str; 44] = [
    "a",
    "b",
    "l",
    "m",
    "name",
    "Status",
    "size",
    "AND",
    "and",
    "Or",
    "NOT",
    "BETWEEN",
    "IN",
    "SET",
    "REMOVE",
    "add",
    "DELETE",
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "if_not_exists",
    "list_append",
    "foo",
    "(",
    ")",
    "[",
    "]",
    ".",
    ",",
    "=",
    "<>",
    "<",
    ">=",
    "+",
    "-",
    "#n0",
    ":v1",
    "#",
    ":",
    "7",
    "99999999999",
    "¿",
];

fn gen_path(r: &mut Rng, depth: usize) -> String {
    let mut s = r.pick(&NAMES).to_string();
    for _ in 0..r.below(depth + 1) {
        if r.chance(50) {
            s.push('.');
            s.push_str(r.pick(&NAMES));
        } else {
            s.push_str(&format!("[{}]", r.below(4)));
        }
    }
    s
}

fn gen_operand(r: &mut Rng) -> String {
    match r.below(5) {
        0 | 1 => gen_path(r, 2),
        2 | 3 => r.pick(&VALUES).to_string(),
        _ => format!("size({})", gen_path(r, 1)),
    }
}

fn gen_condition(r: &mut Rng, depth: usize) -> String {
    let leaf = depth == 0 || r.chance(40);
    if leaf {
        return match r.below(8) {
            0 | 1 => format!(
                "{} {} {}",
                gen_operand(r),
                r.pick(&COMPARATORS),
                gen_operand(r)
            ),
            2 => format!(
                "{} BETWEEN {} AND {}",
                gen_operand(r),
                gen_operand(r),
                gen_operand(r)
            ),
            3 => {
                let list: Vec<String> = (0..1 + r.below(4)).map(|_| gen_operand(r)).collect();
                format!("{} IN ({})", gen_operand(r), list.join(", "))
            }
            4 => format!("attribute_exists({})", gen_path(r, 2)),
            5 => format!("attribute_not_exists({})", gen_path(r, 2)),
            6 => format!("attribute_type({}, {})", gen_path(r, 1), r.pick(&VALUES)),
            _ => {
                let f = if r.chance(50) {
                    "begins_with"
                } else {
                    "contains"
                };
                format!("{f}({}, {})", gen_path(r, 2), gen_operand(r))
            }
        };
    }
    match r.below(4) {
        0 => format!(
            "{} AND {}",
            gen_condition(r, depth - 1),
            gen_condition(r, depth - 1)
        ),
        1 => format!(
            "{} OR {}",
            gen_condition(r, depth - 1),
            gen_condition(r, depth - 1)
        ),
        2 => format!("NOT {}", gen_condition(r, depth - 1)),
        _ => format!("({})", gen_condition(r, depth - 1)),
    }
}

fn gen_update_operand(r: &mut Rng) -> String {
    match r.below(6) {
        0 | 1 => gen_path(r, 2),
        2 | 3 => r.pick(&VALUES).to_string(),
        4 => format!("if_not_exists({}, {})", gen_path(r, 1), r.pick(&VALUES)),
        _ => format!(
            "list_append({}, {})",
            gen_update_operand(r),
            r.pick(&VALUES)
        ),
    }
}

fn gen_update(r: &mut Rng) -> String {
    let mut clauses = Vec::new();
    for clause in ["SET", "REMOVE", "ADD", "DELETE"] {
        if !r.chance(45) {
            continue;
        }
        let actions: Vec<String> = (0..1 + r.below(3))
            .map(|_| match clause {
                "SET" => {
                    let value = match r.below(3) {
                        0 => gen_update_operand(r),
                        1 => format!("{} + {}", gen_update_operand(r), gen_update_operand(r)),
                        _ => format!("{} - {}", gen_update_operand(r), gen_update_operand(r)),
                    };
                    format!("{} = {value}", gen_path(r, 2))
                }
                "REMOVE" => gen_path(r, 2),
                _ => format!("{} {}", gen_path(r, 1), r.pick(&VALUES)),
            })
            .collect();
        clauses.push(format!("{clause} {}", actions.join(", ")));
    }
    if clauses.is_empty() {
        clauses.push(format!("SET {} = {}", gen_path(r, 1), r.pick(&VALUES)));
    }
    clauses.join(" ")
}

fn gen_projection(r: &mut Rng) -> String {
    (0..1 + r.below(4))
        .map(|_| gen_path(r, 3))
        .collect::<Vec<_>>()
        .join(", ")
}

fn gen_key_condition(r: &mut Rng) -> String {
    if r.chance(20) {
        return gen_condition(r, 2);
    }
    let pk = format!("pk = {}", r.pick(&VALUES));
    let sk = match r.below(4) {
        0 => return pk,
        1 => format!("sk {} {}", r.pick(&COMPARATORS), r.pick(&VALUES)),
        2 => format!("sk BETWEEN {} AND {}", r.pick(&VALUES), r.pick(&VALUES)),
        _ => format!("begins_with(sk, {})", r.pick(&VALUES)),
    };
    if r.chance(50) {
        format!("{pk} AND {sk}")
    } else {
        format!("{sk} AND {pk}")
    }
}

fn token_soup(r: &mut Rng) -> String {
    (0..r.below(12))
        .map(|_| r.pick(&SOUP))
        .collect::<Vec<_>>()
        .join(if r.chance(50) { " " } else { "" })
}

/// Insert, delete, swap or duplicate characters and tokens.
fn mutate(r: &mut Rng, s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..1 + r.below(3) {
        let at = r.below(chars.len() + 1);
        match r.below(5) {
            0 => chars.insert(
                at,
                r.pick(&[
                    '(', ')', '.', '[', ']', ',', ':', '#', ' ', '1', 'a', '=', '<', '-', 'é',
                ]),
            ),
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 if at + 1 < chars.len() => chars.swap(at, at + 1),
            3 => {
                let tok: Vec<char> = format!(" {} ", r.pick(&SOUP)).chars().collect();
                chars.splice(at..at, tok);
            }
            _ if at < chars.len() => {
                let end = (at + r.below(8)).min(chars.len());
                let piece: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, piece);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn gen_expression(r: &mut Rng, grammar: impl FnOnce(&mut Rng) -> String) -> String {
    match r.below(10) {
        0 => token_soup(r),
        1..=4 => {
            let s = grammar(r);
            mutate(r, &s)
        }
        _ => grammar(r),
    }
}

fn gen_number(r: &mut Rng) -> String {
    if r.chance(3) {
        return r.pick(&["abc", "1e200", "", "1.2.3"]).to_string();
    }
    r.pick(&[
        "0",
        "1",
        "-2.5",
        "1e3",
        "0.001",
        "12345678901234567890",
        "9.9999999999999999999999999999999999999E+125",
        "-1E-130",
    ])
    .to_string()
}

fn gen_value(r: &mut Rng, depth: usize) -> AttributeValue {
    let strings = ["", "a", "ab", "b", "zz", "é"];
    match r.below(if depth == 0 { 8 } else { 10 }) {
        0 => AttributeValue::S(r.pick(&strings).to_string()),
        1 => AttributeValue::N(gen_number(r)),
        2 => AttributeValue::B(Blob::new(vec![r.below(3) as u8; r.below(3)])),
        3 => AttributeValue::Bool(r.chance(50)),
        4 => AttributeValue::Null(r.chance(95)),
        5 => AttributeValue::Ss(
            (0..r.below(3))
                .map(|_| r.pick(&strings).to_string())
                .collect(),
        ),
        6 => AttributeValue::Ns((0..r.below(3)).map(|_| gen_number(r)).collect()),
        7 => AttributeValue::Bs((0..r.below(3)).map(|i| Blob::new(vec![i as u8])).collect()),
        8 => AttributeValue::L((0..r.below(4)).map(|_| gen_value(r, depth - 1)).collect()),
        _ => AttributeValue::M(
            (0..r.below(4))
                .map(|_| {
                    (
                        r.pick(&["a", "b", "c", "l", "m", "x"]).to_string(),
                        gen_value(r, depth - 1),
                    )
                })
                .collect(),
        ),
    }
}

fn gen_item(r: &mut Rng) -> Item {
    let mut item = Item::new();
    for name in ["a", "b", "c", "l", "m", "x", "pk", "sk", "name", "a.b"] {
        if r.chance(60) {
            item.insert(name.to_string(), gen_value(r, 3));
        }
    }
    item
}

/// The `#…` or `:…` placeholders that appear in `texts`.
fn used(texts: &[&str], sigil: char) -> Vec<String> {
    let mut out = Vec::new();
    for t in texts {
        let mut rest = *t;
        while let Some(at) = rest.find(sigil) {
            let tail = &rest[at + 1..];
            let len = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            if len > 0 {
                let key = format!("{sigil}{}", &tail[..len]);
                if !out.contains(&key) {
                    out.push(key);
                }
            }
            rest = tail;
        }
    }
    out
}

/// One input: the expressions and maps of a request.
#[derive(Debug, Default)]
struct Case {
    condition: Option<String>,
    filter: Option<String>,
    key_condition: Option<String>,
    update: Option<String>,
    projection: Option<String>,
    names: Option<HashMap<String, String>>,
    values: Option<HashMap<String, AttributeValue>>,
    item: Item,
}

fn gen_case(r: &mut Rng) -> Case {
    let mut case = Case::default();
    if r.chance(50) {
        case.condition = Some(gen_expression(r, |r| gen_condition(r, 3)));
    }
    if r.chance(25) {
        case.filter = Some(gen_expression(r, |r| gen_condition(r, 2)));
    }
    if r.chance(25) {
        case.key_condition = Some(gen_expression(r, gen_key_condition));
    }
    if r.chance(40) {
        case.update = Some(gen_expression(r, gen_update));
    }
    if r.chance(25) {
        case.projection = Some(gen_expression(r, gen_projection));
    }
    let texts: Vec<&str> = [
        &case.condition,
        &case.filter,
        &case.key_condition,
        &case.update,
        &case.projection,
    ]
    .into_iter()
    .filter_map(|t| t.as_deref())
    .collect();
    let targets = ["a", "b", "m", "l", "name", "x.y", "", "sk", "pk"];
    if r.chance(85) {
        // Usually exactly the placeholders the expressions use, so that many requests pass
        // the bookkeeping and reach evaluation.
        let names: HashMap<String, String> = used(&texts, '#')
            .into_iter()
            .map(|k| (k, r.pick(&targets).to_string()))
            .collect();
        let values: HashMap<String, AttributeValue> = used(&texts, ':')
            .into_iter()
            .map(|k| (k, gen_value(r, 2)))
            .collect();
        case.names = (!names.is_empty()).then_some(names);
        case.values = (!values.is_empty()).then_some(values);
    } else {
        if r.chance(80) {
            case.names = Some(
                (0..r.below(5))
                    .map(|i| {
                        (
                            if r.chance(97) {
                                format!("#n{i}")
                            } else {
                                "bad".into()
                            },
                            r.pick(&targets).to_string(),
                        )
                    })
                    .collect(),
            );
        }
        if r.chance(85) {
            case.values = Some(
                (0..r.below(5))
                    .map(|i| (format!(":v{i}"), gen_value(r, 2)))
                    .collect(),
            );
        }
    }
    case.item = gen_item(r);
    case
}

fn run_case(case: &Case) {
    let input = ExpressionInput {
        condition: case.condition.as_deref(),
        filter: case.filter.as_deref(),
        key_condition: case.key_condition.as_deref(),
        update: case.update.as_deref(),
        projection: case.projection.as_deref(),
        names: case.names.as_ref(),
        values: case.values.as_ref(),
        ..Default::default()
    };
    let parsed = match parse_request(&input) {
        Ok(p) => p,
        Err(e) => {
            assert_eq!(e.name(), "ValidationException", "{e}");
            assert!(!e.message().is_empty());
            return;
        }
    };
    let item = &case.item;
    for c in [&parsed.condition, &parsed.filter].into_iter().flatten() {
        let on_item = c.evaluate(Some(item));
        assert_eq!(
            on_item,
            c.evaluate(Some(item)),
            "evaluation is deterministic"
        );
        c.evaluate(None);
        c.top_level_names();
        // NOT (c) must be the negation of c, whenever wrapping it is itself legal.
        let src = case
            .condition
            .as_deref()
            .filter(|_| std::ptr::eq(c, parsed.condition.as_ref().unwrap_or(c)));
        if let Some(src) = src {
            let wrapped = format!("NOT ({src})");
            let input = ExpressionInput {
                condition: Some(&wrapped),
                names: case.names.as_ref(),
                values: case.values.as_ref(),
                ..Default::default()
            };
            if let Ok(Some(neg)) = parse_request(&input).map(|p| p.condition) {
                assert_eq!(neg.evaluate(Some(item)), !on_item, "NOT ({src})");
            }
        }
    }
    if let Some(u) = &parsed.update {
        match u.apply(item) {
            Ok(new) => {
                u.project_updated(&new);
            }
            Err(e) => assert_eq!(e.name(), "ValidationException", "{e}"),
        }
        u.apply(&Item::new()).ok();
        u.top_level_targets();
        u.project_updated(item);
    }
    if let Some(p) = &parsed.projection {
        p.apply(item);
        p.top_level_names();
    }
    if let Some(k) = &parsed.key_condition {
        for (pk, sk) in [
            (ScalarType::S, Some(("sk", ScalarType::N))),
            (ScalarType::N, None),
            (ScalarType::B, Some(("sk", ScalarType::S))),
        ] {
            if let Ok(resolved) = k.resolve("pk", pk, sk) {
                if let (Some(sort), Some(v)) = (&resolved.sort, item.get("sk")) {
                    sort.matches(v);
                }
            }
        }
    }
}

fn fuzz(seed: u64, iterations: u64) -> (u64, u64) {
    let mut accepted = 0;
    for i in 0..iterations {
        let mut r = Rng(seed ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let case = gen_case(&mut r);
        let outcome = catch_unwind(AssertUnwindSafe(|| run_case(&case)));
        if outcome.is_err() {
            panic!("fuzz failure: seed {seed:#x}, iteration {i}\n{case:#?}");
        }
        let input = ExpressionInput {
            condition: case.condition.as_deref(),
            filter: case.filter.as_deref(),
            key_condition: case.key_condition.as_deref(),
            update: case.update.as_deref(),
            projection: case.projection.as_deref(),
            names: case.names.as_ref(),
            values: case.values.as_ref(),
            ..Default::default()
        };
        if i % 16 == 0 && parse_request(&input).is_ok() {
            accepted += 1;
        }
    }
    (iterations, accepted * 16)
}

#[test]
fn no_input_panics() {
    let (n, accepted) = fuzz(0x5EED_0001, 20_000);
    eprintln!("expr fuzz: {n} cases, about {accepted} accepted by the parser");
    assert!(
        accepted > n / 50,
        "the generator should produce some valid requests too"
    );
}

#[test]
#[ignore = "long: run with --release -- --ignored (FUZZ_ITERS to override 1,000,000)"]
fn no_input_panics_long() {
    let iterations = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0xC0FF_EE00);
    let (n, accepted) = fuzz(seed, iterations);
    eprintln!("expr fuzz: {n} cases (seed {seed:#x}), about {accepted} accepted by the parser");
}
