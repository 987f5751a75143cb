//! The unique-email kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/unique-email/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        register: unique_email::register,
        change_email: unique_email::change_email,
        register_team: unique_email::register_team,
    })
}
