//! # The server's clock: the only place that reads the wall clock
//!
//! The engine runs on a simulated clock that moves only when told ([`World::advance`]); that is
//! what makes a seed replay a run. A person driving the engine from an SDK expects time to
//! pass by itself: an index to catch up a moment after a write, TTL and stream records to be
//! stamped with today's date. The server reconciles the two here, and nowhere else.
//!
//! ```text
//!  --clock real    every request first advances the world by the wall time elapsed since the
//!                  last one (catch_up), so background work due by now has run; the world's
//!                  epoch is the wall clock's at start, so TTL attributes written as
//!                  `time.time() + 60` mean what they say
//!  --clock manual  time moves only on POST /_katas/advance?ms=N; the world starts at the
//!                  engine's fixed epoch, so a seed and a request sequence replay exactly
//! ```
//!
//! Either way, `POST /_katas/advance` jumps ahead on top (for a TTL sweep an hour away).
//! Decision: catching up on each request, not on a ticking thread — a world nobody asks
//! about needs no time to pass, and a request sees exactly the work due by its arrival.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use engine::World;

/// How simulated time relates to wall time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockMode {
    /// The world advances with elapsed wall time.
    Real,
    /// The world advances only when asked.
    Manual,
}

impl std::str::FromStr for ClockMode {
    type Err = String;
    fn from_str(s: &str) -> Result<ClockMode, String> {
        match s {
            "real" => Ok(ClockMode::Real),
            "manual" => Ok(ClockMode::Manual),
            other => Err(format!("--clock is real or manual, not '{other}'")),
        }
    }
}

/// The wall clock, as far as the world has been told about it.
#[derive(Debug)]
pub struct Clock {
    mode: ClockMode,
    started: Instant,
    /// Wall milliseconds since `started` already given to the world.
    caught_up_ms: Mutex<u64>,
}

impl Clock {
    pub fn new(mode: ClockMode) -> Clock {
        Clock {
            mode,
            started: Instant::now(),
            caught_up_ms: Mutex::new(0),
        }
    }

    pub fn mode(&self) -> ClockMode {
        self.mode
    }

    /// The world's epoch for this mode: now, for a real clock; the engine's default (a fixed
    /// date) for a manual one.
    pub fn epoch_seconds(mode: ClockMode, default: u64) -> u64 {
        match mode {
            ClockMode::Real => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(default, |d| d.as_secs()),
            ClockMode::Manual => default,
        }
    }

    /// With a real clock, advances `world` by the wall time elapsed since the last catch-up.
    /// Holding the lock while advancing keeps concurrent requests from both handing the world
    /// the same elapsed time.
    pub fn catch_up(&self, world: &World) {
        if self.mode == ClockMode::Manual {
            return;
        }
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut done = self
            .caught_up_ms
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if elapsed > *done {
            world.advance(Duration::from_millis(elapsed - *done));
            *done = elapsed;
        }
    }
}
