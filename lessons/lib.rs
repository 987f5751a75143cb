//! The lessons, included so their Rust samples run as doctests.
//!
//! Every ```` ```rust ```` block in `src/*.md` is compiled and run by
//! `cargo test -p lessons --doc` against the engine, so a sample that no longer matches the
//! engine's API fails CI instead of misleading a learner. No sample is `ignore`d: each one runs
//! and asserts what its section claims (a hot key capped at 1,000 writes per second, a stale
//! eventually consistent read, a GSI catching up, a shard's records in order…). Lines starting
//! with `# ` are setup, hidden from the reader by rustdoc, mdBook and `katas lesson` alike.

#[doc = include_str!("src/README.md")]
pub mod introduction {}

#[doc = include_str!("src/01-foundations.md")]
pub mod foundations {}

#[doc = include_str!("src/02-modeling.md")]
pub mod modeling {}

#[doc = include_str!("src/coverage.md")]
pub mod coverage {}
