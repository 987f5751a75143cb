//! Errors: the SDK's layers — `SdkError<OpError>`, the per-operation enums, the service-wide
//! `Error` that `?` converts into, `ProvideErrorMetadata`, `DisplayErrorContext`, and the
//! `BuildError` of a builder missing a required field.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use common::{s, users_world, BoxError, SEED};
use engine::error::{DisplayErrorContext, ProvideErrorMetadata};
use engine::operation::create_table::CreateTableError;
use engine::operation::describe_table::DescribeTableError;
use engine::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use engine::{Client, Error, World};

// Snippet 36: does_table_exist — DescribeTable, telling "no such table" from real failures by
// matching the operation's error enum.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn does_table_exist(client: &Client, table: &str) -> Result<bool, Error> {
    match client.describe_table().table_name(table).send() {
        Ok(_) => Ok(true),
        Err(err) => match err.into_service_error() {
            DescribeTableError::ResourceNotFoundException(_) => Ok(false),
            other => Err(other.into()),
        },
    }
}

#[test]
fn does_table_exist_answers_false_for_a_missing_table() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    assert!(does_table_exist(&client, "Users")?);
    assert!(!does_table_exist(&client, "Orders")?);
    Ok(())
}

// Snippet 37: get_email — `?` turns `SdkError<GetItemError>` into the service-wide `Error`,
// whose variants name DynamoDB's exceptions.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn get_email(client: &Client, table: &str, username: &str) -> Result<Option<String>, Error> {
    let resp = client
        .get_item()
        .table_name(table)
        .key("username", AttributeValue::S(username.into()))
        .send()?;
    Ok(resp
        .item()
        .and_then(|i| i.get("email"))
        .and_then(|e| e.as_s().ok())
        .cloned())
}

#[test]
fn get_email_on_a_missing_table_is_a_resource_not_found_error() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;

    let err = get_email(&client, "Accounts", "ana").expect_err("there is no Accounts table");
    assert!(
        matches!(err, Error::ResourceNotFoundException(_)),
        "expected ResourceNotFoundException, got {err:?}"
    );
    assert_eq!(get_email(&client, "Users", "ana")?, None);
    Ok(())
}

// Snippet 38: put_without_key — a ValidationException read through ProvideErrorMetadata: the
// error code and DynamoDB's message, as a log line would print them.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn put_without_key(client: &Client) -> Option<(String, String)> {
    let err = client
        .put_item()
        .table_name("Users")
        .item("email", AttributeValue::S("ana@example.com".into()))
        .send()
        .err()?;
    Some((
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    ))
}

#[test]
fn put_without_key_is_a_validation_exception_with_dynamodbs_message() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    assert_eq!(
        put_without_key(&client),
        Some((
            "ValidationException".to_string(),
            "One or more parameter values were invalid: Missing the key username in the item"
                .to_string()
        ))
    );
    Ok(())
}

// Snippet 39: create_users_table — CreateTable twice: the second is a ResourceInUseException,
// recognised with the `is_*` helper through `as_service_error()`; the error prints with
// DisplayErrorContext, as the SDK's docs advise.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn create_users_table(client: &Client) -> Result<&'static str, Box<dyn std::error::Error>> {
    let result = client
        .create_table()
        .table_name("Users")
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("username")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("username")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send();
    match result {
        Ok(_) => Ok("created"),
        Err(err)
            if err
                .as_service_error()
                .is_some_and(CreateTableError::is_resource_in_use_exception) =>
        {
            Ok("already there")
        }
        Err(err) => Err(format!("CreateTable failed: {}", DisplayErrorContext(&err)).into()),
    }
}

#[test]
fn create_users_table_tolerates_an_existing_table() -> Result<(), BoxError> {
    let world = World::new(SEED);
    let client = world.client();
    assert_eq!(create_users_table(&client)?, "created");
    assert_eq!(create_users_table(&client)?, "already there");
    Ok(())
}

// Snippet 40: key_without_type — a builder missing a required field: `build()` returns a BuildError that names
// the field, before any request is sent.
// Mechanical edits: none (no I/O).
fn key_without_type() -> Result<KeySchemaElement, engine::error::BuildError> {
    KeySchemaElement::builder()
        .attribute_name("username")
        .build()
}

#[test]
fn a_key_schema_element_without_its_type_does_not_build() {
    let err = key_without_type().expect_err("key_type is required");
    assert!(
        err.to_string().contains("key_type"),
        "the error names the field: {err}"
    );
}

// Snippet 41: describe_error_code — DescribeTable of a missing table, matched on
// `SdkError::ServiceError` and read with `err()`, then `code()`.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn describe_error_code(client: &Client, table: &str) -> Option<String> {
    match client.describe_table().table_name(table).send() {
        Ok(_) => None,
        Err(engine::error::SdkError::ServiceError(service_err)) => {
            service_err.err().code().map(str::to_string)
        }
        Err(other) => Some(format!("not a service error: {other:?}")),
    }
}

#[test]
fn describe_error_code_is_resource_not_found_for_a_missing_table() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    assert_eq!(
        describe_error_code(&client, "Orders"),
        Some("ResourceNotFoundException".to_string())
    );
    assert_eq!(describe_error_code(&client, "Users"), None);
    // The item write that fails a condition reports its own code the same way.
    let err = client
        .put_item()
        .table_name("Users")
        .item("username", s("ana"))
        .condition_expression("attribute_exists(username)")
        .send()
        .expect_err("the item does not exist");
    assert_eq!(err.code(), Some("ConditionalCheckFailedException"));
    assert_eq!(err.message(), Some("The conditional request failed"));
    Ok(())
}
