//! The stream-shards kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/stream-shards/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        stream_shards: stream_shards::stream_shards,
    })
}
