//! # Kata: optimistic locking — KNOWN WRONG: the retry guesses the next version
//!
//! Reads once and applies `change` once. When the write's condition fails, it reasons that
//! someone saved one version in between and tries again with the expected version one higher —
//! without reading. The guess is often right, so the condition passes, and the body it writes
//! was built on the old text: the other editor's save is replaced, a lost update the version
//! was meant to prevent. The hidden tests `a_lost_race_is_retried_on_a_fresh_read` and
//! `editors_race_and_no_edit_is_lost` must reject it.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client};
use given::{EditError, MAX_ATTEMPTS, TABLE};

/// Reads once; after a lost race, expects the next version instead of reading it.
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
    let mut version: u64 = out
        .item()
        .and_then(|item| item.get("version"))
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let changed = change(&body);
    for _ in 0..MAX_ATTEMPTS {
        let next = version + 1;
        let write = client
            .update_item()
            .table_name(TABLE)
            .key("page", AttributeValue::S(page.to_string()))
            .update_expression("SET body = :body, version = :next")
            .expression_attribute_values(":body", AttributeValue::S(changed.clone()))
            .expression_attribute_values(":next", AttributeValue::N(next.to_string()));
        let write = if version == 0 {
            write.condition_expression("attribute_not_exists(page)")
        } else {
            write
                .condition_expression("version = :read")
                .expression_attribute_values(":read", AttributeValue::N(version.to_string()))
        };
        match write.send().map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(next),
            Err(UpdateItemError::ConditionalCheckFailedException(_)) => version += 1,
            Err(e) => return Err(EditError::Engine(e.into())),
        }
    }
    Err(EditError::Conflict {
        attempts: MAX_ATTEMPTS,
    })
}
