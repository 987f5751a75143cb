//! The document-versions kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/document-versions/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        save: document_versions::save,
        latest: document_versions::latest,
        history: document_versions::history,
        version: document_versions::version,
    })
}
