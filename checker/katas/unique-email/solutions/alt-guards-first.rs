//! # Kata: unique email — another correct route
//!
//! The actions in another order, and the reasons read by that order: a sign-up sends the
//! guard before the user; a team sends every user, then every guard (member i's reasons are at
//! i and n + i); a change of email updates the user first, then claims the new guard, then
//! deletes the old one (unconditionally: the user's condition already says the old guard is
//! the user's).

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Delete, Put, TransactWriteItem, Update};
use engine::{AttributeValue, CancellationReason, Client, Item};
use given::{email_pk, user_pk, AccountError, NewUser, TABLE};

/// DynamoDB: at most 100 actions per TransactWriteItems; a member is a user and a guard.
const MAX_TEAM: usize = 100 / 2;

fn s(text: impl Into<String>) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn condition_failed(reasons: &[CancellationReason], i: usize) -> bool {
    reasons.get(i).and_then(|r| r.code()) == Some("ConditionalCheckFailed")
}

fn cancellation_reasons(err: &SdkError<TransactWriteItemsError>) -> Vec<CancellationReason> {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(e)) => {
            e.cancellation_reasons().to_vec()
        }
        _ => Vec::new(),
    }
}

fn put_new(item: Item) -> TransactWriteItem {
    TransactWriteItem::builder()
        .put(
            Put::builder()
                .table_name(TABLE)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(PK)")
                .build()
                .expect("table and item are set"),
        )
        .build()
}

fn user_item(user: &NewUser) -> TransactWriteItem {
    let mut item = Item::new();
    item.insert("PK".into(), s(user_pk(&user.username)));
    item.insert("username".into(), s(&user.username));
    item.insert("email".into(), s(&user.email));
    item.insert("name".into(), s(&user.name));
    put_new(item)
}

fn guard_item(email: &str, username: &str) -> TransactWriteItem {
    let mut item = Item::new();
    item.insert("PK".into(), s(email_pk(email)));
    item.insert("username".into(), s(username));
    put_new(item)
}

pub fn register(client: &Client, user: &NewUser) -> Result<(), AccountError> {
    let sent = client
        .transact_write_items()
        .transact_items(guard_item(&user.email, &user.username))
        .transact_items(user_item(user))
        .send();
    let Err(err) = sent else { return Ok(()) };
    let reasons = cancellation_reasons(&err);
    if condition_failed(&reasons, 1) {
        Err(AccountError::UsernameTaken {
            username: user.username.clone(),
        })
    } else if condition_failed(&reasons, 0) {
        Err(AccountError::EmailTaken {
            email: user.email.clone(),
        })
    } else {
        Err(err.into())
    }
}

pub fn change_email(client: &Client, username: &str, new_email: &str) -> Result<(), AccountError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s(user_pk(username)))
        .consistent_read(true)
        .send()?;
    let old = match out.item().and_then(|u| u.get("email")) {
        Some(AttributeValue::S(old)) => old.clone(),
        _ => {
            return Err(AccountError::NoSuchUser {
                username: username.to_string(),
            })
        }
    };
    if old == new_email {
        return Ok(());
    }
    let update = Update::builder()
        .table_name(TABLE)
        .key("PK", s(user_pk(username)))
        .update_expression("SET #email = :new")
        .condition_expression("#email = :old")
        .expression_attribute_names("#email", "email")
        .expression_attribute_values(":new", s(new_email))
        .expression_attribute_values(":old", s(&old))
        .build()
        .expect("table, key and update expression are set");
    let delete = Delete::builder()
        .table_name(TABLE)
        .key("PK", s(email_pk(&old)))
        .build()
        .expect("table and key are set");
    let sent = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(update).build())
        .transact_items(guard_item(new_email, username))
        .transact_items(TransactWriteItem::builder().delete(delete).build())
        .send();
    let Err(err) = sent else { return Ok(()) };
    let reasons = cancellation_reasons(&err);
    if condition_failed(&reasons, 0) {
        Err(AccountError::UserChanged {
            username: username.to_string(),
        })
    } else if condition_failed(&reasons, 1) {
        Err(AccountError::EmailTaken {
            email: new_email.to_string(),
        })
    } else {
        Err(err.into())
    }
}

pub fn register_team(client: &Client, team: &[NewUser]) -> Result<(), AccountError> {
    let n = team.len();
    if n > MAX_TEAM {
        return Err(AccountError::TooLarge {
            members: n,
            max: MAX_TEAM,
        });
    }
    if n == 0 {
        return Ok(());
    }
    let users = team.iter().map(user_item);
    let guards = team.iter().map(|u| guard_item(&u.email, &u.username));
    let sent = client
        .transact_write_items()
        .set_transact_items(Some(users.chain(guards).collect()))
        .send();
    let Err(err) = sent else { return Ok(()) };
    let reasons = cancellation_reasons(&err);
    for (i, user) in team.iter().enumerate() {
        if condition_failed(&reasons, i) {
            return Err(AccountError::UsernameTaken {
                username: user.username.clone(),
            });
        }
        if condition_failed(&reasons, n + i) {
            return Err(AccountError::EmailTaken {
                email: user.email.clone(),
            });
        }
    }
    Err(err.into())
}
