//! Read consistency (reference §4.2, §9): a write is acknowledged by two of three replicas;
//! the third gets it a little later. An eventually consistent read may be served by that
//! third replica and miss the write; a strongly consistent read is served by the leader and
//! never does. Which replica serves a read is drawn from the world's seed, so a seed sweep
//! finds both outcomes, and one seed always gives the same one.
mod common;

use common::*;
use engine::item;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::{Client, World};

const SEEDS: u64 = 64;

fn world(seed: u64) -> (World, Client) {
    let w = World::new(seed);
    let c = w.client();
    c.create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    (w, c)
}

/// The `v` an eventually (or strongly) consistent read of the item sees, if any.
fn read_v(c: &Client, consistent: bool) -> Option<engine::AttributeValue> {
    c.get_item()
        .table_name("app")
        .key("PK", s("A"))
        .key("SK", s("1"))
        .consistent_read(consistent)
        .send()
        .unwrap()
        .item()
        .map(|i| i["v"].clone())
}

/// What happened in one seeded world: for an overwrite `v: 1 → 2`, the eventual read right
/// after the write, the strong read right after it, and the eventual read after settling.
#[derive(Debug, PartialEq)]
struct Outcome {
    eventual_now: Option<engine::AttributeValue>,
    strong_now: Option<engine::AttributeValue>,
    /// Eight more eventual reads before settling: which replica served each is seeded.
    eventual_more: Vec<Option<engine::AttributeValue>>,
    eventual_settled: Option<engine::AttributeValue>,
}

fn run(seed: u64) -> Outcome {
    let (w, c) = world(seed);
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 1 });
    w.settle();
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 2 });
    let eventual_now = read_v(&c, false);
    let strong_now = read_v(&c, true);
    let eventual_more = (0..8).map(|_| read_v(&c, false)).collect();
    w.settle();
    Outcome {
        eventual_now,
        strong_now,
        eventual_more,
        eventual_settled: read_v(&c, false),
    }
}

#[test]
fn an_eventual_read_right_after_a_write_is_stale_for_some_seeds_and_fresh_for_others() {
    let outcomes: Vec<Outcome> = (0..SEEDS).map(run).collect();
    let stale = outcomes
        .iter()
        .filter(|o| o.eventual_now == Some(n("1")))
        .count();
    let fresh = outcomes
        .iter()
        .filter(|o| o.eventual_now == Some(n("2")))
        .count();
    assert_eq!(stale + fresh, SEEDS as usize, "{outcomes:?}");
    assert!(stale > 0, "no seed in 0..{SEEDS} served a stale read");
    assert!(fresh > 0, "no seed in 0..{SEEDS} served a fresh read");
}

#[test]
fn a_strong_read_right_after_a_write_is_never_stale() {
    for seed in 0..SEEDS {
        assert_eq!(run(seed).strong_now, Some(n("2")), "seed {seed}");
    }
}

#[test]
fn after_settling_every_eventual_read_sees_the_write() {
    for seed in 0..SEEDS {
        assert_eq!(run(seed).eventual_settled, Some(n("2")), "seed {seed}");
    }
}

#[test]
fn a_new_item_can_be_missing_from_an_eventual_read_but_not_from_a_strong_one() {
    let mut missing = 0;
    for seed in 0..SEEDS {
        let (w, c) = world(seed);
        put(&c, item! { "PK" => "A", "SK" => "1", "v" => 1 });
        if read_v(&c, false).is_none() {
            missing += 1;
        }
        assert_eq!(read_v(&c, true), Some(n("1")), "seed {seed}");
        w.settle();
        assert_eq!(read_v(&c, false), Some(n("1")), "seed {seed}");
    }
    assert!(missing > 0, "no seed in 0..{SEEDS} missed the new item");
}

#[test]
fn advancing_past_the_replication_delay_converges_like_settle() {
    for seed in 0..SEEDS {
        let (w, c) = world(seed);
        put(&c, item! { "PK" => "A", "SK" => "1", "v" => 1 });
        w.advance(std::time::Duration::from_secs(1));
        for _ in 0..5 {
            assert_eq!(read_v(&c, false), Some(n("1")), "seed {seed}");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_outcomes() {
    let first: Vec<Outcome> = (0..SEEDS).map(run).collect();
    let second: Vec<Outcome> = (0..SEEDS).map(run).collect();
    assert_eq!(first, second);
    // …and the seed matters: not every world told the same story.
    assert!(first
        .iter()
        .any(|o| o.eventual_more != first[0].eventual_more));
}

#[test]
fn the_request_log_says_which_reads_were_strongly_consistent() {
    let (world, c) = common::app();
    common::put(&c, engine::item! { "PK" => "a", "SK" => "b" });
    world.clear_request_log();
    c.get_item()
        .table_name("app")
        .key("PK", common::s("a"))
        .key("SK", common::s("b"))
        .send()
        .unwrap();
    c.get_item()
        .table_name("app")
        .key("PK", common::s("a"))
        .key("SK", common::s("b"))
        .consistent_read(true)
        .send()
        .unwrap();
    common::put(&c, engine::item! { "PK" => "a", "SK" => "c" });
    let log = world.request_log();
    let kinds: Vec<Option<bool>> = log.iter().map(|r| r.consistent_read).collect();
    assert_eq!(kinds, [Some(false), Some(true), None]);
}
