//! The engine's side: one `World` with default settings (three replicas per partition,
//! capacity admission, the request log, GSIs fed by the propagator), driven by its `Client`.
//!
//! The simulated clock moves on by one second per 1,000 capacity units of work
//! ([`Workload::units`]), inside the timing: the replication to the third replica and the
//! index propagation that fell due are work a write causes, and the peer's write has done all
//! of its work when it returns, so the engine is charged for its own in full.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    PutRequest, ScalarAttributeType, WriteRequest,
};
use engine::{AttributeValue, Client, Item, World, WorldConfig};

use crate::workload::*;

/// Capacity units between two simulated seconds.
const UNITS_PER_SECOND: usize = 1_000;

pub struct EngineSide {
    world: World,
    client: Client,
    /// The version each user holds (the conditional PutItem's expectation).
    versions: Vec<i64>,
    /// Units done since the clock last moved.
    units: usize,
}

store_item!(Item, AttributeValue);

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}
fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}
fn attr(name: &str, t: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::new(name, t)
}

impl EngineSide {
    /// A world with default settings and the tables of the data set, empty.
    pub fn empty(config: WorldConfig) -> EngineSide {
        let world = World::with_config(config);
        let client = world.client();
        let key = |name: &str, t| KeySchemaElement::new(name, t);
        client
            .create_table()
            .table_name("bench")
            .attribute_definitions(attr("PK", ScalarAttributeType::S))
            .attribute_definitions(attr("SK", ScalarAttributeType::S))
            .key_schema(key("PK", KeyType::Hash))
            .key_schema(key("SK", KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap();
        client
            .create_table()
            .table_name("scan")
            .attribute_definitions(attr("PK", ScalarAttributeType::S))
            .key_schema(key("PK", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap();
        client
            .create_table()
            .table_name("orders")
            .attribute_definitions(attr("PK", ScalarAttributeType::S))
            .attribute_definitions(attr("SK", ScalarAttributeType::S))
            .attribute_definitions(attr("GSI1PK", ScalarAttributeType::S))
            .attribute_definitions(attr("GSI1SK", ScalarAttributeType::S))
            .attribute_definitions(attr("GSI2PK", ScalarAttributeType::S))
            .key_schema(key("PK", KeyType::Hash))
            .key_schema(key("SK", KeyType::Range))
            .global_secondary_indexes(GlobalSecondaryIndex::new(
                "GSI1",
                vec![key("GSI1PK", KeyType::Hash), key("GSI1SK", KeyType::Range)],
                Projection::all(),
            ))
            .global_secondary_indexes(GlobalSecondaryIndex::new(
                "GSI2",
                vec![key("GSI2PK", KeyType::Hash)],
                Projection::all(),
            ))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap();
        EngineSide {
            world,
            client,
            versions: vec![0; USERS],
            units: 0,
        }
    }

    /// One PutItem without a condition, the clock moved on as for any other write.
    pub fn put(&mut self, table: &str, item: Item) {
        self.client
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .send()
            .unwrap();
        self.spend(1);
    }

    /// Counts `units` of work; moves the clock on by a second per [`UNITS_PER_SECOND`].
    fn spend(&mut self, units: usize) {
        self.units += units;
        if self.units >= UNITS_PER_SECOND {
            self.units -= UNITS_PER_SECOND;
            self.world.advance(Duration::from_secs(1));
        }
    }

    /// Applies everything pending (replication, index propagation).
    pub fn settle(&self) {
        self.world.settle();
    }

    /// The item `pk` / `sk` of table `bench`, read strongly.
    fn get(&self, pk: String, sk: &str) -> Option<Row> {
        let out = self
            .client
            .get_item()
            .table_name("bench")
            .key("PK", s(pk))
            .key("SK", s(sk))
            .consistent_read(true)
            .send()
            .unwrap();
        out.item().map(ToRow::to_row)
    }

    /// The items GSI2 holds for order `i`'s email.
    fn orders_by_email(&self, i: usize) -> Vec<Row> {
        let out = self
            .client
            .query()
            .table_name("orders")
            .index_name("GSI2")
            .key_condition_expression("GSI2PK = :e")
            .expression_attribute_values(":e", s(order_email(i)))
            .send()
            .unwrap();
        out.items().iter().map(ToRow::to_row).collect()
    }
}

impl Side for EngineSide {
    fn load() -> EngineSide {
        let mut side = EngineSide::empty(WorldConfig::default());
        data_set(|table, item| side.put(table, item));
        side.settle();
        side
    }

    fn op(&mut self, w: Workload, i: usize, probe: bool) -> Option<Seen> {
        let seen = match w {
            Workload::Get => {
                let out = self
                    .client
                    .get_item()
                    .table_name("bench")
                    .key("PK", s(user_pk(i % USERS)))
                    .key("SK", s(PROFILE))
                    .consistent_read(true)
                    .send()
                    .unwrap();
                probe.then(|| Seen::one(out.item().map(ToRow::to_row)))
            }
            Workload::ConditionalPut => {
                let k = i % USERS;
                let v = self.versions[k];
                self.client
                    .put_item()
                    .table_name("bench")
                    .set_item(Some(user::<Item>(k, v + 1)))
                    .condition_expression("version = :v")
                    .expression_attribute_values(":v", n(v))
                    .send()
                    .unwrap();
                self.versions[k] = v + 1;
                probe.then(|| Seen::one(self.get(user_pk(k), PROFILE)))
            }
            Workload::Update => {
                let k = i % USERS;
                self.client
                    .update_item()
                    .table_name("bench")
                    .key("PK", s(user_pk(k)))
                    .key("SK", s(PROFILE))
                    .update_expression("SET n = n + :one")
                    .expression_attribute_values(":one", n(1))
                    .send()
                    .unwrap();
                probe.then(|| Seen::one(self.get(user_pk(k), PROFILE)))
            }
            Workload::Query => {
                let out = self
                    .client
                    .query()
                    .table_name("bench")
                    .key_condition_expression("PK = :pk")
                    .expression_attribute_values(":pk", s(feed_pk(i % FEEDS)))
                    .consistent_read(true)
                    .send()
                    .unwrap();
                probe.then(|| {
                    let items = out.items().iter().map(ToRow::to_row).collect();
                    Seen::items(out.count() as usize, out.scanned_count() as usize, items)
                })
            }
            Workload::BatchWrite => {
                let writes = (0..BATCH_WRITES)
                    .map(|j| {
                        let put = PutRequest::builder()
                            .set_item(Some(batch_item::<Item>(i, j)))
                            .build()
                            .unwrap();
                        WriteRequest::builder().put_request(put).build()
                    })
                    .collect();
                let out = self
                    .client
                    .batch_write_item()
                    .request_items("bench", writes)
                    .send()
                    .unwrap();
                let unprocessed = out.unprocessed_items().map_or(0, HashMap::len);
                assert_eq!(unprocessed, 0, "the engine throttled a batch");
                probe.then(|| Seen::one(self.get(batch_pk(i, BATCH_WRITES - 1), "ITEM")))
            }
            Workload::Scan => {
                let out = self
                    .client
                    .scan()
                    .table_name("scan")
                    .filter_expression("category = :c")
                    .expression_attribute_values(":c", n((i % CATEGORIES) as i64))
                    .send()
                    .unwrap();
                assert!(out.last_evaluated_key().is_none(), "one page");
                probe.then(|| {
                    let items = out.items().iter().map(ToRow::to_row).collect();
                    Seen::items(
                        out.count() as usize,
                        out.scanned_count() as usize,
                        sorted(items),
                    )
                })
            }
            Workload::PutWithGsis => {
                self.client
                    .put_item()
                    .table_name("orders")
                    .set_item(Some(order::<Item>(i)))
                    .send()
                    .unwrap();
                probe.then(|| self.until_indexed(i))
            }
        };
        self.spend(w.units());
        black_box(seen)
    }
}

impl EngineSide {
    /// Moves the clock on in 5 ms steps until GSI2 holds order `i`; prints how long that took
    /// in simulated time (the peer's indexes are written in the put's own transaction).
    fn until_indexed(&mut self, i: usize) -> Seen {
        let step = Duration::from_millis(5);
        let start = self.world.now();
        loop {
            let rows = self.orders_by_email(i);
            if !rows.is_empty() {
                println!(
                    "  engine: GSI2 held the put after {} ms of simulated time",
                    (self.world.now() - start).as_millis()
                );
                return Seen::items(rows.len(), rows.len(), rows);
            }
            assert!(
                self.world.now() - start < Duration::from_secs(10),
                "GSI2 never caught up"
            );
            self.world.advance(step);
        }
    }
}
