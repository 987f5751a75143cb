//! Transactions: TransactWriteItems all or nothing, its cancellation reasons, ConditionCheck,
//! TransactGetItems.
//!
//! Each snippet below is written as it would be against `aws-sdk-dynamodb` 1.x and then edited
//! mechanically only; the edits are listed above each one. Common to every snippet of this
//! file: the imports read `engine::` where the SDK's read `aws_sdk_dynamodb::`.

#![allow(clippy::result_large_err)]

mod common;

use common::{n, put_items, s, users_world, BoxError};
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{
    AttributeValue, ConditionCheck, Get, Put, TransactGetItem, TransactWriteItem, Update,
};
use engine::Client;
use std::collections::HashMap;

// Snippet 33: transfer — debit one account (only if it holds enough), credit another and
// write an audit record, all or nothing. On cancellation, the reasons come back one per
// action, in order.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
// The engine's one documented difference: the `item` field → `into_item()`.
fn transfer(
    client: &Client,
    from: &str,
    to: &str,
    amount: i64,
    transfer_id: &str,
) -> Result<Result<(), Vec<String>>, Box<dyn std::error::Error>> {
    let debit = Update::builder()
        .table_name("Users")
        .key("username", AttributeValue::S(from.into()))
        .update_expression("SET balance = balance - :amount")
        .condition_expression("balance >= :amount")
        .expression_attribute_values(":amount", AttributeValue::N(amount.to_string()))
        .build()?;
    let credit = Update::builder()
        .table_name("Users")
        .key("username", AttributeValue::S(to.into()))
        .update_expression("SET balance = balance + :amount")
        .condition_expression("attribute_exists(username)")
        .expression_attribute_values(":amount", AttributeValue::N(amount.to_string()))
        .build()?;
    let audit = Put::builder()
        .table_name("Users")
        .item(
            "username",
            AttributeValue::S(format!("transfer#{transfer_id}")),
        )
        .item("amount", AttributeValue::N(amount.to_string()))
        .condition_expression("attribute_not_exists(username)")
        .build()?;

    let result = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(debit).build())
        .transact_items(TransactWriteItem::builder().update(credit).build())
        .transact_items(TransactWriteItem::builder().put(audit).build())
        .send();
    match result {
        Ok(_) => Ok(Ok(())),
        Err(err) => match err.into_service_error() {
            TransactWriteItemsError::TransactionCanceledException(e) => Ok(Err(e
                .cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or_default().to_string())
                .collect())),
            other => Err(other.into()),
        },
    }
}

fn balance(client: &Client, username: &str) -> Result<String, BoxError> {
    let item = client
        .get_item()
        .table_name("Users")
        .key("username", s(username))
        .consistent_read(true)
        .send()?
        .into_item()
        .ok_or("no such account")?;
    Ok(item["balance"]
        .as_n()
        .map_err(|_| "balance is not a number")?
        .clone())
}

fn accounts_world() -> Result<(engine::World, Client), BoxError> {
    let (world, client) = users_world()?;
    let account = |name: &str, balance: i64| {
        HashMap::from([
            ("username".to_string(), s(name)),
            ("balance".to_string(), n(balance)),
        ])
    };
    put_items(
        &client,
        "Users",
        vec![account("ana", 100), account("bob", 20)],
    )?;
    Ok((world, client))
}

#[test]
fn transfer_moves_money_and_records_it() -> Result<(), BoxError> {
    let (_world, client) = accounts_world()?;

    assert_eq!(transfer(&client, "ana", "bob", 30, "t-1")?, Ok(()));
    assert_eq!(
        (balance(&client, "ana")?, balance(&client, "bob")?),
        ("70".into(), "50".into())
    );
    assert!(client
        .get_item()
        .table_name("Users")
        .key("username", s("transfer#t-1"))
        .consistent_read(true)
        .send()?
        .item()
        .is_some());
    Ok(())
}

#[test]
fn transfer_is_cancelled_whole_and_says_which_action_failed() -> Result<(), BoxError> {
    let (_world, client) = accounts_world()?;

    // bob holds 20: the debit's condition fails, the other two actions were fine.
    assert_eq!(
        transfer(&client, "bob", "ana", 50, "t-2")?,
        Err(vec![
            "ConditionalCheckFailed".to_string(),
            "None".to_string(),
            "None".to_string()
        ])
    );
    assert_eq!(
        (balance(&client, "ana")?, balance(&client, "bob")?),
        ("100".into(), "20".into())
    );
    // A replayed transfer id fails the audit put's condition, the third action.
    assert_eq!(transfer(&client, "ana", "bob", 10, "t-3")?, Ok(()));
    assert_eq!(
        transfer(&client, "ana", "bob", 10, "t-3")?,
        Err(vec![
            "None".to_string(),
            "None".to_string(),
            "ConditionalCheckFailed".to_string()
        ])
    );
    assert_eq!(balance(&client, "ana")?, "90");
    Ok(())
}

// Snippet 34: place_order — a ConditionCheck on one item guards a Put of another.
// Mechanical edits: `async fn` → `fn`; `.send().await` → `.send()`.
fn place_order(
    client: &Client,
    customer: &str,
    order_id: &str,
) -> Result<bool, Box<dyn std::error::Error>> {
    let customer_exists = ConditionCheck::builder()
        .table_name("Users")
        .key("username", AttributeValue::S(customer.into()))
        .condition_expression("attribute_exists(username)")
        .build()?;
    let order = Put::builder()
        .table_name("Users")
        .item("username", AttributeValue::S(format!("order#{order_id}")))
        .item("customer", AttributeValue::S(customer.into()))
        .build()?;
    let result = client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .condition_check(customer_exists)
                .build(),
        )
        .transact_items(TransactWriteItem::builder().put(order).build())
        .send();
    match result {
        Ok(_) => Ok(true),
        Err(err)
            if err
                .as_service_error()
                .map(|e| e.is_transaction_canceled_exception())
                == Some(true) =>
        {
            Ok(false)
        }
        Err(err) => Err(err.into()),
    }
}

#[test]
fn place_order_writes_only_for_a_known_customer() -> Result<(), BoxError> {
    let (_world, client) = accounts_world()?;

    assert!(place_order(&client, "ana", "o-1")?);
    assert!(!place_order(&client, "zed", "o-2")?);
    let exists = |id: &str| -> Result<bool, BoxError> {
        Ok(client
            .get_item()
            .table_name("Users")
            .key("username", s(id))
            .consistent_read(true)
            .send()?
            .item()
            .is_some())
    };
    assert!(exists("order#o-1")?);
    assert!(!exists("order#o-2")?);
    Ok(())
}

// Snippet 35: read_balances — TransactGetItems: one ItemResponse per Get, in request order, an
// empty one where no item exists.
// Mechanical edits: `async fn` → `fn`; `.send().await?` → `.send()?`.
fn read_balances(
    client: &Client,
    usernames: &[&str],
) -> Result<Vec<Option<String>>, Box<dyn std::error::Error>> {
    let mut request = client.transact_get_items();
    for username in usernames {
        let get = Get::builder()
            .table_name("Users")
            .key("username", AttributeValue::S(username.to_string()))
            .projection_expression("balance")
            .build()?;
        request = request.transact_items(TransactGetItem::builder().get(get).build());
    }
    let resp = request.send()?;
    Ok(resp
        .responses()
        .iter()
        .map(|r| {
            r.item()
                .and_then(|item| item.get("balance"))
                .and_then(|b| b.as_n().ok())
                .cloned()
        })
        .collect())
}

#[test]
fn read_balances_answers_in_request_order() -> Result<(), BoxError> {
    let (_world, client) = accounts_world()?;
    assert_eq!(
        read_balances(&client, &["bob", "nobody", "ana"])?,
        [Some("20".to_string()), None, Some("100".to_string())]
    );
    Ok(())
}
