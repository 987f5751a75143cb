//! The exception shapes (`aws_sdk_dynamodb::types::error::*`) and the service-wide [`Error`]
//! (`aws_sdk_dynamodb::Error`), into which every operation's error converts with `?`.
//!
//! The streams exceptions (`ExpiredIteratorException`, `TrimmedDataAccessException`) belong to
//! `aws_sdk_dynamodbstreams::Error` in the SDK; the engine's one client serves both APIs, so
//! its one service-wide enum holds them too.

use std::fmt;

use super::sdk::{is_retryable_code, is_throttling_code, ErrorMetadata, ProvideErrorMetadata};
use super::sdk::{SdkError, Unhandled};
use super::{BuildError, CancellationReason, Exception};
use crate::value::Item;

/// One exception shape: `message()`, `meta()`, `Display` as the SDK's (`Name: message`).
macro_rules! exception {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident: $ty:ty),* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub struct $name {
            /// DynamoDB's message.
            pub message: Option<String>,
            $($(#[$fdoc])* pub $field: $ty,)*
            pub(crate) meta: ErrorMetadata,
        }

        impl $name {
            /// DynamoDB's message.
            pub fn message(&self) -> Option<&str> {
                self.message.as_deref()
            }
            /// The error's code and message.
            pub fn meta(&self) -> &ErrorMetadata {
                &self.meta
            }
        }

        impl ProvideErrorMetadata for $name {
            fn meta(&self) -> &ErrorMetadata {
                &self.meta
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($name))?;
                if let Some(message) = &self.message {
                    write!(f, ": {message}")?;
                }
                Ok(())
            }
        }

        impl std::error::Error for $name {}
    };
}

exception!(
    /// A `ConditionExpression` evaluated to false; nothing was written.
    ConditionalCheckFailedException {
        /// The item as it is, when the request set `ReturnValuesOnConditionCheckFailure=ALL_OLD`.
        item: Option<Item>
    }
);
impl ConditionalCheckFailedException {
    /// The item as it is, when the request set `ReturnValuesOnConditionCheckFailure=ALL_OLD`
    /// (and the item exists).
    pub fn item(&self) -> Option<&Item> {
        self.item.as_ref()
    }
}
exception!(
    /// A PartiQL `INSERT` named a key an item already has; nothing was written.
    DuplicateItemException {}
);
exception!(
    /// A stream shard iterator is older than 15 minutes (the streams API).
    ExpiredIteratorException {}
);
exception!(
    /// The table a backup operation names does not exist.
    TableNotFoundException {}
);
exception!(
    /// A `ClientRequestToken` was reused within 10 minutes with different parameters.
    IdempotentParameterMismatchException {}
);
exception!(
    /// The service could not complete the request; retryable.
    InternalServerError {}
);
exception!(
    /// The SDK's endpoint discovery failed (never raised by the engine).
    InvalidEndpointException {}
);
exception!(
    /// An item collection (table + LSI entries of one partition key) exceeded 10 GB.
    ItemCollectionSizeLimitExceededException {}
);
exception!(
    /// Too many concurrent control-plane operations, or a streams reader limit.
    LimitExceededException {}
);
exception!(
    /// A provisioned table, index or partition ran out of capacity; nothing was written.
    ProvisionedThroughputExceededException {}
);
exception!(
    /// An item is being written by a request in another Region (never raised by the engine).
    ReplicatedWriteConflictException {}
);
exception!(
    /// The account-level throughput quota was exceeded.
    RequestLimitExceeded {}
);
exception!(
    /// The table already exists, or is being created, updated or deleted.
    ResourceInUseException {}
);
exception!(
    /// The table, index or stream does not exist, or is not ACTIVE.
    ResourceNotFoundException {}
);
exception!(
    /// An on-demand table grew faster than it can adapt, or a control-plane call came too
    /// fast; nothing was written.
    ThrottlingException {}
);
exception!(
    /// A transaction was cancelled; nothing was written.
    TransactionCanceledException {
        /// One entry per action, in order.
        cancellation_reasons: Option<Vec<CancellationReason>>
    }
);
impl TransactionCanceledException {
    /// One entry per action of the transaction, in order.
    pub fn cancellation_reasons(&self) -> &[CancellationReason] {
        self.cancellation_reasons.as_deref().unwrap_or_default()
    }
}
exception!(
    /// A single-item write hit an item locked by a transaction in flight; retryable.
    TransactionConflictException {}
);
exception!(
    /// A transaction with the same `ClientRequestToken` is still running; retryable.
    TransactionInProgressException {}
);
exception!(
    /// A stream iterator points at records older than the stream's 24 hours (the streams API).
    TrimmedDataAccessException {}
);

/// Every exception of DynamoDB's API, as `aws_sdk_dynamodb::Error`: every operation's
/// `SdkError<OpError>` converts into it with `?`, so one function can call many operations.
/// An exception the SDK does not model (`ValidationException`) is `Unhandled`: recognise it by
/// `code()`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    ConditionalCheckFailedException(ConditionalCheckFailedException),
    DuplicateItemException(DuplicateItemException),
    ExpiredIteratorException(ExpiredIteratorException),
    TableNotFoundException(TableNotFoundException),
    IdempotentParameterMismatchException(IdempotentParameterMismatchException),
    InternalServerError(InternalServerError),
    InvalidEndpointException(InvalidEndpointException),
    ItemCollectionSizeLimitExceededException(ItemCollectionSizeLimitExceededException),
    LimitExceededException(LimitExceededException),
    ProvisionedThroughputExceededException(ProvisionedThroughputExceededException),
    ReplicatedWriteConflictException(ReplicatedWriteConflictException),
    RequestLimitExceeded(RequestLimitExceeded),
    ResourceInUseException(ResourceInUseException),
    ResourceNotFoundException(ResourceNotFoundException),
    ThrottlingException(ThrottlingException),
    TransactionCanceledException(TransactionCanceledException),
    TransactionConflictException(TransactionConflictException),
    TransactionInProgressException(TransactionInProgressException),
    TrimmedDataAccessException(TrimmedDataAccessException),
    /// An exception the SDK does not model, or a failure that is not the service's.
    Unhandled(Unhandled),
}

/// `Error::$variant`'s shape, with `message` and metadata.
macro_rules! shape {
    ($name:ident, $message:expr $(, $field:ident: $value:expr)*) => {{
        let message: String = $message;
        Error::$name($name {
            meta: ErrorMetadata::new(stringify!($name), &message),
            message: Some(message),
            $($field: $value,)*
        })
    }};
}

impl From<Exception> for Error {
    fn from(e: Exception) -> Error {
        match e {
            Exception::Validation { message } => Error::Unhandled(Unhandled {
                meta: ErrorMetadata::new("ValidationException", &message),
            }),
            Exception::ConditionalCheckFailed { message, item } => {
                shape!(ConditionalCheckFailedException, message, item: item)
            }
            Exception::ResourceNotFound { message } => shape!(ResourceNotFoundException, message),
            Exception::DuplicateItem { message } => shape!(DuplicateItemException, message),
            Exception::ResourceInUse { message } => shape!(ResourceInUseException, message),
            Exception::ProvisionedThroughputExceeded { message } => {
                shape!(ProvisionedThroughputExceededException, message)
            }
            Exception::Throttling { message } => shape!(ThrottlingException, message),
            Exception::RequestLimitExceeded { message } => shape!(RequestLimitExceeded, message),
            Exception::TransactionCanceled {
                message,
                cancellation_reasons,
            } => shape!(
                TransactionCanceledException,
                message,
                cancellation_reasons: Some(cancellation_reasons)
            ),
            Exception::TransactionConflict { message } => {
                shape!(TransactionConflictException, message)
            }
            Exception::TransactionInProgress { message } => {
                shape!(TransactionInProgressException, message)
            }
            Exception::IdempotentParameterMismatch { message } => {
                shape!(IdempotentParameterMismatchException, message)
            }
            Exception::ItemCollectionSizeLimitExceeded { message } => {
                shape!(ItemCollectionSizeLimitExceededException, message)
            }
            Exception::LimitExceeded { message } => shape!(LimitExceededException, message),
            Exception::InternalServerError { message } => shape!(InternalServerError, message),
            Exception::ServiceUnavailable { message } => Error::Unhandled(Unhandled {
                meta: ErrorMetadata::new("ServiceUnavailable", &message),
            }),
            Exception::TrimmedDataAccess { message } => {
                shape!(TrimmedDataAccessException, message)
            }
            Exception::ExpiredIterator { message } => shape!(ExpiredIteratorException, message),
            Exception::TableNotFound { message } => shape!(TableNotFoundException, message),
        }
    }
}

/// `$body` with `$e` bound to the shape inside any variant.
macro_rules! each_variant {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            Error::ConditionalCheckFailedException($e) => $body,
            Error::DuplicateItemException($e) => $body,
            Error::ExpiredIteratorException($e) => $body,
            Error::TableNotFoundException($e) => $body,
            Error::IdempotentParameterMismatchException($e) => $body,
            Error::InternalServerError($e) => $body,
            Error::InvalidEndpointException($e) => $body,
            Error::ItemCollectionSizeLimitExceededException($e) => $body,
            Error::LimitExceededException($e) => $body,
            Error::ProvisionedThroughputExceededException($e) => $body,
            Error::ReplicatedWriteConflictException($e) => $body,
            Error::RequestLimitExceeded($e) => $body,
            Error::ResourceInUseException($e) => $body,
            Error::ResourceNotFoundException($e) => $body,
            Error::ThrottlingException($e) => $body,
            Error::TransactionCanceledException($e) => $body,
            Error::TransactionConflictException($e) => $body,
            Error::TransactionInProgressException($e) => $body,
            Error::TrimmedDataAccessException($e) => $body,
            Error::Unhandled($e) => $body,
        }
    };
}

impl Error {
    /// Not part of the SDK: a `ValidationException` with `message`, as DynamoDB sends for a
    /// malformed request. A kata's starter returns one for "not written yet".
    pub fn validation(message: impl Into<String>) -> Error {
        Exception::validation(message).into()
    }

    /// The error's code and message.
    pub fn meta(&self) -> &ErrorMetadata {
        each_variant!(self, e => ProvideErrorMetadata::meta(e))
    }

    /// Not part of the SDK (its retry classifier decides this): whether DynamoDB refused the
    /// request for throughput (`ProvisionedThroughputExceededException` or
    /// `ThrottlingException`). Nothing was written; wait and retry.
    pub fn is_throttling(&self) -> bool {
        is_throttling_code(self.code())
    }

    /// Not part of the SDK: whether the AWS SDKs would retry this error with backoff.
    pub fn is_retryable(&self) -> bool {
        is_retryable_code(self.code())
    }

    /// The status DynamoDB answers this error with: 500 for `InternalServerError`, 503 for
    /// `ServiceUnavailable`, else 400.
    pub(crate) fn status(&self) -> u16 {
        match self {
            Error::InternalServerError(_) => 500,
            _ if self.code() == Some("ServiceUnavailable") => 503,
            _ => 400,
        }
    }
}

impl ProvideErrorMetadata for Error {
    fn meta(&self) -> &ErrorMetadata {
        Error::meta(self)
    }
}

/// The shape's `Name: message` (an unhandled exception: `unhandled error (Code): message`).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_variant!(self, e => fmt::Display::fmt(e, f))
    }
}

impl std::error::Error for Error {}

/// As in the SDK (its generated `Error` has `From<BuildError>`, into its unhandled variant): a
/// shape that failed to build, raised with `?` in a function returning [`Error`], is an error
/// of its own. Here it is an unhandled `ValidationException` naming the missing field, with no
/// request sent; the SDK's keeps the `BuildError` as its source and has no error code — code
/// that matches on the code of such an error would not transfer (none should: it is a bug in
/// the caller, not a service answer).
impl From<BuildError> for Error {
    fn from(e: BuildError) -> Error {
        Error::validation(e.to_string())
    }
}

/// Every operation's failure converts into the service-wide error with `?`.
impl<E: Into<Error>, R> From<SdkError<E, R>> for Error {
    fn from(e: SdkError<E, R>) -> Error {
        match e {
            SdkError::ServiceError(e) => e.into_err().into(),
            other => Error::Unhandled(Unhandled {
                meta: other.transport_meta().cloned().unwrap_or_default(),
            }),
        }
    }
}
