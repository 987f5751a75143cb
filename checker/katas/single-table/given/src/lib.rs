//! # The given part of the kata: single-table design
//!
//! What the tests and your code share: the table's name and the types your functions take and
//! return. It is not yours to change — the checker and grading always build your `src/lib.rs`
//! against this copy (`checker/katas/single-table/given/`), so an edit here would be judged at home and
//! lost in grading. Your crate reaches it as `given` (`use given::{...};`).

/// The name of your table (the tests read it from here).
pub const TABLE: &str = "shop";

/// A customer's profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Customer {
    pub id: String,
    pub name: String,
    pub email: String,
}

/// Where an order is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OrderStatus {
    Placed,
    Paid,
    Shipped,
    Delivered,
    Cancelled,
}

impl OrderStatus {
    /// Every status.
    pub const ALL: [OrderStatus; 5] = [
        OrderStatus::Placed,
        OrderStatus::Paid,
        OrderStatus::Shipped,
        OrderStatus::Delivered,
        OrderStatus::Cancelled,
    ];

    /// `"PLACED"`, `"PAID"`, … — how to store it.
    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::Placed => "PLACED",
            OrderStatus::Paid => "PAID",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::Delivered => "DELIVERED",
            OrderStatus::Cancelled => "CANCELLED",
        }
    }

    /// The status `as_str` spelled `text`, if any.
    pub fn parse(text: &str) -> Option<OrderStatus> {
        OrderStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// One line of an order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderItem {
    pub sku: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

/// An order's header (without its lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub id: String,
    pub customer_id: String,
    /// When it was placed, ISO 8601 in UTC (`"2026-01-05T09:30:00Z"`): these strings sort in
    /// time order, so they make good sort keys. Two orders never share one in the tests.
    pub placed_at: String,
    pub status: OrderStatus,
    /// The sum of `quantity * unit_price_cents` over its lines.
    pub total_cents: u64,
}

/// An order with its lines, in the order they were placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderWithItems {
    pub order: Order,
    pub items: Vec<OrderItem>,
}

/// One page of a paginated list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Pass it back to get the next page; `None` when there is nothing after this page.
    pub next_cursor: Option<String>,
}

/// The error the starter's functions return until they are written (not part of the SDK: a
/// `ValidationException` built by the engine, so that the starter compiles and every hidden
/// test fails with a message that says where the task is).
pub fn not_written_yet(function: &str) -> engine::Error {
    engine::Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/single-table/README.md)"
    ))
}

/// The error to return when an item the table holds is not shaped as the README's layout
/// says (an attribute missing, or of another type): `bad_item("order o-9 has no number
/// total_cents")`. The tests never store such an item; this is for the `None` your code must
/// still handle. (Not part of the SDK, whose `Error` has no public constructor: a
/// `ValidationException` built by the engine; in a service you would return your own error.)
pub fn bad_item(what: impl Into<String>) -> engine::Error {
    engine::Error::validation(format!("malformed item: {}", what.into()))
}

/// The error `change_order_status` returns for an order that does not exist (nothing is
/// written). Not part of the SDK, as [`bad_item`].
pub fn unknown_order(order_id: &str) -> engine::Error {
    engine::Error::validation(format!("order {order_id} does not exist"))
}
