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
