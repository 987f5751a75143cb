//! # The given part of the kata: Token bucket, a partition's admission
//!
//! What the tests and your code share: the trait you implement and the values it passes.
//! They are the engine's own (`engine::seams`, defined in `engine/src/capacity/admission.rs`,
//! whose essay explains them); they are re-exported here so the kata's shared part is in one
//! place. Not yours to change.

pub use engine::seams::{Admission, Ask, Closing, Decision, Kind, Rate};
