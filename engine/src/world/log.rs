//! The request log: what every request did, for tests, katas and learners to query.
//!
//! Each request that reaches the world leaves one [`RequestRecord`]: the operation, the
//! table and index it touched, the partitions it was routed to, the capacity it consumed
//! and whether it succeeded. A hidden test can then say "this access pattern was served by
//! one Query and no Scan" or "no request was throttled" without looking inside the
//! learner's code.
//!
//! The log keeps the most recent `request_log_capacity` records (a long simulation would
//! otherwise hold millions); [`LogTotals`] counts everything since the world began.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// What one request did.
#[derive(Clone, PartialEq)]
pub struct RequestRecord {
    /// Position in the world's history of requests (0, 1, 2, …).
    pub seq: u64,
    /// Simulated time the request was served at (ms).
    pub at_ms: u64,
    /// `GetItem`, `Query`, `Scan`, `PutItem`, … — the operation that ran. A PartiQL statement
    /// is recorded as the operation it ran as (a `SELECT` without the partition key is a
    /// `Scan`), with the API that was called in [`via`](Self::via).
    pub operation: &'static str,
    /// The API a learner called when it is not `operation` itself: `ExecuteStatement`,
    /// `BatchExecuteStatement` or `ExecuteTransaction`, which run the other operations
    /// underneath. `None` for a request that ran as itself.
    pub via: Option<&'static str>,
    /// The concurrent client that sent the request: its index `i` in
    /// [`World::concurrently(seed).run(n, |i, client| ..)`](super::World::concurrently).
    /// `None` for a request from a thread outside a schedule (the usual case), and for one
    /// sent while a scheduled client advanced the clock (a stream handler's).
    pub client: Option<usize>,
    /// Tables the request touched, in the order it touched them.
    pub tables: Vec<Arc<str>>,
    /// The index, for a Query or Scan on an index.
    pub index: Option<String>,
    /// (table, partition id) pairs the request was routed to, in order, without repeats.
    pub partitions: Vec<(Arc<str>, u32)>,
    pub read_units: f64,
    pub write_units: f64,
    /// Items a Query or Scan read (before its filter): what the request paid for.
    pub items_read: u64,
    /// For reads: whether they were strongly consistent (`Some(true)` if any read of the
    /// request was). `None` for writes.
    pub consistent_read: Option<bool>,
    /// `None` on success; the exception name otherwise (`ProvisionedThroughputExceededException`…).
    pub error: Option<&'static str>,
}

/// Decision: the derived form, except that `via` is shown only when set. The world's
/// [`trace_hash`](super::World::trace_hash) hashes the log's `Debug`; a field that is `None`
/// in every request sent before PartiQL existed must not change the hash of those runs.
impl std::fmt::Debug for RequestRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("RequestRecord");
        d.field("seq", &self.seq)
            .field("at_ms", &self.at_ms)
            .field("operation", &self.operation);
        if let Some(via) = self.via {
            d.field("via", &via);
        }
        d.field("client", &self.client)
            .field("tables", &self.tables)
            .field("index", &self.index)
            .field("partitions", &self.partitions)
            .field("read_units", &self.read_units)
            .field("write_units", &self.write_units)
            .field("items_read", &self.items_read)
            .field("consistent_read", &self.consistent_read)
            .field("error", &self.error)
            .finish()
    }
}

impl RequestRecord {
    pub fn succeeded(&self) -> bool {
        self.error.is_none()
    }

    pub fn throttled(&self) -> bool {
        matches!(
            self.error,
            Some("ProvisionedThroughputExceededException" | "ThrottlingException")
        )
    }

    /// Whether the request touched `table`.
    pub fn touches(&self, table: &str) -> bool {
        self.tables.iter().any(|t| &**t == table)
    }
}

/// Counts over every request since the world began (the log itself is bounded).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogTotals {
    pub requests: u64,
    /// operation → count.
    pub by_operation: BTreeMap<&'static str, u64>,
    /// exception name → count.
    pub errors: BTreeMap<&'static str, u64>,
    pub throttled: u64,
}

/// The bounded log plus the totals.
#[derive(Clone, Debug, Default)]
pub struct RequestLog {
    pub records: VecDeque<RequestRecord>,
    pub totals: LogTotals,
    pub capacity: usize,
    pub current: Option<RequestRecord>,
    /// Table names, shared by every record that names them (no allocation per request).
    names: Vec<Arc<str>>,
    /// The record that fell off the end of the log, reused for the next request (its
    /// vectors keep their capacity).
    spare: Option<RequestRecord>,
}

impl RequestLog {
    pub fn new(capacity: usize) -> RequestLog {
        RequestLog {
            capacity,
            ..RequestLog::default()
        }
    }

    pub fn begin(&mut self, operation: &'static str, at_ms: u64, client: Option<usize>) {
        let mut record = self.spare.take().unwrap_or_else(|| RequestRecord {
            seq: 0,
            at_ms: 0,
            operation,
            via: None,
            client,
            tables: Vec::new(),
            index: None,
            partitions: Vec::new(),
            read_units: 0.0,
            write_units: 0.0,
            items_read: 0,
            consistent_read: None,
            error: None,
        });
        record.seq = self.totals.requests;
        record.at_ms = at_ms;
        record.operation = operation;
        record.via = None;
        record.client = client;
        record.tables.clear();
        record.index = None;
        record.partitions.clear();
        record.read_units = 0.0;
        record.write_units = 0.0;
        record.items_read = 0;
        record.consistent_read = None;
        record.error = None;
        self.current = Some(record);
    }

    /// Notes that the current request, sent as a PartiQL operation, runs as `operation`
    /// (`Scan`, `Query`, `PutItem`, `TransactWriteItems`…): the record then names that
    /// operation and keeps the one called in `via`.
    pub fn runs_as(&mut self, operation: &'static str) {
        if let Some(r) = &mut self.current {
            if r.operation != operation {
                r.via.get_or_insert(r.operation);
                r.operation = operation;
            }
        }
    }

    fn intern(names: &mut Vec<Arc<str>>, table: &str) -> Arc<str> {
        if let Some(n) = names.iter().find(|n| &***n == table) {
            return n.clone();
        }
        let n: Arc<str> = Arc::from(table);
        names.push(n.clone());
        n
    }

    /// Notes that the current request was routed to a partition and spent units there.
    pub fn touch(&mut self, table: &str, partition: u32, read: f64, write: f64) {
        if let Some(r) = &mut self.current {
            if !r.tables.iter().any(|t| &**t == table) {
                r.tables.push(Self::intern(&mut self.names, table));
            }
            if !r
                .partitions
                .iter()
                .any(|(t, p)| &**t == table && *p == partition)
            {
                r.partitions
                    .push((Self::intern(&mut self.names, table), partition));
            }
            r.read_units += read;
            r.write_units += write;
        }
    }

    /// Notes the consistency of a read of the current request.
    pub fn read_consistency(&mut self, consistent: bool) {
        if let Some(r) = &mut self.current {
            r.consistent_read = Some(r.consistent_read.unwrap_or(false) || consistent);
        }
    }

    /// Notes how many items the current request read (Query, Scan).
    pub fn read_items(&mut self, n: usize) {
        if let Some(r) = &mut self.current {
            r.items_read += n as u64;
        }
    }

    /// Notes the table (and index) the current request addressed, even if it never reached
    /// a partition (a rejected request).
    pub fn target(&mut self, table: &str, index: Option<&str>) {
        if let Some(r) = &mut self.current {
            if !r.tables.iter().any(|t| &**t == table) {
                r.tables.push(Self::intern(&mut self.names, table));
            }
            if index.is_some() {
                r.index = index.map(str::to_string);
            }
        }
    }

    pub fn finish(&mut self, error: Option<&'static str>) {
        let Some(mut record) = self.current.take() else {
            return;
        };
        record.error = error;
        self.totals.requests += 1;
        *self
            .totals
            .by_operation
            .entry(record.operation)
            .or_insert(0) += 1;
        if let Some(e) = error {
            *self.totals.errors.entry(e).or_insert(0) += 1;
        }
        if record.throttled() {
            self.totals.throttled += 1;
        }
        if self.capacity > 0 {
            if self.records.len() == self.capacity {
                self.spare = self.records.pop_front();
            }
            self.records.push_back(record);
        }
    }
}
