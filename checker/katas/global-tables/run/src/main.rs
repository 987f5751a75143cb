//! The global-tables kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/global-tables/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        count_visit: global_tables::count_visit,
        visits: global_tables::visits,
        update_profile: global_tables::update_profile,
        load_profile: global_tables::load_profile,
    })
}
