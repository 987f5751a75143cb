//! The engine side by side with Dynoxide (an embedded DynamoDB emulator on SQLite), the same
//! workloads in one process, single thread (issue 18, "Speed and memory").
//!
//! 1. Both stores load the same data set ([`workload`]).
//! 2. Probe: each workload's first operation runs once on both, from the same state, and what
//!    it returned (counts, the items, a write's item read back) must be equal, or the run
//!    stops: a ratio of different work means nothing.
//! 3. Rounds: each workload runs for at least `--run-ms` on one store, then on the other, and
//!    so on, the order swapped every round so neither always runs on the other's warm or
//!    cold caches. Each run is timed by the thread's CPU time (other processes' load on this
//!    shared machine does not count; `KATAS_BENCH_WALL=1` times by the wall clock). Printed:
//!    the median ops/s of each store and the median of the rounds' ratios, with their range.
//! 4. Memory per item, each store in a fresh process ([`memory`]).
//!
//! Run: `cargo run --release --manifest-path engine/peer-bench/Cargo.toml`
//! (`-- --help` for the options). README.md beside Cargo.toml says what it costs.

#![allow(clippy::disallowed_methods)] // a benchmark times itself by the wall clock

mod dynoxide_side;
mod engine_side;
mod memory;
mod workload;

use std::process::Command;
use std::time::{Duration, Instant};

use dynoxide_side::DynoxideSide;
use engine_side::EngineSide;
use workload::{Side, Workload};

/// The target: the engine at least this many times Dynoxide's rate.
const TARGET_RATIO: f64 = 5.0;

const USAGE: &str = "\
peer-bench [WORKLOAD...] [--rounds N] [--run-ms MS] [--memory-items N] [--no-memory]
  WORKLOAD: get put update query batch scan put_gsi (default: all)
  --rounds N        interleaved rounds per workload (default 7)
  --run-ms MS       minimum CPU time of one run of one store (default 300)
  --memory-items N  items loaded for the memory figures (default 100000)
  --no-memory       skip the memory figures
  KATAS_BENCH_WALL=1  time by the wall clock instead of the thread's CPU time";

struct Plan {
    workloads: Vec<Workload>,
    rounds: usize,
    run_time: Duration,
    memory_items: Option<usize>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, store, items] = args.as_slice() {
        if flag == "--memory-child" {
            memory::child(store, items.parse().unwrap());
            return;
        }
    }
    let plan = match parse(&args) {
        Ok(plan) => plan,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    run(&plan);
}

fn parse(args: &[String]) -> Result<Plan, String> {
    let mut plan = Plan {
        workloads: Vec::new(),
        rounds: 7,
        run_time: Duration::from_millis(300),
        memory_items: Some(100_000),
    };
    let mut args = args.iter();
    let number = |value: Option<&String>, flag: &str| -> Result<usize, String> {
        value
            .and_then(|v| v.parse().ok())
            .filter(|&v| v > 0)
            .ok_or(format!("{flag} needs a positive number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => plan.rounds = number(args.next(), "--rounds")?,
            "--run-ms" => {
                plan.run_time = Duration::from_millis(number(args.next(), "--run-ms")? as u64)
            }
            "--memory-items" => plan.memory_items = Some(number(args.next(), "--memory-items")?),
            "--no-memory" => plan.memory_items = None,
            "--help" | "-h" => return Err(String::new()),
            // `cargo bench` style flags passed through by habit.
            "--bench" => {}
            name => match Workload::ALL.iter().find(|w| w.key() == name) {
                Some(&w) => plan.workloads.push(w),
                None => return Err(format!("no workload or option `{name}`")),
            },
        }
    }
    if plan.workloads.is_empty() {
        plan.workloads = Workload::ALL.to_vec();
    }
    Ok(plan)
}

fn run(plan: &Plan) {
    let load_start = load_average();
    println!(
        "peer bench, {}: the engine ({}) against Dynoxide {}, single thread, in-process",
        shell("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        engine_commit(),
        dynoxide_version()
    );
    println!("load average at start: {load_start}");

    let started = Instant::now();
    let mut engine = EngineSide::load();
    let engine_load = started.elapsed();
    let started = Instant::now();
    let mut peer = DynoxideSide::load();
    let peer_load = started.elapsed();
    println!(
        "data set loaded: engine {:.2} s, Dynoxide {:.2} s (wall)",
        engine_load.as_secs_f64(),
        peer_load.as_secs_f64()
    );

    // The probe: operation 0 of each workload, once on each store, from the same state.
    for &w in &plan.workloads {
        let ours = engine.op(w, 0, true).unwrap();
        let theirs = peer.op(w, 0, true).unwrap();
        assert_eq!(
            ours,
            theirs,
            "{}: the stores returned different results",
            w.key()
        );
        assert!(ours.count > 0, "{}: the probe returned nothing", w.key());
        println!(
            "  probe {:<8} same on both: {} item(s) returned, {} read",
            w.key(),
            ours.count,
            ours.scanned
        );
    }

    let mut rows = Vec::new();
    for &w in &plan.workloads {
        let (mut ours, mut theirs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        // The next operation number, per store (operation 0 was the probe).
        let mut next = [1usize, 1usize];
        for round in 0..plan.rounds {
            let (e, d) = if round % 2 == 0 {
                let e = measure(&mut engine, w, &mut next[0], plan.run_time);
                (e, measure(&mut peer, w, &mut next[1], plan.run_time))
            } else {
                let d = measure(&mut peer, w, &mut next[1], plan.run_time);
                (measure(&mut engine, w, &mut next[0], plan.run_time), d)
            };
            ours.push(e);
            theirs.push(d);
            ratios.push(e / d);
        }
        let row = Row {
            workload: w,
            engine: median(&mut ours),
            peer: median(&mut theirs),
            ratio: median(&mut ratios),
            ratio_range: (ratios[0], ratios[ratios.len() - 1]),
        };
        eprintln!(
            "  {:<8} engine {:>10}  Dynoxide {:>10}  {:.1}x",
            w.key(),
            format_ops(row.engine),
            format_ops(row.peer),
            row.ratio
        );
        rows.push(row);
    }
    let load_end = load_average();

    println!();
    println!(
        "| workload (median of {} rounds, ≥ {} ms each, {}) | engine ops/s | Dynoxide ops/s | engine ÷ Dynoxide (range) | ≥ {TARGET_RATIO}x |",
        plan.rounds,
        plan.run_time.as_millis(),
        if std::env::var_os("KATAS_BENCH_WALL").is_some() { "wall clock" } else { "thread CPU time" },
    );
    println!("| --- | ---: | ---: | ---: | :---: |");
    for row in &rows {
        println!(
            "| {} | {} | {} | {:.1}x ({:.1}–{:.1}) | {} |",
            row.workload.label(),
            format_ops(row.engine),
            format_ops(row.peer),
            row.ratio,
            row.ratio_range.0,
            row.ratio_range.1,
            if row.ratio >= TARGET_RATIO {
                "yes"
            } else {
                "no"
            }
        );
    }
    println!();
    println!("load average: {load_start} at start, {load_end} after the rounds");

    if let Some(items) = plan.memory_items {
        println!();
        println!("| store ({items} items loaded, each store in a fresh process) | resident before | after | bytes per item | raw item | × raw |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: |");
        for (store, label) in memory::STORES {
            let r = memory::measure(store, items);
            println!(
                "| {label} | {:.1} MB | {:.1} MB | {:.0} | {:.0} B | {:.1}x |",
                r.before as f64 / 1e6,
                r.after as f64 / 1e6,
                r.per_item(items),
                r.raw,
                r.per_item(items) / r.raw
            );
        }
        println!();
        println!("load average after the memory runs: {}", load_average());
    }
}

struct Row {
    workload: Workload,
    engine: f64,
    peer: f64,
    ratio: f64,
    /// Lowest and highest ratio of one round.
    ratio_range: (f64, f64),
}

/// Operations per second of `w` on `side`: a warm-up batch, then batches until the run has
/// taken `run_time`. `next` numbers the operations, continuing across runs.
fn measure<S: Side>(side: &mut S, w: Workload, next: &mut usize, run_time: Duration) -> f64 {
    let batch = (100 / w.units()).max(1);
    let mut run_batch = |side: &mut S| {
        for _ in 0..batch {
            side.op(w, *next, false);
            *next += 1;
        }
    };
    run_batch(side);
    let mut busy = Duration::ZERO;
    let mut ops = 0usize;
    while busy < run_time {
        let start = Clock::now();
        run_batch(side);
        busy += start.elapsed();
        ops += batch;
    }
    ops as f64 / busy.as_secs_f64()
}

/// Sorts `values` and returns their median.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// The time a run is charged: the thread's CPU time (`/proc/thread-self/schedstat`), or the
/// wall clock with `KATAS_BENCH_WALL=1` or where Linux does not report it.
enum Clock {
    Cpu(u64),
    Wall(Instant),
}

impl Clock {
    fn now() -> Clock {
        match thread_cpu_ns() {
            Some(ns) if std::env::var_os("KATAS_BENCH_WALL").is_none() => Clock::Cpu(ns),
            _ => Clock::Wall(Instant::now()),
        }
    }

    fn elapsed(&self) -> Duration {
        match *self {
            Clock::Cpu(start) => {
                Duration::from_nanos(thread_cpu_ns().unwrap_or(start).saturating_sub(start))
            }
            Clock::Wall(start) => start.elapsed(),
        }
    }
}

fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The 1, 5 and 15 minute load averages.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The engine's commit (the checkout this project sits in), `-dirty` with local changes.
fn engine_commit() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let head = shell("git", &["-C", dir, "rev-parse", "--short", "HEAD"]);
    let dirty = !shell("git", &["-C", dir, "status", "--porcelain", "--", ".."]).is_empty();
    format!("commit {head}{}", if dirty { "-dirty" } else { "" })
}

/// Dynoxide's version, as the lock file beside this project pins it.
fn dynoxide_version() -> &'static str {
    let lock = include_str!("../Cargo.lock");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"dynoxide-rs\"" {
            let version = lines.next().unwrap_or_default();
            return version.trim_start_matches("version = ").trim_matches('"');
        }
    }
    "(version not in Cargo.lock)"
}

/// What `program args` prints, trimmed (empty if it cannot run).
fn shell(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Three significant figures: `638382.1` → `638k`, `17472.0` → `17.5k`, `360.2` → `360`.
fn format_ops(v: f64) -> String {
    match v {
        v if v >= 1e6 => format!("{:.2}M", v / 1e6),
        v if v >= 1e5 => format!("{:.0}k", v / 1e3),
        v if v >= 1e4 => format!("{:.1}k", v / 1e3),
        v if v >= 1e3 => format!("{:.2}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}
