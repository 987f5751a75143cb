//! Known-wrong: writes no bucket at all, and hands every question to the engine's own
//! `TokenBucket`. It agrees with DynamoDB on every input, so only the guard catches it: the
//! engine's piece refuses to answer while the learner's runs.

use engine::seams::{Admission, Ask, Closing, Decision, TokenBucket};

/// "My" bucket.
#[derive(Debug)]
pub struct Bucket;

impl Admission for Bucket {
    fn bank(&self, closing: &Closing) -> f64 {
        TokenBucket.bank(closing)
    }

    fn admit(&self, ask: &Ask) -> Decision {
        TokenBucket.admit(ask)
    }
}

/// The bucket the tests run in a world, in place of DynamoDB's.
pub fn token_bucket() -> Box<dyn Admission> {
    Box::new(Bucket)
}
