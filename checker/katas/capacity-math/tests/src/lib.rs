//! Hidden tests of the `capacity-math` kata.
//!
//! The calculator is judged against DynamoDB's own figures. Each test generates many seeded
//! random requests of one kind, with item sizes drawn near the 4 KB and 1 KB boundaries where
//! rounding mistakes show; it stores the items the request touches in a fresh table of the
//! engine, sends the request with `ReturnConsumedCapacity` (INDEXES, or TOTAL where only that
//! is allowed), and compares `consumed(..)` with the response's `ConsumedCapacity`. A failure
//! names the request (operation and sequence number in the request log), its items' sizes, the
//! engine's figure with its arithmetic and the learner's figure — and, when the learner's
//! figure is exactly what a known mistake gives on that request, the mistake.
//!
//! - `item_size_counts_names_and_values`: `item_size` equals the engine's size of random items
//!   (every type, nested maps and lists, sets, non-ASCII strings).
//! - `get_item_rounds_up_to_4_kb`: GetItem, strong and eventual, found and missing.
//! - `reads_are_eventually_consistent_by_default`: GetItem, Query and BatchGetItem without
//!   `ConsistentRead`, with it false, with it true.
//! - `query_sums_then_rounds_once`: Query of many small items.
//! - `filters_do_not_discount`: Query with a FilterExpression that keeps few items.
//! - `batch_get_rounds_each_item`: BatchGetItem, found and missing keys.
//! - `transactions_cost_double`: TransactGetItems and TransactWriteItems.
//! - `writes_charge_the_larger_version`: PutItem, UpdateItem, DeleteItem (of a missing item
//!   too) and BatchWriteItem on tables without GSIs.
//! - `gsi_writes_cost_zero_one_or_two`: the same writes on tables with one to three GSIs of
//!   each projection; every GSI's units compared.
//! - `read_page_fits_the_budget`: product pages whose budget is what the cheaper of one Query
//!   of the needed range and one BatchGetItem of the needed keys costs; the page's items must
//!   come back whole, in sort-key order, for at most the budget (the request log's read units).
//! - `read_page_reads_strongly_when_asked`: a page that needs strong reads gets only strongly
//!   consistent requests.
//! - `read_page_over_budget_reads_nothing`: a page no plan can read within budget is refused
//!   with `over_budget` before any request (after a page that fits was read).
//!
//! Nothing here depends on the iteration order of an item: items are shown through
//! `item_to_json` (sorted) or with their attribute names sorted.

mod model;
mod page;
mod requests;

use engine::{Client, Error, Item};
use given::{Consumed, Page, Request, Table};
use katas_testkit::{run, seeded};

katas_testkit::learner! {
    /// Bytes an item counts for.
    fn item_size(item: &Item) -> usize;
    /// What a request consumes.
    fn consumed(table: &Table, request: &Request) -> Consumed;
    /// A product page's items, read within its budget.
    fn read_page(client: &Client, page: &Page) -> Result<Vec<Item>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "item_size_counts_names_and_values",
            requests::item_size_counts_names_and_values,
        ),
        seeded(
            "get_item_rounds_up_to_4_kb",
            requests::get_item_rounds_up_to_4_kb,
        ),
        seeded(
            "reads_are_eventually_consistent_by_default",
            requests::reads_are_eventually_consistent_by_default,
        ),
        seeded(
            "query_sums_then_rounds_once",
            requests::query_sums_then_rounds_once,
        ),
        seeded("filters_do_not_discount", requests::filters_do_not_discount),
        seeded(
            "batch_get_rounds_each_item",
            requests::batch_get_rounds_each_item,
        ),
        seeded(
            "transactions_cost_double",
            requests::transactions_cost_double,
        ),
        seeded(
            "writes_charge_the_larger_version",
            requests::writes_charge_the_larger_version,
        ),
        seeded(
            "gsi_writes_cost_zero_one_or_two",
            requests::gsi_writes_cost_zero_one_or_two,
        ),
        seeded("read_page_fits_the_budget", page::read_page_fits_the_budget),
        seeded(
            "read_page_reads_strongly_when_asked",
            page::read_page_reads_strongly_when_asked,
        ),
        seeded(
            "read_page_over_budget_reads_nothing",
            page::read_page_over_budget_reads_nothing,
        ),
    ]);
}
