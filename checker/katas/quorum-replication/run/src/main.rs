//! The quorum-replication kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/quorum-replication/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        replication: quorum_replication::replication,
    })
}
