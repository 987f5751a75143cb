//! The lessons, included so their Rust samples run as doctests.
//!
//! Every ```` ```rust ```` block in `src/*.md` is compiled and run by
//! `cargo test -p lessons --doc` against the engine, so a sample that no longer matches the
//! engine's API fails CI instead of misleading a learner. Blocks marked `rust,ignore` are
//! sketches of engine APIs that do not exist yet (their first line says so).

#[doc = include_str!("src/README.md")]
pub mod introduction {}

#[doc = include_str!("src/01-foundations.md")]
pub mod foundations {}

#[doc = include_str!("src/02-modeling.md")]
pub mod modeling {}

#[doc = include_str!("src/coverage.md")]
pub mod coverage {}
