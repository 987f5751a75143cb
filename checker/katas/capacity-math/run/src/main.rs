//! The capacity-math kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/capacity-math/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        item_size: capacity_math::item_size,
        consumed: capacity_math::consumed,
        read_page: capacity_math::read_page,
    })
}
