//! The planning rules of the README, worked out by the tests on their own (they never call the
//! reference solution), and the workloads the tests hand to `plan`, drawn from the seed.
//!
//! Units are kept whole: write units per second, and read units per second in *half* units
//! (an eventually consistent read of 4 KB is one half unit), so no figure is ever rounded
//! twice.

use given::{
    Keys, Phase, Workload, MIN_UTILISATION_PERCENT, ON_DEMAND_INITIAL_RCU, ON_DEMAND_INITIAL_WCU,
    PARTITION_RCU, PARTITION_WCU,
};
use katas_testkit::{thousands, Rng};

/// Write units of one PutItem of `bytes`: one per 1 KB, rounded up.
pub fn write_units(bytes: u32) -> u64 {
    u64::from(bytes.div_ceil(1024).max(1))
}

/// Read half-units of one GetItem of `bytes`: one 4 KB block is 2 halves strong, 1 eventual.
pub fn read_halves(bytes: u32, strong: bool) -> u64 {
    let blocks = u64::from(bytes.div_ceil(4096).max(1));
    if strong {
        2 * blocks
    } else {
        blocks
    }
}

/// `halves` read half-units, as text (`1,234.5`).
pub fn halves_text(halves: u64) -> String {
    if halves % 2 == 0 {
        thousands(halves / 2)
    } else {
        format!("{}.5", thousands(halves / 2))
    }
}

/// How many of `n` requests go to the hot key at `percent` (rounded down, as the README says).
pub fn hot_share(n: u32, percent: u32) -> u32 {
    n * percent / 100
}

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Write,
    Read,
}

impl Kind {
    pub fn unit(self) -> &'static str {
        match self {
            Kind::Write => "WCU",
            Kind::Read => "RCU",
        }
    }
    pub fn requests(self) -> &'static str {
        match self {
            Kind::Write => "writes",
            Kind::Read => "reads",
        }
    }
    /// The per-partition ceiling, in this kind's half-or-whole units (see [`Need`]).
    pub fn ceiling(self) -> u64 {
        match self {
            Kind::Write => u64::from(PARTITION_WCU),
            Kind::Read => 2 * u64::from(PARTITION_RCU),
        }
    }
    /// What a new on-demand table takes at once, in this kind's units.
    pub fn on_demand_initial(self) -> u64 {
        match self {
            Kind::Write => u64::from(ON_DEMAND_INITIAL_WCU),
            Kind::Read => 2 * u64::from(ON_DEMAND_INITIAL_RCU),
        }
    }
    /// Units (whole for writes, halves for reads) as text.
    pub fn text(self, units: u64) -> String {
        match self {
            Kind::Write => thousands(units),
            Kind::Read => halves_text(units),
        }
    }
}

/// A workload's needs, second by second: write units and read half-units.
#[derive(Clone, Debug)]
pub struct Need {
    pub per_second: Vec<(u32, u32)>,
    pub wpi: u64,
    pub rpi: u64,
    pub writes: Vec<u64>,
    pub reads: Vec<u64>,
}

impl Need {
    pub fn of(w: &Workload) -> Need {
        let per_second = w.per_second();
        let wpi = write_units(w.item_bytes);
        let rpi = read_halves(w.item_bytes, w.consistent_reads);
        Need {
            writes: per_second
                .iter()
                .map(|&(n, _)| u64::from(n) * wpi)
                .collect(),
            reads: per_second
                .iter()
                .map(|&(_, n)| u64::from(n) * rpi)
                .collect(),
            per_second,
            wpi,
            rpi,
        }
    }

    pub fn series(&self, kind: Kind) -> &[u64] {
        match kind {
            Kind::Write => &self.writes,
            Kind::Read => &self.reads,
        }
    }

    /// The busiest second of `kind`: (second, units).
    pub fn peak(&self, kind: Kind) -> (usize, u64) {
        let s = self.series(kind);
        let mut best = (0, 0);
        for (i, &u) in s.iter().enumerate() {
            if u > best.1 {
                best = (i, u);
            }
        }
        best
    }

    /// The whole-unit figure that covers the busiest second (at least 1).
    pub fn peak_figure(&self, kind: Kind) -> u64 {
        let (_, p) = self.peak(kind);
        match kind {
            Kind::Write => p.max(1),
            Kind::Read => p.div_ceil(2).max(1),
        }
    }

    /// Units used over the workload ÷ units a table provisioned at its peak pays for, in
    /// percent; `None` when the workload has none of this kind.
    pub fn utilisation_at_peak(&self, kind: Kind) -> Option<f64> {
        let s = self.series(kind);
        let (_, p) = self.peak(kind);
        (p > 0).then(|| 100.0 * s.iter().sum::<u64>() as f64 / (p as f64 * s.len() as f64))
    }

    /// The first second a new on-demand table would throttle: more than it takes at once
    /// (the initial allowance, or twice the busiest second before it).
    pub fn on_demand_throttle(&self, kind: Kind) -> Option<OnDemandJump> {
        let mut previous_peak = 0;
        for (i, &u) in self.series(kind).iter().enumerate() {
            let allowance = kind.on_demand_initial().max(2 * previous_peak);
            if u > allowance {
                return Some(OnDemandJump {
                    kind,
                    second: i,
                    need: u,
                    previous_peak,
                    allowance,
                });
            }
            previous_peak = previous_peak.max(u);
        }
        None
    }
}

/// A second a new on-demand table cannot take at once.
#[derive(Clone, Copy, Debug)]
pub struct OnDemandJump {
    pub kind: Kind,
    pub second: usize,
    pub need: u64,
    pub previous_peak: u64,
    pub allowance: u64,
}

/// A key that needs more than one partition.
#[derive(Clone, Debug)]
pub struct HotKey {
    pub key: String,
    pub kind: Kind,
    pub second: usize,
    pub requests: u32,
    pub units: u64,
    pub min_shards: u32,
}

/// The hot key's busiest second, if it is more than one partition serves.
pub fn hot_key(w: &Workload, need: &Need) -> Option<HotKey> {
    let Keys::OneHot { key, percent } = &w.keys else {
        return None;
    };
    let mut worst: Option<HotKey> = None;
    let mut shards = 0;
    for (i, &(writes, reads)) in need.per_second.iter().enumerate() {
        for (kind, n, per) in [
            (Kind::Write, writes, need.wpi),
            (Kind::Read, reads, need.rpi),
        ] {
            let requests = hot_share(n, *percent);
            let units = u64::from(requests) * per;
            let min = units.div_ceil(kind.ceiling()) as u32;
            if units > kind.ceiling() && min > shards {
                shards = min;
                worst = Some(HotKey {
                    key: key.clone(),
                    kind,
                    second: i,
                    requests,
                    units,
                    min_shards: min,
                });
            }
        }
    }
    worst
}

/// What the planning rules decide for a workload.
#[derive(Clone, Debug)]
pub enum Expected {
    Hot(HotKey),
    /// Provisioned because a new on-demand table would throttle this jump.
    ProvisionedForJump(OnDemandJump),
    /// Provisioned because it would be well used.
    ProvisionedWellUsed,
    /// On-demand: provisioned at its peak, this kind would be used this little (percent).
    OnDemand {
        kind: Kind,
        utilisation: f64,
    },
}

pub fn expected(w: &Workload) -> Expected {
    let need = Need::of(w);
    if let Some(hot) = hot_key(w, &need) {
        return Expected::Hot(hot);
    }
    for kind in [Kind::Write, Kind::Read] {
        if let Some(jump) = need.on_demand_throttle(kind) {
            return Expected::ProvisionedForJump(jump);
        }
    }
    for kind in [Kind::Write, Kind::Read] {
        if let Some(u) = need.utilisation_at_peak(kind) {
            if u < f64::from(MIN_UTILISATION_PERCENT) {
                return Expected::OnDemand {
                    kind,
                    utilisation: u,
                };
            }
        }
    }
    Expected::ProvisionedWellUsed
}

/// Partitions of a table provisioned with `rcu` and `wcu`, as the lesson's formula says.
pub fn partitions_for(rcu: i64, wcu: i64) -> u32 {
    let (r, w) = (rcu.max(0) as u64, wcu.max(0) as u64);
    (r + 3 * w).div_ceil(u64::from(PARTITION_RCU)).max(1) as u32
}

// ---------------------------------------------------------------------------------------
// The workloads, drawn from the seed
// ---------------------------------------------------------------------------------------

fn phase(seconds: u32, writes_per_second: u32, reads_per_second: u32) -> Phase {
    Phase {
        seconds,
        writes_per_second,
        reads_per_second,
    }
}

/// `base`, moved by up to `percent` % either way.
fn jitter(rng: &mut Rng, base: u32, percent: u32) -> u32 {
    let span = base * percent / 100;
    base - span + rng.below(u64::from(2 * span + 1)) as u32
}

/// Order history: the same traffic all day (15 s of it), strongly consistent reads of 30 KB
/// items, each second within 5 % of the mean.
pub fn steady(rng: &mut Rng) -> Workload {
    let writes = 36 + rng.below(10) as u32;
    let reads = 420 + rng.below(130) as u32;
    let phases = (0..15)
        .map(|_| phase(1, jitter(rng, writes, 5), jitter(rng, reads, 5)))
        .collect();
    Workload {
        name: "order history".into(),
        item_bytes: 30_000,
        consistent_reads: true,
        phases,
        keys: Keys::Spread,
    }
}

/// Flash sales: nothing for 9.5 minutes, then a 30-second sale (50 KB items, strong reads),
/// within what one partition serves (784..=931 WCU and as many RCU) — so a table
/// provisioned for the average is throttled by its burst running out, not by a ceiling.
pub fn spiky(rng: &mut Rng) -> Workload {
    let writes = 16 + rng.below(4) as u32;
    // As many read units as write units (a read is 13 RCU, a write 49 WCU): the engine banks
    // both burst buckets at one allocation (see the kata's report), equal here.
    let reads = (writes * 49 + 6) / 13;
    Workload {
        name: "flash sales".into(),
        item_bytes: 50_000,
        consistent_reads: true,
        phases: vec![phase(570, 0, 0), phase(30, writes, reads)],
        keys: Keys::Spread,
    }
}

/// A launch: a soft start, a surge when the announcement goes out, then calmer traffic
/// (40 KB items, eventually consistent reads).
pub fn launch(rng: &mut Rng) -> Workload {
    let soft = 8 + rng.below(5) as u32;
    let surge = 110 + rng.below(41) as u32;
    let surge_reads = 200 + rng.below(101) as u32;
    let settle = surge / 4 + rng.below(6) as u32;
    Workload {
        name: "product launch".into(),
        item_bytes: 40_000,
        consistent_reads: false,
        phases: vec![
            phase(10, soft, 40),
            phase(10, surge, surge_reads),
            phase(20, settle, surge_reads / 3),
        ],
        keys: Keys::Spread,
    }
}

/// A celebrity's product page: one key takes most writes of 3.3 KB items, each rounded up to
/// 4 WCU — more than a partition serves only once the size is rounded up.
pub fn hot(rng: &mut Rng) -> Workload {
    let percent = 70 + rng.below(11) as u32;
    // The hot key's writes: 255..=305 a second, 1,020..=1,220 WCU (unrounded: 822..=983).
    let hot_writes = 255 + rng.below(51) as u32;
    let writes = (hot_writes * 100).div_ceil(percent);
    let writes = (writes..writes + 3)
        .find(|&w| hot_share(w, percent) == hot_writes)
        .unwrap_or(writes);
    Workload {
        name: "celebrity product page".into(),
        item_bytes: 3_300,
        consistent_reads: true,
        phases: vec![phase(6, writes, 200)],
        keys: Keys::OneHot {
            key: format!("PRODUCT#{}", 1000 + rng.below(9000)),
            percent,
        },
    }
}

/// A busy key under the ceiling: a popular product taking 60 % of a steady shop's writes,
/// 150 writes of 4 WCU a second at most — under one partition's 1,000 WCU.
pub fn warm(rng: &mut Rng) -> Workload {
    let writes = 220 + rng.below(31) as u32;
    let phases = (0..8)
        .map(|_| phase(1, jitter(rng, writes, 3), 200))
        .collect();
    Workload {
        name: "bestseller".into(),
        item_bytes: 3_300,
        consistent_reads: true,
        phases,
        keys: Keys::OneHot {
            key: format!("PRODUCT#{}", 1000 + rng.below(9000)),
            percent: 60,
        },
    }
}

/// Steady workloads whose figures make the partition formula matter (4,000-byte items: a
/// write is 4 WCU, a strong read 1 RCU), chosen so that the ways of getting the formula wrong
/// (a ceiling per term, the larger term alone, writes alone) disagree with it somewhere.
pub fn sizing(rng: &mut Rng) -> Vec<Workload> {
    // (RCU, WCU) a second, roughly.
    let shapes: [(u32, u32); 6] = [
        (1_500, 1_200),
        (3_600, 1_300),
        (4_500, 300),
        (900, 2_400),
        (6_300, 700),
        (2_400, 3_100),
    ];
    shapes
        .iter()
        .map(|&(r, w)| {
            let (r, w) = (r + rng.below(60) as u32, w + rng.below(40) as u32);
            Workload {
                name: "sizing".into(),
                item_bytes: 4_000,
                consistent_reads: true,
                phases: vec![phase(10, w / 4, r)],
                keys: Keys::Spread,
            }
        })
        .collect()
}
