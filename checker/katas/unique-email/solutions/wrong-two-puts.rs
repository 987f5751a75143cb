//! Known wrong: `register` writes the user and the guard with two PutItems, each create-only.
//! Each write is atomic on its own item only: a failed request or a crash between them leaves
//! half a user.

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Delete, Put, TransactWriteItem, Update};
use engine::{AttributeValue, CancellationReason, Client, Item};
use given::{email_pk, user_pk, AccountError, NewUser, TABLE};

/// Actions one TransactWriteItems may hold (DynamoDB's limit since September 2022).
const MAX_ACTIONS: usize = 100;
/// Each member of a team is two actions: the user and the guard.
const ACTIONS_PER_USER: usize = 2;

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn failed(reason: Option<&CancellationReason>) -> bool {
    reason.and_then(|r| r.code()) == Some("ConditionalCheckFailed")
}

/// A create-only Put of `item`.
fn create(item: Item) -> TransactWriteItem {
    let put = Put::builder()
        .table_name(TABLE)
        .set_item(Some(item))
        .condition_expression("attribute_not_exists(PK)")
        .build()
        .expect("table and item are set");
    TransactWriteItem::builder().put(put).build()
}

/// The two actions that register `user`: its item, then its email's guard.
fn user_actions(user: &NewUser) -> [TransactWriteItem; 2] {
    [
        create(Item::from([
            ("PK".to_string(), s(user_pk(&user.username))),
            ("username".to_string(), s(&user.username)),
            ("email".to_string(), s(&user.email)),
            ("name".to_string(), s(&user.name)),
        ])),
        create(Item::from([
            ("PK".to_string(), s(email_pk(&user.email))),
            ("username".to_string(), s(&user.username)),
        ])),
    ]
}

/// The cancellation reasons of a failed transaction (none if it failed otherwise).
fn reasons(err: &SdkError<TransactWriteItemsError>) -> &[CancellationReason] {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(e)) => e.cancellation_reasons(),
        _ => &[],
    }
}

/// The error of the first member (in team order) whose username or email was taken, reading
/// the reasons of `user_actions` sent member after member.
fn first_taken(team: &[NewUser], reasons: &[CancellationReason]) -> Option<AccountError> {
    team.iter().enumerate().find_map(|(i, user)| {
        if failed(reasons.get(ACTIONS_PER_USER * i)) {
            Some(AccountError::UsernameTaken {
                username: user.username.clone(),
            })
        } else if failed(reasons.get(ACTIONS_PER_USER * i + 1)) {
            Some(AccountError::EmailTaken {
                email: user.email.clone(),
            })
        } else {
            None
        }
    })
}

/// Sends `team` as one transaction, member after member.
fn register_all(client: &Client, team: &[NewUser]) -> Result<(), AccountError> {
    let actions: Vec<TransactWriteItem> = team.iter().flat_map(user_actions).collect();
    let Err(err) = client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()
    else {
        return Ok(());
    };
    Err(first_taken(team, reasons(&err)).unwrap_or_else(|| err.into()))
}

pub fn register(client: &Client, user: &NewUser) -> Result<(), AccountError> {
    let [user_item, guard] = [
        Item::from([
            ("PK".to_string(), s(user_pk(&user.username))),
            ("username".to_string(), s(&user.username)),
            ("email".to_string(), s(&user.email)),
            ("name".to_string(), s(&user.name)),
        ]),
        Item::from([
            ("PK".to_string(), s(email_pk(&user.email))),
            ("username".to_string(), s(&user.username)),
        ]),
    ];
    let put = |item: Item| {
        client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(PK)")
            .send()
    };
    if let Err(e) = put(user_item) {
        return Err(match e.into_service_error() {
            PutItemError::ConditionalCheckFailedException(_) => AccountError::UsernameTaken {
                username: user.username.clone(),
            },
            other => AccountError::Engine(other.into()),
        });
    }
    if let Err(e) = put(guard) {
        return Err(match e.into_service_error() {
            PutItemError::ConditionalCheckFailedException(_) => AccountError::EmailTaken {
                email: user.email.clone(),
            },
            other => AccountError::Engine(other.into()),
        });
    }
    Ok(())
}

pub fn change_email(client: &Client, username: &str, new_email: &str) -> Result<(), AccountError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s(user_pk(username)))
        .consistent_read(true)
        .send()?;
    let Some(user) = out.item() else {
        return Err(AccountError::NoSuchUser {
            username: username.to_string(),
        });
    };
    let old = user
        .get("email")
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default();
    if old == new_email {
        return Ok(());
    }
    let release = Delete::builder()
        .table_name(TABLE)
        .key("PK", s(email_pk(&old)))
        .condition_expression("username = :username")
        .expression_attribute_values(":username", s(username))
        .build()
        .expect("table and key are set");
    let claim = Put::builder()
        .table_name(TABLE)
        .item("PK", s(email_pk(new_email)))
        .item("username", s(username))
        .condition_expression("attribute_not_exists(PK)")
        .build()
        .expect("table and item are set");
    let update = Update::builder()
        .table_name(TABLE)
        .key("PK", s(user_pk(username)))
        .update_expression("SET email = :new")
        .condition_expression("email = :old")
        .expression_attribute_values(":new", s(new_email))
        .expression_attribute_values(":old", s(&old))
        .build()
        .expect("table, key and update expression are set");
    let Err(err) = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().delete(release).build())
        .transact_items(TransactWriteItem::builder().put(claim).build())
        .transact_items(TransactWriteItem::builder().update(update).build())
        .send()
    else {
        return Ok(());
    };
    let reasons = reasons(&err);
    if failed(reasons.first()) || failed(reasons.get(2)) {
        Err(AccountError::UserChanged {
            username: username.to_string(),
        })
    } else if failed(reasons.get(1)) {
        Err(AccountError::EmailTaken {
            email: new_email.to_string(),
        })
    } else {
        Err(err.into())
    }
}

pub fn register_team(client: &Client, team: &[NewUser]) -> Result<(), AccountError> {
    let max = MAX_ACTIONS / ACTIONS_PER_USER;
    if team.len() > max {
        return Err(AccountError::TooLarge {
            members: team.len(),
            max,
        });
    }
    if team.is_empty() {
        return Ok(());
    }
    register_all(client, team)
}
