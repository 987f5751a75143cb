//! Two worlds, one workload: the engine's propagation in one, the learner's in the other.
//!
//! Every request is sent to both worlds; the learner's piece is wrapped in a [`Recorder`] that
//! notes each question the engine asked it (the index, the item before and after) and its
//! answer, so that a difference in what the worlds observe — the write units a request cost
//! an index, a throttle, what an index holds — can be traced to the answer that caused it, and
//! told with DynamoDB's answer to the same question beside it (`explain.rs`).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::seams::{Learners, Pieces};
use engine::types::{
    AttributeDefinition, BillingMode, ConsumedCapacity, CreateGlobalSecondaryIndexAction,
    GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement, KeyType, Projection,
    ProvisionedThroughput, Put, PutRequest, ReturnConsumedCapacity, ScalarAttributeType,
    TransactWriteItem, Update, WriteRequest,
};
use engine::{AttributeValue, Client, Item, World, WorldConfig};
use given::{IndexKey, IndexPropagator, IndexShape, IndexWrite, KeyAttribute, ProjectionType};
use katas_testkit::fail;

use crate::explain;
use crate::learner;

pub use given::TABLE;

// ---------------------------------------------------------------------------------------
// The indexes, as the tests declare them
// ---------------------------------------------------------------------------------------

/// One global secondary index of the `orders` table.
#[derive(Debug)]
pub struct Def {
    pub name: &'static str,
    pub pk: (&'static str, ScalarAttributeType),
    pub sk: Option<(&'static str, ScalarAttributeType)>,
    pub projection: ProjectionType,
    pub include: &'static [&'static str],
}

pub const BY_STATUS: Def = Def {
    name: "by-status",
    pk: ("status", ScalarAttributeType::S),
    sk: Some(("placed_at", ScalarAttributeType::S)),
    projection: ProjectionType::Include,
    include: &["total", "customer"],
};

pub const BY_CUSTOMER: Def = Def {
    name: "by-customer",
    pk: ("customer", ScalarAttributeType::S),
    sk: Some(("total", ScalarAttributeType::N)),
    projection: ProjectionType::KeysOnly,
    include: &[],
};

pub const BY_EMAIL: Def = Def {
    name: "by-email",
    pk: ("email", ScalarAttributeType::S),
    sk: None,
    projection: ProjectionType::All,
    include: &[],
};

pub const BY_REGION: Def = Def {
    name: "by-region",
    pk: ("region", ScalarAttributeType::S),
    sk: None,
    projection: ProjectionType::Include,
    include: &["email"],
};

pub const TABLE_INDEXES: [&Def; 3] = [&BY_STATUS, &BY_CUSTOMER, &BY_EMAIL];

impl Def {
    /// The index as CreateTable / UpdateTable declare it.
    fn key_schema(&self) -> Vec<KeySchemaElement> {
        let mut keys = vec![KeySchemaElement::new(self.pk.0, KeyType::Hash)];
        if let Some((sk, _)) = self.sk {
            keys.push(KeySchemaElement::new(sk, KeyType::Range));
        }
        keys
    }

    fn projection_spec(&self) -> Projection {
        match self.projection {
            ProjectionType::All => Projection::all(),
            ProjectionType::Include => Projection::include(self.include.iter().copied()),
            _ => Projection::keys_only(),
        }
    }

    /// "key status, placed_at; INCLUDE total, customer", for messages.
    pub fn describe(&self) -> String {
        let keys = match self.sk {
            Some((sk, _)) => format!("{}, {sk}", self.pk.0),
            None => self.pk.0.to_string(),
        };
        let projection = match self.projection {
            ProjectionType::All => "ALL".to_string(),
            ProjectionType::Include => format!("INCLUDE {}", self.include.join(", ")),
            _ => "KEYS_ONLY".to_string(),
        };
        format!("key {keys}; {projection}")
    }

    pub fn key_names(&self) -> Vec<&'static str> {
        std::iter::once(self.pk.0)
            .chain(self.sk.clone().map(|(n, _)| n))
            .collect()
    }
}

pub fn def(name: &str) -> &'static Def {
    [&BY_STATUS, &BY_CUSTOMER, &BY_EMAIL, &BY_REGION]
        .into_iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| fail(format!("the tests know no index {name}")))
}

/// How the tests set the table up.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Provisioned (table WCU, `by-status` WCU); `None`: on-demand.
    pub provisioned: Option<(i64, i64)>,
}

impl Setup {
    pub const ON_DEMAND: Setup = Setup { provisioned: None };
}

fn create_orders(c: &Client, setup: Setup) {
    let mut b = c
        .create_table()
        .table_name(TABLE)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range));
    for (name, t) in [
        ("status", ScalarAttributeType::S),
        ("placed_at", ScalarAttributeType::S),
        ("customer", ScalarAttributeType::S),
        ("total", ScalarAttributeType::N),
        ("email", ScalarAttributeType::S),
    ] {
        b = b.attribute_definitions(AttributeDefinition::new(name, t));
    }
    match setup.provisioned {
        None => b = b.billing_mode(BillingMode::PayPerRequest),
        Some((table_wcu, _)) => {
            b = b.provisioned_throughput(ProvisionedThroughput::new(1000, table_wcu));
        }
    }
    for d in TABLE_INDEXES {
        let mut gsi = GlobalSecondaryIndex::new(d.name, d.key_schema(), d.projection_spec());
        if let Some((table_wcu, status_wcu)) = setup.provisioned {
            let wcu = if d.name == BY_STATUS.name {
                status_wcu
            } else {
                table_wcu
            };
            gsi = gsi.with_provisioned_throughput(ProvisionedThroughput::new(1000, wcu));
        }
        b = b.global_secondary_indexes(gsi);
    }
    b.send()
        .unwrap_or_else(|e| fail(format!("CreateTable failed: {e:?}")));
}

// ---------------------------------------------------------------------------------------
// The recorder: the questions the engine asked the learner's piece, and its answers
// ---------------------------------------------------------------------------------------

/// An index key, owned.
pub type Key = (AttributeValue, Option<AttributeValue>);

/// One index write, owned (what the recorder keeps of an [`IndexWrite`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub delete: bool,
    pub key: Key,
    pub entry: Option<Arc<Item>>,
    pub units: f64,
}

impl Written {
    pub fn of(write: &IndexWrite<'_>) -> Written {
        Written::shared(write, &mut |item| Arc::new(item.clone()))
    }

    /// [`Written::of`], its entry taken from `share` (which may hand out a copy it holds).
    fn shared(write: &IndexWrite<'_>, share: &mut dyn FnMut(&Item) -> Arc<Item>) -> Written {
        let key = |k: &IndexKey<'_>| (k.partition.clone(), k.sort.cloned());
        match write {
            IndexWrite::Delete { key: k, units } => Written {
                delete: true,
                key: key(k),
                entry: None,
                units: *units,
            },
            IndexWrite::Put {
                key: k,
                entry,
                units,
            } => Written {
                delete: false,
                key: key(k),
                entry: Some(share(entry)),
                units: *units,
            },
        }
    }
}

/// The index a question was about, owned.
#[derive(Clone, Debug)]
pub struct Shape {
    pub name: String,
    pub pk: (String, ScalarAttributeType),
    pub sk: Option<(String, ScalarAttributeType)>,
    pub table_pk: String,
    pub table_sk: Option<String>,
    pub projection: ProjectionType,
    pub non_key: Vec<String>,
}

impl Shape {
    fn of(s: &IndexShape<'_>) -> Shape {
        Shape {
            name: s.name.to_string(),
            pk: (
                s.partition_key.name.to_string(),
                s.partition_key.attribute_type.clone(),
            ),
            sk: s
                .sort_key
                .clone()
                .map(|k| (k.name.to_string(), k.attribute_type)),
            table_pk: s.table_partition_key.to_string(),
            table_sk: s.table_sort_key.map(str::to_string),
            projection: s.projection.clone(),
            non_key: s.non_key_attributes.to_vec(),
        }
    }

    pub fn view(&self) -> IndexShape<'_> {
        IndexShape {
            name: &self.name,
            partition_key: KeyAttribute {
                name: &self.pk.0,
                attribute_type: self.pk.1.clone(),
            },
            sort_key: self.sk.as_ref().map(|(name, t)| KeyAttribute {
                name,
                attribute_type: t.clone(),
            }),
            table_partition_key: &self.table_pk,
            table_sort_key: self.table_sk.as_deref(),
            projection: self.projection.clone(),
            non_key_attributes: &self.non_key,
        }
    }
}

/// One question the engine asked the learner's piece, and the answer.
#[derive(Clone, Debug)]
pub struct Call {
    pub shape: Shape,
    pub old: Option<Arc<Item>>,
    pub new: Option<Arc<Item>>,
    pub yours: Vec<Written>,
}

impl Call {
    /// DynamoDB's answer to the same question.
    pub fn dynamodb(&self) -> Vec<Written> {
        static PIECE: std::sync::OnceLock<Arc<dyn IndexPropagator>> = std::sync::OnceLock::new();
        PIECE
            .get_or_init(|| Pieces::default().index_propagator)
            .propagate(&self.shape.view(), self.old.as_deref(), self.new.as_deref())
            .iter()
            .map(Written::of)
            .collect()
    }

    /// The table key (`PK`, `SK`) of the item the question was about.
    pub fn item_key(&self) -> (String, String) {
        let item = self.new.as_deref().or(self.old.as_deref());
        item.map(table_key).unwrap_or_default()
    }
}

type Log = Arc<Mutex<Vec<Call>>>;

/// The learner's piece, noting every question and answer.
struct Recorder {
    inner: Box<dyn IndexPropagator>,
    log: Log,
    /// The items of the last questions: one table write asks about the same two items once
    /// per index, twice (admission, commit), so the log shares one copy.
    recent: Mutex<Vec<Arc<Item>>>,
}

impl Recorder {
    fn share(&self, item: &Item) -> Arc<Item> {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(copy) = recent.iter().find(|c| ***c == *item) {
            return Arc::clone(copy);
        }
        let copy = Arc::new(item.clone());
        if recent.len() == 4 {
            recent.remove(0);
        }
        recent.push(Arc::clone(&copy));
        copy
    }
}

impl IndexPropagator for Recorder {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        let writes = self.inner.propagate(index, old, new);
        let call = Call {
            shape: Shape::of(index),
            old: old.map(|o| self.share(o)),
            new: new.map(|n| self.share(n)),
            yours: writes
                .iter()
                .map(|w| Written::shared(w, &mut |e| self.share(e)))
                .collect(),
        };
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(call);
        writes
    }
}

pub fn table_key(item: &Item) -> (String, String) {
    let s = |name: &str| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    (s("PK"), s("SK"))
}

// ---------------------------------------------------------------------------------------
// What a request showed
// ---------------------------------------------------------------------------------------

/// What one request showed from outside: its result, and the write units it cost the table
/// and each index (`ReturnConsumedCapacity = INDEXES`).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// `Ok`, or the error's code (`ProvisionedThroughputExceededException`, …).
    pub result: Result<(), String>,
    pub table: f64,
    pub indexes: BTreeMap<String, f64>,
    /// Items a BatchWriteItem left unprocessed.
    pub unprocessed: usize,
}

impl Outcome {
    fn of(consumed: &[ConsumedCapacity]) -> Outcome {
        let mut indexes = BTreeMap::new();
        let mut table = 0.0;
        for c in consumed {
            table += c
                .table
                .clone()
                .and_then(|t| t.write_capacity_units)
                .unwrap_or(0.0);
            for (name, cap) in c.global_secondary_indexes.iter().flatten() {
                *indexes.entry(name.clone()).or_insert(0.0) +=
                    cap.write_capacity_units.unwrap_or(0.0);
            }
        }
        Outcome {
            result: Ok(()),
            table,
            indexes,
            unprocessed: 0,
        }
    }

    fn failed(code: Option<&str>) -> Outcome {
        Outcome {
            result: Err(code.unwrap_or("an error").to_string()),
            table: 0.0,
            indexes: BTreeMap::new(),
            unprocessed: 0,
        }
    }

    pub fn units(&self, index: &str) -> f64 {
        self.indexes.get(index).copied().unwrap_or(0.0)
    }

    pub fn throttled(&self) -> bool {
        self.result
            .as_ref()
            .is_err_and(|code| code.contains("Throughput"))
    }
}

fn outcome<T, E: ProvideErrorMetadata>(
    result: Result<T, E>,
    consumed: impl FnOnce(&T) -> Vec<ConsumedCapacity>,
) -> Outcome {
    match result {
        Ok(out) => Outcome::of(&consumed(&out)),
        Err(e) => Outcome::failed(e.code()),
    }
}

// ---------------------------------------------------------------------------------------
// The requests the tests send
// ---------------------------------------------------------------------------------------

/// One request, as the tests send it to both worlds.
#[derive(Clone, Debug)]
pub enum Op {
    Put(Item),
    /// Key (PK), an update expression, its names and values.
    Update(
        String,
        String,
        Vec<(String, String)>,
        Vec<(String, AttributeValue)>,
    ),
    Delete(String),
    Batch(Vec<Item>),
    Transact(Vec<Op>),
}

impl Op {
    pub fn update(pk: &str, expression: &str, values: Vec<(&str, AttributeValue)>) -> Op {
        // Every attribute name goes through a placeholder (`status`, `total` are reserved).
        let mut expr = expression.to_string();
        let mut names = Vec::new();
        for name in [
            "placed_at",
            "status",
            "total",
            "customer",
            "email",
            "region",
            "note",
        ] {
            let token = format!("#{}", &name[..2]);
            if expr.contains(name) {
                expr = replace_word(&expr, name, &token);
                names.push((token, name.to_string()));
            }
        }
        Op::Update(
            pk.to_string(),
            expr,
            names,
            values
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// "UpdateItem ORDER#3: SET status = "SHIPPED"", for messages.
    pub fn describe(&self) -> String {
        match self {
            Op::Put(item) => format!("PutItem {}", table_key(item).0),
            Op::Update(pk, expr, names, values) => {
                let mut text = expr.clone();
                for (token, name) in names {
                    text = text.replace(token.as_str(), name);
                }
                for (token, value) in values {
                    text = text.replace(token.as_str(), &explain::value_text(value));
                }
                format!("UpdateItem {pk}: {text}")
            }
            Op::Delete(pk) => format!("DeleteItem {pk}"),
            Op::Batch(items) => format!(
                "BatchWriteItem of {} puts ({})",
                items.len(),
                items
                    .iter()
                    .map(|i| table_key(i).0)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Op::Transact(ops) => format!(
                "TransactWriteItems [{}]",
                ops.iter().map(Op::describe).collect::<Vec<_>>().join("; ")
            ),
        }
    }

    fn send(&self, c: &Client) -> Outcome {
        let rc = ReturnConsumedCapacity::Indexes;
        match self {
            Op::Put(item) => outcome(
                c.put_item()
                    .table_name(TABLE)
                    .set_item(Some(item.clone()))
                    .return_consumed_capacity(rc)
                    .send(),
                |o| o.consumed_capacity.clone().into_iter().collect(),
            ),
            Op::Update(pk, expr, names, values) => {
                let mut b = c
                    .update_item()
                    .table_name(TABLE)
                    .key("PK", AttributeValue::S(pk.clone()))
                    .key("SK", AttributeValue::S("META".into()))
                    .update_expression(expr)
                    .return_consumed_capacity(rc);
                for (t, n) in names {
                    b = b.expression_attribute_names(t, n);
                }
                for (t, v) in values {
                    b = b.expression_attribute_values(t, v.clone());
                }
                outcome(b.send(), |o| {
                    o.consumed_capacity.clone().into_iter().collect()
                })
            }
            Op::Delete(pk) => outcome(
                c.delete_item()
                    .table_name(TABLE)
                    .key("PK", AttributeValue::S(pk.clone()))
                    .key("SK", AttributeValue::S("META".into()))
                    .return_consumed_capacity(rc)
                    .send(),
                |o| o.consumed_capacity.clone().into_iter().collect(),
            ),
            Op::Batch(items) => {
                let writes: Vec<WriteRequest> = items
                    .iter()
                    .map(|i| {
                        WriteRequest::builder()
                            .put_request(
                                PutRequest::builder()
                                    .set_item(Some(i.clone()))
                                    .build()
                                    .expect("an item"),
                            )
                            .build()
                    })
                    .collect();
                let result = c
                    .batch_write_item()
                    .request_items(TABLE, writes)
                    .return_consumed_capacity(rc)
                    .send();
                let unprocessed = result.as_ref().map_or(0, |o| {
                    o.unprocessed_items
                        .iter()
                        .flat_map(|m| m.values())
                        .map(Vec::len)
                        .sum()
                });
                let mut out = outcome(result, |o| o.consumed_capacity.clone().unwrap_or_default());
                out.unprocessed = unprocessed;
                out
            }
            Op::Transact(ops) => {
                let items: Vec<TransactWriteItem> = ops.iter().map(transact_item).collect();
                outcome(
                    c.transact_write_items()
                        .set_transact_items(Some(items))
                        .return_consumed_capacity(rc)
                        .send(),
                    |o| o.consumed_capacity.clone().unwrap_or_default(),
                )
            }
        }
    }
}

fn transact_item(op: &Op) -> TransactWriteItem {
    match op {
        Op::Put(item) => TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(TABLE)
                    .set_item(Some(item.clone()))
                    .build()
                    .expect("a put"),
            )
            .build(),
        Op::Update(pk, expr, names, values) => {
            let mut u = Update::builder()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(pk.clone()))
                .key("SK", AttributeValue::S("META".into()))
                .update_expression(expr);
            for (t, n) in names {
                u = u.expression_attribute_names(t, n);
            }
            for (t, v) in values {
                u = u.expression_attribute_values(t, v.clone());
            }
            TransactWriteItem::builder()
                .update(u.build().expect("an update"))
                .build()
        }
        other => fail(format!("the tests do not send {other:?} in a transaction")),
    }
}

/// Replaces `word` where it stands alone (not inside a longer name).
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().last();
        let after = rest[i + word.len()..].chars().next();
        let part = |c: Option<char>| {
            c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '#')
        };
        out.push_str(&rest[..i]);
        if part(before) || part(after) {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

// ---------------------------------------------------------------------------------------
// The scene
// ---------------------------------------------------------------------------------------

/// One request as both worlds saw it.
pub struct Sent {
    pub op: Op,
    /// The questions the engine asked the learner's piece for it.
    pub calls: Range<usize>,
    pub dynamodb: Outcome,
    pub yours: Outcome,
}

pub struct Scene {
    pub engine: World,
    pub yours: World,
    log: Log,
    pub sent: Vec<Sent>,
    /// The indexes the table has (the tests add `by-region` to some).
    pub indexes: Vec<&'static Def>,
    pub workload: String,
}

impl Scene {
    /// Two worlds from `seed`, the `orders` table created in both.
    pub fn new(seed: u64, setup: Setup, workload: &str) -> Scene {
        // Tables whose burst is spent (a fresh one is born with 300 s of it, which would
        // hide an under-provisioned index for minutes).
        let config = WorldConfig {
            seed,
            new_table_buckets_full: false,
            ..WorldConfig::default()
        };
        let log: Log = Arc::default();
        let recorder = Recorder {
            inner: Box::new(Learners::new(learner::propagator)),
            log: Arc::clone(&log),
            recent: Mutex::default(),
        };
        let pieces = Pieces::default().with_index_propagator(Arc::new(recorder));
        let s = Scene {
            engine: World::with_config(config.clone()),
            yours: World::with_pieces(config, pieces),
            log,
            sent: Vec::new(),
            indexes: TABLE_INDEXES.to_vec(),
            workload: workload.to_string(),
        };
        for w in [&s.engine, &s.yours] {
            create_orders(&w.client(), setup);
        }
        s
    }

    pub fn calls(&self) -> std::sync::MutexGuard<'_, Vec<Call>> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `op` to both worlds and compares what each showed; the first difference fails
    /// the test. Returns what DynamoDB's world showed.
    pub fn send(&mut self, op: Op) -> Outcome {
        // Background work due now (a backfill) runs before the request, not inside it.
        self.advance_ms(0);
        let dynamodb = op.send(&self.engine.client());
        let start = self.calls().len();
        let yours = op.send(&self.yours.client());
        let end = self.calls().len();
        self.sent.push(Sent {
            op,
            calls: start..end,
            dynamodb: dynamodb.clone(),
            yours: yours.clone(),
        });
        let at = self.sent.len() - 1;
        if dynamodb != yours {
            explain::request_differs(self, at).raise();
        }
        let differs = self.calls()[start..end]
            .iter()
            .find(|c| !explain::same_effect(c))
            .cloned();
        if let Some(call) = differs {
            explain::answer_differs(self, at, &call).raise();
        }
        explain::check_units(self, at);
        dynamodb
    }

    pub fn advance_ms(&self, ms: u64) {
        for w in [&self.engine, &self.yours] {
            w.advance(Duration::from_millis(ms));
        }
    }

    /// Adds `by-region` to the table in both worlds; the engine backfills it.
    pub fn add_region_index(&mut self) {
        for w in [&self.engine, &self.yours] {
            w.client()
                .update_table()
                .table_name(TABLE)
                .attribute_definitions(AttributeDefinition::new("region", ScalarAttributeType::S))
                .global_secondary_index_updates(
                    GlobalSecondaryIndexUpdate::builder()
                        .create(
                            CreateGlobalSecondaryIndexAction::builder()
                                .index_name(BY_REGION.name)
                                .set_key_schema(Some(BY_REGION.key_schema()))
                                .projection(BY_REGION.projection_spec())
                                .build()
                                .expect("an index"),
                        )
                        .build(),
                )
                .send()
                .unwrap_or_else(|e| fail(format!("UpdateTable failed: {e:?}")));
        }
        self.indexes.push(&BY_REGION);
    }

    /// Lets both worlds settle (every change delivered, every backfill done), then compares
    /// what each index holds, and checks the learner's indexes against the rules directly.
    pub fn settle_and_compare(&self) {
        for w in [&self.engine, &self.yours] {
            w.settle();
        }
        let table = scan(&self.yours, None);
        for def in &self.indexes {
            let ours = scan(&self.engine, Some(def.name));
            let yours = scan(&self.yours, Some(def.name));
            if ours != yours {
                explain::contents_differ(self, def, &ours, &yours).raise();
            }
            explain::check_contents(self, def, &table, &yours);
        }
    }
}

/// Every entry of an index (or item of the table, for `None`), by table key.
pub fn scan(world: &World, index: Option<&str>) -> BTreeMap<(String, String), Item> {
    let c = world.client();
    let mut out = BTreeMap::new();
    let mut start: Option<std::collections::HashMap<String, AttributeValue>> = None;
    loop {
        let mut b = c
            .scan()
            .table_name(TABLE)
            .set_exclusive_start_key(start.take());
        if let Some(i) = index {
            b = b.index_name(i);
        } else {
            b = b.consistent_read(true);
        }
        let page = b
            .send()
            .unwrap_or_else(|e| fail(format!("Scan of {index:?} failed: {e:?}")));
        for item in page.items() {
            out.insert(table_key(item), item.clone());
        }
        match page.last_evaluated_key() {
            Some(k) if !k.is_empty() => start = Some(k.clone()),
            _ => return out,
        }
    }
}
