//! # The given part of the kata: warehouse index
//!
//! What the tests and your code share: the table's and the index's names, the order your
//! service stores and the pick the picking screen shows. It is not yours to change — the
//! checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/warehouse-index/given/`), so an edit here would be judged at home and lost
//! in grading. Your crate reaches it as `given` (`use given::{...};`).

use engine::Error;

/// The table the tests create for you: `orders`, partition key `PK` (string), no sort key,
/// provisioned with 1,000 RCU and 12,000 WCU. One item per order, `PK = ORDER#<order id>`.
pub const TABLE: &str = "orders";

/// The name of the global secondary index you add: the orders awaiting shipment.
pub const INDEX: &str = "awaiting";

/// The table's provisioned read capacity (RCU).
pub const TABLE_RCU: i64 = 1_000;

/// The table's provisioned write capacity (WCU): an order item is about 1.6 KB, 2 WCU a put,
/// and the service takes up to 4,500 orders a second (9,000 WCU) on the busiest days.
pub const TABLE_WCU: i64 = 12_000;

/// Orders a second on the busiest days (the tests send this many, for a whole second).
pub const PEAK_ORDERS_PER_SECOND: u64 = 4_500;

/// An order as the shop hands it to the warehouse. Stored in one item (the README's table):
/// `PK = ORDER#<id>`, `status` (S: `AWAITING` or `SHIPPED`), `placedAt`, `zone`, `lines`,
/// `customer`, `address` and `invoice` (all S), plus the index key attributes you choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// `o-000042`: zero-padded, so ids sort as their numbers do.
    pub id: String,
    /// When the order was placed, ISO 8601 in UTC with microseconds
    /// (`2026-01-05T09:00:00.000123Z`): these strings sort as the times do.
    pub placed_at: String,
    /// The warehouse zone the order is picked in (`A` … `F`).
    pub zone: String,
    /// What to pick: `TEA-01 x2, CUP-07 x1`.
    pub lines: String,
    /// The customer's name.
    pub customer: String,
    /// Where it goes.
    pub address: String,
    /// The invoice's text: about 1.3 KB, printed at the packing desk, never on the picking
    /// screen.
    pub invoice: String,
}

/// One line of the picking screen: what a picker needs to fetch an order, nothing more.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pick {
    /// The order's id (`o-000042`), without the `ORDER#` of its key.
    pub order_id: String,
    pub placed_at: String,
    pub zone: String,
    pub lines: String,
}

impl Pick {
    /// The pick of an order.
    pub fn of(order: &Order) -> Pick {
        Pick {
            order_id: order.id.clone(),
            placed_at: order.placed_at.clone(),
            zone: order.zone.clone(),
            lines: order.lines.clone(),
        }
    }
}

/// The error to return when an item the table or the index holds is not shaped as the
/// README's layout says (an attribute missing, or of another type):
/// `bad_item("ORDER#o-000042 has no placedAt")`. The tests never store such an item; this is
/// for the `None` your code must still handle.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/warehouse-index/README.md)"
    ))
}
