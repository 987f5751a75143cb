//! # The given part of the kata: Query pagination
//!
//! What the tests and your code share: the table's name, its key format and the types your
//! functions take and return. It is not yours to change — the checker and grading always build
//! your `src/lib.rs` against this copy (`checker/katas/query-pagination/given/`), so an edit
//! here would be judged at home and lost in grading. Your crate reaches it as `given`
//! (`use given::{...};`).

use engine::{AttributeValue, Error, Item};

/// The table the tests create and fill for you: `orders`, partition key `PK` (string), sort
/// key `SK` (string), on-demand.
///
/// A customer's item collection is `PK = CUSTOMER#<id>`: one profile item (`SK = PROFILE`) and
/// one item per order, `SK = ORDER#<placed_at>#<order_id>` — so the orders sort by the time
/// they were placed, and `ScanIndexForward = false` reads them newest first. An order item
/// holds `order_id`, `placed_at`, `status` (`PLACED`, `SHIPPED`, `DELIVERED` or `CANCELLED`),
/// `total_cents` (a number) and `receipt` (the till's receipt: a few hundred bytes, or up to
/// 100 KB with a scanned invoice).
pub const TABLE: &str = "orders";

/// The status of a cancelled order: the orders screen hides these.
pub const CANCELLED: &str = "CANCELLED";

/// The sort-key prefix every order item has (`begins_with(SK, :order)`).
pub const ORDER_PREFIX: &str = "ORDER#";

/// The partition key of a customer's item collection: `CUSTOMER#<id>`.
pub fn customer_pk(customer_id: &str) -> String {
    format!("CUSTOMER#{customer_id}")
}

/// One order, as the screens show it (the receipt stays in the table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub order_id: String,
    /// When it was placed, ISO 8601 in UTC (`"2026-01-05T09:30:00.000Z"`).
    pub placed_at: String,
    pub status: String,
    pub total_cents: u64,
}

impl Order {
    /// Reads an order from its item; an error for an item that is not an order (the
    /// customer's `PROFILE` item, say).
    pub fn from_item(item: &Item) -> Result<Order, Error> {
        let text = |name: &str| match item.get(name) {
            Some(AttributeValue::S(s)) => Ok(s.clone()),
            _ => Err(Error::validation(format!(
                "not an order: the item with SK = {} has no string attribute `{name}` (a \
                 customer's collection holds a PROFILE item too: select the orders with \
                 begins_with(SK, \"{ORDER_PREFIX}\"))",
                match item.get("SK") {
                    Some(AttributeValue::S(sk)) => sk.as_str(),
                    _ => "(none)",
                }
            ))),
        };
        let total_cents = match item.get("total_cents").and_then(AttributeValue::as_number) {
            Some(n) => n.to_u64().unwrap_or(0),
            None => {
                return Err(Error::validation(format!(
                    "not an order: no number attribute `total_cents` on the item {}",
                    text("SK").unwrap_or_default()
                )))
            }
        };
        Ok(Order {
            order_id: text("order_id")?,
            placed_at: text("placed_at")?,
            status: text("status")?,
            total_cents,
        })
    }
}

/// One page of a customer's orders.
#[derive(Clone, Debug, PartialEq)]
pub struct OrdersPage {
    /// At most `page_size` orders, newest first.
    pub orders: Vec<Order>,
    /// Where the next page starts: pass it back as `start` to get it. `None` when this page
    /// reached the end of the customer's orders.
    pub next: Option<Item>,
}

/// What the starter's functions return until you write them: an error naming the function (not
/// part of the SDK: a `ValidationException` built by the engine).
pub fn not_written_yet(function: &str) -> engine::Error {
    engine::Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/query-pagination/README.md)"
    ))
}
