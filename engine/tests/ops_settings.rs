//! Scenario tests for a table's control-plane settings and the small operations tools call:
//! SSESpecification / SSEDescription, DescribeContinuousBackups / UpdateContinuousBackups,
//! DescribeEndpoints, DescribeLimits.
mod common;

use std::time::Duration;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, ContinuousBackupsStatus, KeySchemaElement, KeyType,
    PointInTimeRecoverySpecification, PointInTimeRecoveryStatus, ScalarAttributeType,
    SseSpecification, SseStatus, SseType,
};
use engine::Client;

fn create(c: &Client, name: &str, sse: Option<SseSpecification>) -> engine::Result<()> {
    c.create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .set_sse_specification(sse)
        .send()
        .map(|_| ())
        .map_err(Into::into)
}

#[test]
fn sse_enabled_is_described_with_its_kms_key_and_the_default_has_no_description() {
    let w = engine::World::new(1);
    let c = w.client();
    create(&c, "plain", None).unwrap();
    create(
        &c,
        "off",
        Some(SseSpecification::builder().enabled(false).build()),
    )
    .unwrap();
    create(
        &c,
        "managed",
        Some(SseSpecification::builder().enabled(true).build()),
    )
    .unwrap();
    create(
        &c,
        "own",
        Some(
            SseSpecification::builder()
                .enabled(true)
                .sse_type(SseType::Kms)
                .kms_master_key_id("1234abcd-12ab-34cd-56ef-1234567890ab")
                .build(),
        ),
    )
    .unwrap();
    let sse = |t: &str| {
        c.describe_table()
            .table_name(t)
            .send()
            .unwrap()
            .table
            .unwrap()
            .sse_description
    };
    assert_eq!(sse("plain"), None);
    assert_eq!(sse("off"), None);
    let managed = sse("managed").unwrap();
    assert_eq!(managed.status(), Some(&SseStatus::Enabled));
    assert_eq!(managed.sse_type(), Some(&SseType::Kms));
    assert_eq!(
        managed.kms_master_key_arn(),
        Some("arn:aws:kms:local-1:000000000000:alias/aws/dynamodb")
    );
    assert_eq!(
        sse("own").unwrap().kms_master_key_arn(),
        Some("arn:aws:kms:local-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab")
    );
    let refused = create(
        &c,
        "odd",
        Some(
            SseSpecification::builder()
                .enabled(false)
                .kms_master_key_id("k")
                .build(),
        ),
    )
    .unwrap_err();
    assert_eq!(refused.code(), Some("ValidationException"));
}

#[test]
fn point_in_time_recovery_is_off_until_enabled_and_its_window_follows_the_clock() {
    let (w, c) = app();
    let describe = || {
        c.describe_continuous_backups()
            .table_name("app")
            .send()
            .unwrap()
            .continuous_backups_description
            .unwrap()
    };
    let before = describe();
    assert_eq!(
        before.continuous_backups_status(),
        &ContinuousBackupsStatus::Enabled
    );
    let pitr = before.point_in_time_recovery_description().unwrap();
    assert_eq!(
        pitr.point_in_time_recovery_status(),
        Some(&PointInTimeRecoveryStatus::Disabled)
    );
    assert_eq!(pitr.earliest_restorable_date_time_ms, None);

    w.advance(Duration::from_secs(60));
    let enabled_at = w.now().as_millis() as u64;
    let out = c
        .update_continuous_backups()
        .table_name("app")
        .point_in_time_recovery_specification(
            PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .build()
                .unwrap(),
        )
        .send()
        .unwrap();
    let pitr = out
        .continuous_backups_description()
        .unwrap()
        .point_in_time_recovery_description()
        .unwrap()
        .clone();
    assert_eq!(
        pitr.point_in_time_recovery_status(),
        Some(&PointInTimeRecoveryStatus::Enabled)
    );
    assert_eq!(pitr.recovery_period_in_days(), Some(35));
    assert_eq!(pitr.earliest_restorable_date_time_ms, Some(enabled_at));

    w.advance(Duration::from_secs(3600));
    let pitr = describe().point_in_time_recovery_description.unwrap();
    assert_eq!(pitr.earliest_restorable_date_time_ms, Some(enabled_at));
    assert_eq!(
        pitr.latest_restorable_date_time_ms,
        Some((w.now().as_millis() as u64) - 5 * 60 * 1000),
        "five minutes behind now"
    );

    let off = PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(false)
        .build()
        .unwrap();
    c.update_continuous_backups()
        .table_name("app")
        .point_in_time_recovery_specification(off)
        .send()
        .unwrap();
    assert_eq!(
        describe()
            .point_in_time_recovery_description()
            .unwrap()
            .point_in_time_recovery_status(),
        Some(&PointInTimeRecoveryStatus::Disabled)
    );
}

#[test]
fn backup_operations_name_a_missing_table_with_their_own_exception() {
    let (_w, c) = app();
    let e = c
        .describe_continuous_backups()
        .table_name("nope")
        .send()
        .unwrap_err();
    assert!(e.as_service_error().unwrap().is_table_not_found_exception());
    assert_eq!(e.message(), Some("Table not found: nope"));
    let bad = PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(true)
        .recovery_period_in_days(36)
        .build()
        .unwrap();
    assert!(message(
        c.update_continuous_backups()
            .table_name("app")
            .point_in_time_recovery_specification(bad)
            .send()
    )
    .contains("Member must have value less than or equal to 35"));
}

#[test]
fn describe_endpoints_and_describe_limits_report_the_regions_defaults() {
    let (_w, c) = app();
    let endpoints = c.describe_endpoints().send().unwrap();
    assert_eq!(endpoints.endpoints().len(), 1);
    assert_eq!(
        endpoints.endpoints()[0].address(),
        "dynamodb.local-1.amazonaws.com"
    );
    assert_eq!(endpoints.endpoints()[0].cache_period_in_minutes(), 1440);
    let limits = c.describe_limits().send().unwrap();
    assert_eq!(limits.table_max_read_capacity_units(), Some(40_000));
    assert_eq!(limits.table_max_write_capacity_units(), Some(40_000));
    assert_eq!(limits.account_max_read_capacity_units(), Some(80_000));
    assert_eq!(limits.account_max_write_capacity_units(), Some(80_000));
}
