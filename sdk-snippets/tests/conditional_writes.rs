//! Conditional writes: create-if-absent, optimistic locking, conditional deletes — and reading
//! the failed condition out of the SDK's error types.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use common::{n, s, users_world, BoxError};
use engine::error::SdkError;
use engine::operation::delete_item::DeleteItemError;
use engine::operation::put_item::PutItemError;
use engine::operation::update_item::UpdateItemError;
use engine::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use engine::{Client, Error};

// Snippet 14: register_username — PutItem only if no item has the key yet; a failed condition
// is an answer (`false`), not an error.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
// The engine's one documented difference: the `item` field → `into_item()`.
fn register_username(client: &Client, username: &str, email: &str) -> Result<bool, Error> {
    match client
        .put_item()
        .table_name("Users")
        .item("username", AttributeValue::S(username.into()))
        .item("email", AttributeValue::S(email.into()))
        .condition_expression("attribute_not_exists(username)")
        .send()
    {
        Ok(_) => Ok(true),
        Err(SdkError::ServiceError(err)) if err.err().is_conditional_check_failed_exception() => {
            Ok(false)
        }
        Err(err) => Err(err.into()),
    }
}

#[test]
fn register_username_takes_a_name_once_and_keeps_the_first_owner() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;

    assert!(register_username(&client, "ana", "ana@example.com")?);
    assert!(!register_username(&client, "ana", "impostor@example.com")?);
    let item = client
        .get_item()
        .table_name("Users")
        .key("username", s("ana"))
        .consistent_read(true)
        .send()?
        .into_item()
        .expect("the first put wrote the item");
    assert_eq!(item["email"], s("ana@example.com"));
    Ok(())
}

#[derive(Debug, PartialEq)]
enum Saved {
    Saved { version: String },
    Conflict { current_version: Option<String> },
}

// Snippet 15: save_with_version — optimistic locking: UpdateItem conditioned on the version
// read earlier; on a conflict, ReturnValuesOnConditionCheckFailure ALL_OLD hands back the
// current item inside the ConditionalCheckFailedException.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
// The engine's one documented difference: the `item` field → `into_item()`.
fn save_with_version(
    client: &Client,
    username: &str,
    email: &str,
    expected_version: &str,
) -> Result<Saved, Error> {
    let result = client
        .update_item()
        .table_name("Users")
        .key("username", AttributeValue::S(username.into()))
        .update_expression("SET email = :email, version = version + :one")
        .condition_expression("version = :expected")
        .expression_attribute_values(":email", AttributeValue::S(email.into()))
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .expression_attribute_values(":expected", AttributeValue::N(expected_version.into()))
        .return_values(ReturnValue::UpdatedNew)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send();
    match result {
        Ok(output) => {
            let version = output
                .attributes()
                .and_then(|a| a.get("version"))
                .and_then(|v| v.as_n().ok())
                .cloned()
                .unwrap_or_default();
            Ok(Saved::Saved { version })
        }
        Err(err) => match err.into_service_error() {
            UpdateItemError::ConditionalCheckFailedException(e) => Ok(Saved::Conflict {
                current_version: e
                    .item()
                    .and_then(|item| item.get("version"))
                    .and_then(|v| v.as_n().ok())
                    .cloned(),
            }),
            other => Err(other.into()),
        },
    }
}

#[test]
fn save_with_version_detects_a_lost_update_and_reports_the_current_version() -> Result<(), BoxError>
{
    let (_world, client) = users_world()?;
    client
        .put_item()
        .table_name("Users")
        .item("username", s("ana"))
        .item("email", s("ana@example.com"))
        .item("version", n(1))
        .send()?;

    // Two writers both read version 1; the first to write wins.
    assert_eq!(
        save_with_version(&client, "ana", "ana@work.example", "1")?,
        Saved::Saved {
            version: "2".into()
        }
    );
    assert_eq!(
        save_with_version(&client, "ana", "ana@home.example", "1")?,
        Saved::Conflict {
            current_version: Some("2".into())
        }
    );
    let item = client
        .get_item()
        .table_name("Users")
        .key("username", s("ana"))
        .consistent_read(true)
        .send()?
        .into_item()
        .expect("the item is still there");
    assert_eq!(item["email"], s("ana@work.example"));
    Ok(())
}

// Snippet 16: delete_if_inactive — DeleteItem with a condition; the failure is recognised
// through `as_service_error()` without consuming the error.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn delete_if_inactive(client: &Client, username: &str) -> Result<bool, SdkError<DeleteItemError>> {
    let result = client
        .delete_item()
        .table_name("Users")
        .key("username", AttributeValue::S(username.into()))
        .condition_expression("#s = :inactive")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":inactive", AttributeValue::S("inactive".into()))
        .send();
    match result {
        Ok(_) => Ok(true),
        Err(err)
            if err
                .as_service_error()
                .map(|e| e.is_conditional_check_failed_exception())
                == Some(true) =>
        {
            Ok(false)
        }
        Err(err) => Err(err),
    }
}

#[test]
fn delete_if_inactive_keeps_active_users() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    for (username, status) in [("ana", "active"), ("bob", "inactive")] {
        client
            .put_item()
            .table_name("Users")
            .item("username", s(username))
            .item("status", s(status))
            .send()?;
    }

    assert!(!delete_if_inactive(&client, "ana")?);
    assert!(delete_if_inactive(&client, "bob")?);
    // A missing item fails the condition too: `status` does not equal "inactive" on nothing.
    assert!(!delete_if_inactive(&client, "carol")?);
    let left = client
        .scan()
        .table_name("Users")
        .consistent_read(true)
        .send()?;
    assert_eq!(left.count(), 1);
    assert_eq!(left.items()[0]["username"], s("ana"));
    Ok(())
}

// Snippet 17: put_order_once — the same create-if-absent, matching the per-operation error
// enum after `into_service_error()`.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn put_order_once(client: &Client, order_id: &str) -> Result<&'static str, Error> {
    let result = client
        .put_item()
        .table_name("Users")
        .item("username", AttributeValue::S(order_id.into()))
        .condition_expression("attribute_not_exists(username)")
        .send();
    match result {
        Ok(_) => Ok("created"),
        Err(err) => match err.into_service_error() {
            PutItemError::ConditionalCheckFailedException(_) => Ok("duplicate"),
            other => Err(other.into()),
        },
    }
}

#[test]
fn put_order_once_tells_a_duplicate_from_a_creation() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    assert_eq!(put_order_once(&client, "order-1")?, "created");
    assert_eq!(put_order_once(&client, "order-1")?, "duplicate");
    assert_eq!(put_order_once(&client, "order-2")?, "created");
    Ok(())
}
