//! # Kata: warehouse index
//!
//! The warehouse's picking screen needs the orders awaiting shipment, oldest first, at 4,500
//! new orders a second — from a table already full of orders. Add a sparse global secondary
//! index to the live table and keep it cheap and cool — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error};
use given::{not_written_yet, Order, Pick};

// The table the tests create for you: `given::TABLE` (`orders`, partition key `PK` (string),
// no sort key, provisioned with 1,000 RCU and 12,000 WCU), one item per order. The index you
// add is named `given::INDEX` (`awaiting`). The types are in the kata's given part:
// checker/katas/warehouse-index/given/src/lib.rs.

/// Stores a new order, awaiting shipment (one PutItem). Only an order awaiting shipment
/// carries the index's key attributes.
pub fn place_order(client: &Client, order: &Order) -> Result<(), Error> {
    // TODO: PutItem PK = ORDER#<id>, status = AWAITING, the order's attributes, and the
    // index key (a sharded partition key such as AWAITING#<n>).
    let _ = (client, order);
    Err(not_written_yet("place_order"))
}

/// Marks an order shipped (status = SHIPPED) and takes it out of the index. An order that
/// does not exist is an error, and is not created.
pub fn ship_order(client: &Client, order_id: &str) -> Result<(), Error> {
    let _ = (client, order_id);
    Err(not_written_yet("ship_order"))
}

/// Adds the index `given::INDEX` to the live table (UpdateTable) and returns once it can be
/// queried: wait on the simulated clock (`client.world().advance(..)`) until DescribeTable
/// says the index is ACTIVE.
pub fn add_awaiting_index(client: &Client) -> Result<(), Error> {
    let _ = client;
    Err(not_written_yet("add_awaiting_index"))
}

/// Every order awaiting shipment, oldest first (by placed_at, then order id), read from the
/// index alone.
pub fn awaiting_shipment(client: &Client) -> Result<Vec<Pick>, Error> {
    let _ = client;
    Err(not_written_yet("awaiting_shipment"))
}

/// The pick of one order if it awaits shipment (None if it is shipped or unknown). Called
/// right after place_order and ship_order: it must see their writes at once.
pub fn pick(client: &Client, order_id: &str) -> Result<Option<Pick>, Error> {
    let _ = (client, order_id);
    Err(not_written_yet("pick"))
}
