//! Alternative solution of `token-bucket`: in terms of headroom. `admit` asks how much of the
//! allocation is left this second and takes the rest from burst; `bank` clamps the idle
//! seconds to the window before multiplying, so a year of idleness costs nothing to count.

use engine::seams::{Admission, Ask, Closing, Decision};

/// A bucket reasoning in headroom and whole windows.
#[derive(Debug)]
pub struct Headroom;

impl Admission for Headroom {
    fn bank(&self, c: &Closing) -> f64 {
        let rate = c.rate;
        let cap = rate.allocation * rate.burst_window_s as f64;
        let idle_seconds = c.next.saturating_sub(c.second + 1).min(rate.burst_window_s);
        let unused_now = if c.consumed < rate.allocation {
            rate.allocation - c.consumed
        } else {
            0.0
        };
        let saved = c.burst + unused_now + idle_seconds as f64 * rate.allocation;
        if saved > cap {
            cap
        } else {
            saved
        }
    }

    fn admit(&self, ask: &Ask) -> Decision {
        let first = ask.consumed == 0.0;
        let headroom = (ask.rate.allocation - ask.consumed).max(0.0);
        let from_burst = (ask.units - headroom).max(0.0);
        match () {
            _ if first => Decision::Admit { burst: ask.burst },
            _ if ask.consumed + ask.units > ask.rate.ceiling => Decision::Throttle,
            _ if from_burst == 0.0 || ask.table_lends => Decision::Admit { burst: ask.burst },
            _ if from_burst <= ask.burst => Decision::Admit {
                burst: ask.burst - from_burst,
            },
            _ => Decision::Throttle,
        }
    }
}

/// The bucket the tests run in a world, in place of DynamoDB's.
pub fn token_bucket() -> Box<dyn Admission> {
    Box::new(Headroom)
}
