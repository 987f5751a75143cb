//! The lessons, included so their Rust samples run as doctests.
