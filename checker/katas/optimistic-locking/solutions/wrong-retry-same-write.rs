//! # Kata: optimistic locking — KNOWN WRONG: the retry resends the same write
//!
//! Reads once, builds the guarded write once, and on `ConditionalCheckFailedException` sends
//! that same request again (up to `MAX_ATTEMPTS` times), as one retries a throttled request.
//! But a failed condition is not a transient error: the page is at a newer version now, and
//! `version = :read` with the old version fails every time. An edit that lost one race is
//! reported as a `Conflict` though it could have been saved on a fresh read, and every resend
//! pays its WCU. The hidden tests `a_lost_race_is_retried_on_a_fresh_read` and
//! `editors_race_and_no_edit_is_lost` must reject it.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client};
use given::{EditError, MAX_ATTEMPTS, TABLE};

/// Reads once, then sends the guarded write until it passes (at most `MAX_ATTEMPTS` times).
pub fn edit(
    client: &Client,
    page: &str,
    change: &dyn Fn(&str) -> String,
) -> Result<u64, EditError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("page", AttributeValue::S(page.to_string()))
        .consistent_read(true)
        .send()?;
    let body = out
        .item()
        .and_then(|item| item.get("body"))
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default();
    let version: u64 = out
        .item()
        .and_then(|item| item.get("version"))
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let next = version + 1;
    let write = client
        .update_item()
        .table_name(TABLE)
        .key("page", AttributeValue::S(page.to_string()))
        .update_expression("SET body = :body, version = :next")
        .expression_attribute_values(":body", AttributeValue::S(change(&body)))
        .expression_attribute_values(":next", AttributeValue::N(next.to_string()));
    let write = if version == 0 {
        write.condition_expression("attribute_not_exists(page)")
    } else {
        write
            .condition_expression("version = :read")
            .expression_attribute_values(":read", AttributeValue::N(version.to_string()))
    };
    for _ in 0..MAX_ATTEMPTS {
        match write.clone().send().map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(next),
            Err(UpdateItemError::ConditionalCheckFailedException(_)) => continue,
            Err(e) => return Err(EditError::Engine(e.into())),
        }
    }
    Err(EditError::Conflict {
        attempts: MAX_ATTEMPTS,
    })
}
