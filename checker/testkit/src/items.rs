//! Item-aware helpers for hidden tests of engine katas (feature `engine`).
//!
//! Written last, against the engine's public API once it settles; see the crate docs for the
//! failure format these helpers produce.
