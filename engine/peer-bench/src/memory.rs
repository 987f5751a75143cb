//! Memory per item: the process's resident size before and after loading N items of about
//! 90 bytes into table `bench`, each store in a fresh process (this binary again, with
//! `--memory-child STORE N`), so neither inherits the other's heap or the speed runs' garbage.

use std::hint::black_box;
use std::process::Command;

use engine::WorldConfig;

use crate::dynoxide_side::DynoxideSide;
use crate::engine_side::EngineSide;
use crate::workload::memory_item;

/// The stores measured, as `--memory-child` names them, with what the table prints.
pub const STORES: [(&str, &str); 3] = [
    ("engine", "engine, default settings"),
    ("engine-nolog", "engine, request log off"),
    ("dynoxide", "Dynoxide (in-memory SQLite)"),
];

/// One store's figures.
pub struct Resident {
    pub before: u64,
    pub after: u64,
    /// Mean DynamoDB item size of the loaded items (names and values, as both stores count it).
    pub raw: f64,
}

impl Resident {
    pub fn per_item(&self, items: usize) -> f64 {
        (self.after.saturating_sub(self.before)) as f64 / items as f64
    }
}

/// Runs the child for `store` and reads its answer.
pub fn measure(store: &str, items: usize) -> Resident {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--memory-child", store, &items.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "memory child {store} failed: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let fields: Vec<&str> = text.split_whitespace().collect();
    Resident {
        before: fields[0].parse().unwrap(),
        after: fields[1].parse().unwrap(),
        raw: fields[2].parse().unwrap(),
    }
}

/// The child: loads `items` items into a fresh store and prints `before after raw`.
pub fn child(store: &str, items: usize) {
    let raw = (0..items)
        .map(|k| engine::item_size(&memory_item(k)))
        .sum::<usize>() as f64
        / items as f64;
    let sample: dynoxide::Item = memory_item(0);
    assert_eq!(
        dynoxide::types::item_size(&sample),
        engine::item_size(&memory_item(0)),
        "both stores size an item alike"
    );
    let (before, after) = match store {
        "engine" | "engine-nolog" => {
            let mut config = WorldConfig::default();
            if store == "engine-nolog" {
                config.request_log_capacity = 0;
            }
            let mut side = EngineSide::empty(config);
            let before = resident_bytes();
            for k in 0..items {
                side.put("bench", memory_item(k));
            }
            side.settle();
            let after = resident_bytes();
            black_box(side);
            (before, after)
        }
        "dynoxide" => {
            let side = DynoxideSide::empty();
            let before = resident_bytes();
            for k in 0..items {
                side.put("bench", memory_item(k));
            }
            let after = resident_bytes();
            black_box(side);
            (before, after)
        }
        other => panic!("no store {other}"),
    };
    println!("{before} {after} {raw}");
}

/// `VmRSS` of this process, in bytes.
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}
