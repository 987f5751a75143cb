//! The admission seam: a world runs a partition's token bucket through
//! `engine::seams::Pieces::admission`, the engine's own bucket by default.
mod common;

use std::time::Duration;

use common::*;
use engine::seams::{Admission, Ask, Closing, Decision, Pieces};
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ProvisionedThroughput,
    ScalarAttributeType,
};
use engine::{Client, World, WorldConfig};

fn table(c: &Client, name: &str, throughput: Option<(i64, i64)>) {
    let b = c
        .create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash));
    let b = match throughput {
        Some((r, w)) => b.provisioned_throughput(ProvisionedThroughput::new(r, w)),
        None => b.billing_mode(BillingMode::PayPerRequest),
    };
    b.send().unwrap();
}

/// A capacity workload touching every rule of admission: a steady load, a burst after idle
/// seconds, a hot key past the ceiling on a five-partition table, eventual and strong reads,
/// a rate change, an on-demand table. Returns (admitted, throttled) over all requests.
fn workload(world: &World) -> (u32, u32) {
    let c = world.client();
    table(&c, "small", Some((20, 10)));
    table(&c, "wide", Some((100, 4000)));
    table(&c, "ondemand", None);
    let (mut ok, mut throttled) = (0, 0);
    let mut count = |r: bool| if r { ok += 1 } else { throttled += 1 };
    let pad = "x".repeat(1500);
    for second in 0..40u32 {
        let burst = if second % 10 == 9 { 60 } else { 4 };
        for i in 0..burst {
            let key = format!("k{}", i % 7);
            let put = c
                .put_item()
                .table_name("small")
                .item("id", s(&key))
                .item("pad", s(&pad))
                .send();
            count(put.is_ok());
            let get = c
                .get_item()
                .table_name("small")
                .key("id", s(&key))
                .consistent_read(i % 2 == 0)
                .send();
            count(get.is_ok());
        }
        let hot = if second < 5 { 1700 } else { 50 };
        for i in 0..hot {
            let key = if i % 3 == 0 {
                format!("spread{i}")
            } else {
                "HOT".into()
            };
            let put = c.put_item().table_name("wide").item("id", s(&key)).send();
            count(put.is_ok());
        }
        for i in 0..30 {
            let put = c
                .put_item()
                .table_name("ondemand")
                .item("id", s(&format!("o{i}")))
                .send();
            count(put.is_ok());
        }
        if second == 20 {
            c.update_table()
                .table_name("small")
                .provisioned_throughput(ProvisionedThroughput::new(5, 40))
                .send()
                .unwrap();
        }
        let idle = if second == 12 { 400 } else { 1 };
        world.advance(Duration::from_secs(idle));
    }
    (ok, throttled)
}

/// The trace hash of `workload` on seed 7: first recorded before the bucket moved behind the
/// seam (commit f2ee8ff), when the engine's own piece had to run it exactly as the inline code
/// did; re-recorded in issue 18, when each partition's meters gained the on-demand write
/// headroom and a transaction's mark (which the hash reads). The admitted and throttled
/// counts are still those of the seam's commit.
const TRACE_BEFORE_THE_SEAM: u64 = 16_777_264_655_031_839_367;

/// The world the trace was recorded in: its tables born with empty buckets, as every new
/// table was then (tables are born with full ones since issue 18).
fn as_recorded() -> WorldConfig {
    WorldConfig {
        seed: 7,
        new_table_buckets_full: false,
        ..WorldConfig::default()
    }
}

#[test]
fn the_engines_piece_runs_the_workload_exactly_as_before_the_seam() {
    let world = World::with_config(as_recorded());
    assert_eq!(workload(&world), (10_902, 1_316));
    assert_eq!(world.trace_hash(), TRACE_BEFORE_THE_SEAM);
    let explicit = World::with_pieces(as_recorded(), Pieces::default());
    workload(&explicit);
    assert_eq!(explicit.trace_hash(), TRACE_BEFORE_THE_SEAM);
}

/// A bucket that admits everything and saves nothing.
struct AdmitAll;

impl Admission for AdmitAll {
    fn bank(&self, _: &Closing) -> f64 {
        0.0
    }
    fn admit(&self, ask: &Ask) -> Decision {
        Decision::Admit { burst: ask.burst }
    }
}

/// A bucket without burst: the allocation (or the table's loan) and nothing saved.
struct NoBurst;

impl Admission for NoBurst {
    fn bank(&self, _: &Closing) -> f64 {
        0.0
    }
    fn admit(&self, ask: &Ask) -> Decision {
        engine::seams::TokenBucket.admit(&Ask { burst: 0.0, ..*ask })
    }
}

fn with_piece(piece: impl Admission + 'static) -> World {
    // The other pieces stay the engine's (the update is needless only while admission is
    // the one seam).
    #[allow(clippy::needless_update)]
    let pieces = Pieces {
        admission: std::sync::Arc::new(piece),
        ..Pieces::default()
    };
    World::with_pieces(
        WorldConfig {
            seed: 7,
            ..WorldConfig::default()
        },
        pieces,
    )
}

#[test]
fn a_world_runs_the_piece_it_is_given() {
    // Admitting everything leaves only on-demand's rules (which are not the piece's): the
    // ondemand table never throttles at 30 writes a second, so nothing does.
    let all = with_piece(AdmitAll);
    let (ok, throttled) = workload(&all);
    assert_eq!((ok, throttled), (12_218, 0));
    // Without burst, the spikes every tenth second on `small` throttle more than DynamoDB.
    let none = with_piece(NoBurst);
    let (_, throttled) = workload(&none);
    assert!(throttled > 1_316, "no burst throttled only {throttled}");
    assert_ne!(none.trace_hash(), TRACE_BEFORE_THE_SEAM);
}
