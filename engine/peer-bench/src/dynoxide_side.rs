//! The peer's side: one in-memory Dynoxide database (`Database::memory`, SQLite in the
//! process), called through its Rust API with its request structs built directly — no JSON on
//! the timed path, as the engine's side builds no JSON either.
//!
//! Its secondary indexes are SQLite tables of their own, written in the same SQLite
//! transaction as the base item (its `put_item` "maintains GSI tables inside the
//! transaction"): when `put_item` returns, both indexes hold the item, so a put with two GSIs
//! includes their maintenance, and the probe reads it back through GSI2 at once.

use std::collections::HashMap;
use std::hint::black_box;

use dynoxide::actions::batch_write_item::{BatchWriteItemRequest, PutRequest, WriteRequest};
use dynoxide::actions::get_item::GetItemRequest;
use dynoxide::actions::put_item::PutItemRequest;
use dynoxide::actions::query::QueryRequest;
use dynoxide::actions::scan::ScanRequest;
use dynoxide::actions::update_item::UpdateItemRequest;
use dynoxide::{AttributeValue, Database, Item};
use serde_json::json;

use crate::workload::*;

pub struct DynoxideSide {
    db: Database,
    /// The version each user holds (the conditional PutItem's expectation).
    versions: Vec<i64>,
}

store_item!(Item, AttributeValue);

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}
fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}
fn values(name: &str, value: AttributeValue) -> Option<HashMap<String, AttributeValue>> {
    Some(HashMap::from([(name.to_string(), value)]))
}
fn key(pk: String, sk: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([("PK".to_string(), s(pk)), ("SK".to_string(), s(sk))])
}

impl DynoxideSide {
    /// An in-memory database with the tables of the data set, empty.
    pub fn empty() -> DynoxideSide {
        let db = Database::memory().unwrap();
        let attr = |name: &str| json!({"AttributeName": name, "AttributeType": "S"});
        let hash = |name: &str| json!({"AttributeName": name, "KeyType": "HASH"});
        let range = |name: &str| json!({"AttributeName": name, "KeyType": "RANGE"});
        let tables = [
            json!({
                "TableName": "bench",
                "AttributeDefinitions": [attr("PK"), attr("SK")],
                "KeySchema": [hash("PK"), range("SK")],
                "BillingMode": "PAY_PER_REQUEST",
            }),
            json!({
                "TableName": "scan",
                "AttributeDefinitions": [attr("PK")],
                "KeySchema": [hash("PK")],
                "BillingMode": "PAY_PER_REQUEST",
            }),
            json!({
                "TableName": "orders",
                "AttributeDefinitions": [
                    attr("PK"), attr("SK"), attr("GSI1PK"), attr("GSI1SK"), attr("GSI2PK"),
                ],
                "KeySchema": [hash("PK"), range("SK")],
                "GlobalSecondaryIndexes": [
                    {
                        "IndexName": "GSI1",
                        "KeySchema": [hash("GSI1PK"), range("GSI1SK")],
                        "Projection": {"ProjectionType": "ALL"},
                    },
                    {
                        "IndexName": "GSI2",
                        "KeySchema": [hash("GSI2PK")],
                        "Projection": {"ProjectionType": "ALL"},
                    },
                ],
                "BillingMode": "PAY_PER_REQUEST",
            }),
        ];
        for table in tables {
            db.create_table(serde_json::from_value(table).unwrap())
                .unwrap();
        }
        DynoxideSide {
            db,
            versions: vec![0; USERS],
        }
    }

    /// One PutItem without a condition.
    pub fn put(&self, table: &str, item: Item) {
        self.db
            .put_item(PutItemRequest {
                table_name: table.to_string(),
                item,
                ..Default::default()
            })
            .unwrap();
    }

    fn get(&self, key: HashMap<String, AttributeValue>) -> Option<Row> {
        let out = self
            .db
            .get_item(GetItemRequest {
                table_name: "bench".to_string(),
                key,
                consistent_read: Some(true),
                ..Default::default()
            })
            .unwrap();
        out.item.as_ref().map(ToRow::to_row)
    }

    /// The items GSI2 holds for order `i`'s email.
    fn orders_by_email(&self, i: usize) -> Vec<Row> {
        let out = self
            .db
            .query(QueryRequest {
                table_name: "orders".to_string(),
                index_name: Some("GSI2".to_string()),
                key_condition_expression: Some("GSI2PK = :e".to_string()),
                expression_attribute_values: values(":e", s(order_email(i))),
                scan_index_forward: true,
                ..Default::default()
            })
            .unwrap();
        out.items
            .unwrap_or_default()
            .iter()
            .map(ToRow::to_row)
            .collect()
    }
}

impl Side for DynoxideSide {
    fn load() -> DynoxideSide {
        let side = DynoxideSide::empty();
        data_set(|table, item| side.put(table, item));
        side
    }

    fn op(&mut self, w: Workload, i: usize, probe: bool) -> Option<Seen> {
        let seen = match w {
            Workload::Get => {
                let out = self
                    .db
                    .get_item(GetItemRequest {
                        table_name: "bench".to_string(),
                        key: key(user_pk(i % USERS), PROFILE),
                        consistent_read: Some(true),
                        ..Default::default()
                    })
                    .unwrap();
                probe.then(|| Seen::one(out.item.as_ref().map(ToRow::to_row)))
            }
            Workload::ConditionalPut => {
                let k = i % USERS;
                let v = self.versions[k];
                self.db
                    .put_item(PutItemRequest {
                        table_name: "bench".to_string(),
                        item: user(k, v + 1),
                        condition_expression: Some("version = :v".to_string()),
                        expression_attribute_values: values(":v", n(v)),
                        ..Default::default()
                    })
                    .unwrap();
                self.versions[k] = v + 1;
                probe.then(|| Seen::one(self.get(key(user_pk(k), PROFILE))))
            }
            Workload::Update => {
                let k = i % USERS;
                self.db
                    .update_item(UpdateItemRequest {
                        table_name: "bench".to_string(),
                        key: key(user_pk(k), PROFILE),
                        update_expression: Some("SET n = n + :one".to_string()),
                        expression_attribute_values: values(":one", n(1)),
                        ..Default::default()
                    })
                    .unwrap();
                probe.then(|| Seen::one(self.get(key(user_pk(k), PROFILE))))
            }
            Workload::Query => {
                let out = self
                    .db
                    .query(QueryRequest {
                        table_name: "bench".to_string(),
                        key_condition_expression: Some("PK = :pk".to_string()),
                        expression_attribute_values: values(":pk", s(feed_pk(i % FEEDS))),
                        scan_index_forward: true,
                        consistent_read: Some(true),
                        ..Default::default()
                    })
                    .unwrap();
                probe.then(|| {
                    let items = out.items.iter().flatten().map(ToRow::to_row).collect();
                    Seen::items(out.count, out.scanned_count, items)
                })
            }
            Workload::BatchWrite => {
                let writes = (0..BATCH_WRITES)
                    .map(|j| WriteRequest {
                        put_request: Some(PutRequest {
                            item: batch_item(i, j),
                        }),
                        delete_request: None,
                    })
                    .collect();
                let out = self
                    .db
                    .batch_write_item(BatchWriteItemRequest {
                        request_items: HashMap::from([("bench".to_string(), writes)]),
                        ..Default::default()
                    })
                    .unwrap();
                assert!(out.unprocessed_items.is_empty(), "the peer left writes");
                probe.then(|| Seen::one(self.get(key(batch_pk(i, BATCH_WRITES - 1), "ITEM"))))
            }
            Workload::Scan => {
                let out = self
                    .db
                    .scan(ScanRequest {
                        table_name: "scan".to_string(),
                        filter_expression: Some("category = :c".to_string()),
                        expression_attribute_values: values(":c", n((i % CATEGORIES) as i64)),
                        ..Default::default()
                    })
                    .unwrap();
                assert!(out.last_evaluated_key.is_none(), "one page");
                probe.then(|| {
                    let items = out.items.iter().flatten().map(ToRow::to_row).collect();
                    Seen::items(out.count, out.scanned_count, sorted(items))
                })
            }
            Workload::PutWithGsis => {
                self.put("orders", order(i));
                probe.then(|| {
                    let rows = self.orders_by_email(i);
                    Seen::items(rows.len(), rows.len(), rows)
                })
            }
        };
        black_box(seen)
    }
}
