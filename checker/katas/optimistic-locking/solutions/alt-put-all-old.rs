//! # Kata: optimistic locking — alternative: whole-item PutItem, the retry from ALL_OLD
//!
//! Another route to the same guarantee. The first attempt reads the page strongly consistent;
//! each write is a PutItem of the whole item (`page`, `body`, `version`) whose condition is
//! `version = :read` — or, for a page that had no item, `attribute_not_exists(version)`, which
//! a missing item satisfies and every saved page fails. When the condition fails, the write
//! asked for the item as the leader has it now (`ReturnValuesOnConditionCheckFailure =
//! ALL_OLD`), so the retry starts from that item without a second read: it is the current
//! item, the write the edit lost to included, at no read capacity.

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::types::ReturnValuesOnConditionCheckFailure;
use engine::{AttributeValue, Client, Item};
use given::{EditError, MAX_ATTEMPTS, TABLE};

/// A page's body and version from its item ("" at version 0 for no item).
fn page_of(item: Option<&Item>) -> (String, u64) {
    let body = item
        .and_then(|item| item.get("body"))
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default();
    let version = item
        .and_then(|item| item.get("version"))
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    (body, version)
}

/// Saves `change(body)` as the page's next version; a lost race restarts from ALL_OLD.
pub fn edit(
    client: &Client,
    page: &str,
    change: &dyn Fn(&str) -> String,
) -> Result<u64, EditError> {
    let read = client
        .get_item()
        .table_name(TABLE)
        .key("page", AttributeValue::S(page.to_string()))
        .consistent_read(true)
        .send()?;
    let (mut body, mut version) = page_of(read.item());
    for _ in 0..MAX_ATTEMPTS {
        let next = version + 1;
        let item = Item::from([
            ("page".to_string(), AttributeValue::S(page.to_string())),
            ("body".to_string(), AttributeValue::S(change(&body))),
            ("version".to_string(), AttributeValue::N(next.to_string())),
        ]);
        let write = client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let write = if version == 0 {
            write.condition_expression("attribute_not_exists(version)")
        } else {
            write
                .condition_expression("version = :read")
                .expression_attribute_values(":read", AttributeValue::N(version.to_string()))
        };
        match write.send().map_err(SdkError::into_service_error) {
            Ok(_) => return Ok(next),
            Err(PutItemError::ConditionalCheckFailedException(e)) => {
                (body, version) = page_of(e.item());
            }
            Err(e) => return Err(EditError::Engine(e.into())),
        }
    }
    Err(EditError::Conflict {
        attempts: MAX_ATTEMPTS,
    })
}
