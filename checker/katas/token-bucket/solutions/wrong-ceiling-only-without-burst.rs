//! Known-wrong: checks the partition ceiling for requests within the allocation or the table's
//! loan, but lets burst pay past it.

use engine::seams::{Admission, Ask, Closing, Decision};

/// A partition's bucket: unused allocation saved up to the window, spent past the allocation.
#[derive(Debug)]
pub struct Bucket;

impl Admission for Bucket {
    fn bank(&self, c: &Closing) -> f64 {
        let allocation = c.rate.allocation;
        let left = (allocation - c.consumed).max(0.0);
        let idle = (c.next - c.second - 1) as f64;
        (c.burst + left + idle * allocation).min(allocation * c.rate.burst_window_s as f64)
    }

    fn admit(&self, ask: &Ask) -> Decision {
        let keep = Decision::Admit { burst: ask.burst };
        if ask.consumed == 0.0 {
            return keep;
        }
        let after = ask.consumed + ask.units;
        if (after <= ask.rate.allocation || ask.table_lends) && after <= ask.rate.ceiling {
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
