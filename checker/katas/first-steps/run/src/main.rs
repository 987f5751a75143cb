//! The first-steps kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/first-steps/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        save_profile: first_steps::save_profile,
        save_order: first_steps::save_order,
        profile: first_steps::profile,
        recent_orders: first_steps::recent_orders,
        orders_placed_in: first_steps::orders_placed_in,
    })
}
