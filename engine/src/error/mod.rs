//! # Errors, in the SDK's three layers
//!
//! Inside, the engine refuses a request with one [`Exception`]: DynamoDB's exception as the
//! service sends it (its name, DynamoDB's message, typed fields), a doc per variant saying
//! when it happens and whether a retry can help. Messages follow DynamoDB's wording (see the
//! semantics reference, §5.10), so a message pasted into a search engine finds the real thing.
//!
//! A learner's code never sees an `Exception`: every `send()` returns what
//! `aws-sdk-dynamodb` 1.x returns, in the SDK's layers.
//!
//! ```text
//!  send() ─▶ Err(SdkError<PutItemError>)           error::SdkError (sdk.rs): how the call failed
//!              │  ServiceError(e) ─ e.err()         the service answered with an exception
//!              │  into_service_error() / as_service_error()
//!              ▼
//!            PutItemError::ConditionalCheckFailedException(e)   operation::put_item (operations.rs):
//!            PutItemError::Unhandled(_)                          the exceptions the SDK models for
//!              │                                                 this operation, the rest unhandled
//!              │  ?  (From<SdkError<OpError>> for Error)
//!              ▼
//!            engine::Error::ConditionalCheckFailedException(e)  the service-wide enum (service.rs),
//!                                                               as `aws_sdk_dynamodb::Error`
//! ```
//!
//! Every layer answers [`ProvideErrorMetadata`]: `code()` is the exception's name
//! (`"ValidationException"`), `message()` DynamoDB's message. The SDK models no
//! `ValidationException` (nor `TrimmedDataAccess…` outside the streams operations): such an
//! exception arrives as `Unhandled`, and `code()` is how code recognises it — as in production.
//!
//! Not part of the SDK, marked so in their docs: `is_throttling()` and `is_retryable()` on
//! every layer (the SDK's retry classifier decides these internally), and [`Error::validation`],
//! the error a kata's starter returns for "not written yet".

use std::fmt;

use crate::value::Item;

pub mod operations;
mod sdk;
mod service;

pub use sdk::{
    DisplayErrorContext, ErrorMetadata, HttpResponse, ProvideErrorMetadata, SdkError, ServiceError,
    Unhandled,
};
pub use service::Error;
/// The exception shapes, as `aws_sdk_dynamodb::types::error`.
pub mod exceptions {
    pub use super::service::{
        ConditionalCheckFailedException, DuplicateItemException, ExpiredIteratorException,
        IdempotentParameterMismatchException, InternalServerError, InvalidEndpointException,
        ItemCollectionSizeLimitExceededException, LimitExceededException,
        ProvisionedThroughputExceededException, ReplicatedWriteConflictException,
        RequestLimitExceeded, ResourceInUseException, ResourceNotFoundException,
        TableNotFoundException, ThrottlingException, TransactionCanceledException,
        TransactionConflictException, TransactionInProgressException, TrimmedDataAccessException,
    };
}

/// Why one action of a cancelled transaction failed (or `Code = "None"` if it did not).
#[derive(Clone, Debug, PartialEq)]
pub struct CancellationReason {
    /// `None`, `ConditionalCheckFailed`, `TransactionConflict`, `ValidationError`,
    /// `ProvisionedThroughputExceeded`, `ThrottlingError`, `ItemCollectionSizeLimitExceeded`,
    /// and `DuplicateItem` for a PartiQL `INSERT` of a key that exists (ExecuteTransaction).
    /// Always set by the engine; an `Option` as in the SDK.
    pub code: Option<String>,
    /// Absent for `None`.
    pub message: Option<String>,
    /// The current item, when the action asked for `ReturnValuesOnConditionCheckFailure=ALL_OLD`.
    pub item: Option<Item>,
}

impl CancellationReason {
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    pub fn item(&self) -> Option<&Item> {
        self.item.as_ref()
    }
}

/// Every exception the engine raises, as the service sends it. Not part of the SDK: `send()`
/// returns it wrapped in the SDK's layers ([`SdkError`], the operation's error enum); the
/// world's inspection and fault methods, which are not the SDK either, return it bare, and
/// `?` turns it into the service-wide [`Error`].
#[derive(Clone, Debug, PartialEq)]
pub enum Exception {
    /// The request is malformed or breaks a rule (bad expression, wrong key, limit exceeded).
    /// Retrying the same request cannot help.
    Validation { message: String },
    /// A `ConditionExpression` evaluated to false. Nothing was written. `item` is the item as
    /// it is now, if the request set `ReturnValuesOnConditionCheckFailure=ALL_OLD` (and the
    /// item exists). Retrying the same request fails the same way unless the item changes.
    ConditionalCheckFailed { message: String, item: Option<Item> },
    /// The table (or index, or stream) does not exist, or is not ACTIVE. Not retryable.
    ResourceNotFound { message: String },
    /// A PartiQL `INSERT` named a key that an item already has (an `INSERT` never
    /// overwrites; `UPDATE` changes an item). Nothing was written. Retrying the same
    /// statement fails the same way while the item exists.
    DuplicateItem { message: String },
    /// The table already exists, or is being created or deleted. Not retryable as is.
    ResourceInUse { message: String },
    /// A provisioned table, index or partition ran out of capacity this second. Nothing was
    /// written. Retry with backoff.
    ProvisionedThroughputExceeded { message: String },
    /// An on-demand table grew faster than it can adapt (more than twice its previous peak),
    /// or a control-plane call came too fast. Retry with backoff.
    Throttling { message: String },
    /// The account-level throughput quota was exceeded. Retry with backoff.
    RequestLimitExceeded { message: String },
    /// A transaction was cancelled; `cancellation_reasons` has one entry per action, in
    /// order. Nothing was written. Retry only if the reasons are transient (conflict,
    /// throughput); SDKs do not retry it automatically.
    TransactionCanceled {
        message: String,
        cancellation_reasons: Vec<CancellationReason>,
    },
    /// A single-item write hit an item locked by a transaction in flight. Retryable.
    TransactionConflict { message: String },
    /// A transaction with the same `ClientRequestToken` is still running. Retryable.
    TransactionInProgress { message: String },
    /// A `ClientRequestToken` was reused within 10 minutes with different parameters.
    IdempotentParameterMismatch { message: String },
    /// An item collection (table + LSI entries of one partition key) exceeded its size limit.
    ItemCollectionSizeLimitExceeded { message: String },
    /// Too many concurrent control-plane operations, or a streams reader limit.
    LimitExceeded { message: String },
    /// The service could not complete the request (in this engine: a partition had no
    /// leader, or too few replicas to form a write quorum). The outcome of a failed
    /// non-transactional write is unknown to the caller. Retryable.
    InternalServerError { message: String },
    /// DynamoDB is unavailable in the Region the request was sent to (HTTP 503; in this
    /// engine: the Region is down, [`World::fail_region`](crate::World::fail_region)). The
    /// SDK models no such exception: it arrives as `Unhandled` with code
    /// `ServiceUnavailable`. Retryable — or send the request to another Region's replica.
    ServiceUnavailable { message: String },
    /// A stream iterator points at records older than the stream's retention.
    TrimmedDataAccess { message: String },
    /// A stream shard iterator is older than 15 minutes.
    ExpiredIterator { message: String },
    /// The backup operations' "no such table" (DescribeContinuousBackups,
    /// UpdateContinuousBackups), where the others say `ResourceNotFound`. Not retryable.
    TableNotFound { message: String },
}

impl Exception {
    pub fn validation(message: impl Into<String>) -> Exception {
        Exception::Validation {
            message: message.into(),
        }
    }

    pub fn resource_not_found(message: impl Into<String>) -> Exception {
        Exception::ResourceNotFound {
            message: message.into(),
        }
    }

    /// The exception's name as DynamoDB spells it (`ValidationException`, …).
    pub fn name(&self) -> &'static str {
        match self {
            Exception::Validation { .. } => "ValidationException",
            Exception::ConditionalCheckFailed { .. } => "ConditionalCheckFailedException",
            Exception::ResourceNotFound { .. } => "ResourceNotFoundException",
            Exception::DuplicateItem { .. } => "DuplicateItemException",
            Exception::ResourceInUse { .. } => "ResourceInUseException",
            Exception::ProvisionedThroughputExceeded { .. } => {
                "ProvisionedThroughputExceededException"
            }
            Exception::Throttling { .. } => "ThrottlingException",
            Exception::RequestLimitExceeded { .. } => "RequestLimitExceeded",
            Exception::TransactionCanceled { .. } => "TransactionCanceledException",
            Exception::TransactionConflict { .. } => "TransactionConflictException",
            Exception::TransactionInProgress { .. } => "TransactionInProgressException",
            Exception::IdempotentParameterMismatch { .. } => "IdempotentParameterMismatchException",
            Exception::ItemCollectionSizeLimitExceeded { .. } => {
                "ItemCollectionSizeLimitExceededException"
            }
            Exception::LimitExceeded { .. } => "LimitExceededException",
            Exception::InternalServerError { .. } => "InternalServerError",
            Exception::ServiceUnavailable { .. } => "ServiceUnavailable",
            Exception::TrimmedDataAccess { .. } => "TrimmedDataAccessException",
            Exception::ExpiredIterator { .. } => "ExpiredIteratorException",
            Exception::TableNotFound { .. } => "TableNotFoundException",
        }
    }

    /// The message DynamoDB would send with this exception.
    pub fn message(&self) -> &str {
        match self {
            Exception::Validation { message }
            | Exception::ConditionalCheckFailed { message, .. }
            | Exception::ResourceNotFound { message }
            | Exception::DuplicateItem { message }
            | Exception::ResourceInUse { message }
            | Exception::ProvisionedThroughputExceeded { message }
            | Exception::Throttling { message }
            | Exception::RequestLimitExceeded { message }
            | Exception::TransactionCanceled { message, .. }
            | Exception::TransactionConflict { message }
            | Exception::TransactionInProgress { message }
            | Exception::IdempotentParameterMismatch { message }
            | Exception::ItemCollectionSizeLimitExceeded { message }
            | Exception::LimitExceeded { message }
            | Exception::InternalServerError { message }
            | Exception::ServiceUnavailable { message }
            | Exception::TrimmedDataAccess { message }
            | Exception::ExpiredIterator { message }
            | Exception::TableNotFound { message } => message,
        }
    }

    /// Whether the AWS SDKs would retry this error with backoff.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Exception::ProvisionedThroughputExceeded { .. }
                | Exception::Throttling { .. }
                | Exception::RequestLimitExceeded { .. }
                | Exception::TransactionConflict { .. }
                | Exception::TransactionInProgress { .. }
                | Exception::LimitExceeded { .. }
                | Exception::InternalServerError { .. }
                | Exception::ServiceUnavailable { .. }
        )
    }

    /// Whether this is a throttling error (provisioned or on-demand).
    pub fn is_throttling(&self) -> bool {
        matches!(
            self,
            Exception::ProvisionedThroughputExceeded { .. } | Exception::Throttling { .. }
        )
    }

    /// The cancellation reasons of a cancelled transaction (empty for other errors).
    pub fn cancellation_reasons(&self) -> &[CancellationReason] {
        match self {
            Exception::TransactionCanceled {
                cancellation_reasons,
                ..
            } => cancellation_reasons,
            _ => &[],
        }
    }

    /// The current item carried by a failed condition (`ReturnValuesOnConditionCheckFailure`).
    pub fn item(&self) -> Option<&Item> {
        match self {
            Exception::ConditionalCheckFailed { item, .. } => item.as_ref(),
            _ => None,
        }
    }
}

impl fmt::Display for Exception {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name(), self.message())
    }
}

impl std::error::Error for Exception {}

/// The engine's internal result type (not the SDK's).
pub type Result<T> = std::result::Result<T, Exception>;

/// A shape's `build()` was called without one of its required fields, as
/// `aws_sdk_dynamodb::error::BuildError` (`KeySchemaElement::builder().build()` without a
/// key type). The request was never sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    field: &'static str,
    shape: &'static str,
}

impl BuildError {
    /// `field` was not set on a builder of `shape`.
    pub fn missing_field(field: &'static str, shape: &'static str) -> BuildError {
        BuildError { field, shape }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} was not specified but it is required when building {}",
            self.field, self.shape
        )
    }
}

impl std::error::Error for BuildError {}

/// A shape that failed to build, inside the engine: a `ValidationException` naming the
/// missing field, as no request was sent.
impl From<BuildError> for Exception {
    fn from(e: BuildError) -> Exception {
        Exception::validation(e.to_string())
    }
}
