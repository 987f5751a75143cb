//! # Errors
//!
//! One enum for everything the engine can refuse, named after DynamoDB's exceptions so a
//! learner who meets `ConditionalCheckFailed` here recognises `ConditionalCheckFailedException`
//! in production. Messages follow DynamoDB's wording (see the semantics reference, §5.10) so a
//! message pasted into a search engine finds the real thing.
//!
//! Each variant says when it happens and whether retrying can help; [`Error::is_retryable`]
//! answers the latter the way the AWS SDKs' retry policy does.

use std::fmt;

use crate::value::Item;

/// Why one action of a cancelled transaction failed (or `Code = "None"` if it did not).
#[derive(Clone, Debug, PartialEq)]
pub struct CancellationReason {
    /// `None`, `ConditionalCheckFailed`, `TransactionConflict`, `ValidationError`,
    /// `ProvisionedThroughputExceeded`, `ThrottlingError`, `ItemCollectionSizeLimitExceeded`.
    pub code: String,
    /// Absent for `None`.
    pub message: Option<String>,
    /// The current item, when the action asked for `ReturnValuesOnConditionCheckFailure=ALL_OLD`.
    pub item: Option<Item>,
}

impl CancellationReason {
    pub fn code(&self) -> &str {
        &self.code
    }
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    pub fn item(&self) -> Option<&Item> {
        self.item.as_ref()
    }
}

/// Every error the engine returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The request is malformed or breaks a rule (bad expression, wrong key, limit exceeded).
    /// Retrying the same request cannot help.
    Validation { message: String },
    /// A `ConditionExpression` evaluated to false. Nothing was written. `item` is the item as
    /// it is now, if the request set `ReturnValuesOnConditionCheckFailure=ALL_OLD` (and the
    /// item exists). Retrying the same request fails the same way unless the item changes.
    ConditionalCheckFailed { message: String, item: Option<Item> },
    /// The table (or index, or stream) does not exist, or is not ACTIVE. Not retryable.
    ResourceNotFound { message: String },
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
    /// A stream iterator points at records older than the stream's retention.
    TrimmedDataAccess { message: String },
    /// A stream shard iterator is older than 15 minutes.
    ExpiredIterator { message: String },
}

impl Error {
    pub fn validation(message: impl Into<String>) -> Error {
        Error::Validation {
            message: message.into(),
        }
    }

    pub fn resource_not_found(message: impl Into<String>) -> Error {
        Error::ResourceNotFound {
            message: message.into(),
        }
    }

    /// The exception's name as DynamoDB spells it (`ValidationException`, …).
    pub fn name(&self) -> &'static str {
        match self {
            Error::Validation { .. } => "ValidationException",
            Error::ConditionalCheckFailed { .. } => "ConditionalCheckFailedException",
            Error::ResourceNotFound { .. } => "ResourceNotFoundException",
            Error::ResourceInUse { .. } => "ResourceInUseException",
            Error::ProvisionedThroughputExceeded { .. } => "ProvisionedThroughputExceededException",
            Error::Throttling { .. } => "ThrottlingException",
            Error::RequestLimitExceeded { .. } => "RequestLimitExceeded",
            Error::TransactionCanceled { .. } => "TransactionCanceledException",
            Error::TransactionConflict { .. } => "TransactionConflictException",
            Error::TransactionInProgress { .. } => "TransactionInProgressException",
            Error::IdempotentParameterMismatch { .. } => "IdempotentParameterMismatchException",
            Error::ItemCollectionSizeLimitExceeded { .. } => {
                "ItemCollectionSizeLimitExceededException"
            }
            Error::LimitExceeded { .. } => "LimitExceededException",
            Error::InternalServerError { .. } => "InternalServerError",
            Error::TrimmedDataAccess { .. } => "TrimmedDataAccessException",
            Error::ExpiredIterator { .. } => "ExpiredIteratorException",
        }
    }

    /// The message DynamoDB would send with this exception.
    pub fn message(&self) -> &str {
        match self {
            Error::Validation { message }
            | Error::ConditionalCheckFailed { message, .. }
            | Error::ResourceNotFound { message }
            | Error::ResourceInUse { message }
            | Error::ProvisionedThroughputExceeded { message }
            | Error::Throttling { message }
            | Error::RequestLimitExceeded { message }
            | Error::TransactionCanceled { message, .. }
            | Error::TransactionConflict { message }
            | Error::TransactionInProgress { message }
            | Error::IdempotentParameterMismatch { message }
            | Error::ItemCollectionSizeLimitExceeded { message }
            | Error::LimitExceeded { message }
            | Error::InternalServerError { message }
            | Error::TrimmedDataAccess { message }
            | Error::ExpiredIterator { message } => message,
        }
    }

    /// Whether the AWS SDKs would retry this error with backoff.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Error::ProvisionedThroughputExceeded { .. }
                | Error::Throttling { .. }
                | Error::RequestLimitExceeded { .. }
                | Error::TransactionConflict { .. }
                | Error::TransactionInProgress { .. }
                | Error::LimitExceeded { .. }
                | Error::InternalServerError { .. }
        )
    }

    /// Whether this is a throttling error (provisioned or on-demand).
    pub fn is_throttling(&self) -> bool {
        matches!(
            self,
            Error::ProvisionedThroughputExceeded { .. } | Error::Throttling { .. }
        )
    }

    /// The cancellation reasons of a cancelled transaction (empty for other errors).
    pub fn cancellation_reasons(&self) -> &[CancellationReason] {
        match self {
            Error::TransactionCanceled {
                cancellation_reasons,
                ..
            } => cancellation_reasons,
            _ => &[],
        }
    }

    /// The current item carried by a failed condition (`ReturnValuesOnConditionCheckFailure`).
    pub fn item(&self) -> Option<&Item> {
        match self {
            Error::ConditionalCheckFailed { item, .. } => item.as_ref(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name(), self.message())
    }
}

impl std::error::Error for Error {}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

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

/// A shape that failed to build, raised with `?` in a function returning [`Error`]: a
/// `ValidationException` naming the missing field, as no request was sent.
impl From<BuildError> for Error {
    fn from(e: BuildError) -> Error {
        Error::validation(e.to_string())
    }
}
