//! The single-table kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/single-table/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        change_order_status: single_table::change_order_status,
        create_customer: single_table::create_customer,
        create_table: single_table::create_table,
        customer: single_table::customer,
        customer_by_email: single_table::customer_by_email,
        customer_orders: single_table::customer_orders,
        order: single_table::order,
        order_with_items: single_table::order_with_items,
        orders_by_status: single_table::orders_by_status,
        place_order: single_table::place_order,
    })
}
