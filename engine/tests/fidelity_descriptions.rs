//! Scenario tests for what the control plane describes (issue 18, points 14 and 21): dates on
//! the world's calendar, `TableId`, `IndexArn`, when a table became on-demand, the reduced
//! description DeleteTable answers, and what DescribeStream tells of a stream and its shards.
mod common;

use std::time::Duration;

use common::*;
use engine::primitives::DateTime;
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ScalarAttributeType, StreamSpecification, StreamViewType,
};
use engine::{item, Client, World};

/// `docs`: PK/SK strings, a GSI and an LSI on `G`, on demand, with a stream.
fn docs(c: &Client) {
    c.create_table()
        .table_name("docs")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("G", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .global_secondary_indexes(GlobalSecondaryIndex::new(
            "byG",
            vec![KeySchemaElement::new("G", KeyType::Hash)],
            Projection::all(),
        ))
        .local_secondary_indexes(LocalSecondaryIndex::new(
            "byG2",
            vec![
                KeySchemaElement::new("PK", KeyType::Hash),
                KeySchemaElement::new("G", KeyType::Range),
            ],
            Projection::keys_only(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(StreamSpecification::enabled(StreamViewType::KeysOnly))
        .send()
        .unwrap();
}

#[test]
fn a_table_created_in_a_fresh_world_dates_from_the_worlds_calendar_not_1970() {
    let w = World::new(1);
    let c = w.client();
    // The world's clock in Unix seconds, at its start.
    let epoch = w.epoch_seconds() as i64;
    docs(&c);
    w.advance(Duration::from_millis(2500));
    hash_only(&c, "later", ScalarAttributeType::S);
    let date = |name: &str| {
        *c.describe_table()
            .table_name(name)
            .send()
            .unwrap()
            .table()
            .unwrap()
            .creation_date_time()
            .unwrap()
    };
    assert!(epoch > 1_700_000_000, "a plausible epoch: {epoch}");
    assert_eq!(date("docs"), DateTime::from_secs(epoch));
    assert_eq!(date("later"), DateTime::from_millis(epoch * 1000 + 2500));
    assert_eq!(date("later").subsec_nanos(), 500_000_000);
}

#[test]
fn descriptions_carry_a_table_id_index_arns_and_when_the_table_became_on_demand() {
    let w = World::new(1);
    let c = w.client();
    docs(&c);
    hash_only(&c, "prov", ScalarAttributeType::S);
    let describe = |name: &str| {
        c.describe_table()
            .table_name(name)
            .send()
            .unwrap()
            .table()
            .cloned()
            .unwrap()
    };
    let t = describe("docs");
    let id = t.table_id().unwrap();
    assert_eq!(id.len(), 36);
    assert_eq!(id.matches('-').count(), 4);
    assert_ne!(
        Some(id),
        describe("prov").table_id(),
        "each table its own id"
    );
    let arn = t.table_arn().unwrap();
    assert_eq!(
        t.global_secondary_indexes.as_ref().unwrap()[0].index_arn(),
        Some(format!("{arn}/index/byG").as_str())
    );
    assert_eq!(
        t.local_secondary_indexes.as_ref().unwrap()[0].index_arn(),
        Some(format!("{arn}/index/byG2").as_str())
    );
    let epoch = w.epoch_seconds() as i64;
    let since = |t: &engine::types::TableDescription| {
        t.billing_mode_summary
            .clone()
            .unwrap()
            .last_update_to_pay_per_request_date_time
    };
    assert_eq!(since(&t), Some(DateTime::from_secs(epoch)));
    assert_eq!(since(&describe("prov")), None, "always provisioned");
    w.advance(Duration::from_secs(60));
    c.update_table()
        .table_name("prov")
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    assert_eq!(
        since(&describe("prov")),
        Some(DateTime::from_secs(epoch + 60))
    );
}

#[test]
fn delete_table_answers_the_reduced_description() {
    let w = World::new(1);
    let c = w.client();
    docs(&c);
    let out = c.delete_table().table_name("docs").send().unwrap();
    let d = out.table_description().unwrap();
    assert_eq!(d.table_name(), Some("docs"));
    assert_eq!(d.table_status().map(|s| s.as_str()), Some("DELETING"));
    assert!(d.table_id().is_some());
    assert!(d.key_schema().is_empty());
    assert!(d.attribute_definitions.is_none());
    assert!(d.global_secondary_indexes.is_none());
    assert!(d.local_secondary_indexes.is_none());
}

#[test]
fn describe_stream_dates_the_stream_and_a_disabled_streams_shards_have_ends() {
    let w = World::new(1);
    let c = w.client();
    let epoch = w.epoch_seconds() as i64;
    w.advance(Duration::from_secs(10));
    docs(&c);
    put_into(&c, "docs", item! { "PK" => "a", "SK" => "1" });
    let arn = c
        .describe_table()
        .table_name("docs")
        .send()
        .unwrap()
        .table()
        .unwrap()
        .latest_stream_arn()
        .unwrap()
        .to_string();
    let describe = || {
        c.describe_stream()
            .stream_arn(&arn)
            .send()
            .unwrap()
            .stream_description()
            .cloned()
            .unwrap()
    };
    let d = describe();
    assert_eq!(
        d.creation_request_date_time(),
        Some(&DateTime::from_secs(epoch + 10))
    );
    assert!(d.shards().iter().all(|s| s
        .sequence_number_range()
        .unwrap()
        .ending_sequence_number()
        .is_none()));
    c.update_table()
        .table_name("docs")
        .stream_specification(StreamSpecification::disabled())
        .send()
        .unwrap();
    let d = describe();
    assert_eq!(d.stream_status().map(|s| s.as_str()), Some("DISABLED"));
    for shard in d.shards() {
        let range = shard.sequence_number_range().unwrap();
        let (start, end) = (
            range.starting_sequence_number().unwrap(),
            range.ending_sequence_number().expect("a closed shard"),
        );
        assert!(start <= end, "{start} ≤ {end}");
    }
}
