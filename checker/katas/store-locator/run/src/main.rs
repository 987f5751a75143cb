//! The store-locator kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/store-locator/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        add_store: store_locator::add_store,
        store: store_locator::store,
        stores_in_city: store_locator::stores_in_city,
        stores_in_country: store_locator::stores_in_country,
    })
}
