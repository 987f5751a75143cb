//! Known-wrong: `session` checks the expiry, but `sessions_of` lists every session the index
//! holds — the "your devices" page shows sessions that expired an hour ago, because TTL has
//! not deleted them yet.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::types::ReturnValue;
use engine::{AttributeValue, Client, Error, Item};
use given::{bad_item, Session, BY_USER, EXPIRES_AT, SESSION_LIFETIME_S, TABLE};

/// Now, on the world's clock (Unix seconds).
fn now(client: &Client) -> u64 {
    client.world().epoch_seconds()
}

/// A session item read back as a `Session`.
fn to_session(item: &Item) -> Result<Session, Error> {
    let text = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .ok_or_else(|| bad_item(format!("a session has no string {name}")))
    };
    let expires_at = item
        .get(EXPIRES_AT)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad_item("a session has no number expires_at"))?;
    Ok(Session {
        session_id: text("session_id")?,
        user_id: text("user_id")?,
        expires_at,
    })
}

pub fn login(client: &Client, session_id: &str, user_id: &str) -> Result<Session, Error> {
    let session = Session {
        session_id: session_id.to_string(),
        user_id: user_id.to_string(),
        expires_at: now(client) + SESSION_LIFETIME_S,
    };
    client
        .put_item()
        .table_name(TABLE)
        .item("session_id", AttributeValue::S(session.session_id.clone()))
        .item("user_id", AttributeValue::S(session.user_id.clone()))
        .item(
            EXPIRES_AT,
            AttributeValue::N(session.expires_at.to_string()),
        )
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
    let Some(item) = out.item() else {
        return Ok(None);
    };
    let session = to_session(item)?;
    // Expired but not yet deleted by TTL: still in the table, no longer a session.
    Ok((session.expires_at > now(client)).then_some(session))
}

pub fn refresh(client: &Client, session_id: &str) -> Result<Option<Session>, Error> {
    let now = now(client);
    let out = client
        .update_item()
        .table_name(TABLE)
        .key("session_id", AttributeValue::S(session_id.to_string()))
        .update_expression("SET expires_at = :new")
        // False on a missing item too: a refresh never creates one.
        .condition_expression("expires_at > :now")
        .expression_attribute_values(
            ":new",
            AttributeValue::N((now + SESSION_LIFETIME_S).to_string()),
        )
        .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
        .return_values(ReturnValue::AllNew)
        .send()
        .map_err(SdkError::into_service_error);
    match out {
        Ok(out) => match out.attributes() {
            Some(item) => to_session(item).map(Some),
            None => Err(bad_item("the refreshed session came back empty")),
        },
        Err(UpdateItemError::ConditionalCheckFailedException(_)) => Ok(None),
        Err(e) => Err(e.into()),
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
    out.items().iter().map(to_session).collect()
}
