//! # Request and response shapes
//!
//! The plain data types of DynamoDB's API, named as in `aws-sdk-dynamodb::types` so that code
//! written against this engine reads like production code: `KeySchemaElement`,
//! `AttributeDefinition`, `ReturnValue::AllNew`, `ConsumedCapacity`, `TableDescription`…
//!
//! Every shape has the SDK's fields, with the SDK's `Option`-ness. Every shape a request
//! carries is built the SDK's way (`KeySchemaElement::builder()…build()?`, [`builders`]),
//! fallible exactly where the SDK's builder is. Some of them also carry a shortcut that is
//! not part of the SDK (`KeySchemaElement::new("PK", KeyType::Hash)`, `Projection::all()`),
//! marked so in its doc; code meant to move to the SDK uses the builders. The shapes only
//! responses carry (`TableDescription`, `ConsumedCapacity`, `Capacity`, `BillingModeSummary`,
//! the throughput, index and replica descriptions) are read, not built: they have no builders here, though the SDK's
//! have them (for mocking responses).
//!
//! Enums convert to and from DynamoDB's wire strings (`as_str`, `FromStr`) so messages can
//! quote them exactly.

use std::collections::HashMap;
use std::fmt;

use crate::value::Item;

pub mod builders;

pub use crate::error::{CancellationReason, ThrottlingReason};

/// The exception shapes the operations' errors carry, as `aws_sdk_dynamodb::types::error`.
pub mod error {
    pub use crate::error::exceptions::*;
}
pub use crate::value::AttributeValue;

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// The value as DynamoDB spells it on the wire.
            pub fn as_str(&self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }
            /// Every value, in the order DynamoDB documents them.
            pub fn values() -> &'static [&'static str] {
                &[$($wire),+]
            }
        }

        impl std::str::FromStr for $name {
            type Err = crate::error::Exception;
            fn from_str(s: &str) -> crate::error::Result<Self> {
                match s {
                    $($wire => Ok($name::$variant),)+
                    other => Err(crate::error::Exception::validation(format!(
                        "1 validation error detected: Value '{}' failed to satisfy constraint: Member must satisfy enum value set: [{}]",
                        other,
                        $name::values().join(", ")
                    ))),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

wire_enum!(
    /// The type of a key attribute: only scalars can be keys.
    ScalarAttributeType { S => "S", N => "N", B => "B" }
);
wire_enum!(
    /// `HASH` is the partition key, `RANGE` the sort key.
    KeyType { Hash => "HASH", Range => "RANGE" }
);
wire_enum!(
    /// The state of one replica of a global table (DescribeTable's `Replicas`).
    ReplicaStatus {
        Creating => "CREATING",
        CreationFailed => "CREATION_FAILED",
        Updating => "UPDATING",
        Deleting => "DELETING",
        Active => "ACTIVE",
        RegionDisabled => "REGION_DISABLED",
        InaccessibleEncryptionCredentials => "INACCESSIBLE_ENCRYPTION_CREDENTIALS",
    }
);
wire_enum!(
    /// A global table's consistency mode: `EVENTUAL` (MREC, the default and the only one the
    /// engine models) or `STRONG` (MRSC; see [`crate::global`]).
    MultiRegionConsistency { Eventual => "EVENTUAL", Strong => "STRONG" }
);
wire_enum!(
    /// How a table pays for throughput.
    BillingMode { Provisioned => "PROVISIONED", PayPerRequest => "PAY_PER_REQUEST" }
);
wire_enum!(
    /// What a write returns in `Attributes`.
    ReturnValue {
        None => "NONE",
        AllOld => "ALL_OLD",
        UpdatedOld => "UPDATED_OLD",
        AllNew => "ALL_NEW",
        UpdatedNew => "UPDATED_NEW",
    }
);
wire_enum!(
    /// Whether a failed condition carries the current item.
    ReturnValuesOnConditionCheckFailure { AllOld => "ALL_OLD", None => "NONE" }
);
wire_enum!(
    /// Whether a write reports the size of the item collection it changed.
    ReturnItemCollectionMetrics { Size => "SIZE", None => "NONE" }
);
wire_enum!(
    /// Why one statement of a PartiQL batch failed (`BatchStatementError`'s code).
    BatchStatementErrorCodeEnum {
        ConditionalCheckFailed => "ConditionalCheckFailed",
        ItemCollectionSizeLimitExceeded => "ItemCollectionSizeLimitExceeded",
        RequestLimitExceeded => "RequestLimitExceeded",
        ValidationError => "ValidationError",
        ProvisionedThroughputExceeded => "ProvisionedThroughputExceeded",
        TransactionConflict => "TransactionConflict",
        ThrottlingError => "ThrottlingError",
        InternalServerError => "InternalServerError",
        ResourceNotFound => "ResourceNotFound",
        AccessDenied => "AccessDenied",
        DuplicateItem => "DuplicateItem",
    }
);
wire_enum!(
    /// Whether the response reports the capacity the request consumed.
    ReturnConsumedCapacity { Indexes => "INDEXES", Total => "TOTAL", None => "NONE" }
);
wire_enum!(
    /// What a Query or Scan returns.
    Select {
        AllAttributes => "ALL_ATTRIBUTES",
        AllProjectedAttributes => "ALL_PROJECTED_ATTRIBUTES",
        SpecificAttributes => "SPECIFIC_ATTRIBUTES",
        Count => "COUNT",
    }
);
wire_enum!(
    /// Which attributes an index copies from the table.
    ProjectionType { KeysOnly => "KEYS_ONLY", Include => "INCLUDE", All => "ALL" }
);
wire_enum!(
    /// What a stream record carries.
    StreamViewType {
        KeysOnly => "KEYS_ONLY",
        NewImage => "NEW_IMAGE",
        OldImage => "OLD_IMAGE",
        NewAndOldImages => "NEW_AND_OLD_IMAGES",
    }
);
wire_enum!(
    /// The lifecycle of a table.
    TableStatus { Creating => "CREATING", Updating => "UPDATING", Deleting => "DELETING", Active => "ACTIVE" }
);
wire_enum!(
    /// The lifecycle of a stream (the streams API's `StreamStatus`).
    StreamStatus { Enabling => "ENABLING", Enabled => "ENABLED", Disabling => "DISABLING", Disabled => "DISABLED" }
);
wire_enum!(
    /// The lifecycle of a secondary index.
    IndexStatus { Creating => "CREATING", Updating => "UPDATING", Deleting => "DELETING", Active => "ACTIVE" }
);

mod legacy;
mod metrics;
mod settings;
pub use legacy::{
    AttributeAction, AttributeValueUpdate, ComparisonOperator, Condition, ConditionalOperator,
    ExpectedAttributeValue,
};
pub use metrics::ItemCollectionMetrics;
pub use settings::{
    ContinuousBackupsDescription, ContinuousBackupsStatus, Endpoint,
    PointInTimeRecoveryDescription, PointInTimeRecoverySpecification, PointInTimeRecoveryStatus,
    SseDescription, SseSpecification, SseStatus, SseType,
};

/// One attribute of the key schema, with its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeDefinition {
    pub attribute_name: String,
    pub attribute_type: ScalarAttributeType,
}

impl AttributeDefinition {
    /// Not part of the SDK: a shortcut for
    /// `AttributeDefinition::builder().attribute_name(..).attribute_type(..).build()?`.
    pub fn new(name: impl Into<String>, attribute_type: ScalarAttributeType) -> Self {
        AttributeDefinition {
            attribute_name: name.into(),
            attribute_type,
        }
    }
    pub fn attribute_name(&self) -> &str {
        &self.attribute_name
    }
    pub fn attribute_type(&self) -> &ScalarAttributeType {
        &self.attribute_type
    }
}

/// One element of a key schema: the partition (`HASH`) or sort (`RANGE`) key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySchemaElement {
    pub attribute_name: String,
    pub key_type: KeyType,
}

impl KeySchemaElement {
    /// Not part of the SDK: a shortcut for
    /// `KeySchemaElement::builder().attribute_name(..).key_type(..).build()?`.
    pub fn new(name: impl Into<String>, key_type: KeyType) -> Self {
        KeySchemaElement {
            attribute_name: name.into(),
            key_type,
        }
    }
    pub fn attribute_name(&self) -> &str {
        &self.attribute_name
    }
    pub fn key_type(&self) -> &KeyType {
        &self.key_type
    }
}

/// Provisioned read and write capacity units per second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvisionedThroughput {
    pub read_capacity_units: i64,
    pub write_capacity_units: i64,
}

impl ProvisionedThroughput {
    /// Not part of the SDK: a shortcut for the builder with both figures.
    pub fn new(read_capacity_units: i64, write_capacity_units: i64) -> Self {
        ProvisionedThroughput {
            read_capacity_units,
            write_capacity_units,
        }
    }
    pub fn read_capacity_units(&self) -> i64 {
        self.read_capacity_units
    }
    pub fn write_capacity_units(&self) -> i64 {
        self.write_capacity_units
    }
}

/// Which attributes an index holds. Both fields are optional in the SDK's shape; an index
/// declared without a projection type is refused by CreateTable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Projection {
    pub projection_type: Option<ProjectionType>,
    /// For `INCLUDE`: the non-key attributes copied into the index.
    pub non_key_attributes: Option<Vec<String>>,
}

impl Projection {
    /// Not part of the SDK: `ALL`.
    pub fn all() -> Self {
        Projection {
            projection_type: Some(ProjectionType::All),
            non_key_attributes: None,
        }
    }
    /// Not part of the SDK: `KEYS_ONLY`.
    pub fn keys_only() -> Self {
        Projection {
            projection_type: Some(ProjectionType::KeysOnly),
            non_key_attributes: None,
        }
    }
    /// Not part of the SDK: `INCLUDE` with these attributes.
    pub fn include<S: Into<String>>(attributes: impl IntoIterator<Item = S>) -> Self {
        Projection {
            projection_type: Some(ProjectionType::Include),
            non_key_attributes: Some(attributes.into_iter().map(Into::into).collect()),
        }
    }
    pub fn projection_type(&self) -> Option<&ProjectionType> {
        self.projection_type.as_ref()
    }
    /// The included attributes (empty unless `INCLUDE`).
    pub fn non_key_attributes(&self) -> &[String] {
        self.non_key_attributes.as_deref().unwrap_or_default()
    }
}

/// A global secondary index declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSecondaryIndex {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    /// Required by DynamoDB (CreateTable refuses an index without one), optional in the
    /// SDK's shape.
    pub projection: Option<Projection>,
    pub provisioned_throughput: Option<ProvisionedThroughput>,
}

impl GlobalSecondaryIndex {
    /// Not part of the SDK: a shortcut for the builder with name, key schema and projection.
    pub fn new(
        name: impl Into<String>,
        key_schema: Vec<KeySchemaElement>,
        projection: Projection,
    ) -> Self {
        GlobalSecondaryIndex {
            index_name: name.into(),
            key_schema,
            projection: Some(projection),
            provisioned_throughput: None,
        }
    }
    /// Not part of the SDK: this index with its own provisioned throughput.
    pub fn with_provisioned_throughput(mut self, throughput: ProvisionedThroughput) -> Self {
        self.provisioned_throughput = Some(throughput);
        self
    }
    pub fn index_name(&self) -> &str {
        &self.index_name
    }
    pub fn key_schema(&self) -> &[KeySchemaElement] {
        &self.key_schema
    }
    pub fn projection(&self) -> Option<&Projection> {
        self.projection.as_ref()
    }
    pub fn provisioned_throughput(&self) -> Option<&ProvisionedThroughput> {
        self.provisioned_throughput.as_ref()
    }
}

/// A local secondary index declaration (same partition key, another sort key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalSecondaryIndex {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    pub projection: Option<Projection>,
}

impl LocalSecondaryIndex {
    /// Not part of the SDK: a shortcut for the builder with name, key schema and projection.
    pub fn new(
        name: impl Into<String>,
        key_schema: Vec<KeySchemaElement>,
        projection: Projection,
    ) -> Self {
        LocalSecondaryIndex {
            index_name: name.into(),
            key_schema,
            projection: Some(projection),
        }
    }
    pub fn index_name(&self) -> &str {
        &self.index_name
    }
    pub fn key_schema(&self) -> &[KeySchemaElement] {
        &self.key_schema
    }
    pub fn projection(&self) -> Option<&Projection> {
        self.projection.as_ref()
    }
}

/// Whether a table has a stream, and what its records carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamSpecification {
    pub stream_enabled: bool,
    pub stream_view_type: Option<StreamViewType>,
}

impl StreamSpecification {
    /// Not part of the SDK: a stream with records of this view type.
    pub fn enabled(view_type: StreamViewType) -> Self {
        StreamSpecification {
            stream_enabled: true,
            stream_view_type: Some(view_type),
        }
    }
    /// Not part of the SDK: no stream.
    pub fn disabled() -> Self {
        StreamSpecification {
            stream_enabled: false,
            stream_view_type: None,
        }
    }
    pub fn stream_enabled(&self) -> bool {
        self.stream_enabled
    }
    pub fn stream_view_type(&self) -> Option<&StreamViewType> {
        self.stream_view_type.as_ref()
    }
}

/// Capacity consumed by one table or index.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Capacity {
    pub capacity_units: Option<f64>,
    pub read_capacity_units: Option<f64>,
    pub write_capacity_units: Option<f64>,
}

/// The capacity a request consumed, as `ReturnConsumedCapacity` reports it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ConsumedCapacity {
    pub table_name: Option<String>,
    pub capacity_units: Option<f64>,
    pub read_capacity_units: Option<f64>,
    pub write_capacity_units: Option<f64>,
    /// Filled for `INDEXES` only.
    pub table: Option<Capacity>,
    pub local_secondary_indexes: Option<HashMap<String, Capacity>>,
    pub global_secondary_indexes: Option<HashMap<String, Capacity>>,
}

impl ConsumedCapacity {
    pub fn capacity_units(&self) -> Option<f64> {
        self.capacity_units
    }
    pub fn read_capacity_units(&self) -> Option<f64> {
        self.read_capacity_units
    }
    pub fn write_capacity_units(&self) -> Option<f64> {
        self.write_capacity_units
    }
    pub fn table_name(&self) -> Option<&str> {
        self.table_name.as_deref()
    }
    /// The table's own share (`ReturnConsumedCapacity::Indexes` only).
    pub fn table(&self) -> Option<&Capacity> {
        self.table.as_ref()
    }
    pub fn local_secondary_indexes(&self) -> Option<&HashMap<String, Capacity>> {
        self.local_secondary_indexes.as_ref()
    }
    pub fn global_secondary_indexes(&self) -> Option<&HashMap<String, Capacity>> {
        self.global_secondary_indexes.as_ref()
    }
}

impl Capacity {
    pub fn capacity_units(&self) -> Option<f64> {
        self.capacity_units
    }
    pub fn read_capacity_units(&self) -> Option<f64> {
        self.read_capacity_units
    }
    pub fn write_capacity_units(&self) -> Option<f64> {
        self.write_capacity_units
    }
}

/// Billing mode as DescribeTable reports it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BillingModeSummary {
    pub billing_mode: Option<BillingMode>,
    /// When the table last became on-demand: at its creation if it was created so, or when
    /// UpdateTable switched it. Absent for a table that has always been provisioned.
    pub last_update_to_pay_per_request_date_time: Option<crate::primitives::DateTime>,
}

impl BillingModeSummary {
    pub fn billing_mode(&self) -> Option<&BillingMode> {
        self.billing_mode.as_ref()
    }
    pub fn last_update_to_pay_per_request_date_time(&self) -> Option<&crate::primitives::DateTime> {
        self.last_update_to_pay_per_request_date_time.as_ref()
    }
}

/// Provisioned throughput as DescribeTable reports it (0/0 for on-demand tables).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ProvisionedThroughputDescription {
    pub read_capacity_units: Option<i64>,
    pub write_capacity_units: Option<i64>,
    pub number_of_decreases_today: Option<i64>,
}

impl ProvisionedThroughputDescription {
    pub fn read_capacity_units(&self) -> Option<i64> {
        self.read_capacity_units
    }
    pub fn write_capacity_units(&self) -> Option<i64> {
        self.write_capacity_units
    }
    pub fn number_of_decreases_today(&self) -> Option<i64> {
        self.number_of_decreases_today
    }
}

/// A global secondary index as DescribeTable reports it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GlobalSecondaryIndexDescription {
    pub index_name: Option<String>,
    /// `<table ARN>/index/<name>`: the `resource` of a throttling reason that names the index.
    pub index_arn: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub projection: Option<Projection>,
    pub index_status: Option<IndexStatus>,
    /// `Some(true)` while an index added to an existing table is being backfilled.
    pub backfilling: Option<bool>,
    pub provisioned_throughput: Option<ProvisionedThroughputDescription>,
    pub item_count: Option<i64>,
    pub index_size_bytes: Option<i64>,
}

impl GlobalSecondaryIndexDescription {
    pub fn index_name(&self) -> Option<&str> {
        self.index_name.as_deref()
    }
    pub fn index_arn(&self) -> Option<&str> {
        self.index_arn.as_deref()
    }
    pub fn key_schema(&self) -> &[KeySchemaElement] {
        self.key_schema.as_deref().unwrap_or_default()
    }
    pub fn projection(&self) -> Option<&Projection> {
        self.projection.as_ref()
    }
    pub fn index_status(&self) -> Option<&IndexStatus> {
        self.index_status.as_ref()
    }
    pub fn backfilling(&self) -> Option<bool> {
        self.backfilling
    }
    pub fn provisioned_throughput(&self) -> Option<&ProvisionedThroughputDescription> {
        self.provisioned_throughput.as_ref()
    }
    pub fn item_count(&self) -> Option<i64> {
        self.item_count
    }
    pub fn index_size_bytes(&self) -> Option<i64> {
        self.index_size_bytes
    }
}

/// A local secondary index as DescribeTable reports it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LocalSecondaryIndexDescription {
    pub index_name: Option<String>,
    /// `<table ARN>/index/<name>`.
    pub index_arn: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub projection: Option<Projection>,
    pub item_count: Option<i64>,
    pub index_size_bytes: Option<i64>,
}

impl LocalSecondaryIndexDescription {
    pub fn index_name(&self) -> Option<&str> {
        self.index_name.as_deref()
    }
    pub fn index_arn(&self) -> Option<&str> {
        self.index_arn.as_deref()
    }
    pub fn key_schema(&self) -> &[KeySchemaElement] {
        self.key_schema.as_deref().unwrap_or_default()
    }
    pub fn projection(&self) -> Option<&Projection> {
        self.projection.as_ref()
    }
    pub fn item_count(&self) -> Option<i64> {
        self.item_count
    }
    pub fn index_size_bytes(&self) -> Option<i64> {
        self.index_size_bytes
    }
}

/// Everything DescribeTable tells about a table.
///
/// As in the SDK, every field is an `Option` (the service may leave any out) and is read
/// through its accessor: `table_status()` is an `Option<&TableStatus>`, a list such as
/// `key_schema()` a slice (empty when absent).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TableDescription {
    pub table_name: Option<String>,
    pub table_arn: Option<String>,
    /// A unique identifier of the table (a UUID; see `table::settings`).
    pub table_id: Option<String>,
    pub table_status: Option<TableStatus>,
    pub key_schema: Option<Vec<KeySchemaElement>>,
    pub attribute_definitions: Option<Vec<AttributeDefinition>>,
    pub billing_mode_summary: Option<BillingModeSummary>,
    pub provisioned_throughput: Option<ProvisionedThroughputDescription>,
    pub global_secondary_indexes: Option<Vec<GlobalSecondaryIndexDescription>>,
    pub local_secondary_indexes: Option<Vec<LocalSecondaryIndexDescription>>,
    pub stream_specification: Option<StreamSpecification>,
    pub latest_stream_arn: Option<String>,
    pub latest_stream_label: Option<String>,
    /// When the table was created: the world's clock on its calendar
    /// ([`crate::primitives::DateTime`]).
    pub creation_date_time: Option<crate::primitives::DateTime>,
    pub item_count: Option<i64>,
    pub table_size_bytes: Option<i64>,
    /// The other Regions' replicas of a global table (absent for a single-Region table).
    pub replicas: Option<Vec<ReplicaDescription>>,
    /// `2019.11.21` for a global table.
    pub global_table_version: Option<String>,
    /// `EVENTUAL` for a global table.
    pub multi_region_consistency: Option<MultiRegionConsistency>,
    /// Encryption with a KMS key (absent for the default, AWS owned key).
    pub sse_description: Option<SseDescription>,
}

/// One replica of a global table, as DescribeTable lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaDescription {
    pub region_name: Option<String>,
    pub replica_status: Option<ReplicaStatus>,
}

impl ReplicaDescription {
    pub fn region_name(&self) -> Option<&str> {
        self.region_name.as_deref()
    }
    pub fn replica_status(&self) -> Option<&ReplicaStatus> {
        self.replica_status.as_ref()
    }
}

impl TableDescription {
    pub fn table_name(&self) -> Option<&str> {
        self.table_name.as_deref()
    }
    pub fn table_arn(&self) -> Option<&str> {
        self.table_arn.as_deref()
    }
    pub fn table_status(&self) -> Option<&TableStatus> {
        self.table_status.as_ref()
    }
    pub fn key_schema(&self) -> &[KeySchemaElement] {
        self.key_schema.as_deref().unwrap_or_default()
    }
    pub fn attribute_definitions(&self) -> &[AttributeDefinition] {
        self.attribute_definitions.as_deref().unwrap_or_default()
    }
    pub fn billing_mode_summary(&self) -> Option<&BillingModeSummary> {
        self.billing_mode_summary.as_ref()
    }
    pub fn provisioned_throughput(&self) -> Option<&ProvisionedThroughputDescription> {
        self.provisioned_throughput.as_ref()
    }
    pub fn global_secondary_indexes(&self) -> &[GlobalSecondaryIndexDescription] {
        self.global_secondary_indexes.as_deref().unwrap_or_default()
    }
    pub fn local_secondary_indexes(&self) -> &[LocalSecondaryIndexDescription] {
        self.local_secondary_indexes.as_deref().unwrap_or_default()
    }
    pub fn stream_specification(&self) -> Option<&StreamSpecification> {
        self.stream_specification.as_ref()
    }
    pub fn latest_stream_arn(&self) -> Option<&str> {
        self.latest_stream_arn.as_deref()
    }
    pub fn latest_stream_label(&self) -> Option<&str> {
        self.latest_stream_label.as_deref()
    }
    pub fn creation_date_time(&self) -> Option<&crate::primitives::DateTime> {
        self.creation_date_time.as_ref()
    }
    pub fn table_id(&self) -> Option<&str> {
        self.table_id.as_deref()
    }
    pub fn item_count(&self) -> Option<i64> {
        self.item_count
    }
    pub fn table_size_bytes(&self) -> Option<i64> {
        self.table_size_bytes
    }
    /// The other Regions' replicas (empty for a single-Region table).
    pub fn replicas(&self) -> &[ReplicaDescription] {
        self.replicas.as_deref().unwrap_or_default()
    }
    pub fn global_table_version(&self) -> Option<&str> {
        self.global_table_version.as_deref()
    }
    pub fn multi_region_consistency(&self) -> Option<&MultiRegionConsistency> {
        self.multi_region_consistency.as_ref()
    }
    pub fn sse_description(&self) -> Option<&SseDescription> {
        self.sse_description.as_ref()
    }
}

/// A key: attribute name → value (the key attributes of a table, or of an index and table).
pub type Key = Item;

pub use crate::ops::batch_execute_statement::{
    BatchStatementError, BatchStatementRequest, BatchStatementResponse,
};
pub use crate::ops::batch_get_item::KeysAndAttributes;
pub use crate::ops::batch_write_item::{DeleteRequest, PutRequest, WriteRequest};
pub use crate::ops::execute_transaction::ParameterizedStatement;
pub use crate::ops::transact_get_items::{Get, ItemResponse, TransactGetItem};
pub use crate::ops::transact_write_items::{
    ConditionCheck, Delete, Put, TransactWriteItem, Update,
};

impl From<ScalarAttributeType> for crate::expr::ScalarType {
    fn from(t: ScalarAttributeType) -> Self {
        match t {
            ScalarAttributeType::S => crate::expr::ScalarType::S,
            ScalarAttributeType::N => crate::expr::ScalarType::N,
            ScalarAttributeType::B => crate::expr::ScalarType::B,
        }
    }
}
pub use crate::ops::streams::{
    SequenceNumberRange, Shard, ShardIteratorType, Stream, StreamDescription,
};
pub use crate::ops::tags::Tag;
pub use crate::ops::update_table::{
    CreateGlobalSecondaryIndexAction, CreateReplicationGroupMemberAction,
    DeleteGlobalSecondaryIndexAction, DeleteReplicationGroupMemberAction,
    GlobalSecondaryIndexUpdate, ReplicationGroupUpdate, UpdateGlobalSecondaryIndexAction,
};
pub use crate::ops::update_time_to_live::{TimeToLiveDescription, TimeToLiveSpecification};
pub use crate::stream::consumer::{EventSourceMapping, StartingPosition};
pub use crate::stream::{Identity, OperationType, Record, StreamRecord};
