//! # Kata: optimistic locking — KNOWN WRONG: the retry re-reads the version, not the text
//!
//! Applies `change` once, to the body of the first read. After a lost race it reads the page
//! again (strongly) for the new version, and writes the body it computed before under it: the
//! condition passes, and the text the other editor saved is replaced by text built without it —
//! a lost update the version check was meant to prevent. The hidden tests
//! `a_lost_race_is_retried_on_a_fresh_read` and `editors_race_and_no_edit_is_lost` must reject
//! it.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client};
use given::{EditError, MAX_ATTEMPTS, TABLE};

/// The page as the leader has it: its body and version ("" at version 0 if it has no item).
fn read_page(client: &Client, page: &str) -> Result<(String, u64), EditError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("page", AttributeValue::S(page.to_string()))
        .consistent_read(true)
        .send()?;
    let Some(item) = out.item() else {
        return Ok((String::new(), 0));
    };
    let body = item.get("body").and_then(|v| v.as_s().ok()).cloned();
    let version = item
        .get("version")
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok());
    Ok((body.unwrap_or_default(), version.unwrap_or(0)))
}

/// Saves `change(body)` as the page's next version; retries a lost race on a fresh read.
pub fn edit(
    client: &Client,
    page: &str,
    change: &dyn Fn(&str) -> String,
) -> Result<u64, EditError> {
    let (first, _) = read_page(client, page)?;
    let changed = change(&first);
    for _ in 0..MAX_ATTEMPTS {
        let (_, version) = read_page(client, page)?;
        let next = version + 1;
        let write = client
            .update_item()
            .table_name(TABLE)
            .key("page", AttributeValue::S(page.to_string()))
            .update_expression("SET body = :body, version = :next")
            .expression_attribute_values(":body", AttributeValue::S(changed.clone()))
            .expression_attribute_values(":next", AttributeValue::N(next.to_string()));
        // A page with no item has no version to compare: its first save is create-only.
        let write = if version == 0 {
            write.condition_expression("attribute_not_exists(page)")
        } else {
            write
                .condition_expression("version = :read")
                .expression_attribute_values(":read", AttributeValue::N(version.to_string()))
        };
        match write.send().map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(next),
            // Another editor saved first: nothing was written; read again and retry.
            Err(UpdateItemError::ConditionalCheckFailedException(_)) => continue,
            Err(e) => return Err(EditError::Engine(e.into())),
        }
    }
    Err(EditError::Conflict {
        attempts: MAX_ATTEMPTS,
    })
}
