//! The world's one random number generator.
//!
//! Every random choice the engine makes — which replica serves an eventually consistent
//! read, how long replication takes, which leader wins an election — draws from this
//! generator, seeded once when the world is made. Same seed, same requests: same choices.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state stepped by a
//! constant and passed through a finalizer. It is tiny, fast, passes BigCrush, and — unlike
//! a crate's generator — will never change its stream under us between versions.
//!
//! Where it lives: at the bottom of the crate, below the world that owns the one generator
//! and below the tables and indexes that draw from it. The world passes `&mut Rng` down
//! (`Store::new` draws each partition's first leader, replication draws each delay, an
//! election breaks ties); nothing below the world holds a generator of its own. The
//! finalizer is also the partition-key hash's last step ([`crate::table::key`]), so it lives
//! here, once. `world::rng` re-exports this module for the paths that name it there.

/// A seeded SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        splitmix_finalize(self.state)
    }

    /// A uniform integer in `0..n` (`n > 0`; returns 0 for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Lemire's multiply-shift: unbiased enough for a simulation, and branch-free.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniform integer in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p` (0.0 ..= 1.0).
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }
}

/// The finalizer of splitmix64: a bijection that spreads close inputs far apart.
pub fn splitmix_finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
