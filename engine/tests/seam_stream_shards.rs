//! The stream-shards seam: a world decides which shard a stream record goes to, its sequence
//! number, what a partition split does to the shard tree, which records retention drops and
//! where each kind of shard iterator starts through `engine::seams::Pieces::stream_shards`,
//! the engine's own `EngineShards` by default.
mod common;

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use engine::seams::{Change, EngineShards, Pieces, Position, Shard, Shards, StreamShards};
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    ShardIteratorType, StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use engine::{item, Client, World, WorldConfig};

/// A small xorshift for the workload's own choices (the world's generator is the world's).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A world whose partitions split at a few KB, so that a workload watches its shards split.
fn config(seed: u64) -> WorldConfig {
    WorldConfig {
        seed,
        partition_size_limit: 600,
        ..WorldConfig::default()
    }
}

/// `app` (PK, SK) with a NEW_AND_OLD_IMAGES stream and TTL on `ttl`.
fn create(c: &Client) {
    c.create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(
            StreamViewType::NewAndOldImages,
        ))
        .send()
        .unwrap();
    c.update_time_to_live()
        .table_name("app")
        .time_to_live_specification(TimeToLiveSpecification::new(true, "ttl"))
        .send()
        .unwrap();
}

/// Everything a reader can see of the stream, hashed into `h`: each shard's id, parent and
/// range, and what every kind of iterator returns from it (records or the error).
fn hash_stream(c: &Client, h: &mut impl Hasher) {
    let arn = c.list_streams().table_name("app").send().unwrap().streams()[0]
        .stream_arn()
        .unwrap()
        .to_string();
    let d = c.describe_stream().stream_arn(&arn).send().unwrap();
    for shard in d.stream_description().unwrap().shards() {
        format!("{shard:?}").hash(h);
        let id = shard.shard_id().unwrap();
        let start = shard
            .sequence_number_range()
            .and_then(|r| r.starting_sequence_number())
            .unwrap()
            .to_string();
        let mut kinds = vec![
            (ShardIteratorType::TrimHorizon, None),
            (ShardIteratorType::Latest, None),
            (ShardIteratorType::AtSequenceNumber, Some(start.clone())),
            (ShardIteratorType::AfterSequenceNumber, Some(start)),
        ];
        let first = read(c, &arn, id, ShardIteratorType::TrimHorizon, None);
        if let Ok(records) = &first {
            if let Some(r) = records.get(records.len() / 2) {
                let seq = r.sequence_number().to_string();
                kinds.push((ShardIteratorType::AtSequenceNumber, Some(seq.clone())));
                kinds.push((ShardIteratorType::AfterSequenceNumber, Some(seq)));
            }
        }
        for (kind, seq) in kinds {
            let seen = read(c, &arn, id, kind, seq.clone())
                .map(|rs| rs.iter().map(describe).collect::<Vec<_>>());
            format!("{kind:?} {seq:?} {seen:?}").hash(h);
        }
    }
}

/// A record as text, its items in name order (an `Item`'s `Debug` follows its map's order).
fn describe(r: &engine::types::Record) -> String {
    let json = |i: Option<&engine::Item>| i.map(|i| engine::value::item_to_json(i).to_string());
    format!(
        "{} {} {} {} {:?} {:?} {:?} {} {}",
        r.event_id,
        r.event_name().as_str(),
        r.sequence_number(),
        r.dynamodb.approximate_creation_date_time,
        json(Some(r.keys())),
        json(r.new_image()),
        json(r.old_image()),
        r.is_ttl_delete(),
        r.dynamodb.size_bytes,
    )
}

/// The records an iterator of `kind` returns from `shard`, page after page, or the error.
fn read(
    c: &Client,
    arn: &str,
    shard: &str,
    kind: ShardIteratorType,
    seq: Option<String>,
) -> Result<Vec<engine::types::Record>, String> {
    let mut it = c
        .get_shard_iterator()
        .stream_arn(arn)
        .shard_id(shard)
        .shard_iterator_type(kind)
        .set_sequence_number(seq)
        .send()
        .map_err(|e| format!("{e:?}"))?
        .shard_iterator()
        .map(str::to_string);
    let mut out = Vec::new();
    while let Some(i) = it {
        let page = c
            .get_records()
            .shard_iterator(i)
            .limit(7)
            .send()
            .map_err(|e| format!("{e:?}"))?;
        if page.records().is_empty() {
            break;
        }
        out.extend(page.records().iter().cloned());
        it = page.next_shard_iterator().map(str::to_string);
    }
    Ok(out)
}

/// Seeded puts, updates, deletes and expiring items over a dozen keys, with the clock moving
/// by up to half a day at a time (so retention trims, and partitions split as they grow);
/// the stream is read in every way a few times along the way, and disabled at the end.
/// Returns a hash of the world's trace and of everything the readings saw.
fn workload(world: &World, seed: u64, steps: usize) -> u64 {
    let c = world.client();
    create(&c);
    let mut dice = Dice(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for i in 0..steps {
        let pk = format!("k{}", dice.below(12));
        let now = world.epoch_seconds();
        match dice.below(10) {
            0..=4 => put(
                &c,
                item! {
                    "PK" => pk.as_str(), "SK" => "v", "n" => i as u64,
                    "pad" => "x".repeat(dice.below(300) as usize),
                    "ttl" => now + dice.below(20_000),
                },
            ),
            5 | 6 => {
                c.update_item()
                    .table_name("app")
                    .key("PK", s(&pk))
                    .key("SK", s("v"))
                    .update_expression("ADD n :one")
                    .expression_attribute_values(":one", n("1"))
                    .send()
                    .unwrap();
            }
            7 => {
                c.delete_item()
                    .table_name("app")
                    .key("PK", s(&pk))
                    .key("SK", s("v"))
                    .send()
                    .unwrap();
            }
            _ => {}
        }
        match dice.below(40) {
            0 => world.advance(Duration::from_secs(dice.below(12 * 3600))),
            1..=4 => world.advance(Duration::from_secs(dice.below(60))),
            5 => hash_stream(&c, &mut h),
            _ => {}
        }
    }
    world.settle();
    hash_stream(&c, &mut h);
    c.update_table()
        .table_name("app")
        .stream_specification(StreamSpecification::disabled())
        .send()
        .unwrap();
    hash_stream(&c, &mut h);
    world.advance(Duration::from_secs(25 * 3600));
    world.trace_hash().hash(&mut h);
    h.finish()
}

/// Hashes of `workload` recorded before the shards moved behind the seam: (seed, hash).
/// The engine's own piece must run each exactly as the inline code did.
const BEFORE_THE_SEAM: [(u64, u64); 3] = [
    (1, 8473330790767422140),
    (2, 7559177376533013243),
    (3, 10752328092374418158),
];

#[test]
fn the_engines_piece_runs_the_workloads_exactly_as_before_the_seam() {
    for (seed, hash) in BEFORE_THE_SEAM {
        let world = World::with_config(config(seed));
        assert_eq!(workload(&world, seed, 600), hash, "seed {seed}");
    }
}

#[test]
fn the_engines_piece_given_explicitly_runs_them_the_same() {
    let (seed, hash) = BEFORE_THE_SEAM[0];
    let world = World::with_pieces(
        config(seed),
        Pieces::default().with_stream_shards(Arc::new(EngineShards)),
    );
    assert_eq!(workload(&world, seed, 600), hash);
}

/// The engine's piece, counting each decision it is asked for.
#[derive(Default)]
struct Counting {
    open: AtomicUsize,
    append: AtomicUsize,
    split: AtomicUsize,
    trimmed: AtomicUsize,
    iterator: AtomicUsize,
}

impl StreamShards for Counting {
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]) {
        self.open.fetch_add(1, Ordering::Relaxed);
        EngineShards.open_stream(shards, partitions)
    }
    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change) {
        self.append.fetch_add(1, Ordering::Relaxed);
        EngineShards.append(shards, partition, change)
    }
    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]) {
        self.split.fetch_add(1, Ordering::Relaxed);
        EngineShards.split(shards, parent, children)
    }
    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        let cut = EngineShards.trim(shard, now_ms, retention_ms);
        self.trimmed.fetch_add(cut, Ordering::Relaxed);
        cut
    }
    fn iterator_start(&self, shard: &Shard, next: u64, position: Position) -> u64 {
        self.iterator.fetch_add(1, Ordering::Relaxed);
        EngineShards.iterator_start(shard, next, position)
    }
}

#[test]
fn every_decision_of_the_engine_goes_through_the_worlds_piece() {
    let counting = Arc::new(Counting::default());
    let (seed, hash) = BEFORE_THE_SEAM[1];
    let world = World::with_pieces(
        config(seed),
        Pieces::default().with_stream_shards(counting.clone()),
    );
    assert_eq!(
        workload(&world, seed, 600),
        hash,
        "a piece that only delegates changes nothing"
    );
    assert!(
        !world.partition_splits("app").unwrap().is_empty(),
        "the workload must split a partition"
    );
    for (what, n) in [
        ("open_stream", &counting.open),
        ("append", &counting.append),
        ("split", &counting.split),
        ("trim (a record dropped)", &counting.trimmed),
        ("iterator_start", &counting.iterator),
    ] {
        assert!(n.load(Ordering::Relaxed) > 0, "{what} was never asked");
    }
}

/// A piece whose `AFTER_SEQUENCE_NUMBER` starts at the named record.
struct AfterIsAt;

impl StreamShards for AfterIsAt {
    fn open_stream(&self, shards: &mut Shards<'_>, partitions: &[u32]) {
        EngineShards.open_stream(shards, partitions)
    }
    fn append(&self, shards: &mut Shards<'_>, partition: u32, change: Change) {
        EngineShards.append(shards, partition, change)
    }
    fn split(&self, shards: &mut Shards<'_>, parent: u32, children: [u32; 2]) {
        EngineShards.split(shards, parent, children)
    }
    fn trim(&self, shard: &Shard, now_ms: u64, retention_ms: u64) -> usize {
        EngineShards.trim(shard, now_ms, retention_ms)
    }
    fn iterator_start(&self, shard: &Shard, next: u64, position: Position) -> u64 {
        match position {
            Position::After(seq) => seq,
            other => EngineShards.iterator_start(shard, next, other),
        }
    }
}

#[test]
fn a_world_runs_the_piece_it_is_given() {
    let world = World::with_pieces(
        config(1),
        Pieces::default().with_stream_shards(Arc::new(AfterIsAt)),
    );
    let c = world.client();
    create(&c);
    put(&c, item! { "PK" => "k1", "SK" => "v", "n" => 1 });
    put(&c, item! { "PK" => "k1", "SK" => "v", "n" => 2 });
    let arn = c.list_streams().send().unwrap().streams()[0]
        .stream_arn()
        .unwrap()
        .to_string();
    let p = world.partition_of("app", &s("k1")).unwrap();
    let info = world.tables().remove(0).stream.unwrap();
    let shard = info.shards.iter().find(|sh| sh.partition == p).unwrap();
    let all = read(
        &c,
        &arn,
        &shard.shard_id,
        ShardIteratorType::TrimHorizon,
        None,
    )
    .unwrap();
    assert_eq!(all.len(), 2);
    let after_first = read(
        &c,
        &arn,
        &shard.shard_id,
        ShardIteratorType::AfterSequenceNumber,
        Some(all[0].sequence_number().to_string()),
    )
    .unwrap();
    assert_eq!(
        after_first.iter().map(describe).collect::<Vec<_>>(),
        all.iter().map(describe).collect::<Vec<_>>(),
        "this piece starts AFTER at the named record"
    );
}
