//! The stream-read-model kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/stream-read-model/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        create_read_model_table: stream_read_model::create_read_model_table,
        customer_stats: stream_read_model::customer_stats,
        handle: stream_read_model::handle,
        status_count: stream_read_model::status_count,
    })
}
