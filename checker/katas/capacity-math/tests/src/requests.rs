//! The calculator's tests: random requests of each kind, run through the engine, and the
//! learner's `consumed` compared with the `ConsumedCapacity` DynamoDB returned.

use std::collections::BTreeMap;

use engine::types::ConsumedCapacity;
use engine::types::{
    AttributeDefinition, BillingMode, Delete, DeleteRequest, Get, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, KeysAndAttributes, Projection as SdkProjection, Put, PutRequest,
    ReturnConsumedCapacity, ScalarAttributeType, TransactGetItem, TransactWriteItem, Update,
    WriteRequest,
};
use engine::value::item_to_json;
use engine::{AttributeValue, Blob, Client, Item, World};
use given::{Consumed, Filter, Gsi, Projection, Request, Table, Write};
use katas_testkit::{fail, Failure, Rng};

use crate::learner;
use crate::model::{self, bytes, figure, units, IndexChangeKind, RIGHT};

/// Requests per test and seed.
const CASES: usize = 40;

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

pub fn item_size_counts_names_and_values(seed: u64) {
    let mut rng = Rng::new(seed ^ 1);
    let mut items = vec![
        // The AWS example: {"shirt-color": "R", "shirt-size": "M"} is 23 bytes.
        Item::from([
            ("shirt-color".to_string(), s("R")),
            ("shirt-size".to_string(), s("M")),
        ]),
    ];
    for i in 0..CASES {
        items.push(random_item(&mut rng, &format!("SIZE#{i}"), "A", None));
    }
    for item in &items {
        let want = engine::item_size(item);
        let got = learner::item_size(item);
        if got == want {
            continue;
        }
        let why = model::diagnose_size(item, got)
            .map(|m| format!("\nYour figure is what you get by {m}."))
            .unwrap_or_default();
        Failure::compare(
            format!(
                "item_size returned {} for this item; DynamoDB counts {}, attribute by \
                 attribute:\n{}{why}",
                bytes(got),
                bytes(want),
                size_breakdown(item)
            ),
            format!("{want}"),
            format!("{got}"),
        )
        .raise();
    }
}

pub fn get_item_rounds_up_to_4_kb(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 2);
    let table = Table::default();
    for i in 0..CASES {
        let consistent_read = Some(rng.below(2) == 0);
        let target = read_size(&mut rng);
        let item =
            (rng.below(6) != 0).then(|| sized_item(&mut rng, &format!("GET#{i}"), "A", target));
        lab.check(
            &table,
            Request::GetItem {
                item,
                consistent_read,
            },
        );
    }
}

pub fn reads_are_eventually_consistent_by_default(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 3);
    let table = Table::default();
    for i in 0..CASES {
        let consistent_read = [None, None, Some(false), Some(true)][rng.below(4) as usize];
        let pk = format!("EVENTUAL#{i}");
        let target = read_size(&mut rng);
        let request = match rng.below(3) {
            0 => Request::GetItem {
                item: Some(sized_item(&mut rng, &pk, "A", target)),
                consistent_read,
            },
            1 => Request::Query {
                read: query_items(&mut rng, &pk, 2, 12, 300, 3_000),
                consistent_read,
                filter: None,
            },
            _ => Request::BatchGetItem {
                items: batch_items(&mut rng, &pk, false),
                consistent_read,
            },
        };
        lab.check(&table, request);
    }
}

pub fn query_sums_then_rounds_once(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 4);
    let table = Table::default();
    for i in 0..CASES {
        let consistent_read = [None, Some(false), Some(true)][rng.below(3) as usize];
        let read = query_items(&mut rng, &format!("QUERY#{i}"), 1, 30, 60, 2_500);
        lab.check(
            &table,
            Request::Query {
                read,
                consistent_read,
                filter: None,
            },
        );
    }
}

pub fn filters_do_not_discount(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 5);
    let table = Table::default();
    for i in 0..CASES {
        let consistent_read = [None, Some(true)][rng.below(2) as usize];
        let mut read = query_items(&mut rng, &format!("FILTER#{i}"), 6, 24, 400, 3_000);
        // A few SHIPPED orders among many OPEN ones: the filter keeps the few.
        for item in read.iter_mut() {
            item.insert("status".to_string(), s("OPEN"));
        }
        for _ in 0..range(&mut rng, 1, 3) {
            let at = rng.below(read.len() as u64) as usize;
            read[at].insert("status".to_string(), s("SHIPPED"));
        }
        let filter = Filter {
            attribute: "status".to_string(),
            equals: s("SHIPPED"),
        };
        lab.check(
            &table,
            Request::Query {
                read,
                consistent_read,
                filter: Some(filter),
            },
        );
    }
}

pub fn batch_get_rounds_each_item(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 6);
    let table = Table::default();
    for i in 0..CASES {
        let consistent_read = [None, Some(false), Some(true)][rng.below(3) as usize];
        let items = batch_items(&mut rng, &format!("BATCH#{i}"), true);
        lab.check(
            &table,
            Request::BatchGetItem {
                items,
                consistent_read,
            },
        );
    }
}

pub fn transactions_cost_double(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 7);
    let table = Table::default();
    for i in 0..CASES {
        let pk = format!("TX#{i}");
        let request = if rng.below(2) == 0 {
            Request::TransactGetItems {
                items: batch_items(&mut rng, &pk, true),
            }
        } else {
            let n = 1 + rng.below(4) as usize;
            let writes = (0..n)
                .map(|k| random_write(&mut rng, &pk, &format!("W{k}"), true, &[]))
                .collect();
            Request::TransactWriteItems { writes }
        };
        lab.check(&table, request);
    }
}

pub fn writes_charge_the_larger_version(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 8);
    let table = Table::default();
    for i in 0..CASES {
        let request = random_write_request(&mut rng, &format!("WRITE#{i}"), &[]);
        lab.check(&table, request);
    }
}

pub fn gsi_writes_cost_zero_one_or_two(seed: u64) {
    let mut lab = Lab::new(seed);
    let mut rng = Rng::new(seed ^ 9);
    let pool = gsi_pool();
    for i in 0..CASES {
        // One to three of the pool's GSIs, each table its own choice.
        let mut gsis: Vec<Gsi> = pool.iter().filter(|_| rng.below(2) == 0).cloned().collect();
        if gsis.is_empty() {
            gsis.push(pool[rng.below(pool.len() as u64) as usize].clone());
        }
        let table = Table { gsis };
        let request = random_write_request(&mut rng, &format!("GSI#{i}"), &table.gsis);
        lab.check(&table, request);
    }
}

// ---------------------------------------------------------------------------------------
// Running a request through the engine
// ---------------------------------------------------------------------------------------

/// A world with one table per GSI layout, created on first use.
pub struct Lab {
    world: World,
    client: Client,
    tables: Vec<(Table, String)>,
    /// Keys of the missing items of the request being run, in order.
    missing: usize,
}

impl Lab {
    pub fn new(seed: u64) -> Lab {
        let world = World::new(seed);
        let client = world.client();
        Lab {
            world,
            client,
            tables: Vec::new(),
            missing: 0,
        }
    }

    fn table_name(&mut self, table: &Table) -> String {
        if let Some((_, name)) = self.tables.iter().find(|(t, _)| t == table) {
            return name.clone();
        }
        let name = format!("calc-{}", self.tables.len());
        create_table(&self.client, &name, table);
        self.tables.push((table.clone(), name.clone()));
        name
    }

    /// Sends `request` and compares the learner's figure with the engine's.
    pub fn check(&mut self, table: &Table, request: Request) {
        let name = self.table_name(table);
        let (engine_figure, seq) = self.send(&name, &request);
        let right = model::consumed(table, &request, RIGHT);
        if !model::same(&right, &engine_figure) {
            fail(format!(
                "the kata's own model disagrees with the engine on {} #{seq} (a defect of the \
                 kata, not of your code): the engine says\n{}\nthe model says\n{}",
                operation(&request),
                figure(&engine_figure, unit(&request)),
                figure(&right, unit(&request))
            ));
        }
        let got = learner::consumed(table, &request);
        if model::same(&got, &engine_figure) {
            return;
        }
        let u = unit(&request);
        let why = model::diagnose(table, &request, &got)
            .map(|m| format!("\nYour figure is what you get by {m}."))
            .unwrap_or_default();
        Failure::compare(
            format!(
                "consumed() for {} #{seq} returned {}; its ConsumedCapacity says {}.\n{}\n{}{why}",
                operation(&request),
                one_line(&got, u),
                one_line(&engine_figure, u),
                describe(table, &request),
                arithmetic(table, &request),
            ),
            figure(&engine_figure, u),
            figure(&got, u),
        )
        .raise();
    }

    fn next_missing_key(&mut self, pk: &str) -> Item {
        self.missing += 1;
        key(pk, &format!("MISSING#{}", self.missing))
    }

    fn put(&self, table: &str, item: &Item) {
        self.client
            .put_item()
            .table_name(table)
            .set_item(Some(item.clone()))
            .send()
            .expect("the test stores an item the request touches");
    }

    /// Stores what the request finds, sends it, and returns the engine's figure and the
    /// request's sequence number in the request log.
    fn send(&mut self, table: &str, request: &Request) -> (Consumed, u64) {
        let pk = request_pk(request);
        let c = self.client.clone();
        let keep = |item: &Option<Item>, lab: &mut Lab| match item {
            Some(i) => {
                lab.put(table, i);
                key_of(i)
            }
            None => lab.next_missing_key(&pk),
        };
        let report = |cc: Option<&ConsumedCapacity>| {
            from_report(cc.expect("ConsumedCapacity was asked for"))
        };
        let figure = match request {
            Request::GetItem {
                item,
                consistent_read,
            } => {
                let k = keep(item, self);
                self.world.settle();
                let out = c
                    .get_item()
                    .table_name(table)
                    .set_key(Some(k))
                    .set_consistent_read(*consistent_read)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .expect("GetItem");
                report(out.consumed_capacity())
            }
            Request::BatchGetItem {
                items,
                consistent_read,
            } => {
                let keys: Vec<Item> = items.iter().map(|i| keep(i, self)).collect();
                self.world.settle();
                let wanted = keys
                    .into_iter()
                    .fold(KeysAndAttributes::builder(), |b, k| b.keys(k))
                    .set_consistent_read(*consistent_read)
                    .build()
                    .expect("keys");
                let out = c
                    .batch_get_item()
                    .request_items(table, wanted)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .expect("BatchGetItem");
                assert!(
                    out.unprocessed_keys().is_none_or(|u| u.is_empty()),
                    "the tests' BatchGetItem is processed whole"
                );
                report(
                    out.consumed_capacity()
                        .iter()
                        .find(|cc| cc.table_name() == Some(table)),
                )
            }
            Request::Query {
                read,
                consistent_read,
                filter,
            } => {
                for i in read {
                    self.put(table, i);
                }
                self.world.settle();
                let mut q = c
                    .query()
                    .table_name(table)
                    .key_condition_expression("PK = :pk")
                    .expression_attribute_values(":pk", s(&pk))
                    .set_consistent_read(*consistent_read)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
                if let Some(f) = filter {
                    q = q
                        .filter_expression("#f = :v")
                        .expression_attribute_names("#f", f.attribute.clone())
                        .expression_attribute_values(":v", f.equals.clone());
                }
                let out = q.send().expect("Query");
                assert_eq!(
                    out.scanned_count() as usize,
                    read.len(),
                    "the Query reads the whole collection"
                );
                report(out.consumed_capacity())
            }
            Request::TransactGetItems { items } => {
                let keys: Vec<Item> = items.iter().map(|i| keep(i, self)).collect();
                self.world.settle();
                let mut t = c
                    .transact_get_items()
                    .return_consumed_capacity(ReturnConsumedCapacity::Total);
                for k in keys {
                    let get = Get::builder()
                        .table_name(table)
                        .set_key(Some(k))
                        .build()
                        .expect("get");
                    t = t.transact_items(TransactGetItem::builder().get(get).build());
                }
                let out = t.send().expect("TransactGetItems");
                let cc = out
                    .consumed_capacity
                    .iter()
                    .flatten()
                    .find(|cc| cc.table_name() == Some(table))
                    .cloned();
                let total = cc.and_then(|cc| cc.capacity_units()).unwrap_or(0.0);
                Consumed {
                    table: total,
                    gsis: BTreeMap::new(),
                }
            }
            Request::PutItem { before, after } => {
                self.setup(table, before.as_ref());
                let out = c
                    .put_item()
                    .table_name(table)
                    .set_item(Some(after.clone()))
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .expect("PutItem");
                report(out.consumed_capacity())
            }
            Request::UpdateItem { before, after } => {
                self.setup(table, before.as_ref());
                let (expression, names, values) = update_expression(before.as_ref(), after);
                let out = c
                    .update_item()
                    .table_name(table)
                    .set_key(Some(key_of(after)))
                    .update_expression(expression)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(Some(values))
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .expect("UpdateItem");
                report(out.consumed_capacity())
            }
            Request::DeleteItem { before } => {
                let k = match before {
                    Some(b) => {
                        self.put(table, b);
                        key_of(b)
                    }
                    None => self.next_missing_key(&pk),
                };
                let out = c
                    .delete_item()
                    .table_name(table)
                    .set_key(Some(k))
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .expect("DeleteItem");
                report(out.consumed_capacity())
            }
            Request::BatchWriteItem { writes } => {
                let mut requests = Vec::new();
                for w in writes {
                    requests.push(self.write_request(table, w, &pk));
                }
                let out = c
                    .batch_write_item()
                    .request_items(table, requests)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .expect("BatchWriteItem");
                assert!(
                    out.unprocessed_items().is_none_or(|u| u.is_empty()),
                    "the tests' BatchWriteItem is processed whole"
                );
                report(
                    out.consumed_capacity()
                        .iter()
                        .find(|cc| cc.table_name() == Some(table)),
                )
            }
            Request::TransactWriteItems { writes } => {
                let mut t = c
                    .transact_write_items()
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
                for w in writes {
                    let action = match w {
                        Write::Put { before, after } => {
                            self.setup(table, before.as_ref());
                            let put = Put::builder()
                                .table_name(table)
                                .set_item(Some(after.clone()))
                                .build()
                                .expect("put");
                            TransactWriteItem::builder().put(put).build()
                        }
                        Write::Update { before, after } => {
                            self.setup(table, before.as_ref());
                            let (expression, names, values) =
                                update_expression(before.as_ref(), after);
                            let mut update = Update::builder()
                                .table_name(table)
                                .set_key(Some(key_of(after)))
                                .update_expression(expression);
                            for (k, v) in names {
                                update = update.expression_attribute_names(k, v);
                            }
                            for (k, v) in values {
                                update = update.expression_attribute_values(k, v);
                            }
                            let update = update.build().expect("update");
                            TransactWriteItem::builder().update(update).build()
                        }
                        Write::Delete { before } => {
                            let k = match before {
                                Some(b) => {
                                    self.put(table, b);
                                    key_of(b)
                                }
                                None => self.next_missing_key(&pk),
                            };
                            let delete = Delete::builder()
                                .table_name(table)
                                .set_key(Some(k))
                                .build()
                                .expect("delete");
                            TransactWriteItem::builder().delete(delete).build()
                        }
                    };
                    t = t.transact_items(action);
                }
                let out = t.send().expect("TransactWriteItems");
                let cc = out
                    .consumed_capacity
                    .iter()
                    .flatten()
                    .find(|cc| cc.table_name() == Some(table))
                    .cloned();
                report(cc.as_ref())
            }
        };
        let seq = self.world.request_totals().requests - 1;
        (figure, seq)
    }

    fn setup(&self, table: &str, before: Option<&Item>) {
        if let Some(b) = before {
            self.put(table, b);
        }
    }

    fn write_request(&mut self, table: &str, w: &Write, pk: &str) -> WriteRequest {
        match w {
            Write::Put { before, after } | Write::Update { before, after } => {
                self.setup(table, before.as_ref());
                let put = PutRequest::builder()
                    .set_item(Some(after.clone()))
                    .build()
                    .expect("put");
                WriteRequest::builder().put_request(put).build()
            }
            Write::Delete { before } => {
                let k = match before {
                    Some(b) => {
                        self.put(table, b);
                        key_of(b)
                    }
                    None => self.next_missing_key(pk),
                };
                let delete = DeleteRequest::builder()
                    .set_key(Some(k))
                    .build()
                    .expect("delete");
                WriteRequest::builder().delete_request(delete).build()
            }
        }
    }
}

fn create_table(client: &Client, name: &str, table: &Table) {
    let mut attributes: Vec<String> = vec!["PK".to_string(), "SK".to_string()];
    for g in &table.gsis {
        for a in std::iter::once(&g.partition_key).chain(g.sort_key.iter()) {
            if !attributes.contains(a) {
                attributes.push(a.clone());
            }
        }
    }
    let mut create = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range));
    for a in attributes {
        create = create.attribute_definitions(AttributeDefinition::new(a, ScalarAttributeType::S));
    }
    for g in &table.gsis {
        let mut schema = vec![KeySchemaElement::new(
            g.partition_key.clone(),
            KeyType::Hash,
        )];
        if let Some(sk) = &g.sort_key {
            schema.push(KeySchemaElement::new(sk.clone(), KeyType::Range));
        }
        let projection = match &g.projection {
            Projection::All => SdkProjection::all(),
            Projection::KeysOnly => SdkProjection::keys_only(),
            Projection::Include(names) => SdkProjection::include(names.iter().cloned()),
        };
        create = create.global_secondary_indexes(GlobalSecondaryIndex::new(
            g.name.clone(),
            schema,
            projection,
        ));
    }
    create.send().expect("the tests' table");
}

fn from_report(cc: &ConsumedCapacity) -> Consumed {
    let table = cc
        .table
        .clone()
        .and_then(|t| t.capacity_units)
        .unwrap_or_else(|| cc.capacity_units().unwrap_or(0.0));
    let gsis = cc
        .global_secondary_indexes
        .iter()
        .flatten()
        .map(|(name, c)| (name.clone(), c.capacity_units.unwrap_or(0.0)))
        .collect();
    Consumed { table, gsis }
}

/// SET every non-key attribute of `after`, REMOVE what `before` had and `after` has not.
fn update_expression(
    before: Option<&Item>,
    after: &Item,
) -> (
    String,
    BTreeMap<String, String>,
    BTreeMap<String, AttributeValue>,
) {
    let mut names = BTreeMap::new();
    let mut values = BTreeMap::new();
    let mut sets = Vec::new();
    let mut removes = Vec::new();
    let mut attrs: Vec<&String> = after
        .keys()
        .filter(|k| !["PK", "SK"].contains(&k.as_str()))
        .collect();
    attrs.sort();
    for (n, a) in attrs.into_iter().enumerate() {
        names.insert(format!("#s{n}"), a.clone());
        values.insert(format!(":s{n}"), after[a].clone());
        sets.push(format!("#s{n} = :s{n}"));
    }
    if let Some(b) = before {
        let mut gone: Vec<&String> = b.keys().filter(|k| !after.contains_key(*k)).collect();
        gone.sort();
        for (n, a) in gone.into_iter().enumerate() {
            names.insert(format!("#r{n}"), a.clone());
            removes.push(format!("#r{n}"));
        }
    }
    let mut expression = format!("SET {}", sets.join(", "));
    if !removes.is_empty() {
        expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
    }
    (expression, names, values)
}

// ---------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------

pub fn operation(r: &Request) -> &'static str {
    match r {
        Request::GetItem { .. } => "GetItem",
        Request::BatchGetItem { .. } => "BatchGetItem",
        Request::Query { .. } => "Query",
        Request::TransactGetItems { .. } => "TransactGetItems",
        Request::PutItem { .. } => "PutItem",
        Request::UpdateItem { .. } => "UpdateItem",
        Request::DeleteItem { .. } => "DeleteItem",
        Request::BatchWriteItem { .. } => "BatchWriteItem",
        Request::TransactWriteItems { .. } => "TransactWriteItems",
    }
}

fn unit(r: &Request) -> &'static str {
    match r {
        Request::GetItem { .. }
        | Request::BatchGetItem { .. }
        | Request::Query { .. }
        | Request::TransactGetItems { .. } => "RCU",
        _ => "WCU",
    }
}

fn one_line(c: &Consumed, unit: &str) -> String {
    figure(c, unit).replace('\n', ", ")
}

fn consistency(c: Option<bool>) -> &'static str {
    match c {
        None => "ConsistentRead not set: eventually consistent",
        Some(false) => "ConsistentRead = false: eventually consistent",
        Some(true) => "ConsistentRead = true: strongly consistent",
    }
}

fn size(item: &Item) -> usize {
    engine::item_size(item)
}

fn sizes(items: &[Option<Item>]) -> String {
    let shown: Vec<String> = items
        .iter()
        .map(|i| i.as_ref().map_or("no item".to_string(), |i| bytes(size(i))))
        .collect();
    shown.join(", ")
}

fn version(i: Option<&Item>) -> String {
    i.map_or("no item".to_string(), |i| bytes(size(i)))
}

/// What the request touched, in a sentence.
pub fn describe(table: &Table, r: &Request) -> String {
    let gsis = if table.gsis.is_empty() {
        "a table without GSIs".to_string()
    } else {
        let list: Vec<String> = table.gsis.iter().map(show_gsi).collect();
        format!("a table with GSIs {}", list.join("; "))
    };
    let what = match r {
        Request::GetItem {
            item,
            consistent_read,
        } => format!(
            "The request: a GetItem ({}) of {}.",
            consistency(*consistent_read),
            item.as_ref()
                .map_or("a key no item has".to_string(), |i| format!(
                    "an item of {}",
                    bytes(size(i))
                ))
        ),
        Request::BatchGetItem {
            items,
            consistent_read,
        } => format!(
            "The request: a BatchGetItem ({}) of {} keys; the items found: {}.",
            consistency(*consistent_read),
            items.len(),
            sizes(items)
        ),
        Request::Query {
            read,
            consistent_read,
            filter,
        } => {
            let all: usize = read.iter().map(size).sum();
            let mut t = format!(
                "The request: a Query ({}) whose key condition matched {} items: {} ({} in all).",
                consistency(*consistent_read),
                read.len(),
                sizes(&read.iter().cloned().map(Some).collect::<Vec<_>>()),
                bytes(all)
            );
            if let Some(f) = filter {
                let kept: Vec<&Item> = read
                    .iter()
                    .filter(|i| i.get(&f.attribute) == Some(&f.equals))
                    .collect();
                t.push_str(&format!(
                    " Its FilterExpression {} = {} returned {} of them ({}).",
                    f.attribute,
                    item_value_text(&f.equals),
                    kept.len(),
                    bytes(kept.iter().map(|i| size(i)).sum())
                ));
            }
            t
        }
        Request::TransactGetItems { items } => format!(
            "The request: a TransactGetItems of {} keys; the items found: {}.",
            items.len(),
            sizes(items)
        ),
        Request::PutItem { before, after } => format!(
            "The request: a PutItem on {gsis}: before {}, after {}.",
            version(before.as_ref()),
            bytes(size(after))
        ),
        Request::UpdateItem { before, after } => format!(
            "The request: an UpdateItem on {gsis}: before {}, after {}.",
            version(before.as_ref()),
            bytes(size(after))
        ),
        Request::DeleteItem { before } => format!(
            "The request: a DeleteItem on {gsis} of {}.",
            before
                .as_ref()
                .map_or("a key no item has".to_string(), |b| format!(
                    "an item of {}",
                    bytes(size(b))
                ))
        ),
        Request::BatchWriteItem { writes } | Request::TransactWriteItems { writes } => {
            let list: Vec<String> = writes.iter().map(show_write).collect();
            format!(
                "The request: a {} on {gsis}: {}.",
                operation(r),
                list.join("; ")
            )
        }
    };
    what
}

fn show_gsi(g: &Gsi) -> String {
    let key = match &g.sort_key {
        Some(sk) => format!("{} + {sk}", g.partition_key),
        None => g.partition_key.clone(),
    };
    let projection = match &g.projection {
        Projection::All => "ALL".to_string(),
        Projection::KeysOnly => "KEYS_ONLY".to_string(),
        Projection::Include(n) => format!("INCLUDE {}", n.join(", ")),
    };
    format!("{} (key {key}, {projection})", g.name)
}

fn show_write(w: &Write) -> String {
    match w {
        Write::Put { before, after } => format!(
            "Put {} over {}",
            bytes(size(after)),
            version(before.as_ref())
        ),
        Write::Update { before, after } => format!(
            "Update {} to {}",
            version(before.as_ref()),
            bytes(size(after))
        ),
        Write::Delete { before } => format!("Delete of {}", version(before.as_ref())),
    }
}

fn item_value_text(v: &AttributeValue) -> String {
    engine::value::value_to_json(v).to_string()
}

fn blocks(bytes: usize, block: usize) -> usize {
    bytes.div_ceil(block).max(1)
}

fn read_price(c: Option<bool>) -> (f64, &'static str) {
    if c == Some(true) {
        (1.0, "1 (strong)")
    } else {
        (0.5, "0.5 (eventual)")
    }
}

/// The right arithmetic for the request, as the lesson writes it.
pub fn arithmetic(table: &Table, r: &Request) -> String {
    let found = |i: &Option<Item>| blocks(i.as_ref().map_or(0, size), 4096);
    match r {
        Request::GetItem {
            item,
            consistent_read,
        } => {
            let (p, ps) = read_price(*consistent_read);
            let b = found(item);
            format!(
                "DynamoDB: {} → {b} {} of 4 KB × {ps} = {} RCU{}.",
                version(item.as_ref()),
                if b == 1 { "block" } else { "blocks" },
                units(b as f64 * p),
                if item.is_none() {
                    " (a missing item still costs one block)"
                } else {
                    ""
                }
            )
        }
        Request::BatchGetItem {
            items,
            consistent_read,
        } => {
            let (p, ps) = read_price(*consistent_read);
            let each: Vec<String> = items.iter().map(|i| found(i).to_string()).collect();
            let total: usize = items.iter().map(found).sum();
            format!("DynamoDB: each item rounded up to 4 KB on its own: {} = {total} blocks × {ps} = {} RCU.", each.join(" + "), units(total as f64 * p))
        }
        Request::Query {
            read,
            consistent_read,
            ..
        } => {
            let (p, ps) = read_price(*consistent_read);
            let all: usize = read.iter().map(size).sum();
            let b = blocks(all, 4096);
            format!("DynamoDB: every item read, summed and rounded up once: {} → {b} blocks of 4 KB × {ps} = {} RCU.", bytes(all), units(b as f64 * p))
        }
        Request::TransactGetItems { items } => {
            let each: Vec<String> = items.iter().map(|i| found(i).to_string()).collect();
            let total: usize = items.iter().map(found).sum();
            format!("DynamoDB: each item rounded up to 4 KB: {} = {total} blocks × 2 (transactional) = {} RCU.", each.join(" + "), units(total as f64 * 2.0))
        }
        Request::PutItem { before, after } | Request::UpdateItem { before, after } => {
            write_arithmetic(table, &[(before.as_ref(), Some(after))], 1.0)
        }
        Request::DeleteItem { before } => write_arithmetic(table, &[(before.as_ref(), None)], 1.0),
        Request::BatchWriteItem { writes } => {
            let v: Vec<_> = writes.iter().map(model::versions).collect();
            write_arithmetic(table, &v, 1.0)
        }
        Request::TransactWriteItems { writes } => {
            let v: Vec<_> = writes.iter().map(model::versions).collect();
            write_arithmetic(table, &v, 2.0)
        }
    }
}

fn write_arithmetic(
    table: &Table,
    writes: &[(Option<&Item>, Option<&Item>)],
    factor: f64,
) -> String {
    let mut parts = Vec::new();
    let mut total = 0usize;
    for (b, a) in writes {
        let larger = b.map_or(0, size).max(a.map_or(0, size));
        let k = blocks(larger, 1024);
        total += k;
        parts.push(match (b, a) {
            (None, None) => "no item to delete: 1".to_string(),
            (Some(b), None) => format!("the deleted item, {} → {k}", bytes(size(b))),
            (b, Some(a)) => format!(
                "the larger of before ({}) and after ({}) → {k}",
                version(*b),
                bytes(size(a))
            ),
        });
    }
    let times = if factor == 2.0 {
        " × 2 (transactional)"
    } else {
        ""
    };
    let mut text = format!(
        "DynamoDB, table: {} = {total} × 1 KB{times} = {} WCU.",
        parts.join("; "),
        units(total as f64 * factor)
    );
    for (b, a) in writes {
        for (name, change) in model::gsi_changes(table, *b, *a) {
            let e = |i: &Option<Item>| i.as_ref().map_or(0, size);
            let (old, new) = (e(&change.old_entry), e(&change.new_entry));
            let line = match change.kind {
                IndexChangeKind::None => "not in the index before or after: 0".to_string(),
                IndexChangeKind::Unchanged => {
                    "same index key, nothing it holds changed: 0".to_string()
                }
                IndexChangeKind::Enters => format!(
                    "the item enters it: one write of its {} entry = {}",
                    bytes(new),
                    units(blocks(new, 1024) as f64 * factor)
                ),
                IndexChangeKind::Leaves => format!(
                    "the item leaves it: one write (the delete) of its {} entry = {}",
                    bytes(old),
                    units(blocks(old, 1024) as f64 * factor)
                ),
                IndexChangeKind::Rewritten => format!(
                    "same index key, a projected attribute changed: one write of the {} entry = {}",
                    bytes(new),
                    units(blocks(new, 1024) as f64 * factor)
                ),
                IndexChangeKind::KeyChanged => format!(
                    "its index key changed: delete the old {} entry + put the new {} entry = {}",
                    bytes(old),
                    bytes(new),
                    units((blocks(old, 1024) + blocks(new, 1024)) as f64 * factor)
                ),
            };
            text.push_str(&format!("\n  GSI {name}: {line} WCU"));
        }
    }
    text
}

/// An item's size, attribute by attribute (names sorted).
fn size_breakdown(item: &Item) -> String {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let mut lines = Vec::new();
    for n in names {
        let v = &item[n];
        let json = engine::value::value_to_json(v).to_string();
        let shown = if json.chars().count() > 40 {
            format!("{}…", json.chars().take(40).collect::<String>())
        } else {
            json
        };
        lines.push(format!(
            "  {:?}: name {} + value {} = {}   {shown}",
            n,
            bytes(n.len()),
            bytes(v.size()),
            bytes(n.len() + v.size())
        ));
    }
    lines.push(format!("  total {}", bytes(size(item))));
    let _ = item_to_json(item);
    lines.join("\n")
}

// ---------------------------------------------------------------------------------------
// Random items and requests
// ---------------------------------------------------------------------------------------

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

pub fn key(pk: &str, sk: &str) -> Item {
    Item::from([("PK".to_string(), s(pk)), ("SK".to_string(), s(sk))])
}

fn key_of(item: &Item) -> Item {
    Item::from([
        ("PK".to_string(), item["PK"].clone()),
        ("SK".to_string(), item["SK"].clone()),
    ])
}

fn request_pk(r: &Request) -> String {
    let first = |items: &mut dyn Iterator<Item = Option<&Item>>| {
        items
            .flatten()
            .next()
            .and_then(|i| i.get("PK"))
            .and_then(|v| v.as_s().ok())
            .cloned()
    };
    let pk = match r {
        Request::GetItem { item, .. } => first(&mut std::iter::once(item.as_ref())),
        Request::BatchGetItem { items, .. } | Request::TransactGetItems { items } => {
            first(&mut items.iter().map(|i| i.as_ref()))
        }
        Request::Query { read, .. } => first(&mut read.iter().map(Some)),
        Request::PutItem { after, .. } | Request::UpdateItem { after, .. } => {
            first(&mut std::iter::once(Some(after)))
        }
        Request::DeleteItem { before } => first(&mut std::iter::once(before.as_ref())),
        Request::BatchWriteItem { writes } | Request::TransactWriteItems { writes } => {
            first(&mut writes.iter().map(|w| {
                let (b, a) = model::versions(w);
                a.or(b)
            }))
        }
    };
    pk.unwrap_or_else(|| "NOTHING".to_string())
}

const WORDS: [&str; 10] = [
    "tea",
    "oolong",
    "sencha",
    "matcha",
    "thé vert",
    "茶",
    "chai",
    "darjeeling",
    "rooibos",
    "maté",
];
const NAMES: [&str; 12] = [
    "title",
    "price",
    "d",
    "description_of_the_product",
    "tags",
    "dimensions",
    "in_stock",
    "supplier-reference",
    "notes",
    "ratings",
    "raw",
    "x",
];

fn range(rng: &mut Rng, lo: usize, hi: usize) -> usize {
    lo + rng.below((hi - lo + 1) as u64) as usize
}

fn random_text(rng: &mut Rng, max_words: usize) -> String {
    let n = 1 + rng.below(max_words as u64) as usize;
    (0..n)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

fn random_number(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => rng.below(10).to_string(),
        1 => format!("{}.{:02}", rng.below(1000), rng.below(100)),
        2 => format!("-{}", rng.below(1_000_000)),
        _ => rng.next_u64().to_string(),
    }
}

fn random_value(rng: &mut Rng, depth: usize) -> AttributeValue {
    let kinds = if depth >= 2 { 6 } else { 9 };
    match rng.below(kinds) {
        0 | 1 => AttributeValue::S(random_text(rng, 6)),
        2 => AttributeValue::N(random_number(rng)),
        3 => AttributeValue::B(Blob::new(
            (0..range(rng, 1, 40)).map(|i| i as u8).collect::<Vec<u8>>(),
        )),
        4 => AttributeValue::Bool(rng.below(2) == 0),
        5 => AttributeValue::Null(true),
        6 => AttributeValue::L(
            (0..range(rng, 0, 4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        7 => AttributeValue::M(
            (0..range(rng, 0, 4))
                .map(|k| {
                    (
                        format!("{}{k}", NAMES[rng.below(NAMES.len() as u64) as usize]),
                        random_value(rng, depth + 1),
                    )
                })
                .collect(),
        ),
        _ => {
            let mut set: Vec<String> = (0..range(rng, 1, 4))
                .map(|k| format!("{}-{k}", random_text(rng, 2)))
                .collect();
            set.dedup();
            AttributeValue::Ss(set)
        }
    }
}

/// An item with random attributes of every type under `PK`/`SK`, then padded with a string
/// attribute to `target` bytes if one is given.
fn random_item(rng: &mut Rng, pk: &str, sk: &str, target: Option<usize>) -> Item {
    let mut item = key(pk, sk);
    for _ in 0..range(rng, 1, 6) {
        let name = NAMES[rng.below(NAMES.len() as u64) as usize].to_string();
        item.insert(name, random_value(rng, 0));
    }
    if let Some(target) = target {
        pad(&mut item, target);
    }
    item
}

/// Pads `item` with a `body` string so that it is exactly `target` bytes (if it is smaller).
fn pad(item: &mut Item, target: usize) {
    item.remove("body");
    let now = size(item) + "body".len();
    if target > now {
        item.insert(
            "body".to_string(),
            AttributeValue::S("x".repeat(target - now)),
        );
    }
}

/// An item of exactly `target` bytes (at least its key and a few attributes).
fn sized_item(rng: &mut Rng, pk: &str, sk: &str, target: usize) -> Item {
    random_item(rng, pk, sk, Some(target))
}

/// A read size near a 4 KB boundary: a little over (where forgetting the names or rounding
/// down shows) or a little under, up to 20 KB.
fn read_size(rng: &mut Rng) -> usize {
    let k = range(rng, 1, 5) * 4096;
    match rng.below(3) {
        0 => k + range(rng, 1, 24),
        1 => k - range(rng, 0, 200),
        _ => range(rng, 300, 20_000),
    }
}

/// A write size near a 1 KB boundary.
fn write_size(rng: &mut Rng) -> usize {
    let k = range(rng, 1, 6) * 1024;
    match rng.below(3) {
        0 => k + range(rng, 1, 24),
        1 => k - range(rng, 0, 60),
        _ => range(rng, 120, 7_000),
    }
}

fn query_items(rng: &mut Rng, pk: &str, min: usize, max: usize, lo: usize, hi: usize) -> Vec<Item> {
    let n = range(rng, min, max);
    (0..n)
        .map(|i| {
            let target = range(rng, lo, hi);
            sized_item(rng, pk, &format!("ITEM#{i:03}"), target)
        })
        .collect()
}

fn batch_items(rng: &mut Rng, pk: &str, with_missing: bool) -> Vec<Option<Item>> {
    let n = range(rng, 2, 8);
    let mut items: Vec<Option<Item>> = (0..n)
        .map(|i| {
            let target = range(rng, 200, 9_000);
            Some(sized_item(rng, pk, &format!("ITEM#{i:03}"), target))
        })
        .collect();
    if with_missing && rng.below(2) == 0 {
        let at = rng.below(items.len() as u64) as usize;
        items[at] = None;
    }
    items
}

/// The GSIs the write tests choose from: one of each projection.
fn gsi_pool() -> Vec<Gsi> {
    vec![
        Gsi {
            name: "by-status".to_string(),
            partition_key: "status".to_string(),
            sort_key: None,
            projection: Projection::KeysOnly,
        },
        Gsi {
            name: "by-owner".to_string(),
            partition_key: "owner".to_string(),
            sort_key: Some("created".to_string()),
            projection: Projection::All,
        },
        Gsi {
            name: "by-tag".to_string(),
            partition_key: "tag".to_string(),
            sort_key: None,
            projection: Projection::Include(vec!["title".to_string(), "price".to_string()]),
        },
    ]
}

const STATUSES: [&str; 3] = ["OPEN", "PAID", "SHIPPED"];
const OWNERS: [&str; 3] = ["ana", "bo", "chidi"];

/// A version of a write's item: padded to a size, with each GSI's key attributes present or
/// not.
fn version_item(rng: &mut Rng, pk: &str, sk: &str, gsis: &[Gsi]) -> Item {
    let mut item = key(pk, sk);
    item.insert("title".to_string(), AttributeValue::S(random_text(rng, 3)));
    item.insert("price".to_string(), AttributeValue::N(random_number(rng)));
    for g in gsis {
        if rng.below(4) == 0 {
            continue; // not in this index
        }
        let v = match g.partition_key.as_str() {
            "status" => STATUSES[rng.below(3) as usize],
            "owner" => OWNERS[rng.below(3) as usize],
            _ => WORDS[rng.below(3) as usize],
        };
        item.insert(g.partition_key.clone(), s(v));
        if let Some(sk) = &g.sort_key {
            item.insert(
                sk.clone(),
                AttributeValue::S(format!("2025-06-{:02}", 1 + rng.below(3))),
            );
        }
    }
    pad(&mut item, write_size(rng));
    item
}

/// The item after a write: `before` with a few changes (or a new item).
fn changed(rng: &mut Rng, before: &Item, gsis: &[Gsi]) -> Item {
    let mut after = before.clone();
    match rng.below(4) {
        // Only the body: for KEYS_ONLY and INCLUDE indexes nothing projected changes.
        0 => {}
        1 => {
            after.insert("title".to_string(), AttributeValue::S(random_text(rng, 3)));
        }
        _ => {
            if let Some(g) = gsis.get(rng.below(gsis.len().max(1) as u64) as usize) {
                match rng.below(3) {
                    0 => {
                        after.remove(&g.partition_key);
                    }
                    _ => {
                        let v = STATUSES[rng.below(3) as usize];
                        after.insert(g.partition_key.clone(), s(v));
                        if let Some(sk) = &g.sort_key {
                            after.insert(
                                sk.clone(),
                                AttributeValue::S(format!("2025-07-{:02}", 1 + rng.below(3))),
                            );
                        }
                    }
                }
            }
        }
    }
    let target = if rng.below(2) == 0 {
        size(before)
    } else {
        write_size(rng)
    };
    pad(&mut after, target);
    if size(&after) < target {
        pad(&mut after, target);
    }
    after
}

fn random_write(rng: &mut Rng, pk: &str, sk: &str, updates: bool, gsis: &[Gsi]) -> Write {
    let before = (rng.below(4) != 0).then(|| version_item(rng, pk, sk, gsis));
    match rng.below(if updates { 3 } else { 2 }) {
        0 => {
            let after = match &before {
                Some(b) if rng.below(2) == 0 => changed(rng, b, gsis),
                _ => version_item(rng, pk, sk, gsis),
            };
            Write::Put { before, after }
        }
        1 => Write::Delete { before },
        _ => {
            let after = match &before {
                Some(b) => changed(rng, b, gsis),
                None => version_item(rng, pk, sk, gsis),
            };
            Write::Update { before, after }
        }
    }
}

fn random_write_request(rng: &mut Rng, pk: &str, gsis: &[Gsi]) -> Request {
    match rng.below(5) {
        0 | 1 => match random_write(rng, pk, "A", true, gsis) {
            Write::Put { before, after } => Request::PutItem { before, after },
            Write::Update { before, after } => Request::UpdateItem { before, after },
            Write::Delete { before } => Request::DeleteItem { before },
        },
        2 => {
            let after = match rng.below(2) {
                0 => version_item(rng, pk, "A", gsis),
                _ => {
                    let b = version_item(rng, pk, "A", gsis);
                    return Request::UpdateItem {
                        after: changed(rng, &b, gsis),
                        before: Some(b),
                    };
                }
            };
            let before = (rng.below(2) == 0).then(|| version_item(rng, pk, "A", gsis));
            Request::PutItem { before, after }
        }
        3 => Request::DeleteItem {
            before: (rng.below(3) != 0).then(|| version_item(rng, pk, "A", gsis)),
        },
        _ => {
            let n = range(rng, 2, 5);
            let writes = (0..n)
                .map(|k| random_write(rng, pk, &format!("W{k}"), false, gsis))
                .collect();
            Request::BatchWriteItem { writes }
        }
    }
}
