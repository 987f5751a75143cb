//! Known-wrong: ship_order's UpdateItem has no condition: shipping an order that does not
//! exist creates an item holding only its key and status = SHIPPED, and returns Ok.

use std::collections::HashMap;
use std::time::Duration;

use engine::types::{
    AttributeDefinition, AttributeValue, CreateGlobalSecondaryIndexAction,
    GlobalSecondaryIndexUpdate, IndexStatus, KeySchemaElement, KeyType, Projection, ProjectionType,
    ProvisionedThroughput, ScalarAttributeType,
};
use engine::{Client, Error};
use given::{bad_item, Order, Pick, INDEX, TABLE, TABLE_WCU};

/// Shard values of the index's partition key: `AWAITING#0` … `AWAITING#19`.
const SHARDS: u32 = 20;
/// The index's partition key attribute: present on awaiting orders only.
const SHARD_ATTRIBUTE: &str = "awaitingShard";
/// How long to sleep between two DescribeTable calls while the index is built.
const POLL: Duration = Duration::from_millis(500);

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn key(order_id: &str) -> AttributeValue {
    s(format!("ORDER#{order_id}"))
}

/// The shard of an order: a stable hash of its id (FNV-1a), so every writer agrees.
fn shard(order_id: &str) -> u32 {
    let hash = order_id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % u64::from(SHARDS)) as u32
}

fn shard_value(shard: u32) -> String {
    format!("AWAITING#{shard}")
}

/// Stores a new order, awaiting shipment: one PutItem, with the index key.
pub fn place_order(client: &Client, order: &Order) -> Result<(), Error> {
    client
        .put_item()
        .table_name(TABLE)
        .item("PK", key(&order.id))
        .item("status", s("AWAITING"))
        .item("placedAt", s(&order.placed_at))
        .item("zone", s(&order.zone))
        .item("lines", s(&order.lines))
        .item("customer", s(&order.customer))
        .item("address", s(&order.address))
        .item("invoice", s(&order.invoice))
        .item(SHARD_ATTRIBUTE, s(shard_value(shard(&order.id))))
        .send()?;
    Ok(())
}

/// Marks an order shipped and takes it out of the index (REMOVE its index key); an order
/// that does not exist is not created.
pub fn ship_order(client: &Client, order_id: &str) -> Result<(), Error> {
    client
        .update_item()
        .table_name(TABLE)
        .key("PK", key(order_id))
        .update_expression("SET #status = :shipped REMOVE #shard")
        .expression_attribute_names("#status", "status")
        .expression_attribute_names("#shard", SHARD_ATTRIBUTE)
        .expression_attribute_values(":shipped", s("SHIPPED"))
        .send()?;
    Ok(())
}

/// Adds the index to the live table and waits, on the simulated clock, until it is ACTIVE.
pub fn add_awaiting_index(client: &Client) -> Result<(), Error> {
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name(INDEX)
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name(SHARD_ATTRIBUTE)
                .key_type(KeyType::Hash)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("placedAt")
                .key_type(KeyType::Range)
                .build()?,
        )
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::Include)
                .non_key_attributes("zone")
                .non_key_attributes("lines")
                .build(),
        )
        .provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(1_000)
                .write_capacity_units(TABLE_WCU)
                .build()?,
        )
        .build()?;
    client
        .update_table()
        .table_name(TABLE)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(SHARD_ATTRIBUTE)
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("placedAt")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder().create(create).build(),
        )
        .send()?;
    loop {
        let out = client.describe_table().table_name(TABLE).send()?;
        let active = out.table().is_some_and(|t| {
            t.global_secondary_indexes().iter().any(|i| {
                i.index_name() == Some(INDEX) && i.index_status() == Some(&IndexStatus::Active)
            })
        });
        if active {
            return Ok(());
        }
        client.world().advance(POLL);
    }
}

fn text<'a>(item: &'a HashMap<String, AttributeValue>, name: &str) -> Result<&'a str, Error> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v),
        _ => Err(bad_item(format!("an order has no string {name}"))),
    }
}

fn pick_of(item: &HashMap<String, AttributeValue>) -> Result<Pick, Error> {
    let pk = text(item, "PK")?;
    let order_id = pk
        .strip_prefix("ORDER#")
        .ok_or_else(|| bad_item(format!("{pk} is not ORDER#<id>")))?;
    Ok(Pick {
        order_id: order_id.to_string(),
        placed_at: text(item, "placedAt")?.to_string(),
        zone: text(item, "zone")?.to_string(),
        lines: text(item, "lines")?.to_string(),
    })
}

/// Every order awaiting shipment, oldest first: one Query per shard of the index (each
/// followed page by page), merged by time.
pub fn awaiting_shipment(client: &Client) -> Result<Vec<Pick>, Error> {
    let mut picks = Vec::new();
    for shard in 0..SHARDS {
        let mut start = None;
        loop {
            let page = client
                .query()
                .table_name(TABLE)
                .index_name(INDEX)
                .key_condition_expression("#shard = :shard")
                .expression_attribute_names("#shard", SHARD_ATTRIBUTE)
                .expression_attribute_values(":shard", s(shard_value(shard)))
                .set_exclusive_start_key(start)
                .send()?;
            for item in page.items() {
                picks.push(pick_of(item)?);
            }
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                break;
            }
        }
    }
    picks.sort_by(|a, b| (&a.placed_at, &a.order_id).cmp(&(&b.placed_at, &b.order_id)));
    Ok(picks)
}

/// The pick of one order if it awaits shipment, read from the table by key, strongly
/// consistent: right after place_order or ship_order, the index may not have the change yet.
pub fn pick(client: &Client, order_id: &str) -> Result<Option<Pick>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", key(order_id))
        .consistent_read(true)
        .send()?;
    match out.item() {
        Some(item) if text(item, "status")? == "AWAITING" => Ok(Some(pick_of(item)?)),
        _ => Ok(None),
    }
}
