//! Known-wrong: a textbook token bucket that refills a whole allocation every second, busy or
//! not — so a partition spending burst keeps being refilled at the full rate.

use engine::seams::{Admission, Ask, Closing, Decision};

/// A partition's bucket: unused allocation saved up to the window, spent past the allocation.
#[derive(Debug)]
pub struct Bucket;

impl Admission for Bucket {
    fn bank(&self, c: &Closing) -> f64 {
        let allocation = c.rate.allocation;
        let seconds = (c.next - c.second) as f64;
        (c.burst + seconds * allocation).min(allocation * c.rate.burst_window_s as f64)
    }

    fn admit(&self, ask: &Ask) -> Decision {
        let keep = Decision::Admit { burst: ask.burst };
        if ask.consumed == 0.0 {
            return keep;
        }
        let after = ask.consumed + ask.units;
        if after > ask.rate.ceiling {
            return Decision::Throttle;
        }
        if after <= ask.rate.allocation || ask.table_lends {
            return keep;
        }
        let past = (after - ask.rate.allocation).min(ask.units);
        if past <= ask.burst {
            Decision::Admit {
                burst: ask.burst - past,
            }
        } else {
            Decision::Throttle
        }
    }
}

/// The bucket the tests run in a world, in place of DynamoDB's.
pub fn token_bucket() -> Box<dyn Admission> {
    Box::new(Bucket)
}
