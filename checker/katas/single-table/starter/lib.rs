//! # Kata: single-table design
//!
//! A small shop — customers, orders, order lines — in ONE DynamoDB table, designed from its
//! six access patterns so that every read is one GetItem or one Query. Task, access patterns
//! and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.
//!
//! The types you take and return (`Customer`, `Order`, …) are the kata's interface, its given
//! part: the tests build and compare them. Everything else — the table's keys, its indexes,
//! what each item holds — is yours to design.

use engine::{Client, Error};
use given::{Customer, Order, OrderItem, OrderStatus, OrderWithItems, Page};

// Your table is `given::TABLE` (`shop`). The types above are the kata's given part
// (checker/katas/single-table/given/src/lib.rs): the tests build and compare them.

fn todo(what: &str) -> Error {
    given::not_written_yet(what)
}

// ---------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------

/// Creates the table `TABLE`: its key schema, attribute definitions and global secondary
/// indexes. On-demand billing (`BillingMode::PayPerRequest`) keeps capacity out of the way.
pub fn create_table(client: &Client) -> Result<(), Error> {
    // TODO: one table with generic keys (PK, SK) and a GSI per lookup the keys cannot answer.
    let _ = client;
    Err(todo("create_table"))
}

// ---------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------

/// Stores a new customer's profile.
pub fn create_customer(client: &Client, customer: &Customer) -> Result<(), Error> {
    // TODO: one item for the profile, with what the lookups by id and by email need.
    let _ = (client, customer);
    Err(todo("create_customer"))
}

/// Places an order with its lines, all or nothing, in ONE TransactWriteItems request. An
/// order id that already exists, or a line DynamoDB refuses, cancels the whole order.
pub fn place_order(client: &Client, order: &Order, items: &[OrderItem]) -> Result<(), Error> {
    // TODO: the order, each line, and whatever lets the customer's order list find it —
    // in one transaction, refusing an order id that exists already.
    let _ = (client, order, items);
    Err(todo("place_order"))
}

/// Moves an order to another status. An order that does not exist is an error, and nothing
/// is written for it.
pub fn change_order_status(
    client: &Client,
    order_id: &str,
    status: OrderStatus,
) -> Result<(), Error> {
    // TODO: update every item that stores the order's status (and its status index key).
    let _ = (client, order_id, status);
    Err(todo("change_order_status"))
}

// ---------------------------------------------------------------------------------------
// The six access patterns: each one GetItem or one Query, never a Scan
// ---------------------------------------------------------------------------------------

/// Access pattern 1: a customer's profile, by id.
pub fn customer(client: &Client, customer_id: &str) -> Result<Option<Customer>, Error> {
    // TODO
    let _ = (client, customer_id);
    Err(todo("customer"))
}

/// Access pattern 2: a customer's orders, newest first, `page_size` at a time. `cursor` is
/// `None` for the first page, then the `next_cursor` of the page before.
pub fn customer_orders(
    client: &Client,
    customer_id: &str,
    page_size: usize,
    cursor: Option<&str>,
) -> Result<Page<Order>, Error> {
    // TODO
    let _ = (client, customer_id, page_size, cursor);
    Err(todo("customer_orders"))
}

/// Access pattern 3: an order with all its lines — in ONE Query.
pub fn order_with_items(client: &Client, order_id: &str) -> Result<Option<OrderWithItems>, Error> {
    // TODO
    let _ = (client, order_id);
    Err(todo("order_with_items"))
}

/// Access pattern 4: an order's header, by id alone.
pub fn order(client: &Client, order_id: &str) -> Result<Option<Order>, Error> {
    // TODO
    let _ = (client, order_id);
    Err(todo("order"))
}

/// Access pattern 5: for the warehouse: the newest `limit` orders in `status`, newest first.
pub fn orders_by_status(
    client: &Client,
    status: OrderStatus,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    // TODO
    let _ = (client, status, limit);
    Err(todo("orders_by_status"))
}

/// Access pattern 6: a customer by email address.
pub fn customer_by_email(client: &Client, email: &str) -> Result<Option<Customer>, Error> {
    // TODO
    let _ = (client, email);
    Err(todo("customer_by_email"))
}
