//! # Kata: capacity math
//!
//! A capacity calculator for the shop's platform team — what a request costs in read and write
//! units — and a product page that plans its reads to fit an RCU budget. Task, rules and
//! tables in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

#[allow(unused_imports)] // you will need these
use engine::types::AttributeValue;
#[allow(unused_imports)]
use engine::{Client, Error, Item};
#[allow(unused_imports)]
use given::{
    not_written_yet, number_size, over_budget, Consumed, Filter, Gsi, Page, Projection, Request,
    Table, Write, TABLE,
};

// The types are in the kata's given part: checker/katas/capacity-math/given/src/lib.rs.

/// Bytes `item` counts for: every attribute's name and value (README, "Item size").
pub fn item_size(item: &Item) -> usize {
    // TODO: add up every attribute: the UTF-8 length of its name and the size of its value.
    let _ = item;
    0
}

/// What `request` consumes on `table`: the table's read or write units, and each GSI's write
/// units — the figures its ConsumedCapacity reports.
pub fn consumed(table: &Table, request: &Request) -> Consumed {
    // TODO: one arm per kind of request (README, "Capacity units").
    let _ = (table, request);
    Consumed::default()
}

/// The items of `page.needed`, whole and in sort-key order, read from table `TABLE` with at
/// most `page.budget_rcu` read units in all — or `over_budget(..)`, before any read, when no
/// plan fits.
pub fn read_page(client: &Client, page: &Page) -> Result<Vec<Item>, Error> {
    // TODO: price the plans with `consumed`, pick one that fits, then send its requests.
    let _ = (client, page);
    Err(not_written_yet("read_page"))
}
