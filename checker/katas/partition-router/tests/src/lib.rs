//! Hidden tests of the `partition-router` kata.
//!
//! Every world test builds two worlds from the same seed and configuration — one with the
//! engine's router ("DynamoDB"), one with the learner's ("yours") — sends both the same
//! requests, and compares what is observable from outside: which partition each item is in
//! (`World::partition_of`), the partitions after each second (`World::partitions`: ids, hash
//! ranges, item counts, bytes), what GetItem and Query return. A failure names the first
//! difference, then its cause, found by asking the learner's router directly:
//!
//! - `hashes_the_partition_key`: 400 seeded keys (strings sharing long prefixes, numbers,
//!   binaries) land in the same partitions; the cause names a hash that ignores bytes, the
//!   type tag or the finalizer.
//! - `ignores_the_sort_key`: item collections of a table with a sort key; each lands in
//!   DynamoDB's partition, every item found by GetItem, every Query returns the whole
//!   collection in sort-key order.
//! - `routes_each_hash_to_its_range`: `route` on seeded range lists, at every boundary.
//! - `halves_meet_without_gap_or_overlap`: `split_for_size` / `split_for_heat` on seeded
//!   partitions: the halves cover the partition exactly, cut where DynamoDB cuts.
//! - `splits_a_full_partition_at_the_median_collection`: a table growing past a 6 KB size
//!   limit; the same partitions after every second; every item readable, Query in order.
//! - `splits_a_hot_partition_between_hot_keys`: skewed hot writes over a few keys (a 100 WCU
//!   partition ceiling, hot after 3 s); the same split.
//! - `keeps_a_single_hot_key_whole`: one hot key, then one giant collection: no split; one
//!   item of a second collection then gives a cut (the control: a router that never splits
//!   fails it).

mod scene;

use engine::seams::{Collection, EngineRouter, HashRange, KeyBytes, PartitionRouter};
use engine::{AttributeValue, Blob};
use katas_testkit::{fail, run, seeded, thousands, wrap, Rng};

use scene::{hex, layout_text, Scene};

katas_testkit::learner! {
    /// The learner's partition router.
    fn router() -> given::BoxedRouter;
}

/// The learner's router, every call into it under the guard: the engine's `EngineRouter`
/// refuses to answer while it runs, so a router that only wraps the engine's fails.
fn router() -> given::BoxedRouter {
    Box::new(engine::seams::Learners::new(learner::router))
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("hashes_the_partition_key", hashes_the_partition_key),
        seeded("ignores_the_sort_key", ignores_the_sort_key),
        seeded(
            "routes_each_hash_to_its_range",
            routes_each_hash_to_its_range,
        ),
        seeded(
            "halves_meet_without_gap_or_overlap",
            halves_meet_without_gap_or_overlap,
        ),
        seeded(
            "splits_a_full_partition_at_the_median_collection",
            splits_a_full_partition_at_the_median_collection,
        ),
        seeded(
            "splits_a_hot_partition_between_hot_keys",
            splits_a_hot_partition_between_hot_keys,
        ),
        seeded("keeps_a_single_hot_key_whole", keeps_a_single_hot_key_whole),
    ]);
}

/// A key value of one of the three key types, as a test writes it and as the router sees it.
#[derive(Clone, Debug)]
enum Key {
    S(String),
    /// (as sent, canonical text)
    N(String, String),
    B(Vec<u8>),
}

impl Key {
    fn attribute(&self) -> AttributeValue {
        match self {
            Key::S(s) => AttributeValue::S(s.clone()),
            Key::N(sent, _) => AttributeValue::N(sent.clone()),
            Key::B(b) => AttributeValue::B(Blob::new(b.clone())),
        }
    }
    fn bytes(&self) -> KeyBytes<'_> {
        match self {
            Key::S(s) => KeyBytes {
                tag: b'S',
                bytes: s.as_bytes(),
            },
            Key::N(_, canonical) => KeyBytes {
                tag: b'N',
                bytes: canonical.as_bytes(),
            },
            Key::B(b) => KeyBytes {
                tag: b'B',
                bytes: b,
            },
        }
    }
    fn text(&self) -> String {
        match self {
            Key::S(s) => format!("{s:?} (S)"),
            Key::N(sent, _) => format!("{sent} (N)"),
            Key::B(b) => format!(
                "0x{} (B)",
                b.iter().map(|x| format!("{x:02x}")).collect::<String>()
            ),
        }
    }
}

/// Seeded keys of each type that share long prefixes, as real keys do.
fn keys(rng: &mut Rng) -> Vec<(&'static str, Key)> {
    let mut out = Vec::new();
    for _ in 0..200 {
        let key = match rng.below(3) {
            0 => format!("customer#{:05}", rng.below(100_000)),
            1 => format!(
                "tenant-{:04}#user#{:06}",
                rng.below(20),
                rng.below(1_000_000)
            ),
            _ => format!(
                "ORDER#2026-{:02}-{:02}#{}",
                rng.below(12) + 1,
                rng.below(28) + 1,
                rng.below(1000)
            ),
        };
        out.push(("strings", Key::S(key)));
    }
    for _ in 0..120 {
        let whole = rng.below(100_000);
        let (sent, canonical) = match rng.below(3) {
            0 => (whole.to_string(), whole.to_string()),
            1 => {
                let cents = rng.below(100);
                let canonical = if cents == 0 {
                    whole.to_string()
                } else if cents % 10 == 0 {
                    format!("{whole}.{}", cents / 10)
                } else {
                    format!("{whole}.{cents:02}")
                };
                (format!("{whole}.{cents:02}"), canonical)
            }
            _ => (format!("-{}", whole + 1), format!("-{}", whole + 1)),
        };
        out.push(("numbers", Key::N(sent, canonical)));
    }
    for _ in 0..80 {
        let mut b = b"img/".to_vec();
        for _ in 0..(8 + rng.below(12)) {
            b.push(rng.below(256) as u8);
        }
        out.push(("binaries", Key::B(b)));
    }
    out
}

/// Items land in the partition DynamoDB's hash and routing put them in.
fn hashes_the_partition_key(seed: u64) {
    let mut rng = Rng::new(seed);
    let keys = keys(&mut rng);
    let scene = Scene::new(seed, scene::config(seed));
    for (table, t) in [("strings", "S"), ("numbers", "N"), ("binaries", "B")] {
        // 4,000 WCU: five partitions from the start.
        scene.create(table, t, None, 1, 4000);
    }
    for (table, key) in &keys {
        scene.put(table, &[("PK", key.attribute())]);
    }
    let yours = router();
    for (table, key) in &keys {
        let (theirs_p, mine_p) = (
            scene
                .dynamodb
                .partition_of(table, &key.attribute())
                .expect("partition"),
            scene
                .yours
                .partition_of(table, &key.attribute())
                .expect("partition"),
        );
        if theirs_p == mine_p {
            continue;
        }
        let expected = EngineRouter.hash(key.bytes(), None);
        let actual = yours.hash(key.bytes(), None);
        let cause = if expected == actual {
            "The hashes agree, so the routing differs: see routes_each_hash_to_its_range."
                .to_string()
        } else {
            hash_cause(&*yours, key)
        };
        fail(wrap(&format!(
            "Item {} of table {table}: DynamoDB keeps it in partition {theirs_p} ({}), yours put \
             it in partition {mine_p} ({}).\nDynamoDB's hash of the key is {}, yours {}. {cause}",
            key.text(),
            scene.range_text(&scene.dynamodb, table, theirs_p),
            scene.range_text(&scene.yours, table, mine_p),
            hex(expected),
            hex(actual),
        )));
    }
}

/// Why the learner's hash of `key` is not DynamoDB's, found by probing it.
fn hash_cause(yours: &dyn PartitionRouter, key: &Key) -> String {
    let kb = key.bytes();
    let mut changed = kb.bytes.to_vec();
    let last = changed.len() - 1;
    changed[last] ^= 0x01;
    let probe = KeyBytes {
        tag: kb.tag,
        bytes: &changed,
    };
    if yours.hash(kb, None) == yours.hash(probe, None) {
        let reads = (0..kb.bytes.len()).find(|&i| {
            let mut c = kb.bytes.to_vec();
            c[i] ^= 0x01;
            yours.hash(kb, None)
                != yours.hash(
                    KeyBytes {
                        tag: kb.tag,
                        bytes: &c,
                    },
                    None,
                )
        });
        return match reads {
            None => format!(
                "Your hash does not change whichever byte of the key changes: every key gets \
                 {}, so every item piles onto one partition. Hash the tag and every byte.",
                hex(yours.hash(kb, None))
            ),
            Some(_) => {
                let mut first = kb.bytes.len();
                while first > 1 {
                    let mut c = kb.bytes.to_vec();
                    c[first - 1] ^= 0x01;
                    if yours.hash(kb, None)
                        != yours.hash(
                            KeyBytes {
                                tag: kb.tag,
                                bytes: &c,
                            },
                            None,
                        )
                    {
                        break;
                    }
                    first -= 1;
                }
                format!(
                    "Your hash does not change when the key's last byte does: it reads only \
                     the first {first} of its {} bytes, so keys that share a prefix \
                     (customer#00017, customer#00042, …) share a hash and pile onto one \
                     partition. Hash every byte.",
                    kb.bytes.len()
                )
            }
        };
    }
    let fnv = |bytes: &mut dyn Iterator<Item = u8>| {
        bytes.fold(given::FNV_OFFSET, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(given::FNV_PRIME)
        })
    };
    let actual = yours.hash(kb, None);
    let untagged = given::splitmix_finalize(fnv(&mut kb.bytes.iter().copied()));
    if actual == untagged {
        return "Your hash leaves out the type tag byte: DynamoDB's starts with the tag (b'S', \
                b'N' or b'B'), then the key's bytes."
            .to_string();
    }
    let unfinished = fnv(&mut std::iter::once(kb.tag).chain(kb.bytes.iter().copied()));
    if actual == unfinished {
        return "Your hash stops after FNV-1a: DynamoDB's ends with splitmix_finalize, which \
                spreads nearby keys over the whole hash space."
            .to_string();
    }
    "Your hash differs from FNV-1a-64 over the tag byte and the key's bytes, followed by \
     splitmix_finalize."
        .to_string()
}

/// Item collections: every item found, every Query whole and in sort-key order.
fn ignores_the_sort_key(seed: u64) {
    let mut rng = Rng::new(seed);
    let scene = Scene::new(seed, scene::config(seed));
    scene.create("orders", "S", Some("S"), 3000, 4000);
    let mut collections: Vec<(String, Vec<String>)> = (0..30)
        .map(|c| {
            let n = 1 + rng.below(8);
            let mut sks: Vec<String> = (0..n)
                .map(|i| format!("order#{:03}", i * 7 + rng.below(7)))
                .collect();
            sks.dedup();
            (format!("customer#{:03}", c * 13 + rng.below(13)), sks)
        })
        .collect();
    // Written out of order: newest first, customers interleaved.
    let mut writes: Vec<(String, String)> = collections
        .iter()
        .flat_map(|(pk, sks)| sks.iter().rev().map(move |sk| (pk.clone(), sk.clone())))
        .collect();
    for i in (1..writes.len()).rev() {
        writes.swap(i, rng.below(i as u64 + 1) as usize);
    }
    for (pk, sk) in &writes {
        scene.put(
            "orders",
            &[
                ("PK", AttributeValue::S(pk.clone())),
                ("SK", AttributeValue::S(sk.clone())),
            ],
        );
    }
    let yours = router();
    collections.sort();
    for (pk, _) in &collections {
        let key = Key::S(pk.clone());
        let (theirs_p, mine_p) = (
            scene
                .dynamodb
                .partition_of("orders", &key.attribute())
                .expect("partition"),
            scene
                .yours
                .partition_of("orders", &key.attribute())
                .expect("partition"),
        );
        if theirs_p != mine_p {
            fail(wrap(&format!(
                "The item collection PK = {pk:?}: DynamoDB keeps it in partition {theirs_p} \
                 ({}), yours in partition {mine_p} ({}). {}",
                scene.range_text(&scene.dynamodb, "orders", theirs_p),
                scene.range_text(&scene.yours, "orders", mine_p),
                if EngineRouter.hash(key.bytes(), None) == yours.hash(key.bytes(), None) {
                    "The hashes agree: see routes_each_hash_to_its_range.".to_string()
                } else {
                    hash_cause(&*yours, &key)
                }
            )));
        }
    }
    for (pk, sks) in &collections {
        let got = scene.query(&scene.yours, "orders", pk);
        let theirs = scene.query(&scene.dynamodb, "orders", pk);
        if got == theirs {
            continue;
        }
        let sk = &sks[sks.len() - 1];
        let pkb = KeyBytes {
            tag: b'S',
            bytes: pk.as_bytes(),
        };
        let skb = KeyBytes {
            tag: b'S',
            bytes: sk.as_bytes(),
        };
        let (with, without) = (yours.hash(pkb, Some(skb)), yours.hash(pkb, None));
        let cause = if with != without {
            format!(
                "Your hash reads the sort key: hash(PK {pk:?}, SK {sk:?}) = {}, but hash(PK \
                 {pk:?}) with no sort key — what a Query asks — = {}. Each item of the \
                 collection went where its own hash led, and the Query looks in one partition \
                 only. DynamoDB hashes the partition key alone: that is what keeps an item \
                 collection together, in sort-key order.",
                hex(with),
                hex(without)
            )
        } else {
            "Your hash ignores the sort key, as it must: look at where the collection's items \
             were put (partition_of) and how route finds them."
                .to_string()
        };
        fail(wrap(&format!(
            "Query PK = {pk:?} (consistent): DynamoDB returns its {} items in sort-key order \
             [{}]; yours returned {} [{}].\n{cause}",
            theirs.len(),
            theirs.join(", "),
            got.len(),
            got.join(", "),
        )));
    }
    for (pk, sk) in &writes {
        if !scene.get(
            &scene.yours,
            "orders",
            pk,
            Some(AttributeValue::S(sk.clone())),
        ) {
            fail(wrap(&format!(
                "GetItem PK = {pk:?}, SK = {sk:?} (consistent) found nothing in your world; \
                 DynamoDB finds the item it stored."
            )));
        }
    }
}

/// `route` on seeded range lists: every boundary hash and hashes in between.
fn routes_each_hash_to_its_range(seed: u64) {
    let mut rng = Rng::new(seed);
    let yours = router();
    for round in 0..20 {
        let n = if round == 0 {
            1
        } else {
            1 + rng.below(64) as usize
        };
        let mut cuts: Vec<u64> = (1..n).map(|_| 1 + rng.below(u64::MAX - 1)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut ranges = Vec::new();
        let mut start = 0;
        for &cut in &cuts {
            ranges.push(HashRange::new(start, cut - 1));
            start = cut;
        }
        ranges.push(HashRange::new(start, u64::MAX));
        for (i, r) in ranges.iter().enumerate() {
            let middle = r.start + (r.end - r.start) / 2;
            for (hash, what) in [
                (r.start, "the first hash"),
                (r.end, "the last hash"),
                (middle, "a hash"),
            ] {
                let got = yours.route(hash, &ranges);
                if got != i {
                    let theirs = if got < ranges.len() {
                        format!(
                            "partition #{got} ({}–{})",
                            hex(ranges[got].start),
                            hex(ranges[got].end)
                        )
                    } else {
                        format!(
                            "index {got}, past the last of the {} partitions",
                            ranges.len()
                        )
                    };
                    fail(wrap(&format!(
                        "route({}, {} partitions): the hash is {what} of partition #{i} ({}–{}), \
                         which owns it; yours routed it to {theirs}. A request for a key with \
                         this hash would read and write the wrong partition.",
                        hex(hash),
                        ranges.len(),
                        hex(r.start),
                        hex(r.end),
                    )));
                }
            }
        }
    }
}

/// Split plans on seeded partitions: halves that cover the partition, cut where DynamoDB cuts.
fn halves_meet_without_gap_or_overlap(seed: u64) {
    let mut rng = Rng::new(seed);
    let yours = router();
    for _ in 0..30 {
        let start = rng.below(u64::MAX / 2);
        let end = start + 1_000 + rng.below(u64::MAX / 2);
        let partition = HashRange::new(start, end);
        let count = 2 + rng.below(12) as usize;
        let mut hashes: Vec<u64> = (0..count).map(|_| start + rng.below(end - start)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let collections: Vec<Collection> = hashes
            .iter()
            .map(|&hash| {
                let items = 1 + rng.below(9) as usize;
                Collection {
                    hash,
                    items,
                    bytes: items * (100 + rng.below(400) as usize),
                }
            })
            .collect();
        let expected = EngineRouter.split_for_size(partition, &collections);
        let got = yours.split_for_size(partition, &collections);
        judge_plan(
            "split_for_size",
            partition,
            expected,
            got,
            &format!(
            "the partition holds {} item collections; DynamoDB cuts before the median one (#{} \
             in hash order)",
            collections.len(),
            collections.len() / 2
        ),
        );
        let heat: Vec<(u64, f64)> = hashes
            .iter()
            .map(|&h| (h, (1 + rng.below(50)) as f64))
            .collect();
        let expected = EngineRouter.split_for_heat(partition, &heat);
        let got = yours.split_for_heat(partition, &heat);
        judge_plan(
            "split_for_heat",
            partition,
            expected,
            got,
            &format!(
                "{} hashes were hit, {} units in all; DynamoDB cuts at the weighted median of the \
             traffic",
                heat.len(),
                heat.iter().map(|h| h.1).sum::<f64>()
            ),
        );
    }
}

fn judge_plan(
    method: &str,
    partition: HashRange,
    expected: Option<[HashRange; 2]>,
    got: Option<[HashRange; 2]>,
    context: &str,
) {
    let range = |r: &HashRange| format!("{}–{}", hex(r.start), hex(r.end));
    let Some([left, right]) = got else {
        if expected.is_some() {
            fail(wrap(&format!(
                "{method}({}): yours returned None, no split; {context}.",
                range(&partition)
            )));
        }
        return;
    };
    let shape = if left.start != partition.start || right.end != partition.end {
        Some(format!(
            "the halves must start at the partition's first hash and end at its last ({} and {})",
            hex(partition.start),
            hex(partition.end)
        ))
    } else if right.start == left.end {
        Some(format!(
            "they overlap: the hash {} ends the left half and starts the right one — two \
             partitions would own the same keys",
            hex(left.end)
        ))
    } else if right.start < left.end {
        Some(format!(
            "they overlap: {} hashes from {} to {} belong to both halves — two partitions \
             would own the same keys",
            thousands(i128::from(left.end - right.start) + 1),
            hex(right.start),
            hex(left.end)
        ))
    } else if right.start == left.end + 2 {
        Some(format!(
            "there is a gap: the hash {} belongs to neither half — a key hashed there has no \
             partition",
            hex(left.end + 1)
        ))
    } else if right.start != left.end + 1 {
        Some(format!(
            "there is a gap: the hashes from {} to {} belong to neither half — a key hashed \
             there has no partition",
            hex(left.end + 1),
            hex(right.start - 1)
        ))
    } else {
        None
    };
    if let Some(shape) = shape {
        fail(wrap(&format!(
            "{method}({}) returned [{}, {}]: {shape}. The right half starts one past the \
             left's end.",
            range(&partition),
            range(&left),
            range(&right)
        )));
    }
    match expected {
        None => fail(wrap(&format!(
            "{method}({}): yours cut it at {}; DynamoDB does not split it ({context}).",
            range(&partition),
            hex(right.start)
        ))),
        Some([_, r]) if r.start != right.start => fail(wrap(&format!(
            "{method}({}): DynamoDB's right half starts at {}, yours at {}: {context}.",
            range(&partition),
            hex(r.start),
            hex(right.start)
        ))),
        Some(_) => {}
    }
}

/// A table growing past the size limit: the same partitions after every second.
fn splits_a_full_partition_at_the_median_collection(seed: u64) {
    let mut rng = Rng::new(seed);
    let scene = Scene::new(seed, scene::config(seed));
    scene.create("orders", "S", Some("N"), 300, 300);
    let customers: Vec<(String, u64)> = (0..36)
        .map(|c| {
            (
                format!("customer#{:03}", c * 11 + rng.below(11)),
                1 + rng.below(10),
            )
        })
        .collect();
    let mut writes = Vec::new();
    for (pk, n) in &customers {
        for order in 0..*n {
            writes.push((pk.clone(), order, 150 + rng.below(300) as usize));
        }
    }
    for i in (1..writes.len()).rev() {
        writes.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut before = scene.layouts("orders");
    for (second, batch) in writes.chunks(12).enumerate() {
        for (pk, order, pad) in batch {
            scene.put(
                "orders",
                &[
                    ("PK", AttributeValue::S(pk.clone())),
                    ("SK", AttributeValue::N(order.to_string())),
                    ("pad", AttributeValue::S("x".repeat(*pad))),
                ],
            );
        }
        scene.advance_second();
        let now = scene.layouts("orders");
        if now.0 != now.1 {
            fail(scene.layout_failure(
                "orders",
                second as u64 + 1,
                &before,
                &now,
                &customers,
                "size",
            ));
        }
        before = now;
    }
    if scene
        .dynamodb
        .partition_splits("orders")
        .expect("splits")
        .is_empty()
    {
        fail("the test's table did not split in DynamoDB's world: the test itself is wrong");
    }
    for (pk, order, _) in &writes {
        if !scene.get(
            &scene.yours,
            "orders",
            pk,
            Some(AttributeValue::N(order.to_string())),
        ) {
            let hash = EngineRouter.hash(
                KeyBytes {
                    tag: b'S',
                    bytes: pk.as_bytes(),
                },
                None,
            );
            fail(wrap(&format!(
                "After the splits, GetItem PK = {pk:?}, SK = {order} (consistent) finds nothing \
                 in your world; DynamoDB finds it. The key's hash is {}; the partitions are \
                 the same as DynamoDB's:\n{}\n{}",
                hex(hash),
                layout_text(&scene.layouts("orders").1),
                scene.route_cause("orders", hash),
            )));
        }
    }
    for (pk, n) in &customers {
        let got = scene.query(&scene.yours, "orders", pk);
        let expected: Vec<String> = (0..*n).map(|i| i.to_string()).collect();
        if got != expected {
            let hash = EngineRouter.hash(
                KeyBytes {
                    tag: b'S',
                    bytes: pk.as_bytes(),
                },
                None,
            );
            fail(wrap(&format!(
                "After the splits, Query PK = {pk:?} returns [{}] in your world; DynamoDB \
                 returns [{}], in sort-key order. {}",
                got.join(", "),
                expected.join(", "),
                scene.route_cause("orders", hash),
            )));
        }
    }
}

/// Skewed hot writes over a few keys: the same split for heat.
fn splits_a_hot_partition_between_hot_keys(seed: u64) {
    let mut rng = Rng::new(seed);
    let scene = Scene::new(seed, scene::hot_config(seed));
    scene.create("counters", "S", None, 1, 95);
    let count = 3 + rng.below(4);
    // Key i draws a share of the traffic that grows fast with i: the weighted median is
    // rarely the middle key.
    let keys: Vec<(String, u64)> = (0..count)
        .map(|i| (format!("counter#{}", rng.below(1000)), 1 << (2 * i)))
        .collect();
    let total: u64 = keys.iter().map(|k| k.1).sum();
    let mut before = scene.layouts("counters");
    for second in 0..6 {
        let mut sent = 0;
        for (key, weight) in &keys {
            let n = (88 * weight).div_ceil(total).max(1);
            for _ in 0..n {
                scene.add("counters", key);
                sent += 1;
            }
        }
        let _ = sent;
        scene.advance_second();
        let now = scene.layouts("counters");
        if now.0 != now.1 {
            let names: Vec<(String, u64)> = keys.iter().map(|(k, w)| (k.clone(), *w)).collect();
            fail(scene.layout_failure("counters", second + 1, &before, &now, &names, "heat"));
        }
        before = now;
    }
    if scene
        .dynamodb
        .partition_splits("counters")
        .expect("splits")
        .is_empty()
    {
        fail("the test's hot table did not split in DynamoDB's world: the test itself is wrong");
    }
}

/// One hot key, then one giant item collection: DynamoDB never splits either.
fn keeps_a_single_hot_key_whole(seed: u64) {
    let mut rng = Rng::new(seed);
    let scene = Scene::new(seed, scene::hot_config(seed));
    scene.create("counters", "S", Some("N"), 1, 95);
    let key = format!("GLOBAL#{}", rng.below(1000));
    let mut before = scene.layouts("counters");
    for second in 0..6 {
        for i in 0..88 {
            scene.put(
                "counters",
                &[
                    ("PK", AttributeValue::S(key.clone())),
                    ("SK", AttributeValue::N((i % 20).to_string())),
                ],
            );
        }
        scene.advance_second();
        let now = scene.layouts("counters");
        if now.0 != now.1 {
            fail(scene.layout_failure(
                "counters",
                second + 1,
                &before,
                &now,
                &[(key.clone(), 1)],
                "heat",
            ));
        }
        before = now;
    }
    // One collection past the size limit.
    let scene = Scene::new(seed, scene::config(seed));
    scene.create("orders", "S", Some("N"), 300, 300);
    let pk = format!("customer#{:03}", rng.below(1000));
    let mut before = scene.layouts("orders");
    for second in 0..4 {
        for i in 0..10 {
            scene.put(
                "orders",
                &[
                    ("PK", AttributeValue::S(pk.clone())),
                    ("SK", AttributeValue::N((second * 10 + i).to_string())),
                    ("pad", AttributeValue::S("x".repeat(300))),
                ],
            );
        }
        scene.advance_second();
        let now = scene.layouts("orders");
        if now.0 != now.1 {
            fail(scene.layout_failure(
                "orders",
                second + 1,
                &before,
                &now,
                &[(pk.clone(), 1)],
                "size",
            ));
        }
        before = now;
    }
    // The control: one item of a second collection gives DynamoDB a place to cut.
    let other = format!("customer#{:03}", 1000 + rng.below(1000));
    scene.put(
        "orders",
        &[
            ("PK", AttributeValue::S(other.clone())),
            ("SK", AttributeValue::N("0".into())),
        ],
    );
    scene.advance_second();
    let now = scene.layouts("orders");
    if now.0 != now.1 {
        let keys = [(pk, 1), (other, 1)];
        fail(scene.layout_failure("orders", 5, &before, &now, &keys, "size"));
    }
    if scene
        .dynamodb
        .partition_splits("orders")
        .expect("splits")
        .is_empty()
    {
        fail("two collections past the size limit did not split in DynamoDB's world: the test is wrong");
    }
}
