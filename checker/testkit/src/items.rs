//! Item-aware helpers for hidden tests of engine katas (feature `engine`).
//!
//! Items are rendered in DynamoDB JSON with one attribute per line, attributes in key order,
//! so the checker's line diff points at the attribute that differs:
//!
//! ```text
//! {
//!   "PK": {"S":"ORDER#42"},
//!   "status": {"S":"SHIPPED"},
//! }
//! ```

use engine::value::value_to_json;
use engine::Item;

use crate::Failure;

/// One item as text, one attribute per line.
pub fn item_text(item: &Item) -> String {
    let mut out = String::from("{\n");
    for (k, v) in engine::value::sorted(item) {
        out.push_str(&format!("  {:?}: {},\n", k, value_to_json(v)));
    }
    out.push('}');
    out
}

/// A list of items as text, in the given order.
pub fn items_text(items: &[Item]) -> String {
    if items.is_empty() {
        return "(no items)".to_string();
    }
    items.iter().map(item_text).collect::<Vec<_>>().join("\n")
}

/// Fails unless the two items are equal; the failure diffs them attribute by attribute.
#[track_caller]
pub fn check_item_eq(expected: &Item, actual: &Item, message: impl Into<String>) {
    if expected != actual {
        Failure::compare(message, item_text(expected), item_text(actual)).raise()
    }
}

/// Fails unless the two lists hold the same items in the same order.
#[track_caller]
pub fn check_items_eq(expected: &[Item], actual: &[Item], message: impl Into<String>) {
    if expected != actual {
        Failure::compare(message, items_text(expected), items_text(actual)).raise()
    }
}

/// Fails unless the two lists hold the same items in any order (both shown sorted).
#[track_caller]
pub fn check_items_eq_unordered(expected: &[Item], actual: &[Item], message: impl Into<String>) {
    let sorted = |items: &[Item]| {
        let mut v: Vec<String> = items.iter().map(item_text).collect();
        v.sort();
        v
    };
    let (e, a) = (sorted(expected), sorted(actual));
    if e != a {
        Failure::compare(message, e.join("\n"), a.join("\n")).raise()
    }
}
