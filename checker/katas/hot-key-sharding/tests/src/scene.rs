//! The scene every test plays in: a world with the kata's table, and a load driver that sends
//! likes through the learner's `increment` on the simulated clock and remembers what each
//! like sent (from the request log), so a failure can say which request did what.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::world::log::RequestRecord;
use engine::{Client, Item, World};
use given::TABLE;
use katas_testkit::fail;

use crate::learner::increment;

pub(crate) struct Scene {
    pub(crate) world: World,
    pub(crate) client: Client,
    /// What the learner's `increment` sent so far.
    pub(crate) sent: RefCell<Sent>,
}

/// The requests `increment` sent, counted.
#[derive(Debug, Default)]
pub(crate) struct Sent {
    /// operation → requests.
    pub(crate) by_operation: BTreeMap<&'static str, u64>,
    /// Reads that were eventually consistent.
    pub(crate) eventual_reads: u64,
}

impl Sent {
    pub(crate) fn count(&self, operation: &str) -> u64 {
        self.by_operation.get(operation).copied().unwrap_or(0)
    }

    /// Whether `increment` read an item and then wrote it whole: a read-modify-write.
    pub(crate) fn read_then_put(&self) -> bool {
        self.count("GetItem") + self.count("BatchGetItem") > 0 && self.count("PutItem") > 0
    }

    /// Counts the requests of `log` (all of them `increment`'s).
    pub(crate) fn note(&mut self, log: &[RequestRecord]) {
        for r in log {
            *self.by_operation.entry(r.operation).or_insert(0) += 1;
            if r.consistent_read == Some(false) {
                self.eventual_reads += 1;
            }
        }
    }
}

/// What a load run observed.
pub(crate) struct Stats {
    /// Most throttled requests sent during one call of `increment`, and that like's number.
    pub(crate) max_throttles: u64,
    pub(crate) max_throttles_like: u64,
    /// The requests of that like, from the request log.
    pub(crate) max_throttles_log: Vec<RequestRecord>,
    /// Simulated seconds the load was scheduled to take, and what storing it took.
    pub(crate) scheduled_s: f64,
    pub(crate) took_s: f64,
}

/// The simulated time between each throttled request of `log` and the request after it.
pub(crate) fn waits_after_throttles(log: &[RequestRecord]) -> Vec<u64> {
    log.windows(2)
        .filter(|w| w[0].throttled())
        .map(|w| w[1].at_ms.saturating_sub(w[0].at_ms))
        .collect()
}

impl Scene {
    pub(crate) fn new(seed: u64) -> Scene {
        let scene = Scene::without_table(seed);
        create_table(&scene.client)
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        scene
    }

    /// A world in which the kata's table does not exist (yet).
    pub(crate) fn without_table(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        Scene {
            world,
            client,
            sent: RefCell::default(),
        }
    }

    /// Sends `likes` likes of `post`, like `n` arriving at `n / per_second` seconds after the
    /// start on the simulated clock (or at once, if the learner's backoff already moved the
    /// clock past that moment). Fails the test on the first like `increment` does not store.
    ///
    /// The request log is cleared before each like, so that what the like sent can be read
    /// back cheaply; the log's totals restart with it (only differences are used anywhere).
    pub(crate) fn drive(&self, post: &str, shards: u32, likes: u64, per_second: u64) -> Stats {
        let start_ms = self.world.now().as_millis() as u64;
        let mut stats = Stats {
            max_throttles: 0,
            max_throttles_like: 0,
            max_throttles_log: Vec::new(),
            scheduled_s: likes as f64 / per_second as f64,
            took_s: 0.0,
        };
        for n in 0..likes {
            let due = start_ms + n * 1000 / per_second;
            let now = self.world.now().as_millis() as u64;
            if now < due {
                self.world.advance(Duration::from_millis(due - now));
            }
            self.world.clear_request_log();
            let sent = increment(&self.client, post, shards, n);
            let totals = self.world.request_totals();
            let log = self.world.request_log();
            self.sent.borrow_mut().note(&log);
            if let Err(e) = sent {
                let advice = if e.is_throttling() {
                    "\nA throttled write did nothing, so it is safe to send again, and a \
                     throttle passes with time on the simulated clock (not the computer's)."
                } else {
                    ""
                };
                fail(format!(
                    "increment(\"{post}\", {shards}, {n}) failed at {:.3} s on the simulated \
                     clock: {e}{advice}",
                    self.world.now().as_secs_f64()
                ));
            }
            if totals.requests == 0 {
                fail(format!(
                    "increment(\"{post}\", {shards}, {n}) returned Ok but sent no request to the \
                     table: the like was not stored. A like is stored by a write to one of the \
                     post's shard items."
                ));
            }
            if totals.throttled > stats.max_throttles {
                stats.max_throttles = totals.throttled;
                stats.max_throttles_like = n;
                stats.max_throttles_log = log;
            }
        }
        stats.took_s = (self.world.now().as_millis() as u64 - start_ms) as f64 / 1000.0;
        stats
    }

    /// Every item of the table, read by the test (strongly consistent Scan, every page).
    pub(crate) fn items(&self) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(TABLE)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not scan the table: {e}")));
            items.extend(page.items().iter().cloned());
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return items,
            }
        }
    }

    /// The table's partitions with any load, as the engine draws them.
    pub(crate) fn picture(&self) -> String {
        let seconds = self.world.now().as_secs() + 1;
        let full = self
            .world
            .render_partitions(TABLE, seconds)
            .unwrap_or_default();
        let mut idle = 0;
        let mut out = String::new();
        for line in full.lines() {
            if line.contains(" 0 WCU/s peak") && !line.contains("THROTTLED") {
                idle += 1;
            } else {
                out.push_str(&without_reads(line));
                out.push('\n');
            }
        }
        if idle > 0 {
            out.push_str(&format!("  … and {idle} partitions without writes\n"));
        }
        out
    }
}

/// The kata's table: `likes`, partition key `PK` (string), provisioned 1,000 RCU / 40,000 WCU.
pub(crate) fn create_table(client: &Client) -> Result<(), engine::Error> {
    client
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(1_000, 40_000))
        .send()
        .map(|_| ())
        .map_err(Into::into)
}

/// A partition line of the picture without its read bar (this kata is about writes), so it
/// fits a terminal: `… WCU/s peak ! │···│   1 RCU/s peak  items …` → `… WCU/s peak !  items …`.
fn without_reads(line: &str) -> String {
    let Some(peak) = line.find("WCU/s peak") else {
        return line.to_string();
    };
    let after_writes = peak + "WCU/s peak".len();
    let Some(reads_end) = line.find("RCU/s peak").map(|i| i + "RCU/s peak".len()) else {
        return line.to_string();
    };
    let throttled_mark = line[after_writes..]
        .split('│')
        .next()
        .unwrap_or("")
        .trim_end();
    let rest: Vec<&str> = line[reads_end..].split_whitespace().collect();
    format!(
        "{}{throttled_mark}  {}",
        &line[..after_writes],
        rest.join(" ")
    )
}
