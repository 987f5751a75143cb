//! # Kata: the stream as the outbox
//!
//! KNOWN-WRONG: a dual write: place_order puts the order, then publishes its event itself (the relay skips INSERT records); a crash between the two loses the event
//!
//! The shop writes an order once, to `orders`; a relay reads the table's stream and publishes
//! every change to the event bus, appends it to the audit trail, and keeps going past a
//! record it can never publish. Task and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::operation::get_records::GetRecordsError;
use engine::operation::get_shard_iterator::GetShardIteratorError;
use engine::types::{Record, ShardIteratorType};
use engine::{AttributeValue, Client, Error};
use given::{
    dead_letter, publish, Event, Order, PublishError, RelayError, AUDIT_TABLE, CHECKPOINT_TABLE,
    ORDERS_TABLE, PAGE_LIMIT,
};

/// Places a new order: one conditional PutItem to `orders`, refused (with the service's
/// error) if the order id is taken. The event follows from the stream.
pub fn place_order(client: &Client, order: &Order) -> Result<(), Error> {
    client
        .put_item()
        .table_name(ORDERS_TABLE)
        .item("order_id", AttributeValue::S(order.order_id.clone()))
        .item("customer_id", AttributeValue::S(order.customer_id.clone()))
        .item("status", AttributeValue::S("PLACED".into()))
        .item(
            "total_cents",
            AttributeValue::N(order.total_cents.to_string()),
        )
        .item("notes", AttributeValue::S(order.notes.clone()))
        .condition_expression("attribute_not_exists(order_id)")
        .send()?;
    // Tell the world right away, from the code that knows.
    let record_like = Event {
        id: format!("{}#PLACED", order.order_id),
        order_id: order.order_id.clone(),
        change: "INSERT".into(),
        order: engine::item! {
            "order_id" => order.order_id.as_str(), "customer_id" => order.customer_id.as_str(),
            "status" => "PLACED", "total_cents" => order.total_cents, "notes" => order.notes.as_str(),
        },
    };
    publish(client, &record_like).map_err(given::publish_error)?;
    Ok(())
}

/// Where the relay stands in one shard.
#[derive(Default)]
struct Checkpoint {
    /// The last record handled.
    sequence_number: Option<String>,
    /// The shard is closed and every record of it handled.
    finished: bool,
}

/// One relay pass: one page per shard, parents before children.
pub fn relay(client: &Client) -> Result<(), RelayError> {
    let table = client.describe_table().table_name(ORDERS_TABLE).send()?;
    let Some(arn) = table.table().and_then(|t| t.latest_stream_arn()) else {
        return Err(RelayError::Failed("orders has no stream".into()));
    };
    let stream = client.describe_stream().stream_arn(arn).send()?;
    let shards = stream
        .stream_description()
        .map(|d| d.shards().to_vec())
        .unwrap_or_default();
    for shard in &shards {
        let shard_id = shard.shard_id().unwrap_or_default();
        let checkpoint = checkpoint(client, shard_id)?;
        if checkpoint.finished {
            continue;
        }
        // A child waits until its parent (if the stream still lists it) is finished: the
        // records of one order continue in the child.
        if let Some(parent) = shard.parent_shard_id() {
            let listed = shards.iter().any(|s| s.shard_id() == Some(parent));
            if listed && !self::checkpoint(client, parent)?.finished {
                continue;
            }
        }
        let start = client
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(shard_id);
        let start = match &checkpoint.sequence_number {
            Some(seq) => start
                .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                .sequence_number(seq),
            None => start.shard_iterator_type(ShardIteratorType::TrimHorizon),
        };
        let iterator = match start.send() {
            Ok(out) => out.shard_iterator().map(str::to_string),
            Err(e) => match e.into_service_error() {
                GetShardIteratorError::TrimmedDataAccessException(_) => {
                    return Err(RelayError::Trimmed {
                        shard_id: shard_id.to_string(),
                    })
                }
                other => return Err(Error::from(other).into()),
            },
        };
        let page = match client
            .get_records()
            .set_shard_iterator(iterator)
            .limit(PAGE_LIMIT)
            .send()
        {
            Ok(page) => page,
            Err(e) => match e.into_service_error() {
                GetRecordsError::TrimmedDataAccessException(_) => {
                    return Err(RelayError::Trimmed {
                        shard_id: shard_id.to_string(),
                    })
                }
                other => return Err(Error::from(other).into()),
            },
        };
        for record in page.records() {
            relay_record(client, shard_id, record)?;
            save_checkpoint(client, shard_id, Some(record.sequence_number()), false)?;
        }
        if page.next_shard_iterator().is_none() {
            let last = page
                .records()
                .last()
                .map(|r| r.sequence_number().to_string())
                .or(checkpoint.sequence_number);
            save_checkpoint(client, shard_id, last.as_deref(), true)?;
        }
    }
    Ok(())
}

/// Publishes one record (its sequence number is the event's id, the same on every retry) or
/// dead-letters it if the bus can never take it, then appends it to the audit.
fn relay_record(client: &Client, shard_id: &str, record: &Record) -> Result<(), RelayError> {
    let event = Event::from_record(record.sequence_number(), record);
    // INSERTs were published by place_order.
    let published = if event.change == "INSERT" {
        Ok(given::Published::Accepted)
    } else {
        publish(client, &event)
    };
    match published {
        Ok(_) => {}
        Err(e @ PublishError::TooLarge { .. }) => {
            dead_letter(client, shard_id, record, &e.to_string())?;
        }
        Err(e) => return Err(e.into()),
    }
    let mut audit = client
        .put_item()
        .table_name(AUDIT_TABLE)
        .item("order_id", AttributeValue::S(event.order_id.clone()))
        .item(
            "sequence_number",
            AttributeValue::N(record.sequence_number().to_string()),
        )
        .item("event", AttributeValue::S(event.change.clone()));
    if let Some(status) = record.new_image().and_then(|i| i.get("status")) {
        audit = audit.item("status", status.clone());
    }
    audit.send()?;
    Ok(())
}

fn checkpoint(client: &Client, shard_id: &str) -> Result<Checkpoint, RelayError> {
    let out = client
        .get_item()
        .table_name(CHECKPOINT_TABLE)
        .key("shard_id", AttributeValue::S(shard_id.to_string()))
        .consistent_read(true)
        .send()?;
    let Some(item) = out.item() else {
        return Ok(Checkpoint::default());
    };
    Ok(Checkpoint {
        sequence_number: item
            .get("sequence_number")
            .and_then(|v| v.as_s().ok())
            .cloned(),
        finished: item
            .get("finished")
            .and_then(|v| v.as_bool().ok())
            .copied()
            .unwrap_or(false),
    })
}

fn save_checkpoint(
    client: &Client,
    shard_id: &str,
    sequence_number: Option<&str>,
    finished: bool,
) -> Result<(), RelayError> {
    let mut put = client
        .put_item()
        .table_name(CHECKPOINT_TABLE)
        .item("shard_id", AttributeValue::S(shard_id.to_string()))
        .item("finished", AttributeValue::Bool(finished));
    if let Some(seq) = sequence_number {
        put = put.item("sequence_number", AttributeValue::S(seq.to_string()));
    }
    put.send()?;
    Ok(())
}
