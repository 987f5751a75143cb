//! # The given part of the kata: the stream as the outbox
//!
//! What the tests and your code share: the tables, the event bus, the dead-letter queue and
//! the types your functions take and return. It is not yours to change — the checker and
//! grading always build your `src/lib.rs` against this copy
//! (`checker/katas/change-feed-outbox/given/`). Your crate reaches it as `given`.
//!
//! ```text
//!  place_order ──PutItem──▶ orders ══stream══▶ relay ──publish──────▶ event bus (FIFO per order,
//!                                  (shards)      │                      drops a repeated id)
//!                                                ├──PutItem──────────▶ order_audit
//!                                                ├──dead_letter──────▶ relay_dead_letters
//!                                                └──PutItem──────────▶ relay_checkpoints
//! ```

use engine::error::SdkError;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ProvisionedThroughput, Record,
    ReturnValue, ScalarAttributeType, StreamSpecification, StreamViewType,
};
use engine::{AttributeValue, Client, Error, Item};

/// The orders table: partition key `order_id` (S); attributes `customer_id` (S), `status` (S,
/// one of [`STATUSES`]), `total_cents` (N) and `notes` (S, may be long). Its stream carries
/// `NEW_AND_OLD_IMAGES`.
pub const ORDERS_TABLE: &str = "orders";

/// The audit trail: partition key `order_id` (S), sort key `sequence_number` (N: the stream
/// record's sequence number, as a number). Each item also has `event` (S: `INSERT`, `MODIFY`
/// or `REMOVE`) and, unless the change is a `REMOVE`, `status` (S: the new status).
pub const AUDIT_TABLE: &str = "order_audit";

/// The relay's own table: partition key `shard_id` (S); the rest of its layout is yours.
pub const CHECKPOINT_TABLE: &str = "relay_checkpoints";

/// The dead-letter queue's table, written by [`dead_letter`] (partition key
/// `sequence_number`, S).
pub const DEAD_LETTER_TABLE: &str = "relay_dead_letters";

/// The event bus's table, written by [`publish`] (partition key `order_id`, sort key
/// `event_id`). Read the bus through [`publish`] only.
pub const BUS_TABLE: &str = "event_bus";

/// Records per GetRecords page: pass it as `limit` (one page per shard per relay pass).
pub const PAGE_LIMIT: i32 = 25;

/// The largest event the bus accepts: 256 KB, EventBridge's limit for one entry (a DynamoDB
/// item may be up to 400 KB).
pub const EVENT_SIZE_LIMIT: usize = 256 * 1024;

/// Every status an order can have.
pub const STATUSES: [&str; 4] = ["PLACED", "PAID", "SHIPPED", "CANCELLED"];

/// An order as the shop places it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub order_id: String,
    pub customer_id: String,
    pub total_cents: i64,
    /// Free text from the customer; may be long.
    pub notes: String,
}

/// One event on the bus: a change of one order.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The bus drops an event whose id it already holds for this order: the id must name
    /// the change, not the attempt to publish it.
    pub id: String,
    pub order_id: String,
    /// `INSERT`, `MODIFY` or `REMOVE`.
    pub change: String,
    /// The order after the change (before it, for a `REMOVE`).
    pub order: Item,
}

impl Event {
    /// The event of one stream record of `orders`, under the id `id`.
    pub fn from_record(id: impl Into<String>, record: &Record) -> Event {
        let order = record
            .new_image()
            .or(record.old_image())
            .cloned()
            .unwrap_or_default();
        let order_id = record
            .keys()
            .get("order_id")
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default();
        Event {
            id: id.into(),
            order_id,
            change: record.event_name().as_str().to_string(),
            order,
        }
    }

    /// The event's size: its order's.
    pub fn size(&self) -> usize {
        engine::item_size(&self.order)
    }
}

/// What [`publish`] did with an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Published {
    /// The event is on the bus.
    Accepted,
    /// The bus already held an event with this id for this order: this one was dropped.
    Duplicate,
}

/// Why [`publish`] did not take an event.
#[derive(Clone, Debug, PartialEq)]
pub enum PublishError {
    /// The event is larger than [`EVENT_SIZE_LIMIT`]: it will never be accepted (a retry
    /// cannot help).
    TooLarge { id: String, bytes: usize },
    /// The bus could not take it now (its storage failed or throttled): retry later.
    Unavailable(Error),
}

impl PublishError {
    /// Whether publishing the same event again later can succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, PublishError::Unavailable(_))
    }
}

impl std::fmt::Display for PublishError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PublishError::TooLarge { id, bytes } => write!(
                f,
                "event {id} is {bytes} bytes; the bus takes events of at most {EVENT_SIZE_LIMIT}"
            ),
            PublishError::Unavailable(e) => write!(f, "the bus is unavailable: {e}"),
        }
    }
}

impl std::error::Error for PublishError {}

/// Publishes `event` on the bus.
///
/// The bus is FIFO per order: its subscribers get the events of one order in the order they
/// were published. Its delivery to them is at least once, so it drops an event whose id it
/// already holds for the same order (like an SQS FIFO queue's deduplication id, remembered
/// here for ever): publishing the same change again under the same id is harmless,
/// publishing it under a new id is a second event.
///
/// Two requests to [`BUS_TABLE`]: an UpdateItem that takes the order's next position, then a
/// conditional PutItem of the event.
pub fn publish(client: &Client, event: &Event) -> Result<Published, PublishError> {
    let bytes = event.size();
    if bytes > EVENT_SIZE_LIMIT {
        return Err(PublishError::TooLarge {
            id: event.id.clone(),
            bytes,
        });
    }
    let unavailable = |e: Error| PublishError::Unavailable(e);
    let next = client
        .update_item()
        .table_name(BUS_TABLE)
        .key("order_id", AttributeValue::S(event.order_id.clone()))
        .key("event_id", AttributeValue::S(HEAD.into()))
        .update_expression("ADD next_position :one")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .return_values(ReturnValue::UpdatedNew)
        .send()
        .map_err(|e| unavailable(e.into()))?;
    let position = next
        .attributes()
        .and_then(|a| a.get("next_position"))
        .and_then(|v| v.as_n().ok())
        .cloned()
        .unwrap_or_else(|| "0".into());
    let put = client
        .put_item()
        .table_name(BUS_TABLE)
        .item("order_id", AttributeValue::S(event.order_id.clone()))
        .item("event_id", AttributeValue::S(event.id.clone()))
        .item("position", AttributeValue::N(position))
        .item("change", AttributeValue::S(event.change.clone()))
        .item("order", AttributeValue::M(event.order.clone()))
        .condition_expression("attribute_not_exists(event_id)")
        .send();
    match put {
        Ok(_) => Ok(Published::Accepted),
        Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
            Ok(Published::Duplicate)
        }
        Err(e) => Err(unavailable(e.into())),
    }
}

/// The bus's per-order position counter (an item of [`BUS_TABLE`], not an event).
pub const HEAD: &str = "#HEAD";

/// Sends a record the relay cannot publish to the dead-letter queue, with the reason; one
/// PutItem to [`DEAD_LETTER_TABLE`], keyed by the record's sequence number (sending the same
/// record again overwrites it).
pub fn dead_letter(
    client: &Client,
    shard_id: &str,
    record: &Record,
    reason: &str,
) -> Result<(), Error> {
    let order_id = record
        .keys()
        .get("order_id")
        .cloned()
        .unwrap_or(AttributeValue::Null(true));
    client
        .put_item()
        .table_name(DEAD_LETTER_TABLE)
        .item(
            "sequence_number",
            AttributeValue::S(record.sequence_number().to_string()),
        )
        .item("shard_id", AttributeValue::S(shard_id.to_string()))
        .item("order_id", order_id)
        .item(
            "event",
            AttributeValue::S(record.event_name().as_str().to_string()),
        )
        .item("reason", AttributeValue::S(reason.to_string()))
        .send()?;
    Ok(())
}

/// Why a relay pass stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum RelayError {
    /// The records after the relay's checkpoint in this shard are gone: the stream trimmed
    /// them (older than its 24 hours) before the relay read them — `TrimmedDataAccessException`.
    /// Those changes can no longer be published; someone must repair the bus from the table.
    Trimmed { shard_id: String },
    /// A request failed or the bus was unavailable: the pass stopped, the next one retries.
    Failed(String),
}

impl std::fmt::Display for RelayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RelayError::Trimmed { shard_id } => write!(
                f,
                "shard {shard_id}: records after the checkpoint were trimmed (TrimmedDataAccessException)"
            ),
            RelayError::Failed(why) => write!(f, "relay pass failed: {why}"),
        }
    }
}

impl std::error::Error for RelayError {}

impl From<Error> for RelayError {
    fn from(e: Error) -> Self {
        RelayError::Failed(e.to_string())
    }
}

impl<E> From<SdkError<E>> for RelayError
where
    SdkError<E>: Into<Error>,
{
    fn from(e: SdkError<E>) -> Self {
        RelayError::Failed(e.into().to_string())
    }
}

impl From<PublishError> for RelayError {
    fn from(e: PublishError) -> Self {
        RelayError::Failed(e.to_string())
    }
}

/// Creates the kata's tables (the tests call it; so may you, in a test of your own):
/// `orders` with its stream, the bus, the audit, the checkpoints and the dead letters.
pub fn create_tables(client: &Client) -> Result<(), Error> {
    let attribute = |name: &str, kind: ScalarAttributeType| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(kind)
            .build()
            .expect("name and type are set")
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .expect("name and key type are set")
    };
    let capacity = ProvisionedThroughput::builder()
        .read_capacity_units(1_000)
        .write_capacity_units(1_000)
        .build()
        .expect("both units are set");
    let stream = StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::NewAndOldImages)
        .build()
        .expect("enabled is set");
    client
        .create_table()
        .table_name(ORDERS_TABLE)
        .attribute_definitions(attribute("order_id", ScalarAttributeType::S))
        .key_schema(key("order_id", KeyType::Hash))
        .provisioned_throughput(capacity.clone())
        .stream_specification(stream)
        .send()?;
    client
        .create_table()
        .table_name(BUS_TABLE)
        .attribute_definitions(attribute("order_id", ScalarAttributeType::S))
        .attribute_definitions(attribute("event_id", ScalarAttributeType::S))
        .key_schema(key("order_id", KeyType::Hash))
        .key_schema(key("event_id", KeyType::Range))
        .provisioned_throughput(capacity)
        .send()?;
    client
        .create_table()
        .table_name(AUDIT_TABLE)
        .attribute_definitions(attribute("order_id", ScalarAttributeType::S))
        .attribute_definitions(attribute("sequence_number", ScalarAttributeType::N))
        .key_schema(key("order_id", KeyType::Hash))
        .key_schema(key("sequence_number", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()?;
    for (table, pk) in [
        (CHECKPOINT_TABLE, "shard_id"),
        (DEAD_LETTER_TABLE, "sequence_number"),
    ] {
        client
            .create_table()
            .table_name(table)
            .attribute_definitions(attribute(pk, ScalarAttributeType::S))
            .key_schema(key(pk, KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()?;
    }
    Ok(())
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/change-feed-outbox/README.md)"
    ))
}

/// A publish failure as an engine error, for code whose own error type is the engine's (not
/// part of the SDK, whose `Error` has no public constructor: a `ValidationException` built by
/// the engine, carrying the failure's text).
pub fn publish_error(e: PublishError) -> Error {
    Error::validation(e.to_string())
}
