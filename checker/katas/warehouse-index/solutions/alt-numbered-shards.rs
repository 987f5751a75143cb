//! # Kata: warehouse index — an alternative: numbered shards, a composite sort key
//!
//! Another route to the same index: generic key attributes `GSI1PK` / `GSI1SK`, both present
//! only while an order awaits shipment (REMOVEd together when it ships); the shard is the
//! order's number modulo 32 (`AWAITING#07`), the sort key `<placedAt>#<id>`, so each shard's
//! Query is already in the screen's order and the shards are merged by that key. The index
//! projects INCLUDE `placedAt`, `zone`, `lines`; the wait backs off from 250 ms to 4 s; each
//! Query reads pages of 100 entries.

use std::collections::HashMap;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, AttributeValue, CreateGlobalSecondaryIndexAction,
    GlobalSecondaryIndexUpdate, IndexStatus, KeySchemaElement, KeyType, Projection, ProjectionType,
    ProvisionedThroughput, ScalarAttributeType,
};
use engine::{Client, Error};
use given::{bad_item, Order, Pick, INDEX, TABLE, TABLE_WCU};

const SHARDS: u64 = 32;

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn shard_of(order_id: &str) -> Result<String, Error> {
    let n: u64 = order_id
        .trim_start_matches("o-")
        .parse()
        .map_err(|_| bad_item(format!("order id {order_id} is not o-<number>")))?;
    Ok(format!("AWAITING#{:02}", n % SHARDS))
}

pub fn place_order(client: &Client, order: &Order) -> Result<(), Error> {
    let mut item = HashMap::new();
    item.insert("PK".to_string(), s(format!("ORDER#{}", order.id)));
    item.insert("status".to_string(), s("AWAITING"));
    item.insert("placedAt".to_string(), s(&order.placed_at));
    item.insert("zone".to_string(), s(&order.zone));
    item.insert("lines".to_string(), s(&order.lines));
    item.insert("customer".to_string(), s(&order.customer));
    item.insert("address".to_string(), s(&order.address));
    item.insert("invoice".to_string(), s(&order.invoice));
    item.insert("GSI1PK".to_string(), s(shard_of(&order.id)?));
    item.insert(
        "GSI1SK".to_string(),
        s(format!("{}#{}", order.placed_at, order.id)),
    );
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item))
        .send()?;
    Ok(())
}

pub fn ship_order(client: &Client, order_id: &str) -> Result<(), Error> {
    client
        .update_item()
        .table_name(TABLE)
        .key("PK", s(format!("ORDER#{order_id}")))
        .update_expression("SET #st = :shipped REMOVE GSI1PK, GSI1SK")
        .condition_expression("attribute_exists(PK)")
        .expression_attribute_names("#st", "status")
        .expression_attribute_values(":shipped", s("SHIPPED"))
        .send()?;
    Ok(())
}

fn key_element(name: &str, key_type: KeyType) -> Result<KeySchemaElement, Error> {
    Ok(KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(key_type)
        .build()?)
}

fn string_attribute(name: &str) -> Result<AttributeDefinition, Error> {
    Ok(AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()?)
}

pub fn add_awaiting_index(client: &Client) -> Result<(), Error> {
    let projection = Projection::builder()
        .projection_type(ProjectionType::Include)
        .set_non_key_attributes(Some(vec![
            "placedAt".to_string(),
            "zone".to_string(),
            "lines".to_string(),
        ]))
        .build();
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name(INDEX)
        .key_schema(key_element("GSI1PK", KeyType::Hash)?)
        .key_schema(key_element("GSI1SK", KeyType::Range)?)
        .projection(projection)
        .provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(500)
                .write_capacity_units(TABLE_WCU)
                .build()?,
        )
        .build()?;
    client
        .update_table()
        .table_name(TABLE)
        .attribute_definitions(string_attribute("GSI1PK")?)
        .attribute_definitions(string_attribute("GSI1SK")?)
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder().create(create).build(),
        )
        .send()?;
    let mut wait = Duration::from_millis(250);
    loop {
        client.world().advance(wait);
        let described = client.describe_table().table_name(TABLE).send()?;
        let status = described
            .table()
            .and_then(|t| {
                t.global_secondary_indexes()
                    .iter()
                    .find(|i| i.index_name() == Some(INDEX))
            })
            .and_then(|i| i.index_status().cloned());
        match status {
            Some(IndexStatus::Active) => return Ok(()),
            Some(_) => wait = (wait * 2).min(Duration::from_secs(4)),
            None => return Err(bad_item(format!("{TABLE} has no index {INDEX}"))),
        }
    }
}

fn field(item: &HashMap<String, AttributeValue>, name: &str) -> Result<String, Error> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .ok_or_else(|| bad_item(format!("an entry has no string {name}")))
}

fn to_pick(item: &HashMap<String, AttributeValue>) -> Result<(String, Pick), Error> {
    let pk = field(item, "PK")?;
    let pick = Pick {
        order_id: pk.trim_start_matches("ORDER#").to_string(),
        placed_at: field(item, "placedAt")?,
        zone: field(item, "zone")?,
        lines: field(item, "lines")?,
    };
    Ok((field(item, "GSI1SK")?, pick))
}

pub fn awaiting_shipment(client: &Client) -> Result<Vec<Pick>, Error> {
    let mut keyed = Vec::new();
    for n in 0..SHARDS {
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let out = client
                .query()
                .table_name(TABLE)
                .index_name(INDEX)
                .key_condition_expression("GSI1PK = :shard")
                .expression_attribute_values(":shard", s(format!("AWAITING#{n:02}")))
                .limit(100)
                .set_exclusive_start_key(start.take())
                .send()?;
            for item in out.items() {
                keyed.push(to_pick(item)?);
            }
            match out.last_evaluated_key() {
                Some(key) => start = Some(key.clone()),
                None => break,
            }
        }
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(keyed.into_iter().map(|(_, pick)| pick).collect())
}

pub fn pick(client: &Client, order_id: &str) -> Result<Option<Pick>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s(format!("ORDER#{order_id}")))
        .projection_expression("PK, #st, placedAt, #z, #l, GSI1SK")
        .expression_attribute_names("#st", "status")
        .expression_attribute_names("#z", "zone")
        .expression_attribute_names("#l", "lines")
        .consistent_read(true)
        .send()?;
    let Some(item) = out.item() else {
        return Ok(None);
    };
    if field(item, "status")? != "AWAITING" {
        return Ok(None);
    }
    Ok(Some(to_pick(item)?.1))
}
