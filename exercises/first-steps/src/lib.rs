//! # Kata: first steps
//!
//! A tea shop's customer profile and "your orders" list, each read with one request by key —
//! task, table and item layout in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use engine::{AttributeValue, Client, Error, Item};
#[allow(unused_imports)]
use given::{bad_item, not_written_yet, Order, Profile, TABLE};

// The table the tests create for you: `given::TABLE` (`shop`, partition key `PK`, sort key `SK`,
// both strings, on-demand). A customer's items share `PK = CUSTOMER#<customer_id>`:
//   profile: SK = PROFILE,                        name (S), email (S)
//   order:   SK = ORDER#<placed_at>#<order_id>,   order_id (S), placed_at (S), total_cents (N)
// The types are in the kata's given part: checker/katas/first-steps/given/src/lib.rs.

/// Stores `profile` (replacing the customer's profile if there is one).
pub fn save_profile(client: &Client, profile: &Profile) -> Result<(), Error> {
    // TODO: one PutItem of the profile item.
    let _ = (client, profile);
    Err(not_written_yet("save_profile"))
}

/// Stores `order`.
pub fn save_order(client: &Client, order: &Order) -> Result<(), Error> {
    // TODO: one PutItem of the order item; its sort key starts with the time it was placed.
    let _ = (client, order);
    Err(not_written_yet("save_order"))
}

/// The profile of `customer_id`, or `None` if the customer has no profile.
pub fn profile(client: &Client, customer_id: &str) -> Result<Option<Profile>, Error> {
    // TODO: one GetItem with the profile's whole key (PK and SK). No item is not an error.
    let _ = (client, customer_id);
    Err(not_written_yet("profile"))
}

/// The `limit` newest orders of `customer_id` (at least 1), newest first.
pub fn recent_orders(
    client: &Client,
    customer_id: &str,
    limit: usize,
) -> Result<Vec<Order>, Error> {
    // TODO: one Query of the customer's orders (begins_with on SK), newest first, `limit` of them.
    let _ = (client, customer_id, limit);
    Err(not_written_yet("recent_orders"))
}

/// The orders of `customer_id` placed in `period` — a year (`2025`), a month (`2025-06`) or a
/// day (`2025-06-12`): those whose `placed_at` starts with it — oldest first.
pub fn orders_placed_in(
    client: &Client,
    customer_id: &str,
    period: &str,
) -> Result<Vec<Order>, Error> {
    // TODO: one Query whose sort-key condition selects exactly that period's orders.
    let _ = (client, customer_id, period);
    Err(not_written_yet("orders_placed_in"))
}
