//! # Kata: optimistic locking — KNOWN WRONG: every failed write is taken for a conflict
//!
//! Retries whatever error the write returns, as if each were a lost race: a write DynamoDB
//! refused as invalid (an item over 400 KB) is sent `MAX_ATTEMPTS` times and reported as
//! `Conflict`, though no other editor saved anything. The hidden test
//! `other_errors_are_not_conflicts` must reject it.

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
    for _ in 0..MAX_ATTEMPTS {
        let (body, version) = read_page(client, page)?;
        let next = version + 1;
        let write = client
            .update_item()
            .table_name(TABLE)
            .key("page", AttributeValue::S(page.to_string()))
            .update_expression("SET body = :body, version = :next")
            .expression_attribute_values(":body", AttributeValue::S(change(&body)))
            .expression_attribute_values(":next", AttributeValue::N(next.to_string()));
        // A page with no item has no version to compare: its first save is create-only.
        let write = if version == 0 {
            write.condition_expression("attribute_not_exists(page)")
        } else {
            write
                .condition_expression("version = :read")
                .expression_attribute_values(":read", AttributeValue::N(version.to_string()))
        };
        match write.send() {
            Ok(_) => return Ok(next),
            // Another editor saved first: nothing was written; read again and retry.
            Err(_) => continue,
        }
    }
    Err(EditError::Conflict {
        attempts: MAX_ATTEMPTS,
    })
}
