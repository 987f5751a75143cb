//! # Kata: Token bucket — a partition's admission
//!
//! You are a DynamoDB partition's bucket: what a closing second saves as burst, and whether
//! one request may spend capacity this second. Task, contract and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::seams::{Admission, Ask, Closing, Decision};
use given::not_written_yet;

/// Your bucket. It holds no state: the engine keeps the balance and passes it in.
#[derive(Debug)]
pub struct Bucket;

impl Admission for Bucket {
    fn bank(&self, closing: &Closing) -> f64 {
        // TODO: the balance to carry into `closing.next` (README, "Banking").
        let _ = closing;
        not_written_yet("bank")
    }

    fn admit(&self, ask: &Ask) -> Decision {
        // TODO: admit or throttle one request (README, "Admitting").
        let _ = ask;
        not_written_yet("admit")
    }
}

/// The bucket the tests run in a world, in place of DynamoDB's.
pub fn token_bucket() -> Box<dyn Admission> {
    Box::new(Bucket)
}
