//! Scenario tests for the single-item operations: PutItem, GetItem, UpdateItem, DeleteItem.
mod common;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::operation::update_item::UpdateItemError;
use engine::types::{ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{item, AttributeValue};

#[test]
fn put_then_strong_get_returns_the_item_and_put_replaces_it_whole() {
    let (_w, c) = app();
    put(
        &c,
        item! { "PK" => "USER#1", "SK" => "PROFILE", "name" => "Ana", "plan" => "pro" },
    );
    put(
        &c,
        item! { "PK" => "USER#1", "SK" => "PROFILE", "name" => "Ana B." },
    );
    let got = get(&c, "USER#1", "PROFILE").unwrap();
    assert_eq!(
        got,
        item! { "PK" => "USER#1", "SK" => "PROFILE", "name" => "Ana B." }
    );
}

#[test]
fn get_of_a_missing_item_has_no_item_and_costs_the_minimum() {
    let (_w, c) = app();
    let out = c
        .get_item()
        .table_name("app")
        .key("PK", s("nope"))
        .key("SK", s("x"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert!(out.item().is_none());
    assert_eq!(out.consumed_capacity().unwrap().capacity_units, Some(0.5));
}

#[test]
fn get_cost_is_the_whole_item_rounded_to_4kb_even_with_a_projection() {
    let (_w, c) = app();
    let big = "x".repeat(6 * 1024);
    put(
        &c,
        item! { "PK" => "A", "SK" => "B", "blob" => big.as_str(), "small" => 1 },
    );
    let strong = c
        .get_item()
        .table_name("app")
        .key("PK", s("A"))
        .key("SK", s("B"))
        .projection_expression("small")
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(strong.item().unwrap(), &item! { "small" => 1 });
    assert_eq!(
        strong.consumed_capacity().unwrap().capacity_units,
        Some(2.0)
    );
}

#[test]
fn conditional_put_create_only_fails_the_second_time_and_carries_the_item_when_asked() {
    let (_w, c) = app();
    let create = |name: &str| {
        c.put_item()
            .table_name("app")
            .set_item(Some(item! { "PK" => "U", "SK" => "P", "name" => name }))
            .condition_expression("attribute_not_exists(PK)")
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
    };
    create("first").unwrap();
    let err = create("second").unwrap_err();
    match err.into_service_error() {
        PutItemError::ConditionalCheckFailedException(e) => {
            assert_eq!(e.message(), Some("The conditional request failed"));
            assert_eq!(e.item().unwrap()["name"], s("first"));
        }
        other => panic!("expected ConditionalCheckFailed, got {other:?}"),
    }
    assert_eq!(
        get(&c, "U", "P").unwrap()["name"],
        s("first"),
        "a failed condition writes nothing"
    );
}

#[test]
fn put_return_values_all_old_and_rejects_all_new() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "A", "SK" => "B", "v" => 1 });
    let out = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "A", "SK" => "B", "v" => 2 }))
        .return_values(ReturnValue::AllOld)
        .send()
        .unwrap();
    assert_eq!(out.attributes().unwrap()["v"], n("1"));
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "A", "SK" => "B" }))
        .return_values(ReturnValue::AllNew)
        .send();
    assert_eq!(message(e), "ReturnValues can only be ALL_OLD or NONE");
}

#[test]
fn update_is_an_upsert_and_an_atomic_counter() {
    let (_w, c) = app();
    for _ in 0..3 {
        c.update_item()
            .table_name("app")
            .key("PK", s("POST#1"))
            .key("SK", s("LIKES"))
            .update_expression("ADD likes :one")
            .expression_attribute_values(":one", n("1"))
            .send()
            .unwrap();
    }
    assert_eq!(get(&c, "POST#1", "LIKES").unwrap()["likes"], n("3"));
}

#[test]
fn update_with_condition_decrements_stock_and_never_below_zero() {
    let (_w, c) = app();
    put(
        &c,
        item! { "PK" => "PRODUCT#7", "SK" => "STOCK", "qty" => 3 },
    );
    let reserve = |q: &str| {
        c.update_item()
            .table_name("app")
            .key("PK", s("PRODUCT#7"))
            .key("SK", s("STOCK"))
            .update_expression("SET qty = qty - :n")
            .condition_expression("qty >= :n")
            .expression_attribute_values(":n", n(q))
            .return_values(ReturnValue::UpdatedNew)
            .send()
    };
    assert_eq!(
        reserve("2").unwrap().attributes().unwrap(),
        &item! { "qty" => 1 }
    );
    assert!(matches!(
        reserve("2").map_err(SdkError::into_service_error),
        Err(UpdateItemError::ConditionalCheckFailedException(_))
    ));
    assert_eq!(get(&c, "PRODUCT#7", "STOCK").unwrap()["qty"], n("1"));
}

#[test]
fn update_return_values_cover_all_five_modes() {
    let (_w, c) = app();
    put(
        &c,
        item! { "PK" => "A", "SK" => "B", "a" => 1, "b" => "keep" },
    );
    let run = |rv| {
        c.update_item()
            .table_name("app")
            .key("PK", s("A"))
            .key("SK", s("B"))
            .update_expression("SET a = a + :d")
            .expression_attribute_values(":d", n("1"))
            .return_values(rv)
            .send()
            .unwrap()
            .attributes
    };
    assert_eq!(run(ReturnValue::None), None);
    assert_eq!(run(ReturnValue::UpdatedOld).unwrap(), item! { "a" => 2 });
    assert_eq!(run(ReturnValue::UpdatedNew).unwrap(), item! { "a" => 4 });
    assert_eq!(
        run(ReturnValue::AllOld).unwrap(),
        item! { "PK" => "A", "SK" => "B", "a" => 4, "b" => "keep" }
    );
    assert_eq!(
        run(ReturnValue::AllNew).unwrap(),
        item! { "PK" => "A", "SK" => "B", "a" => 6, "b" => "keep" }
    );
}

#[test]
fn update_cannot_touch_key_attributes() {
    let (_w, c) = app();
    let e = c
        .update_item()
        .table_name("app")
        .key("PK", s("A"))
        .key("SK", s("B"))
        .update_expression("SET SK = :v")
        .expression_attribute_values(":v", s("C"))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Cannot update attribute SK. This attribute is part of the key"
    );
    assert_eq!(get(&c, "A", "B"), None);
}

#[test]
fn delete_is_idempotent_and_returns_the_old_item() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "A", "SK" => "B", "v" => 1 });
    let out = c
        .delete_item()
        .table_name("app")
        .key("PK", s("A"))
        .key("SK", s("B"))
        .return_values(ReturnValue::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.attributes().unwrap()["v"], n("1"));
    let again = c
        .delete_item()
        .table_name("app")
        .key("PK", s("A"))
        .key("SK", s("B"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(again.attributes(), None);
    assert_eq!(again.consumed_capacity().unwrap().capacity_units, Some(1.0));
}

#[test]
fn keys_must_match_the_schema() {
    let (_w, c) = app();
    let e = c.get_item().table_name("app").key("PK", s("A")).send();
    assert_eq!(
        message(e),
        "The provided key element does not match the schema"
    );
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "A" }))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Missing the key SK in the item"
    );
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "A", "SK" => 5 }))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Type mismatch for key SK expected: S actual: N"
    );
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "", "SK" => "x" }))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: PK"
    );
}

#[test]
fn key_size_limits_at_the_boundary() {
    let (_w, c) = app();
    let pk_ok = "p".repeat(2048);
    let sk_ok = "s".repeat(1024);
    c.put_item()
        .table_name("app")
        .set_item(Some(
            item! { "PK" => pk_ok.as_str(), "SK" => sk_ok.as_str() },
        ))
        .send()
        .unwrap();
    let pk_over = "p".repeat(2049);
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => pk_over.as_str(), "SK" => "x" }))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
    );
    let sk_over = "s".repeat(1025);
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "x", "SK" => sk_over.as_str() }))
        .send();
    assert_eq!(
        message(e),
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    );
}

#[test]
fn item_size_limit_is_400_kb_exactly() {
    let (_w, c) = app();
    // PK(2+1) + SK(2+1) + "d"(1) + value = 409,600 bytes.
    let fits = "x".repeat(409_600 - 7);
    c.put_item()
        .table_name("app")
        .set_item(Some(
            item! { "PK" => "a", "SK" => "b", "d" => fits.as_str() },
        ))
        .send()
        .unwrap();
    let over = "x".repeat(409_600 - 6);
    let e = c
        .put_item()
        .table_name("app")
        .set_item(Some(
            item! { "PK" => "a", "SK" => "c", "d" => over.as_str() },
        ))
        .send();
    assert_eq!(
        message(e),
        "Item size has exceeded the maximum allowed size"
    );
    let e = c
        .update_item()
        .table_name("app")
        .key("PK", s("a"))
        .key("SK", s("b"))
        .update_expression("SET e = :v")
        .expression_attribute_values(":v", s("y"))
        .send();
    assert_eq!(
        message(e),
        "Item size to update has exceeded the maximum allowed size"
    );
}

#[test]
fn missing_table_is_resource_not_found() {
    let (_w, c) = app();
    let e = c
        .get_item()
        .table_name("nope")
        .key("PK", s("a"))
        .send()
        .unwrap_err();
    assert_eq!(e.code(), Some("ResourceNotFoundException"));
    assert!(!e.is_retryable());
}

#[test]
fn empty_strings_are_allowed_outside_keys() {
    let (_w, c) = app();
    put(&c, item! { "PK" => "a", "SK" => "b", "note" => "" });
    assert_eq!(
        get(&c, "a", "b").unwrap()["note"],
        AttributeValue::S(String::new())
    );
}

#[test]
fn write_cost_is_the_larger_of_before_and_after_per_kb() {
    let (_w, c) = app();
    let kb3 = "x".repeat(3 * 1024);
    let out = c
        .put_item()
        .table_name("app")
        .set_item(Some(
            item! { "PK" => "a", "SK" => "b", "d" => kb3.as_str() },
        ))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.consumed_capacity().unwrap().capacity_units, Some(4.0));
    // Shrinking the item still pays for the larger, old version.
    let out = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "a", "SK" => "b" }))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.consumed_capacity().unwrap().capacity_units, Some(4.0));
}
