//! Scenario tests for TransactWriteItems and TransactGetItems (reference §4.11, §4.12):
//! all or nothing, cancellation reasons in order, idempotency tokens on the simulated clock,
//! and doubled costs.
mod common;

use engine::error::ProvideErrorMetadata;
use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use std::time::Duration;

use common::*;
use engine::types::{
    ConditionCheck, Delete, Get, Put, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure,
    TransactGetItem, TransactWriteItem, Update,
};
use engine::{item, item_size, AttributeValue, Item};

fn key(pk: &str, sk: &str) -> Item {
    item! { "PK" => pk, "SK" => sk }
}

/// An item `PK`/`SK` padded with a `data` attribute to exactly `bytes` bytes.
fn sized(pk: &str, sk: &str, bytes: usize) -> Item {
    let mut it = item! { "PK" => pk, "SK" => sk, "data" => "" };
    let pad = bytes - item_size(&it);
    it.insert("data".into(), AttributeValue::S("x".repeat(pad)));
    assert_eq!(item_size(&it), bytes);
    it
}

fn put_action(item: Item) -> TransactWriteItem {
    TransactWriteItem::builder()
        .put(
            Put::builder()
                .table_name("app")
                .set_item(Some(item))
                .build()
                .unwrap(),
        )
        .build()
}

fn delete_action(key: Item) -> TransactWriteItem {
    TransactWriteItem::builder()
        .delete(
            Delete::builder()
                .table_name("app")
                .set_key(Some(key))
                .build()
                .unwrap(),
        )
        .build()
}

fn get_action(key: Item) -> TransactGetItem {
    TransactGetItem::builder()
        .get(
            Get::builder()
                .table_name("app")
                .set_key(Some(key))
                .build()
                .unwrap(),
        )
        .build()
}

/// A check that `key` has `status = :s`, carrying the item back if asked.
fn check_status(key: Item, status: &str, all_old: bool) -> TransactWriteItem {
    let mut check = ConditionCheck::builder()
        .table_name("app")
        .set_key(Some(key))
        .condition_expression("#s = :s")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":s", s(status));
    if all_old {
        check = check
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
    }
    TransactWriteItem::builder()
        .condition_check(check.build().unwrap())
        .build()
}

fn debit(key: Item, amount: &str) -> TransactWriteItem {
    TransactWriteItem::builder()
        .update(
            Update::builder()
                .table_name("app")
                .set_key(Some(key))
                .update_expression("SET balance = balance - :a")
                .condition_expression("balance >= :a")
                .expression_attribute_values(":a", n(amount))
                .build()
                .unwrap(),
        )
        .build()
}

fn canceled(e: SdkError<TransactWriteItemsError>) -> (String, Vec<engine::CancellationReason>) {
    match e.into_service_error() {
        TransactWriteItemsError::TransactionCanceledException(e) => (
            e.message().unwrap_or_default().to_string(),
            e.cancellation_reasons().to_vec(),
        ),
        other => panic!("expected TransactionCanceled, got {other:?}"),
    }
}

// ---- TransactWriteItems ---------------------------------------------------------------

#[test]
fn a_transaction_applies_every_action() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "ACC#1", "SK" => "A", "balance" => 100 });
    put(&c, item! { "PK" => "OLD", "SK" => "1" });
    put(
        &c,
        item! { "PK" => "ORDER#1", "SK" => "A", "status" => "OPEN" },
    );
    c.transact_write_items()
        .transact_items(debit(key("ACC#1", "A"), "30"))
        .transact_items(put_action(item! { "PK" => "NEW", "SK" => "1" }))
        .transact_items(delete_action(key("OLD", "1")))
        .transact_items(check_status(key("ORDER#1", "A"), "OPEN", false))
        .send()
        .unwrap();
    assert_eq!(get(&c, "ACC#1", "A").unwrap()["balance"], n("70"));
    assert!(get(&c, "NEW", "1").is_some());
    assert_eq!(get(&c, "OLD", "1"), None);
}

#[test]
fn one_failed_condition_cancels_the_whole_transaction() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "ACC#1", "SK" => "A", "balance" => 10 });
    put(&c, item! { "PK" => "OLD", "SK" => "1" });
    let e = c
        .transact_write_items()
        .transact_items(put_action(item! { "PK" => "NEW", "SK" => "1" }))
        .transact_items(delete_action(key("OLD", "1")))
        .transact_items(debit(key("ACC#1", "A"), "30"))
        .send()
        .unwrap_err();
    assert_eq!(e.code(), Some("TransactionCanceledException"));
    assert!(
        !e.is_retryable(),
        "SDKs do not retry a cancelled transaction"
    );
    assert_eq!(get(&c, "NEW", "1"), None, "the put was not applied");
    assert!(get(&c, "OLD", "1").is_some(), "the delete was not applied");
    assert_eq!(get(&c, "ACC#1", "A").unwrap()["balance"], n("10"));
}

#[test]
fn cancellation_reasons_have_one_entry_per_action_in_order() {
    let (_w, c) = app();
    put(
        &c,
        item! { "PK" => "ORDER#1", "SK" => "A", "status" => "SHIPPED" },
    );
    put(&c, item! { "PK" => "ACC#1", "SK" => "A", "balance" => 10 });
    put(&c, item! { "PK" => "OLD", "SK" => "1" });
    let e = c
        .transact_write_items()
        .transact_items(put_action(item! { "PK" => "NEW", "SK" => "1" }))
        .transact_items(check_status(key("ORDER#1", "A"), "OPEN", true))
        .transact_items(delete_action(key("OLD", "1")))
        .transact_items(debit(key("ACC#1", "A"), "30"))
        .send()
        .unwrap_err();
    let (message, reasons) = canceled(e);
    assert_eq!(
        message,
        "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, None, ConditionalCheckFailed]"
    );
    let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code()).collect();
    assert_eq!(
        codes,
        [
            "None",
            "ConditionalCheckFailed",
            "None",
            "ConditionalCheckFailed"
        ]
    );
    assert_eq!(reasons[0].message(), None);
    assert_eq!(reasons[0].item(), None);
    assert_eq!(reasons[1].message(), Some("The conditional request failed"));
    assert_eq!(
        reasons[1].item(),
        Some(&item! { "PK" => "ORDER#1", "SK" => "A", "status" => "SHIPPED" }),
        "ALL_OLD was asked for: the reason carries the current item"
    );
    assert_eq!(
        reasons[3].item(),
        None,
        "ALL_OLD was not asked for: no item"
    );
}

#[test]
fn an_update_that_cannot_apply_is_a_validation_error_reason() {
    let (_w, c) = app();
    put(
        &c,
        item! { "PK" => "ACC#1", "SK" => "A", "balance" => "lots" },
    );
    let e = c
        .transact_write_items()
        .transact_items(put_action(item! { "PK" => "NEW", "SK" => "1" }))
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name("app")
                        .set_key(Some(key("ACC#1", "A")))
                        .update_expression("SET balance = balance - :a")
                        .expression_attribute_values(":a", n("1"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap_err();
    let (message, reasons) = canceled(e);
    assert_eq!(
        message,
        "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]"
    );
    assert_eq!(reasons[1].code(), Some("ValidationError"));
    assert_eq!(
        reasons[1].message(),
        Some("An operand in the update expression has an incorrect data type")
    );
    assert_eq!(get(&c, "NEW", "1"), None);
}

#[test]
fn two_actions_on_one_item_are_rejected() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "A", "SK" => "1", "status" => "OPEN" });
    let e = c
        .transact_write_items()
        .transact_items(check_status(key("A", "1"), "OPEN", false))
        .transact_items(put_action(item! { "PK" => "B", "SK" => "1" }))
        .transact_items(delete_action(key("A", "1")))
        .send();
    assert_eq!(
        message(e),
        "Transaction request cannot include multiple operations on one item"
    );
    assert!(get(&c, "A", "1").is_some());
    assert_eq!(get(&c, "B", "1"), None);
}

#[test]
fn a_transaction_takes_100_actions_but_not_101() {
    let (_w, c) = app();
    let actions = |count: usize| -> Vec<TransactWriteItem> {
        (0..count)
            .map(|i| put_action(item! { "PK" => format!("K{i:03}"), "SK" => "A" }))
            .collect()
    };
    let e = c
        .transact_write_items()
        .set_transact_items(Some(actions(101)))
        .send();
    assert_echoed(
        &message(e),
        "[TransactWriteItem(conditionCheck=null, put=Put(item={PK=AttributeValue(s=K000, ",
        "'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
    );
    assert_eq!(get(&c, "K000", "A"), None);
    c.transact_write_items()
        .set_transact_items(Some(actions(100)))
        .send()
        .unwrap();
    assert!(get(&c, "K099", "A").is_some());
}

#[test]
fn an_empty_transaction_is_rejected() {
    let (_w, c) = app();
    let e = c.transact_write_items().send();
    assert_eq!(
        message(e),
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
}

#[test]
fn a_condition_check_needs_a_condition_expression() {
    let (_w, c) = app();
    // The SDK's builder refuses it first, naming the field...
    let built = ConditionCheck::builder()
        .table_name("app")
        .set_key(Some(key("A", "1")))
        .build();
    let e = built.expect_err("no condition expression");
    assert!(e.to_string().contains("condition_expression"), "{e}");
    // ...and a shape made without the builder is DynamoDB's to refuse.
    let check = ConditionCheck {
        table_name: Some("app".into()),
        key: Some(key("A", "1")),
        ..ConditionCheck::default()
    };
    let e = c
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().condition_check(check).build())
        .send();
    assert_eq!(
        message(e),
        "The parameter 'ConditionExpression' is required but was not present in the request"
    );
}

#[test]
fn a_transactional_write_costs_twice_a_plain_one() {
    let (_w, c) = app();
    put(&c, sized("OLD", "1", 3584)); // 3.5 KB ⇒ 4 units plain, 8 transactional
    let out = c
        .transact_write_items()
        .transact_items(put_action(sized("NEW", "1", 1536))) // 1.5 KB ⇒ 2, doubled 4
        .transact_items(delete_action(key("OLD", "1")))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let cc = out.consumed_capacity.unwrap();
    assert_eq!(cc.len(), 1);
    assert_eq!(cc[0].table_name(), Some("app"));
    assert_eq!(cc[0].capacity_units, Some(12.0));
    assert_eq!(cc[0].write_capacity_units, Some(12.0));
}

// ---- idempotency ----------------------------------------------------------------------

fn set_v(c: &engine::Client, v: i64, token: &str) -> engine::Result<()> {
    c.transact_write_items()
        .transact_items(put_action(item! { "PK" => "A", "SK" => "1", "v" => v }))
        .client_request_token(token)
        .send()?;
    Ok(())
}

#[test]
fn a_replayed_token_succeeds_without_writing_again() {
    let (_w, c) = app();
    set_v(&c, 1, "token-1").unwrap();
    // Someone else changes the item in between.
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 2 });
    set_v(&c, 1, "token-1").expect("the retry succeeds");
    assert_eq!(
        get(&c, "A", "1").unwrap()["v"],
        n("2"),
        "the replay did not overwrite the newer item"
    );
}

#[test]
fn a_token_reused_with_other_parameters_is_a_mismatch() {
    let (_w, c) = app();
    set_v(&c, 1, "token-1").unwrap();
    let e = set_v(&c, 5, "token-1").unwrap_err();
    assert_eq!(e.code(), Some("IdempotentParameterMismatchException"));
    assert_eq!(
        e.message(),
        Some("Request has a ClientRequestToken that was already used with different parameters")
    );
    assert_eq!(get(&c, "A", "1").unwrap()["v"], n("1"));
}

#[test]
fn a_token_is_new_again_after_ten_minutes() {
    let (w, c) = app();
    set_v(&c, 1, "token-1").unwrap();
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 2 });
    w.advance(Duration::from_secs(9 * 60));
    set_v(&c, 1, "token-1").unwrap();
    assert_eq!(
        get(&c, "A", "1").unwrap()["v"],
        n("2"),
        "9 minutes later: still a replay"
    );
    w.advance(Duration::from_secs(61));
    set_v(&c, 1, "token-1").unwrap();
    assert_eq!(
        get(&c, "A", "1").unwrap()["v"],
        n("1"),
        "10 minutes and 1 second later: a new request, applied"
    );
    // …and with other parameters it is no longer a mismatch either, once expired.
    w.advance(Duration::from_secs(11 * 60));
    set_v(&c, 7, "token-1").unwrap();
    assert_eq!(get(&c, "A", "1").unwrap()["v"], n("7"));
}

#[test]
fn a_replay_reports_read_units_for_the_items_not_write_units() {
    let (_w, c) = app();
    let write = || {
        c.transact_write_items()
            .transact_items(put_action(sized("BIG", "1", 6656))) // 6.5 KB
            .transact_items(delete_action(key("MISSING", "1")))
            .client_request_token("token-cap")
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .unwrap()
            .consumed_capacity
            .unwrap()
    };
    let first = write();
    assert_eq!(first[0].write_capacity_units, Some(16.0), "(7 + 1) × 2");
    assert_eq!(first[0].read_capacity_units, None);
    let replay = write();
    assert_eq!(replay.len(), 1);
    assert_eq!(
        replay[0].write_capacity_units, None,
        "a replay writes nothing"
    );
    assert_eq!(
        replay[0].read_capacity_units,
        Some(3.0),
        "strong reads: 6.5 KB ⇒ 2 units, the missing item ⇒ 1"
    );
    assert_eq!(replay[0].capacity_units, Some(3.0));
}

#[test]
fn a_token_longer_than_36_characters_is_rejected() {
    let (_w, c) = app();
    let long = "x".repeat(37);
    let e = set_v(&c, 1, &long);
    assert_eq!(
        message(e),
        format!("1 validation error detected: Value '{long}' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36")
    );
    set_v(&c, 1, &"y".repeat(36)).unwrap();
}

// ---- TransactGetItems -----------------------------------------------------------------

#[test]
fn transact_get_answers_in_request_order_with_none_for_missing_items() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "B", "SK" => "1", "v" => 2 });
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 1 });
    let out = c
        .transact_get_items()
        .transact_items(get_action(key("B", "1")))
        .transact_items(get_action(key("MISSING", "1")))
        .transact_items(get_action(key("A", "1")))
        .send()
        .unwrap();
    let responses = out.responses();
    assert_eq!(responses.len(), 3);
    assert_eq!(responses[0].item().unwrap()["v"], n("2"));
    assert_eq!(responses[1].item(), None);
    assert_eq!(responses[2].item().unwrap()["v"], n("1"));
}

#[test]
fn transact_get_applies_a_projection() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "A", "SK" => "1", "v" => 1, "w" => 2 });
    let out = c
        .transact_get_items()
        .transact_items(
            TransactGetItem::builder()
                .get(
                    Get::builder()
                        .table_name("app")
                        .set_key(Some(key("A", "1")))
                        .projection_expression("w")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap();
    assert_eq!(out.responses()[0].item(), Some(&item! { "w" => 2 }));
}

#[test]
fn transact_get_costs_2_units_per_4_kb_per_item() {
    let (_w, c) = app();
    put(&c, sized("S", "1", 1536)); // 1 block ⇒ 2
    put(&c, sized("S", "2", 6656)); // 2 blocks ⇒ 4
    let out = c
        .transact_get_items()
        .transact_items(get_action(key("S", "1")))
        .transact_items(get_action(key("S", "2")))
        .transact_items(get_action(key("S", "3"))) // missing ⇒ 2
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let cc = out.consumed_capacity.unwrap();
    assert_eq!(cc[0].capacity_units, Some(8.0));
    assert_eq!(cc[0].read_capacity_units, Some(8.0));
}

#[test]
fn transact_get_limits_and_duplicates() {
    let (_w, c) = app();
    let mut req = c.transact_get_items();
    for i in 0..101 {
        req = req.transact_items(get_action(key(&format!("K{i:03}"), "A")));
    }
    assert_echoed(
        &message(req.send()),
        "[TransactGetItem(get=Get(key={PK=AttributeValue(s=K000, ",
        "'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
    );
    let mut req = c.transact_get_items();
    for i in 0..100 {
        req = req.transact_items(get_action(key(&format!("K{i:03}"), "A")));
    }
    assert_eq!(req.send().unwrap().responses().len(), 100);
    let e = c
        .transact_get_items()
        .transact_items(get_action(key("A", "1")))
        .transact_items(get_action(key("A", "1")))
        .send();
    assert_eq!(
        message(e),
        "Transaction request cannot include multiple operations on one item"
    );
    let e = c
        .transact_get_items()
        .transact_items(get_action(key("A", "1")))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send();
    assert_eq!(
        message(e),
        "1 validation error detected: Value 'INDEXES' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [TOTAL, NONE]"
    );
}
