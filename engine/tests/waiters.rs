//! The waiters: TableExists / TableNotExists on the simulated clock.

mod common;

use std::time::Duration;

use common::app;
use engine::client::Waiters;
use engine::operation::describe_table::DescribeTableError;
use engine::types::TableStatus;
use engine::waiters::WaiterError;

#[test]
fn table_exists_returns_the_active_table_at_the_first_poll() {
    let (w, c) = app();
    let before = w.now();
    let poll = c
        .wait_until_table_exists()
        .table_name("app")
        .wait(Duration::from_secs(300))
        .unwrap();
    let out = poll.into_result().unwrap();
    assert_eq!(
        out.table().and_then(|t| t.table_status()),
        Some(&TableStatus::Active)
    );
    assert_eq!(w.now(), before, "no sleep when the first poll succeeds");
}

#[test]
fn a_missing_table_is_polled_with_growing_delays_until_the_max_wait() {
    let (w, c) = app();
    let before = w.now();
    let err = c
        .wait_until_table_exists()
        .table_name("nope")
        .wait(Duration::from_secs(60))
        .unwrap_err();
    let WaiterError::ExceededMaxWait(e) = err else {
        panic!("expected ExceededMaxWait, got {err:?}");
    };
    // Polls at 0 s, 20 s and 60 s; the next sleep (80 s) would pass the minute.
    assert_eq!(e.poll_count(), 3);
    assert_eq!(e.elapsed(), Duration::from_secs(60));
    assert_eq!(e.max_wait(), Duration::from_secs(60));
    assert_eq!(w.now() - before, Duration::from_secs(60));
}

#[test]
fn table_not_exists_ends_on_resource_not_found_and_keeps_it() {
    let (_w, c) = app();
    c.delete_table().table_name("app").send().unwrap();
    let poll = c
        .wait_until_table_not_exists()
        .table_name("app")
        .wait(Duration::from_secs(300))
        .unwrap();
    let err = poll.into_result().expect_err("the final poll is the error");
    assert!(matches!(
        err.into_service_error(),
        DescribeTableError::ResourceNotFoundException(_)
    ));
}

#[test]
fn table_not_exists_on_a_table_that_stays_exceeds_the_max_wait() {
    let (_w, c) = app();
    let err = c
        .wait_until_table_not_exists()
        .table_name("app")
        .wait(Duration::from_secs(30))
        .unwrap_err();
    assert!(
        matches!(&err, WaiterError::ExceededMaxWait(e) if e.poll_count() == 2),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("exceeded max wait time"),
        "{err}"
    );
}

#[test]
fn a_waiter_without_a_table_name_fails_to_construct_and_sends_nothing() {
    let (w, c) = app();
    let before = w.now();
    let err = c
        .wait_until_table_exists()
        .wait(Duration::from_secs(300))
        .unwrap_err();
    assert!(
        matches!(err, WaiterError::ConstructionFailure(_)),
        "{err:?}"
    );
    assert!(err.to_string().contains("table_name"), "{err}");
    assert_eq!(w.now(), before);
}

/// A world whose tables take 5 simulated seconds to create.
fn slow_tables() -> (engine::World, engine::Client) {
    let w = engine::World::with_config(engine::WorldConfig {
        seed: 1,
        table_creation_ms: 5_000,
        ..Default::default()
    });
    let c = w.client();
    common::create_app(&c);
    (w, c)
}

#[test]
fn a_creating_table_refuses_reads_and_writes_until_it_is_active() {
    let (w, c) = slow_tables();
    let status = |c: &engine::Client| {
        c.describe_table()
            .table_name("app")
            .send()
            .unwrap()
            .table()
            .and_then(|t| t.table_status().cloned())
    };
    assert_eq!(status(&c), Some(TableStatus::Creating));
    let put = |c: &engine::Client| {
        c.put_item()
            .table_name("app")
            .item("PK", engine::AttributeValue::S("a".into()))
            .item("SK", engine::AttributeValue::S("b".into()))
            .send()
    };
    let err = put(&c).unwrap_err().into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    let err = c
        .delete_table()
        .table_name("app")
        .send()
        .unwrap_err()
        .into_service_error();
    assert!(err.is_resource_in_use_exception(), "{err:?}");
    w.advance(Duration::from_millis(4_999));
    assert_eq!(status(&c), Some(TableStatus::Creating));
    w.advance(Duration::from_millis(1));
    assert_eq!(status(&c), Some(TableStatus::Active));
    put(&c).unwrap();
}

#[test]
fn table_exists_waits_while_the_table_is_creating() {
    let (w, c) = slow_tables();
    let before = w.now();
    let poll = c
        .wait_until_table_exists()
        .table_name("app")
        .wait(Duration::from_secs(300))
        .unwrap();
    assert_eq!(
        poll.into_result()
            .unwrap()
            .table()
            .and_then(|t| t.table_status()),
        Some(&TableStatus::Active)
    );
    // Polls at 0 s (CREATING) and 20 s (the waiter's first delay): ACTIVE since 5 s.
    assert_eq!(w.now() - before, Duration::from_secs(20));
}

#[test]
fn settle_lets_a_creating_table_become_active() {
    let (w, c) = slow_tables();
    w.settle();
    assert_eq!(
        c.describe_table()
            .table_name("app")
            .send()
            .unwrap()
            .table()
            .and_then(|t| t.table_status()),
        Some(&TableStatus::Active)
    );
}
