//! # Capacity: what a request costs
//!
//! DynamoDB meters throughput in *capacity units*. A write costs one write unit (WCU) per
//! 1 KB of item, rounded up; a read costs one read unit (RCU) per 4 KB, rounded up — half
//! that when eventually consistent, twice that inside a transaction:
//!
//! ```text
//! read  = ceil(bytes / 4096) × { 1 strong, 0.5 eventual, 2 transactional }
//! write = ceil(bytes / 1024) × { 1 standard, 2 transactional }
//! ```
//!
//! *Which* bytes depends on the operation, and the differences are what the lessons test:
//!
//! | operation | bytes counted | rounding |
//! |---|---|---|
//! | GetItem | the whole item, whatever the projection; a missing item costs the minimum | per item |
//! | Query, Scan | every item *read*, before the filter — filters are not free | once, on the sum |
//! | BatchGetItem, BatchWriteItem | each item | per item, then summed |
//! | PutItem, UpdateItem | the larger of the item before and after | per item |
//! | DeleteItem | the deleted item (1 unit if there was none) | per item |
//! | failed condition | still charged, as if the write happened (1 unit if no item) | per item |
//! | transactions | twice the plain operation (prepare + commit) | per item |
//!
//! This module does the arithmetic and shapes the `ConsumedCapacity` a response reports.
//! Enforcing capacity per partition per second (throttling) builds on the same numbers, and
//! its rules live here too, in two files:
//!
//! - [`admission`]: one partition's meters for one second — allocation, adaptive capacity,
//!   burst, the per-partition ceiling, on-demand's previous-peak rule and quota — and the
//!   decision for one request (with the limit a refusal ran into), the bucket's part of it
//!   behind the [`admission::Admission`] seam;
//! - [`enforce`]: a request meeting a table — which store pays (the table, or a global
//!   index), each partition's allocation, closing seconds into the per-partition history
//!   (what `World::partition_metrics` shows), marking hot partitions for a split, and the
//!   throttling exceptions with DynamoDB's messages and a `ThrottlingReason` naming the limit
//!   (a key range, the provisioned rate, the per-table quota) and the table or index.
//!
//! The world only calls in: every read and write asks `enforce::admit` before it takes
//! effect, and records what was charged in the request log.

pub mod admission;
pub mod enforce;

use std::collections::{BTreeMap, HashMap};

use crate::types::{Capacity, ConsumedCapacity, ReturnConsumedCapacity};

/// Bytes covered by one read unit.
pub const READ_UNIT_BYTES: usize = 4096;
/// Bytes covered by one write unit.
pub const WRITE_UNIT_BYTES: usize = 1024;

/// How a read is served, which sets its price per 4 KB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadKind {
    Eventual,
    Strong,
    Transactional,
}

impl ReadKind {
    pub fn from_consistent(consistent: bool) -> ReadKind {
        if consistent {
            ReadKind::Strong
        } else {
            ReadKind::Eventual
        }
    }

    fn factor(self) -> f64 {
        match self {
            ReadKind::Eventual => 0.5,
            ReadKind::Strong => 1.0,
            ReadKind::Transactional => 2.0,
        }
    }
}

/// Read units for `bytes` read as one unit of rounding (at least one 4 KB block).
pub fn read_units(bytes: usize, kind: ReadKind) -> f64 {
    read_units_min_blocks(bytes, kind, 1)
}

/// Read units for a Query or Scan: the sum rounded once, at least one block per partition
/// touched.
pub fn read_units_min_blocks(bytes: usize, kind: ReadKind, min_blocks: usize) -> f64 {
    let blocks = bytes.div_ceil(READ_UNIT_BYTES).max(min_blocks);
    blocks as f64 * kind.factor()
}

/// Write units for one item write of `bytes` (at least one).
pub fn write_units(bytes: usize, transactional: bool) -> f64 {
    let blocks = bytes.div_ceil(WRITE_UNIT_BYTES).max(1);
    blocks as f64 * if transactional { 2.0 } else { 1.0 }
}

/// Units consumed by one request on one table, split by where they were spent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Consumption {
    pub read: f64,
    pub write: f64,
    /// Index name → (read, write, is global).
    pub indexes: BTreeMap<String, (f64, f64, bool)>,
}

impl Consumption {
    pub fn read(units: f64) -> Consumption {
        Consumption {
            read: units,
            ..Consumption::default()
        }
    }

    pub fn write(units: f64) -> Consumption {
        Consumption {
            write: units,
            ..Consumption::default()
        }
    }

    pub fn add(&mut self, other: &Consumption) {
        self.read += other.read;
        self.write += other.write;
        for (name, (r, w, g)) in &other.indexes {
            let e = self.indexes.entry(name.clone()).or_insert((0.0, 0.0, *g));
            e.0 += r;
            e.1 += w;
        }
    }

    pub fn total(&self) -> f64 {
        self.read + self.write + self.indexes.values().map(|(r, w, _)| r + w).sum::<f64>()
    }

    /// The `ConsumedCapacity` a response carries for this table, per `ReturnConsumedCapacity`.
    pub fn report(
        &self,
        table: &str,
        mode: Option<ReturnConsumedCapacity>,
    ) -> Option<ConsumedCapacity> {
        let mode = mode.unwrap_or(ReturnConsumedCapacity::None);
        if mode == ReturnConsumedCapacity::None {
            return None;
        }
        let total = self.total();
        let index_reads: f64 = self.indexes.values().map(|(r, _, _)| r).sum();
        let index_writes: f64 = self.indexes.values().map(|(_, w, _)| w).sum();
        let mut out = ConsumedCapacity {
            table_name: Some(table.to_string()),
            capacity_units: Some(total),
            read_capacity_units: nonzero(self.read + index_reads),
            write_capacity_units: nonzero(self.write + index_writes),
            ..ConsumedCapacity::default()
        };
        if mode == ReturnConsumedCapacity::Indexes {
            out.table = Some(capacity(self.read, self.write));
            let gsis: HashMap<String, Capacity> = self
                .indexes
                .iter()
                .filter(|(_, (_, _, g))| *g)
                .map(|(n, (r, w, _))| (n.clone(), capacity(*r, *w)))
                .collect();
            let lsis: HashMap<String, Capacity> = self
                .indexes
                .iter()
                .filter(|(_, (_, _, g))| !*g)
                .map(|(n, (r, w, _))| (n.clone(), capacity(*r, *w)))
                .collect();
            out.global_secondary_indexes = (!gsis.is_empty()).then_some(gsis);
            out.local_secondary_indexes = (!lsis.is_empty()).then_some(lsis);
        }
        Some(out)
    }
}

fn nonzero(v: f64) -> Option<f64> {
    (v != 0.0).then_some(v)
}

fn capacity(read: f64, write: f64) -> Capacity {
    Capacity {
        capacity_units: Some(read + write),
        read_capacity_units: nonzero(read),
        write_capacity_units: nonzero(write),
    }
}
