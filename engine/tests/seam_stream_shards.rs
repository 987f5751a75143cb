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
        partition_size_limit: 3_000,
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
            format!("{kind:?} {seq:?} {:?}", read(c, &arn, id, kind, seq.clone())).hash(h);
        }
    }
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
    (1, 11684244751833345376),
    (2, 5751080444562329244),
    (3, 16715534769278299807),
];

#[test]
fn the_engines_piece_runs_the_workloads_exactly_as_before_the_seam() {
    for (seed, hash) in BEFORE_THE_SEAM {
        let world = World::with_config(config(seed));
        assert_eq!(workload(&world, seed, 600), hash, "seed {seed}");
    }
}
