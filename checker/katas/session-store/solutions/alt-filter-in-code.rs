//! # Kata: session store — an alternative solution
//!
//! Another route to the same effects: `sessions_of` queries the index by `user_id` alone and
//! drops the expired sessions in code (they are read and paid for, then left out — a
//! `FilterExpression` could not do it: it may not name `expires_at`, a key attribute of the
//! index); `refresh`'s condition names the TTL attribute through `ExpressionAttributeNames`
//! and spells out that the item exists; `login` builds the whole item.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::types::ReturnValue;
use engine::{AttributeValue, Client, Error, Item};
use given::{bad_item, Session, BY_USER, EXPIRES_AT, SESSION_LIFETIME_S, TABLE};

fn session_item(session: &Session) -> Item {
    Item::from([
        (
            "session_id".to_string(),
            AttributeValue::S(session.session_id.clone()),
        ),
        (
            "user_id".to_string(),
            AttributeValue::S(session.user_id.clone()),
        ),
        (
            EXPIRES_AT.to_string(),
            AttributeValue::N(session.expires_at.to_string()),
        ),
    ])
}

fn from_item(item: &Item) -> Option<Session> {
    Some(Session {
        session_id: item.get("session_id")?.as_s().ok()?.clone(),
        user_id: item.get("user_id")?.as_s().ok()?.clone(),
        expires_at: item.get(EXPIRES_AT)?.as_n().ok()?.parse().ok()?,
    })
}

fn parse(item: &Item) -> Result<Session, Error> {
    from_item(item).ok_or_else(|| bad_item("a session is not session_id, user_id, expires_at"))
}

pub fn login(client: &Client, session_id: &str, user_id: &str) -> Result<Session, Error> {
    let session = Session {
        session_id: session_id.to_string(),
        user_id: user_id.to_string(),
        expires_at: client.world().epoch_seconds() + SESSION_LIFETIME_S,
    };
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(session_item(&session)))
        .send()?;
    Ok(session)
}

pub fn session(client: &Client, session_id: &str) -> Result<Option<Session>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("session_id", AttributeValue::S(session_id.to_string()))
        .consistent_read(true)
        .send()?;
    let now = client.world().epoch_seconds();
    match out.item() {
        Some(item) => Ok(Some(parse(item)?).filter(|s| now < s.expires_at)),
        None => Ok(None),
    }
}

pub fn refresh(client: &Client, session_id: &str) -> Result<Option<Session>, Error> {
    let now = client.world().epoch_seconds();
    let result = client
        .update_item()
        .table_name(TABLE)
        .key("session_id", AttributeValue::S(session_id.to_string()))
        .update_expression("SET #exp = :new")
        .condition_expression("attribute_exists(session_id) AND #exp > :now")
        .expression_attribute_names("#exp", EXPIRES_AT)
        .expression_attribute_values(
            ":new",
            AttributeValue::N((now + SESSION_LIFETIME_S).to_string()),
        )
        .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
        .return_values(ReturnValue::AllNew)
        .send();
    match result.map_err(SdkError::into_service_error) {
        Ok(out) => out.attributes().map(parse).transpose(),
        Err(UpdateItemError::ConditionalCheckFailedException(_)) => Ok(None),
        Err(other) => Err(Error::from(other)),
    }
}

pub fn logout(client: &Client, session_id: &str) -> Result<(), Error> {
    client
        .delete_item()
        .table_name(TABLE)
        .key("session_id", AttributeValue::S(session_id.to_string()))
        .send()?;
    Ok(())
}

pub fn sessions_of(client: &Client, user_id: &str) -> Result<Vec<Session>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .index_name(BY_USER)
        .key_condition_expression("user_id = :u")
        .expression_attribute_values(":u", AttributeValue::S(user_id.to_string()))
        .send()?;
    let now = client.world().epoch_seconds();
    let mut live = Vec::new();
    for item in out.items() {
        let session = parse(item)?;
        // Expired, but TTL has not deleted it yet.
        if now < session.expires_at {
            live.push(session);
        }
    }
    Ok(live)
}
