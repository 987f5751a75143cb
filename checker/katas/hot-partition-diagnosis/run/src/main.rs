//! The hot-partition-diagnosis kata's test binary: hands the learner's functions to the hidden
//! tests (`../tests`), which are compiled once, without the kata, so that a save rebuilds only
//! the learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/hot-partition-diagnosis/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        diagnose: hot_partition_diagnosis::diagnose,
        throughput: hot_partition_diagnosis::throughput,
        partition_key: hot_partition_diagnosis::partition_key,
        read_keys: hot_partition_diagnosis::read_keys,
    })
}
