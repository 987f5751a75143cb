//! The warehouse-index kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/warehouse-index/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        place_order: warehouse_index::place_order,
        ship_order: warehouse_index::ship_order,
        add_awaiting_index: warehouse_index::add_awaiting_index,
        awaiting_shipment: warehouse_index::awaiting_shipment,
        pick: warehouse_index::pick,
    })
}
