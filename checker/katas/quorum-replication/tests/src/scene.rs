//! The scene: two worlds, one workload, every replication decision recorded.
//!
//! A [`Scene`] builds two worlds from one seed — one replicating through DynamoDB's piece
//! (the engine's `QuorumReplication`), one through the learner's — each piece wrapped in a
//! [`Recorder`]. Every step of a workload (a write, a read, a fault, the clock) is applied to
//! both worlds, and the scene notes, per step, which of the recorded decisions it caused. As
//! long as the two pieces answer alike, the two worlds are in the same state, so the first
//! decision that differs — same input, two answers — is the cause of every difference after
//! it; `explain` tells it.
//!
//! Alongside, the scene checks DynamoDB's promises on the learner's world as the workload
//! runs: no write acknowledged without two live replicas holding it, none accepted while the
//! partition has no leader or no quorum, every strong read returns the last acknowledged
//! write of its key. The first broken promise is kept, with the step that broke it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::seams::{Learners, Pieces, QuorumReplication};
use engine::types::ScalarAttributeType;
use engine::types::{AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput};
use engine::world::inspect::PartitionInfo;
use engine::{AttributeValue, Client, World, WorldConfig};
use given::{Az, Delivery, Draw, Group, Replication, Unavailable, TABLE};
use katas_testkit::fail;

/// One decision a piece answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Accept(Result<(), Unavailable>),
    Replicate([Delivery; 3]),
    Serve {
        consistent: bool,
        answer: Result<Az, Unavailable>,
    },
    Elect(Option<Az>),
}

/// One call of a piece: its input, its answer, how many numbers it drew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub group: Group,
    pub answer: Answer,
    pub picks: u32,
}

impl Call {
    /// The answer as the engine carries it out: a plan's slots for the leader and for
    /// replicas that are down are lost whatever they say (`Skip`). Two answers with the same
    /// effect are the same answer.
    pub fn effect(&self) -> Answer {
        match self.answer {
            Answer::Replicate(plan) => {
                let mut out = plan;
                for (i, slot) in out.iter_mut().enumerate() {
                    let az = Az::ALL[i];
                    if Some(az) == self.group.leader || !self.group.replica(az).up {
                        *slot = Delivery::Skip;
                    }
                }
                Answer::Replicate(out)
            }
            other => other,
        }
    }
}

/// Wraps a piece and records every call it answers.
pub struct Recorder {
    inner: Box<dyn Replication>,
    calls: Mutex<Vec<Call>>,
}

impl Recorder {
    pub fn new(inner: Box<dyn Replication>) -> Arc<Recorder> {
        Arc::new(Recorder {
            inner,
            calls: Mutex::new(Vec::new()),
        })
    }

    fn push(&self, group: &Group, answer: Answer, picks: u32) {
        self.calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Call {
                group: *group,
                answer,
                picks,
            });
    }

    pub fn len(&self) -> usize {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Replication for Recorder {
    fn accept_write(&self, group: &Group) -> Result<(), Unavailable> {
        let out = self.inner.accept_write(group);
        self.push(group, Answer::Accept(out), 0);
        out
    }

    fn replicate(&self, group: &Group, draw: &mut Draw<'_>) -> [Delivery; 3] {
        let out = self.inner.replicate(group, draw);
        self.push(group, Answer::Replicate(out), draw.picks());
        out
    }

    fn serve_read(
        &self,
        group: &Group,
        consistent: bool,
        draw: &mut Draw<'_>,
    ) -> Result<Az, Unavailable> {
        let answer = self.inner.serve_read(group, consistent, draw);
        self.push(group, Answer::Serve { consistent, answer }, draw.picks());
        answer
    }

    fn elect(&self, group: &Group, draw: &mut Draw<'_>) -> Option<Az> {
        let out = self.inner.elect(group, draw);
        self.push(group, Answer::Elect(out), draw.picks());
        out
    }
}

/// What one step of a workload is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// PutItem `{PK: key, v: write}`.
    Put {
        key: String,
        write: u64,
    },
    /// GetItem of `key`.
    Get {
        key: String,
        strong: bool,
    },
    FailAz(Az),
    HealAz(Az),
    /// The leader of `key`'s partition stops.
    StopLeader {
        key: String,
    },
    /// The replica in `az` of `key`'s partition receives replication `ms` later.
    Lag {
        key: String,
        az: Az,
        ms: u64,
    },
    Advance(u64),
    Settle,
}

/// What a request step returned in one world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A write acknowledged (HTTP 200), or a read that found write `Some(w)` or nothing.
    Ok(Option<u64>),
    /// The error's text.
    Err(String),
    /// Not a request.
    Done,
}

/// One step as both worlds ran it.
#[derive(Clone, Debug)]
pub struct Logged {
    pub at_ms: u64,
    pub step: Step,
    /// The partition the step's key lives on (the same in both worlds: one router).
    pub partition: Option<u32>,
    /// The decisions it caused, as indexes into each recorder's calls.
    pub ours: std::ops::Range<usize>,
    pub yours: std::ops::Range<usize>,
    pub outcome_ours: Outcome,
    pub outcome_yours: Outcome,
}

/// A promise the learner's world broke, at step `step`.
#[derive(Clone, Debug)]
pub struct Broken {
    pub step: usize,
    pub what: String,
}

/// Two worlds, one workload.
pub struct Scene {
    pub seed: u64,
    pub engine: World,
    pub yours: World,
    pub ours_rec: Arc<Recorder>,
    pub yours_rec: Arc<Recorder>,
    pub log: Vec<Logged>,
    writes: u64,
    /// Each key's last acknowledged write in the learner's world.
    pub acked: BTreeMap<String, u64>,
    /// In DynamoDB's world: (partition, sequence number) → the write it is. Only the tests
    /// write the table, so a partition's n-th acknowledged write is its log entry n.
    pub entries: BTreeMap<(u32, u64), u64>,
    seqs: BTreeMap<u32, u64>,
    pub broken: Option<Broken>,
}

/// The world's settings and the table, shared by every scene (and the property test).
pub fn world(seed: u64, piece: Arc<dyn Replication>) -> World {
    let config = WorldConfig {
        seed,
        ..WorldConfig::default()
    };
    let world = World::with_pieces(config, Pieces::default().with_replication(piece));
    create_table(&world.client());
    world
}

/// `accounts`: PK (S), provisioned at 1,500 RCU and 1,500 WCU — two partitions.
fn create_table(c: &Client) {
    c.create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(1500, 1500))
        .send()
        .unwrap_or_else(|e| fail(format!("CreateTable failed: {e}")));
}

/// A PutItem of write `w` to `key`: `Ok(())` acknowledged, else the error's text.
pub fn put(c: &Client, key: &str, w: u64) -> Result<(), String> {
    c.put_item()
        .table_name(TABLE)
        .item("PK", AttributeValue::S(key.into()))
        .item("v", AttributeValue::N(w.to_string()))
        .send()
        .map(|_| ())
        .map_err(|e| engine::Error::from(e).to_string())
}

/// A GetItem of `key`: the write it saw (`None`: no item), else the error's text.
pub fn get(c: &Client, key: &str, strong: bool) -> Result<Option<u64>, String> {
    let out = c
        .get_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(key.into()))
        .consistent_read(strong)
        .send()
        .map_err(|e| engine::Error::from(e).to_string())?;
    Ok(out
        .item()
        .and_then(|i| i.get("v"))
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok()))
}

/// `key`'s partition as `world` has it now.
pub fn partition_info(world: &World, key: &str) -> PartitionInfo {
    let id = world
        .partition_of(TABLE, &AttributeValue::S(key.into()))
        .unwrap_or_else(|e| fail(format!("partition_of failed: {e}")));
    world
        .partitions(TABLE)
        .unwrap_or_else(|e| fail(format!("partitions failed: {e}")))
        .into_iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| fail("the key's partition is gone"))
}

impl Scene {
    pub fn new(seed: u64) -> Scene {
        let ours_rec = Recorder::new(Box::new(QuorumReplication));
        let yours_rec = Recorder::new(Box::new(Learners::new(crate::learner::replication)));
        Scene {
            seed,
            engine: world(seed, ours_rec.clone()),
            yours: world(seed, yours_rec.clone()),
            ours_rec,
            yours_rec,
            log: Vec::new(),
            writes: 0,
            acked: BTreeMap::new(),
            entries: BTreeMap::new(),
            seqs: BTreeMap::new(),
            broken: None,
        }
    }

    /// The simulated time (ms) — the same in both worlds.
    pub fn now_ms(&self) -> u64 {
        u64::try_from(self.engine.now().as_millis()).unwrap_or(u64::MAX)
    }

    pub fn partition(&self, key: &str) -> u32 {
        self.engine
            .partition_of(TABLE, &AttributeValue::S(key.into()))
            .unwrap_or_else(|e| fail(format!("partition_of failed: {e}")))
    }

    /// The leader's AZ of `key`'s partition in DynamoDB's world.
    pub fn leader(&self, key: &str) -> Option<Az> {
        partition_info(&self.engine, key).leader
    }

    /// The followers of `key`'s partition in DynamoDB's world, in AZ order (all three AZs
    /// but the leader's; all three while there is none).
    pub fn followers(&self, key: &str) -> Vec<Az> {
        let leader = self.leader(key);
        Az::ALL
            .into_iter()
            .filter(|&az| Some(az) != leader)
            .collect()
    }

    fn breaks(&mut self, what: String) {
        if self.broken.is_none() {
            self.broken = Some(Broken {
                step: self.log.len(),
                what,
            });
        }
    }

    /// Runs one step in both worlds and logs it.
    pub fn step(&mut self, step: Step) {
        let at_ms = self.now_ms();
        let (o0, y0) = (self.ours_rec.len(), self.yours_rec.len());
        let partition = match &step {
            Step::Put { key, .. }
            | Step::Get { key, .. }
            | Step::StopLeader { key }
            | Step::Lag { key, .. } => Some(self.partition(key)),
            _ => None,
        };
        let before = match &step {
            Step::Put { key, .. } => Some(partition_info(&self.yours, key)),
            _ => None,
        };
        let (outcome_ours, outcome_yours) = match &step {
            Step::Put { key, write } => {
                let ours = put(&self.engine.client(), key, *write);
                let yours = put(&self.yours.client(), key, *write);
                if ours.is_ok() {
                    let p = partition.unwrap_or_default();
                    let seq = self.seqs.entry(p).or_default();
                    *seq += 1;
                    self.entries.insert((p, *seq), *write);
                }
                if yours.is_ok() {
                    self.check_quorum(key, *write, before.as_ref());
                    self.acked.insert(key.clone(), *write);
                }
                (outcome(ours.map(|()| None)), outcome(yours.map(|()| None)))
            }
            Step::Get { key, strong } => {
                let ours = get(&self.engine.client(), key, *strong);
                let yours = get(&self.yours.client(), key, *strong);
                if *strong {
                    if let Ok(seen) = &yours {
                        let last = self.acked.get(key).copied();
                        if *seen != last {
                            self.breaks(format!(
                                "a strongly consistent GetItem of {key} returned {}, but the last \
                                 write your world acknowledged for it is {}",
                                show_write(*seen),
                                show_write(last)
                            ));
                        }
                    }
                }
                (outcome(ours), outcome(yours))
            }
            other => {
                for w in [&self.engine, &self.yours] {
                    apply_fault(w, other);
                }
                (Outcome::Done, Outcome::Done)
            }
        };
        self.log.push(Logged {
            at_ms,
            step,
            partition,
            ours: o0..self.ours_rec.len(),
            yours: y0..self.yours_rec.len(),
            outcome_ours,
            outcome_yours,
        });
    }

    /// A write the learner's world acknowledged: it must have been accepted by a leader with a
    /// quorum possible (`before`), and be on two live replicas now.
    fn check_quorum(&mut self, key: &str, write: u64, before: Option<&PartitionInfo>) {
        if let Some(before) = before {
            let up: Vec<Az> = before
                .replicas
                .iter()
                .filter(|r| r.up)
                .map(|r| r.az)
                .collect();
            if before.leader.is_none() {
                self.breaks(format!(
                    "write #{write} ({key}) was acknowledged while partition {} had no leader",
                    before.id
                ));
            } else if up.len() < 2 {
                self.breaks(format!(
                    "write #{write} ({key}) was acknowledged while only {} of partition {}'s \
                     replicas was up: no quorum of two could hold it",
                    names(&up),
                    before.id
                ));
            }
        }
        let after = partition_info(&self.yours, key);
        let holding: Vec<Az> = after
            .replicas
            .iter()
            .filter(|r| r.up && r.lag_writes == 0)
            .map(|r| r.az)
            .collect();
        if holding.len() < 2 {
            self.breaks(format!(
                "write #{write} ({key}) was acknowledged while only {} held it (live replicas \
                 that had applied it): a quorum is two of three",
                if holding.is_empty() {
                    "nobody".to_string()
                } else {
                    names(&holding)
                }
            ));
        }
    }

    // The steps, by name.

    pub fn put(&mut self, key: &str) {
        self.writes += 1;
        let write = self.writes;
        self.step(Step::Put {
            key: key.into(),
            write,
        });
    }

    pub fn get(&mut self, key: &str, strong: bool) {
        self.step(Step::Get {
            key: key.into(),
            strong,
        });
    }

    pub fn fail_az(&mut self, az: Az) {
        self.step(Step::FailAz(az));
    }

    pub fn heal_az(&mut self, az: Az) {
        self.step(Step::HealAz(az));
    }

    pub fn stop_leader(&mut self, key: &str) {
        self.step(Step::StopLeader { key: key.into() });
    }

    pub fn lag(&mut self, key: &str, az: Az, ms: u64) {
        self.step(Step::Lag {
            key: key.into(),
            az,
            ms,
        });
    }

    pub fn advance(&mut self, ms: u64) {
        self.step(Step::Advance(ms));
    }

    pub fn settle(&mut self) {
        self.step(Step::Settle);
    }

    /// Heals every AZ, settles, and strong-reads every key written: each must hold its last
    /// acknowledged write (in the learner's world; both worlds are compared as usual).
    pub fn heal_settle_and_read_back(&mut self) {
        for az in Az::ALL {
            self.heal_az(az);
        }
        self.settle();
        let keys: Vec<String> = self.acked.keys().cloned().collect();
        for key in keys {
            self.get(&key, true);
        }
    }

    /// Compares the two worlds' decisions; the first difference fails the test, told with
    /// what the learner's world broke after it. Then the promises, if no decision differed.
    pub fn verdict(&self, workload: &str) {
        let ours = self.ours_rec.calls();
        let yours = self.yours_rec.calls();
        let first = ours.iter().zip(&yours).position(|(o, y)| {
            o.group != y.group || o.effect() != y.effect() || o.picks != y.picks
        });
        let index = match first {
            Some(i) => Some(i),
            None if ours.len() != yours.len() => Some(ours.len().min(yours.len())),
            None => None,
        };
        if let Some(i) = index {
            fail(crate::explain::difference(self, &ours, &yours, i, workload));
        }
        if let Some(broken) = &self.broken {
            fail(crate::explain::broken(self, broken, workload));
        }
    }
}

fn outcome(r: Result<Option<u64>, String>) -> Outcome {
    match r {
        Ok(v) => Outcome::Ok(v),
        Err(e) => Outcome::Err(e),
    }
}

/// Applies a fault or clock step to one world.
pub fn apply_fault(w: &World, step: &Step) {
    let id = |key: &str| {
        w.partition_of(TABLE, &AttributeValue::S(key.into()))
            .unwrap_or_else(|e| fail(format!("partition_of failed: {e}")))
    };
    match step {
        Step::FailAz(az) => w.fail_az(*az),
        Step::HealAz(az) => w.heal_az(*az),
        Step::StopLeader { key } => w
            .stop_leader(TABLE, id(key))
            .unwrap_or_else(|e| fail(format!("stop_leader failed: {e}"))),
        Step::Lag { key, az, ms } => w
            .lag_replica(TABLE, id(key), *az, Duration::from_millis(*ms))
            .unwrap_or_else(|e| fail(format!("lag_replica failed: {e}"))),
        Step::Advance(ms) => w.advance(Duration::from_millis(*ms)),
        Step::Settle => {
            w.settle();
        }
        Step::Put { .. } | Step::Get { .. } => {}
    }
}

/// "write #7", or "nothing" for `None`.
pub fn show_write(w: Option<u64>) -> String {
    match w {
        Some(w) => format!("write #{w}"),
        None => "nothing (no item)".to_string(),
    }
}

/// "az-a", "az-a and az-b", "az-a, az-b and az-c".
pub fn names(azs: &[Az]) -> String {
    let names: Vec<&str> = azs.iter().map(|az| az.name()).collect();
    match names.as_slice() {
        [] => "none".to_string(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
