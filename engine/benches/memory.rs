//! Memory the engine holds per stored item, next to the raw size of the data (issue 18,
//! "Speed and memory").
//!
//! Each measurement runs in a fresh process (this binary starts itself once per row), so
//! one load's freed memory does not flatter the next: the process's resident size
//! (`/proc/self/statm`, second field, in pages) is read after the world and its table exist
//! and again after N items of about 90 bytes were written and replication has settled; the
//! difference divided by N is the bytes per item. The raw data size is the items' size as
//! DynamoDB counts it ([`engine::item_size`]: names and values). The request log is on with
//! its default capacity (the world's default settings) or off (`request_log_capacity: 0`).
//!
//! Run: `cargo bench -p dynamodb-katas-engine --bench memory` (Linux: it reads `/proc`).
//! `-- 100000` runs only the rows of that many items.
#![allow(clippy::disallowed_methods)] // the child processes are the point, not the clock

use std::process::Command;
use std::time::Duration;

mod common;

use engine::{item, Item, World, WorldConfig};

/// Items loaded per row.
const LOADS: [usize; 2] = [100_000, 1_000_000];
/// Writes between two simulated seconds (the on-demand table's capacity refills).
const PER_SECOND: usize = 1_000;

/// A user profile of about 90 bytes, numbered `i`.
fn profile(i: usize) -> Item {
    item! {
        "PK" => format!("USER#{i:07}"),
        "SK" => "PROFILE",
        "name" => "Ana Lovelace",
        "email" => format!("ana.{i:07}@example.com"),
        "age" => (i % 90) as i64,
        "city" => "Lisbon, Portugal",
    }
}

/// Resident bytes of this process.
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("Linux /proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("statm's second field");
    pages * 4096
}

/// One row, in this process: loads `n` items and prints `n raw_bytes resident_delta`.
fn measure(n: usize, log: bool) {
    let mut config = WorldConfig {
        seed: 1,
        ..WorldConfig::default()
    };
    if !log {
        config.request_log_capacity = 0;
    }
    let world = World::with_config(config);
    let client = world.client();
    common::create_pk_sk_table(&client, "mem");
    let before = resident();
    let mut raw = 0;
    for i in 0..n {
        if i % PER_SECOND == 0 {
            world.advance(Duration::from_secs(1));
        }
        let item = profile(i);
        raw += engine::item_size(&item);
        client
            .put_item()
            .table_name("mem")
            .set_item(Some(item))
            .send()
            .unwrap();
    }
    world.settle();
    let after = resident();
    println!("{n} {raw} {}", after.saturating_sub(before));
    std::hint::black_box(&world);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, n, log] = &args[..] {
        if flag == "--row" {
            measure(n.parse().unwrap(), log == "on");
            return;
        }
    }
    let only: Option<usize> = args.iter().find_map(|a| a.parse().ok());
    let exe = std::env::current_exe().unwrap();
    println!();
    println!("memory bench: resident bytes per item of about 90 bytes, fresh process per row");
    println!();
    println!(
        "| {:>9} | {:>11} | {:>14} | {:>15} | {:>14} |",
        "items", "request log", "raw bytes/item", "resident/item", "resident total"
    );
    println!(
        "|{:->11}|{:->13}|{:->16}|{:->17}|{:->16}|",
        "", "", "", "", ""
    );
    for n in LOADS.into_iter().filter(|n| only.is_none_or(|o| o == *n)) {
        for log in ["on", "off"] {
            let out = Command::new(&exe)
                .args(["--row", &n.to_string(), log])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<usize> = text
                .split_whitespace()
                .filter_map(|f| f.parse().ok())
                .collect();
            let [items, raw, resident] = fields[..] else {
                panic!(
                    "row {n} {log} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            };
            println!(
                "| {:>9} | {:>11} | {:>14.1} | {:>15.0} | {:>11.1} MB |",
                items,
                log,
                raw as f64 / items as f64,
                resident as f64 / items as f64,
                resident as f64 / 1e6
            );
        }
    }
}
