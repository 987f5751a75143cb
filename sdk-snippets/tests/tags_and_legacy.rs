//! Tags by ARN, and the legacy (pre-expression) parameters old code still sends.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use common::{movies_world, n, s, users_world, BoxError};
use engine::types::{
    AttributeAction, AttributeValue, AttributeValueUpdate, ComparisonOperator, Condition,
    ExpectedAttributeValue, ReturnValue, Tag,
};
use engine::{Client, Error};

// Snippet 51: tag_table — look up the table's ARN, add a tag, list the tags back.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn tag_table(client: &Client, table: &str, key: &str, value: &str) -> Result<Vec<Tag>, BoxError> {
    let arn = client
        .describe_table()
        .table_name(table)
        .send()?
        .table()
        .and_then(|t| t.table_arn())
        .ok_or("the table has no ARN")?
        .to_string();
    client
        .tag_resource()
        .resource_arn(&arn)
        .tags(Tag::builder().key(key).value(value).build()?)
        .send()?;
    let listed = client.list_tags_of_resource().resource_arn(&arn).send()?;
    Ok(listed.tags().to_vec())
}

#[test]
fn tag_table_adds_a_tag_and_lists_it() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;

    let tags = tag_table(&client, "Users", "team", "identity")?;
    assert_eq!(tags.len(), 1);
    assert_eq!((tags[0].key(), tags[0].value()), ("team", "identity"));
    let again = tag_table(&client, "Users", "team", "accounts")?;
    assert_eq!(again.len(), 1, "an existing key takes the new value");
    assert_eq!(again[0].value(), "accounts");
    Ok(())
}

// Snippet 52: movies_in_year_legacy — the pre-2014 Query: KeyConditions instead of a
// KeyConditionExpression, AttributesToGet instead of a ProjectionExpression.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn movies_in_year_legacy(client: &Client, year: u16) -> Result<Vec<String>, BoxError> {
    let out = client
        .query()
        .table_name("Movies")
        .key_conditions(
            "year",
            Condition::builder()
                .comparison_operator(ComparisonOperator::Eq)
                .attribute_value_list(AttributeValue::N(year.to_string()))
                .build()?,
        )
        .attributes_to_get("title")
        .consistent_read(true)
        .send()?;
    Ok(out
        .items()
        .iter()
        .filter_map(|item| item.get("title")?.as_s().ok().cloned())
        .collect())
}

#[test]
fn movies_in_year_legacy_reads_one_year_in_title_order() -> Result<(), BoxError> {
    let (_world, client) = movies_world()?;

    assert_eq!(
        movies_in_year_legacy(&client, 2014)?,
        vec!["Interstellar", "Whiplash"]
    );
    assert_eq!(movies_in_year_legacy(&client, 1999)?, Vec::<String>::new());
    Ok(())
}

// Snippet 53: add_points_if_member — the pre-2014 UpdateItem: AttributeUpdates (ADD to a
// counter) guarded by Expected (the item must have `member = true`).
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn add_points_if_member(
    client: &Client,
    username: &str,
    points: i64,
) -> Result<Option<String>, Error> {
    let result = client
        .update_item()
        .table_name("Users")
        .key("username", AttributeValue::S(username.into()))
        .attribute_updates(
            "points",
            AttributeValueUpdate::builder()
                .action(AttributeAction::Add)
                .value(AttributeValue::N(points.to_string()))
                .build(),
        )
        .expected(
            "member",
            ExpectedAttributeValue::builder()
                .value(AttributeValue::Bool(true))
                .build(),
        )
        .return_values(ReturnValue::UpdatedNew)
        .send();
    match result {
        Ok(out) => Ok(out
            .attributes()
            .and_then(|a| a.get("points"))
            .and_then(|v| v.as_n().ok().cloned())),
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

#[test]
fn add_points_if_member_counts_for_members_only() -> Result<(), BoxError> {
    let (_world, client) = users_world()?;
    client
        .put_item()
        .table_name("Users")
        .item("username", s("ana"))
        .item("member", AttributeValue::Bool(true))
        .item("points", n(10))
        .send()?;
    client
        .put_item()
        .table_name("Users")
        .item("username", s("bo"))
        .send()?;

    assert_eq!(
        add_points_if_member(&client, "ana", 5)?,
        Some("15".to_string())
    );
    assert_eq!(
        add_points_if_member(&client, "bo", 5)?,
        None,
        "bo is not a member"
    );
    Ok(())
}
