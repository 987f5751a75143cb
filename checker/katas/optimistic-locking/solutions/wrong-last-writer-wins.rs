//! # Kata: optimistic locking — KNOWN WRONG: last writer wins
//!
//! The obvious code: read the page (strongly consistent, even), apply the change, write the
//! whole item back as the next version — unconditionally. Two editors who read the same
//! version both write, and the second PutItem replaces the first's text: a lost update, with
//! no error anywhere. The hidden tests `a_lost_race_is_retried_on_a_fresh_read` and
//! `editors_race_and_no_edit_is_lost` must reject it.

use engine::{AttributeValue, Client, Item};
use given::{EditError, TABLE};

/// Reads the page, applies `change`, writes the result back.
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
    let item = Item::from([
        ("page".to_string(), AttributeValue::S(page.to_string())),
        ("body".to_string(), AttributeValue::S(change(&body))),
        ("version".to_string(), AttributeValue::N(next.to_string())),
    ]);
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item))
        .send()?;
    Ok(next)
}
