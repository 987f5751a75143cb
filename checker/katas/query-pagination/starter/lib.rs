//! # Kata: Query pagination
//!
//! A customer's order history, one screen at a time, and the whole of it for an export —
//! where a page can stop early for three reasons and only one of them means "no more". Task,
//! table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error, Item};
use given::{Order, OrdersPage};

// The table the tests create and fill for you: `given::TABLE` (`orders`, keys `PK` and `SK`).
// A customer's collection is PK = given::customer_pk(id): a PROFILE item and one item per
// order, SK = ORDER#<placed_at>#<order_id>. `Order::from_item` reads an order from its item.
// The given part: checker/katas/query-pagination/given/src/lib.rs.

/// One page of the orders screen: the customer's orders except cancelled ones, newest first,
/// `page_size` (at least 1) of them unless the page is the last, starting after `start` (the
/// `next` of the page before; `None` for the first page).
pub fn orders_page(
    client: &Client,
    customer_id: &str,
    page_size: i32,
    start: Option<Item>,
) -> Result<OrdersPage, Error> {
    // TODO: Query the customer's orders newest first with a Limit and a FilterExpression,
    // until the page is full or there is nothing left to read.
    let _ = (client, customer_id, page_size, start);
    Err(given::not_written_yet("orders_page"))
}

/// Every order of the customer, cancelled ones included, newest first: the export.
pub fn all_orders(client: &Client, customer_id: &str) -> Result<Vec<Order>, Error> {
    // TODO: Query page after page, each starting where the one before stopped.
    let _ = (client, customer_id);
    Err(given::not_written_yet("all_orders"))
}
