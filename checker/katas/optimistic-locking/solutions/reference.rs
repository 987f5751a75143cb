//! # Kata: optimistic locking — reference solution
//!
//! Each attempt reads the page strongly consistent, applies the change to its body and writes
//! the result as the next version with one conditional UpdateItem: `version = :read` (or
//! `attribute_not_exists(page)` for a page that had no item). The condition is evaluated on
//! the leader's current item, atomically with the write, so a save can never replace text it
//! did not read. When it fails another editor saved first: the next attempt reads again —
//! strongly, since the write it lost to may not have reached every replica yet — and
//! re-applies the change, at most `MAX_ATTEMPTS` writes in all.

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
