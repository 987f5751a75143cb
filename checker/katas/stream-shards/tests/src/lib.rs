//! Hidden tests of the `stream-shards` kata.
//!
//! Every test runs one workload twice, in two worlds built from the same seed and settings:
//! one with the engine's stream-shards piece, one with the learner's
//! (`Pieces::with_stream_shards`). The workload writes the table `orders` (`PK`, `SK`, a
//! `NEW_AND_OLD_IMAGES` stream, partitions that split at 600 bytes) and moves the clock.
//! At each checkpoint the tests read both streams through the wire calls (DescribeStream,
//! GetShardIterator, GetRecords) and compare what a reader sees:
//!
//! - the shards, named by the partition they carry (the inspection API says which), their
//!   parent, whether they are open;
//! - each shard's records in order (their content: event, keys, images — sequence numbers
//!   are the piece's own, so they are checked by their rules instead: increasing within a
//!   shard, a child's above its parent's, inside the shard's range);
//! - what each iterator type returns: TRIM_HORIZON, LATEST, AT_ and AFTER_SEQUENCE_NUMBER of
//!   every record kept, and AT the oldest record ever written to the shard once it is
//!   trimmed (`TrimmedDataAccessException`).
//!
//! The first difference fails the test, told in DynamoDB terms.
//!
//! - `the_lessons_order_is_one_shard_in_order`: the lesson's order, placed, shipped, deleted.
//! - `a_split_closes_the_parent_and_opens_two_children`: orders written until partitions
//!   split, and after.
//! - `each_iterator_type_starts_where_dynamodb_starts`: every iterator type on every shard,
//!   LATEST taken before more writes and read after them.
//! - `records_are_kept_for_24_hours_and_no_longer`: records exactly 24 hours old, a
//!   millisecond older, a shard emptied by retention, writes after it.
//! - `seeded_workloads_match_dynamodb`: random puts, updates and deletes, splits, clock moves
//!   of up to 13 hours.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use engine::seams::Pieces;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Record, ScalarAttributeType,
    ShardIteratorType, StreamSpecification, StreamViewType,
};
use engine::{item, AttributeValue, Client, World, WorldConfig};
use given::{StreamShards, TABLE};
use katas_testkit::{check, fail, run, seeded, wrap, Rng};

katas_testkit::learner! {
    /// The learner's stream-shards piece.
    fn stream_shards() -> Box<dyn StreamShards>;
}

/// Runs the hidden tests against the learner's piece (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("the_lessons_order_is_one_shard_in_order", the_lessons_order),
        seeded("a_split_closes_the_parent_and_opens_two_children", a_split),
        seeded("each_iterator_type_starts_where_dynamodb_starts", iterators),
        seeded("records_are_kept_for_24_hours_and_no_longer", retention),
        seeded("seeded_workloads_match_dynamodb", seeded_workloads),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

fn the_lessons_order(seed: u64) {
    let s = Scene::new(seed);
    s.put("ORDER#o-9", "PLACED");
    s.put("ORDER#o-9", "SHIPPED");
    s.delete("ORDER#o-9");
    s.compare("the lesson's order: placed, shipped, deleted");
    let yours = observe(&s.yours);
    let busy: Vec<&ShardSeen> = yours.values().filter(|sh| !sh.records.is_empty()).collect();
    check(
        busy.len() == 1 && busy[0].records.len() == 3,
        "The order's three changes must sit in one shard, in order (INSERT, MODIFY, REMOVE).",
    );
}

fn a_split(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed);
    for i in 0..60 {
        let key = format!("ORDER#o-{}", rng.below(30));
        s.put(&key, &format!("v{i}"));
        if i % 10 == 9 {
            s.advance_ms(1_000);
            s.compare(&format!("after {} writes", i + 1));
        }
    }
    check(
        !s.engine.partition_splits(TABLE).unwrap().is_empty(),
        "(test setup) the workload must split a partition",
    );
    s.compare("after the splits, 60 writes");
}

fn iterators(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed);
    for i in 0..24 {
        s.put(&format!("ORDER#o-{}", rng.below(6)), &format!("v{i}"));
    }
    s.advance_ms(1_000);
    s.compare("24 orders written");
    let latest_engine = latest_iterators(&s.engine);
    let latest_yours = latest_iterators(&s.yours);
    for i in 0..6 {
        s.put(&format!("ORDER#o-{}", rng.below(6)), &format!("w{i}"));
    }
    let after_engine = read_each(&s.engine, &latest_engine);
    let after_yours = read_each(&s.yours, &latest_yours);
    for (partition, expected) in &after_engine {
        let actual = after_yours
            .get(partition)
            .cloned()
            .unwrap_or(Ok(Vec::new()));
        if &actual != expected {
            fail(wrap(&format!(
                "A LATEST iterator was taken on partition {partition}'s shard, then 6 more \
                 orders were written. Read then, DynamoDB's iterator returns {}; yours returns \
                 {}. LATEST starts just after the newest record: it returns only what is \
                 written after the iterator was taken.",
                outcome(expected),
                outcome(&actual)
            )));
        }
    }
    s.compare("after reading LATEST iterators and 6 more writes");
}

fn retention(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed);
    for i in 0..6 {
        s.put(&format!("ORDER#o-{}", rng.below(4)), &format!("old{i}"));
    }
    s.advance_ms(3_600_000);
    for i in 0..3 {
        s.put(&format!("ORDER#o-{}", rng.below(4)), &format!("hour{i}"));
    }
    // The first records are now exactly 24 hours old: kept.
    s.advance_ms(23 * 3_600_000);
    s.compare("the first records exactly 24 hours old");
    s.advance_ms(1);
    s.compare("the first records 24 hours and a millisecond old");
    s.advance_ms(3_600_000);
    s.compare("every record more than 24 hours old");
    for i in 0..4 {
        s.put(&format!("ORDER#o-{}", rng.below(4)), &format!("new{i}"));
    }
    s.compare("new records on shards that retention emptied");
    s.advance_ms(30 * 3_600_000);
    s.compare("30 hours later");
}

fn seeded_workloads(seed: u64) {
    let mut rng = Rng::new(seed);
    let s = Scene::new(seed);
    for i in 0..120 {
        let key = format!("ORDER#o-{}", rng.below(10));
        match rng.below(10) {
            0..=5 => s.put(&key, &format!("v{i}")),
            6 | 7 => s.update(&key),
            _ => s.delete(&key),
        }
        match rng.below(20) {
            0 => s.advance_ms(rng.below(13 * 3_600_000)),
            1..=3 => s.advance_ms(rng.below(60_000)),
            4 => s.compare(&format!("seed {seed}, after step {i}")),
            _ => {}
        }
    }
    s.advance_ms(1_000);
    s.compare(&format!("seed {seed}, at the end"));
}

// ---------------------------------------------------------------------------------------
// Two worlds, one workload
// ---------------------------------------------------------------------------------------

/// The engine's world and the learner's, driven together.
struct Scene {
    engine: World,
    yours: World,
    /// Each world's first sequence number per partition (its shard's first record ever).
    first: std::cell::RefCell<[BTreeMap<u32, String>; 2]>,
}

fn config(seed: u64) -> WorldConfig {
    WorldConfig {
        seed,
        partition_size_limit: 600,
        ..WorldConfig::default()
    }
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let engine = World::with_config(config(seed));
        let piece: Arc<dyn StreamShards> = Arc::from(learner::stream_shards());
        let yours = World::with_pieces(config(seed), Pieces::default().with_stream_shards(piece));
        for w in [&engine, &yours] {
            create(&w.client());
        }
        Scene {
            engine,
            yours,
            first: Default::default(),
        }
    }

    fn worlds(&self) -> [&World; 2] {
        [&self.engine, &self.yours]
    }

    fn put(&self, key: &str, status: &str) {
        for w in self.worlds() {
            let item =
                item! { "PK" => key, "SK" => "META", "status" => status, "pad" => "x".repeat(60) };
            w.client()
                .put_item()
                .table_name(TABLE)
                .set_item(Some(item))
                .send()
                .expect("a put");
        }
    }

    fn update(&self, key: &str) {
        for w in self.worlds() {
            w.client()
                .update_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(key.into()))
                .key("SK", AttributeValue::S("META".into()))
                .update_expression("ADD n :one")
                .expression_attribute_values(":one", AttributeValue::N("1".into()))
                .send()
                .expect("an update");
        }
    }

    fn delete(&self, key: &str) {
        for w in self.worlds() {
            w.client()
                .delete_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(key.into()))
                .key("SK", AttributeValue::S("META".into()))
                .send()
                .expect("a delete");
        }
    }

    fn advance_ms(&self, ms: u64) {
        for w in self.worlds() {
            w.advance(Duration::from_millis(ms));
        }
    }

    /// Compares what a reader sees of both streams now; `when` says when, in the message.
    fn compare(&self, when: &str) {
        let engine = observe(&self.engine);
        let yours = observe(&self.yours);
        let mut first = self.first.borrow_mut();
        for (i, seen) in [&engine, &yours].into_iter().enumerate() {
            for (p, sh) in seen.iter() {
                if let Some((seq, _)) = sh.records.first() {
                    first[i].entry(*p).or_insert_with(|| seq.clone());
                }
            }
        }
        let at = |m: String| -> ! { fail(wrap(&format!("{when}: {m}"))) };
        // Sequence numbers by their rules, in the learner's world.
        for (p, sh) in yours.iter() {
            if let Some(m) = numbering_problem(*p, sh, &yours) {
                at(m);
            }
        }
        for (p, e) in engine.iter() {
            let Some(y) = yours.get(p) else {
                at(format!(
                    "DynamoDB's stream has a shard for partition {p}{}; yours has none. Every \
                     partition has an open shard from the moment the stream exists or the \
                     partition is born in a split, written to or not.",
                    born(e)
                ));
            };
            if e.parent != y.parent {
                at(format!(
                    "partition {p}'s shard has {} as its ParentShardId in DynamoDB's stream; in \
                     yours it has {}. A split closes the parent's shard and each child's shard \
                     names it, so a reader knows to finish the parent first.",
                    parent_text(e.parent),
                    parent_text(y.parent)
                ));
            }
            if e.open != y.open {
                at(format!(
                    "partition {p}'s shard is {} in DynamoDB's stream, {} in yours (DescribeStream: \
                     {}). A shard closes when its partition splits, and only then.",
                    open_text(e.open),
                    open_text(y.open),
                    if y.open {
                        "yours has no EndingSequenceNumber"
                    } else {
                        "yours has an EndingSequenceNumber"
                    }
                ));
            }
            let (er, yr): (Vec<&String>, Vec<&String>) = (
                e.records.iter().map(|r| &r.1).collect(),
                y.records.iter().map(|r| &r.1).collect(),
            );
            if er != yr {
                let i = er.iter().zip(&yr).take_while(|(a, b)| a == b).count();
                at(format!(
                    "partition {p}'s shard (read from TRIM_HORIZON) holds {} record(s) in \
                     DynamoDB's stream, {} in yours; they differ first at record {}: DynamoDB's \
                     is {}, yours is {}. Each record goes to the open shard of the partition \
                     holding the item, and records older than 24 hours are trimmed.{}",
                    er.len(),
                    yr.len(),
                    i + 1,
                    er.get(i).map_or("none (the shard ends)", |s| s.as_str()),
                    yr.get(i).map_or("none (the shard ends)", |s| s.as_str()),
                    if y.stored != yr.len() {
                        format!(
                            " Your shard stores {} record(s) but a reader from TRIM_HORIZON sees \
                             {}: a record numbered below where the kept records begin \
                             (trimmed_before), or below one before it, is never read.",
                            y.stored,
                            yr.len()
                        )
                    } else {
                        String::new()
                    }
                ));
            }
            for (name, ei, yi) in [("LATEST", &e.latest, &y.latest)] {
                if ei != yi {
                    at(format!(
                        "a {name} iterator on partition {p}'s shard returns {} in DynamoDB's \
                         stream, {} in yours. LATEST starts after the newest record: it returns \
                         nothing written before it.",
                        outcome(ei),
                        outcome(yi)
                    ));
                }
            }
            for (k, (ea, ya)) in e.at.iter().zip(&y.at).enumerate() {
                if ea != ya {
                    at(format!(
                        "AT_SEQUENCE_NUMBER of record {} ({}) on partition {p}'s shard returns {} \
                         in DynamoDB's stream, {} in yours. AT starts at the named record.",
                        k + 1,
                        e.records[k].1,
                        outcome(ea),
                        outcome(ya)
                    ));
                }
            }
            for (k, (ea, ya)) in e.after.iter().zip(&y.after).enumerate() {
                if ea != ya {
                    at(format!(
                        "AFTER_SEQUENCE_NUMBER of record {} ({}) on partition {p}'s shard returns \
                         {} in DynamoDB's stream, {} in yours. AFTER starts at the record after \
                         the named one.",
                        k + 1,
                        e.records[k].1,
                        outcome(ea),
                        outcome(ya)
                    ));
                }
            }
            // The oldest record ever written to the shard, once retention has dropped it.
            let (ef, yf) = (first[0].get(p), first[1].get(p));
            if let (Some(ef), Some(yf)) = (ef, yf) {
                let gone_e = e.records.first().is_none_or(|r| &r.0 != ef);
                let gone_y = y.records.first().is_none_or(|r| &r.0 != yf);
                if gone_e && gone_y {
                    let (ea, ya) = (
                        read(
                            &self.engine,
                            &e.id,
                            ShardIteratorType::AtSequenceNumber,
                            Some(ef),
                        ),
                        read(
                            &self.yours,
                            &y.id,
                            ShardIteratorType::AtSequenceNumber,
                            Some(yf),
                        ),
                    );
                    if ea != ya {
                        at(format!(
                            "AT_SEQUENCE_NUMBER of the first record ever written to partition \
                             {p}'s shard, which retention has dropped, returns {} in DynamoDB's \
                             stream, {} in yours.",
                            outcome(&ea),
                            outcome(&ya)
                        ));
                    }
                }
            }
        }
        for p in yours.keys() {
            if !engine.contains_key(p) {
                at(format!(
                    "your stream has a shard for partition {p}, DynamoDB's none (a shard opens \
                     per partition; one whose records have all been trimmed after it closed is \
                     gone)."
                ));
            }
        }
    }
}

/// `orders`: PK/SK strings, on-demand, a NEW_AND_OLD_IMAGES stream.
fn create(c: &Client) {
    c.create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send()
        .expect("the table");
}

// ---------------------------------------------------------------------------------------
// What a reader sees
// ---------------------------------------------------------------------------------------

/// What an iterator gave: the records' descriptions, or the error's name.
type Outcome = Result<Vec<String>, String>;

/// One shard as a reader sees it.
#[derive(Debug)]
struct ShardSeen {
    id: String,
    /// The partition of its parent shard (`Some(None)`: a parent no longer listed).
    parent: Option<Option<u32>>,
    open: bool,
    /// Records the shard stores (the inspection API's count), read or not.
    stored: usize,
    start: u128,
    end: Option<u128>,
    /// (sequence number, description) from TRIM_HORIZON.
    records: Vec<(String, String)>,
    latest: Outcome,
    at: Vec<Outcome>,
    after: Vec<Outcome>,
}

/// Every shard of the world's stream, by the partition it carries.
fn observe(world: &World) -> BTreeMap<u32, ShardSeen> {
    let info = world
        .tables()
        .remove(0)
        .stream
        .expect("the table has a stream");
    let partition_of: BTreeMap<String, u32> = info
        .shards
        .iter()
        .map(|s| (s.shard_id.clone(), s.partition))
        .collect();
    let stored: BTreeMap<String, usize> = info
        .shards
        .iter()
        .map(|s| (s.shard_id.clone(), s.records))
        .collect();
    let c = world.client();
    let d = c
        .describe_stream()
        .stream_arn(&info.arn)
        .send()
        .expect("DescribeStream");
    let mut out = BTreeMap::new();
    for shard in d.stream_description().unwrap().shards() {
        let id = shard.shard_id().unwrap().to_string();
        let range = shard.sequence_number_range().unwrap();
        let num = |s: Option<&str>| s.and_then(|s| s.parse::<u128>().ok());
        let full = read_records(world, &id, ShardIteratorType::TrimHorizon, None);
        let records: Vec<(String, String)> = match full {
            Ok(rs) => rs
                .iter()
                .map(|r| (r.sequence_number().to_string(), describe(r)))
                .collect(),
            Err(e) => fail(wrap(&format!(
                "TRIM_HORIZON on partition {}'s shard fails in your stream: {e}. TRIM_HORIZON \
                 starts at the oldest record still kept, never below it.",
                partition_of[&id]
            ))),
        };
        let at = records
            .iter()
            .map(|(seq, _)| read(world, &id, ShardIteratorType::AtSequenceNumber, Some(seq)))
            .collect();
        let after = records
            .iter()
            .map(|(seq, _)| {
                read(
                    world,
                    &id,
                    ShardIteratorType::AfterSequenceNumber,
                    Some(seq),
                )
            })
            .collect();
        out.insert(
            partition_of[&id],
            ShardSeen {
                parent: shard
                    .parent_shard_id()
                    .map(|p| partition_of.get(p).copied()),
                open: range.ending_sequence_number().is_none(),
                stored: stored[&id],
                start: num(range.starting_sequence_number()).unwrap_or(0),
                end: num(range.ending_sequence_number()),
                latest: read(world, &id, ShardIteratorType::Latest, None),
                records,
                at,
                after,
                id,
            },
        );
    }
    out
}

/// What's wrong with the sequence numbers of partition `p`'s shard, if anything.
fn numbering_problem(p: u32, sh: &ShardSeen, all: &BTreeMap<u32, ShardSeen>) -> Option<String> {
    let nums: Vec<u128> = sh.records.iter().filter_map(|r| r.0.parse().ok()).collect();
    if let Some(w) = nums.windows(2).position(|w| w[0] >= w[1]) {
        return Some(format!(
            "in your stream, partition {p}'s shard numbers record {} as {} and the record after \
             it as {}. Sequence numbers increase within a shard: a reader resumes AFTER the \
             last number it processed.",
            w + 1,
            nums[w],
            nums[w + 1]
        ));
    }
    if let Some(&first) = nums.first() {
        if first < sh.start {
            return Some(format!(
                "in your stream, partition {p}'s shard starts its range at {} but holds record \
                 {first}: the StartingSequenceNumber is at or below every record's.",
                sh.start
            ));
        }
    }
    if let (Some(&last), Some(end)) = (nums.last(), sh.end) {
        if last > end {
            return Some(format!(
                "in your stream, partition {p}'s shard is closed at {end} but holds record \
                 {last}: the EndingSequenceNumber is at or above every record's."
            ));
        }
    }
    if let (Some(Some(parent)), Some(&first)) = (sh.parent, nums.first()) {
        let parent_last = all
            .get(&parent)
            .and_then(|ps| ps.records.last())
            .and_then(|r| r.0.parse::<u128>().ok());
        if let Some(pl) = parent_last {
            if first <= pl {
                return Some(format!(
                    "in your stream, partition {p}'s shard (a child of partition {parent}'s) \
                     begins at record {first}, not above its parent's last record {pl}. \
                     Sequence numbers increase over the whole stream, so a child's continue \
                     above its parent's."
                ));
            }
        }
    }
    None
}

/// LATEST iterators on every shard, by partition.
fn latest_iterators(world: &World) -> BTreeMap<u32, String> {
    let info = world.tables().remove(0).stream.unwrap();
    let c = world.client();
    info.shards
        .iter()
        .filter_map(|s| {
            let it = c
                .get_shard_iterator()
                .stream_arn(&info.arn)
                .shard_id(&s.shard_id)
                .shard_iterator_type(ShardIteratorType::Latest)
                .send()
                .ok()?;
            Some((s.partition, it.shard_iterator()?.to_string()))
        })
        .collect()
}

/// Reads each iterator to the end.
fn read_each(world: &World, iterators: &BTreeMap<u32, String>) -> BTreeMap<u32, Outcome> {
    iterators
        .iter()
        .map(|(p, it)| {
            let got = pages(world, Some(it.clone())).map(|rs| rs.iter().map(describe).collect());
            (*p, got)
        })
        .collect()
}

fn read(world: &World, shard: &str, kind: ShardIteratorType, seq: Option<&String>) -> Outcome {
    read_records(world, shard, kind, seq).map(|rs| rs.iter().map(describe).collect())
}

/// The records an iterator of `kind` returns from `shard`, to the end, or the error's name.
fn read_records(
    world: &World,
    shard: &str,
    kind: ShardIteratorType,
    seq: Option<&String>,
) -> Result<Vec<Record>, String> {
    let arn = world.tables().remove(0).stream.unwrap().arn;
    let it = world
        .client()
        .get_shard_iterator()
        .stream_arn(arn)
        .shard_id(shard)
        .shard_iterator_type(kind)
        .set_sequence_number(seq.cloned())
        .send()
        .map_err(|e| error_name(&e))?;
    pages(world, it.shard_iterator().map(str::to_string))
}

fn pages(world: &World, mut it: Option<String>) -> Result<Vec<Record>, String> {
    let c = world.client();
    let mut out = Vec::new();
    while let Some(i) = it {
        let page = c
            .get_records()
            .shard_iterator(i)
            .send()
            .map_err(|e| error_name(&e))?;
        if page.records().is_empty() {
            break;
        }
        out.extend(page.records().iter().cloned());
        if out.len() > MAX_RECORDS_READ {
            return Err(format!(
                "GetRecords pages that never end (more than {MAX_RECORDS_READ} records: each \
                 page's next iterator starts after its last record's sequence number, so numbers \
                 that go down send a reader back)"
            ));
        }
        it = page.next_shard_iterator().map(str::to_string);
    }
    Ok(out)
}

/// More records than any test writes: a reader that has read this many is going round.
const MAX_RECORDS_READ: usize = 2_000;

fn error_name<E: engine::error::ProvideErrorMetadata>(e: &E) -> String {
    e.code().unwrap_or("an error").to_string()
}

/// A record as a learner reads it: `MODIFY ORDER#o-3 (status v2 → v7)`.
fn describe(r: &Record) -> String {
    let pk = |i: Option<&engine::Item>| match i.and_then(|i| i.get("PK")) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => "?".into(),
    };
    let status = |i: Option<&engine::Item>| match i {
        None => "none".to_string(),
        Some(i) => {
            let st = match i.get("status") {
                Some(AttributeValue::S(s)) => s.clone(),
                _ => "?".into(),
            };
            match i.get("n") {
                Some(AttributeValue::N(n)) => format!("{st}, n={n}"),
                _ => st,
            }
        }
    };
    format!(
        "{} {} ({} → {})",
        r.event_name().as_str(),
        pk(Some(r.keys())),
        status(r.old_image()),
        status(r.new_image())
    )
}

fn outcome(o: &Outcome) -> String {
    match o {
        Ok(rs) if rs.is_empty() => "no records".to_string(),
        Ok(rs) if rs.len() <= 3 => format!("[{}]", rs.join(", ")),
        Ok(rs) => format!("{} records, from [{}, …]", rs.len(), rs[0]),
        Err(e) => e.clone(),
    }
}

fn born(sh: &ShardSeen) -> String {
    match sh.parent {
        Some(Some(p)) => format!(" (opened when partition {p} split)"),
        _ => String::new(),
    }
}

fn parent_text(parent: Option<Option<u32>>) -> String {
    match parent {
        None => "no parent".to_string(),
        Some(Some(p)) => format!("partition {p}'s shard"),
        Some(None) => "a shard no longer listed".to_string(),
    }
}

fn open_text(open: bool) -> &'static str {
    if open {
        "open"
    } else {
        "closed"
    }
}
