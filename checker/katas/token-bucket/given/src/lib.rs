//! # The given part of the kata: Token bucket, a partition's admission
//!
//! What the tests and your code share: the trait you implement and the values it passes.
//! They are the engine's own (`engine::seams`, defined in `engine/src/capacity/admission.rs`,
//! whose essay explains them); they are re-exported here so the kata's shared part is in one
//! place. Not yours to change.

pub use engine::seams::{Admission, Ask, Closing, Decision, Kind, Rate};

/// What the starter's methods do until you write them: stop the test with a message naming
/// the method. (A trait method has no error to return, so this panics; the checker reports
/// the message.)
pub fn not_written_yet(method: &str) -> ! {
    panic!("{method} is not written yet (see exercises/token-bucket/README.md)")
}
