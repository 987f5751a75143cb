//! Property sweeps with a seeded generator: random and mutated text never panics the number
//! parser or the JSON reader, and canonical forms are stable. A failure prints its seed.

use std::cmp::Ordering;

use engine::value::{canonicalize_item, item_from_json, item_to_json};
use engine::Number;
use serde_json::{json, Value};

/// xorshift64*: tiny, seeded, good enough to drive a fuzzer.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const SEEDS: [&str; 12] = [
    "0",
    "-0",
    "1",
    "+01.50",
    "1e3",
    ".5",
    "5.",
    "9.9999999999999999999999999999999999999E+125",
    "1E-130",
    "12345678901234567890123456789012345678",
    "-0.000000000000000000000123",
    "1e-5",
];

fn random_number_text(rng: &mut Rng) -> String {
    let alphabet = b"0123456789.eE+- x0";
    match rng.below(3) {
        // Pure noise over the number alphabet.
        0 => (0..rng.below(50))
            .map(|_| char::from(*rng.pick(alphabet)))
            .collect(),
        // A well-formed number with random parts.
        1 => {
            let digits = |rng: &mut Rng, n: usize| -> String {
                (0..n)
                    .map(|_| char::from(b'0' + rng.below(10) as u8))
                    .collect()
            };
            let mut s = String::new();
            if rng.below(3) == 0 {
                s.push(*rng.pick(&['-', '+']));
            }
            let len = rng.below(25);
            s += &digits(rng, len);
            if rng.below(2) == 0 {
                s.push('.');
                let len = rng.below(25);
                s += &digits(rng, len);
            }
            if rng.below(2) == 0 {
                s.push(*rng.pick(&['e', 'E']));
                if rng.below(2) == 0 {
                    s.push(*rng.pick(&['-', '+']));
                }
                s += &(rng.below(300)).to_string();
            }
            s
        }
        // A mutated seed: insert, delete or replace a byte.
        _ => {
            let mut b = rng.pick(&SEEDS).as_bytes().to_vec();
            for _ in 0..=rng.below(3) {
                let at = rng.below(b.len() + 1);
                match rng.below(3) {
                    0 => b.insert(at, *rng.pick(alphabet)),
                    1 if at < b.len() => {
                        b.remove(at);
                    }
                    _ if at < b.len() => b[at] = *rng.pick(alphabet),
                    _ => {}
                }
            }
            String::from_utf8_lossy(&b).into_owned()
        }
    }
}

#[test]
fn number_parsing_never_panics_and_canonical_form_is_stable() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut parsed = Vec::new();
    let mut accepted = 0;
    for i in 0..150_000 {
        let text = random_number_text(&mut rng);
        let Ok(n) = Number::parse(&text) else {
            continue;
        };
        accepted += 1;
        let canonical = n.to_string();
        let again = Number::parse(&canonical)
            .unwrap_or_else(|e| panic!("case {i}: {text:?} → {canonical:?} does not reparse: {e}"));
        assert_eq!(again, n, "case {i}: {text:?}");
        assert_eq!(again.to_string(), canonical, "case {i}: {text:?}");
        assert!(
            n.size() >= 1 && n.size() <= 22,
            "case {i}: size of {text:?}"
        );
        if parsed.len() < 2000 {
            parsed.push(n);
        }
    }
    assert!(
        accepted > 20_000,
        "the generator should produce many valid numbers, got {accepted}"
    );

    // Arithmetic agrees with ordering, and is exact when it succeeds.
    let mut exact = 0;
    for _ in 0..100_000 {
        let a = *rng.pick(&parsed);
        let b = *rng.pick(&parsed);
        let sum = a.checked_add(&b);
        match (&sum, b.checked_add(&a)) {
            (Ok(x), Ok(y)) => assert_eq!(*x, y, "{a} + {b} commutes"),
            (Err(x), Err(y)) => assert_eq!(x, &y),
            _ => panic!("{a} + {b}: commutativity of failure"),
        }
        if let Ok(d) = a.checked_sub(&b) {
            exact += 1;
            let sign = if d.is_zero() {
                Ordering::Equal
            } else if d.is_negative() {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            assert_eq!(a.cmp(&b), sign, "{a} vs {b}");
            assert_eq!(d.checked_add(&b).ok(), Some(a), "({a} - {b}) + {b}");
        }
    }
    assert!(
        exact > 10_000,
        "most differences should be representable, got {exact}"
    );
}

fn random_json(rng: &mut Rng, depth: usize) -> Value {
    let tags = [
        "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS", "X",
    ];
    let scalar = |rng: &mut Rng| -> Value {
        match rng.below(6) {
            0 => json!(null),
            1 => json!(rng.below(2) == 0),
            2 => json!(rng.below(1000)),
            3 => json!(random_number_text(rng)),
            4 => json!(*rng.pick(&["", "AQ==", "abc", "aGk=", "A=B=", "x"])),
            _ => json!([]),
        }
    };
    if depth > 4 || rng.below(3) == 0 {
        return scalar(rng);
    }
    match rng.below(4) {
        0 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_json(rng, depth + 1))
                .collect(),
        ),
        1 => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(3) {
                m.insert(rng.pick(&tags).to_string(), random_json(rng, depth + 1));
            }
            Value::Object(m)
        }
        _ => {
            // Mostly well-shaped values so the reader gets past the first check.
            let tag = *rng.pick(&tags);
            let payload = match tag {
                "M" => {
                    let mut m = serde_json::Map::new();
                    for k in 0..rng.below(3) {
                        m.insert(format!("k{k}"), random_json(rng, depth + 1));
                    }
                    Value::Object(m)
                }
                "L" => Value::Array(
                    (0..rng.below(3))
                        .map(|_| random_json(rng, depth + 1))
                        .collect(),
                ),
                "SS" | "NS" | "BS" => {
                    Value::Array((0..rng.below(3)).map(|_| scalar(rng)).collect())
                }
                _ => scalar(rng),
            };
            json!({ tag: payload })
        }
    }
}

#[test]
fn the_json_reader_never_panics_and_round_trips_what_it_accepts() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut accepted = 0;
    for i in 0..100_000 {
        let mut item = serde_json::Map::new();
        for k in 0..rng.below(4) {
            item.insert(format!("a{k}"), random_json(&mut rng, 0));
        }
        let j = Value::Object(item);
        let Ok(it) = item_from_json(&j) else { continue };
        accepted += 1;
        assert_eq!(
            item_from_json(&item_to_json(&it)).as_ref(),
            Ok(&it),
            "case {i}: {j}"
        );
        if let Ok(canonical) = canonicalize_item(it) {
            assert_eq!(
                canonicalize_item(canonical.clone()).as_ref(),
                Ok(&canonical),
                "case {i}: idempotent"
            );
        }
    }
    assert!(accepted > 10_000, "got {accepted}");
}
