//! # Kata: optimistic locking — KNOWN WRONG: a retry loop without a bound
//!
//! Right in every other way — a strong read, a write guarded by the version, a fresh read and
//! a fresh `change` after each lost race — but it retries for as long as it keeps losing. On a
//! page that stays contended it never returns: the editor waits forever, and every failed
//! write still pays its WCU. The hidden test `gives_up_after_max_attempts` must reject it.

use engine::error::SdkError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client};
use given::{EditError, TABLE};

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
    loop {
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
}
