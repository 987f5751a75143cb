//! The operations' error enums, as `aws_sdk_dynamodb::operation::<op>::<Op>Error` (and
//! `aws_sdk_dynamodbstreams`'s for the four streams operations): for each operation, the
//! exceptions the SDK models for it, name for name, and `Unhandled` for the rest
//! (`ValidationException` always; `TransactionCanceledException` of a PutItem, were it
//! raised). Re-exported at `operation::<op>`.
//!
//! The variant lists follow the SDK 1.x service model, which since 2025 names
//! `ThrottlingException` on the data-plane operations (the on-demand and key-range
//! throttling this engine raises as such) and `ReplicatedWriteConflictException` on the
//! single-item and batch writes (multi-Region strong consistency; never raised here).

use std::fmt;

use super::sdk::{
    is_retryable_code, is_throttling_code, CreateUnhandledError, ErrorMetadata,
    ProvideErrorMetadata, SdkError, Unhandled,
};
use super::service::*;
use super::Exception;

/// Builds an operation's error from the service-wide one (a variant the operation does not
/// model becomes `Unhandled`).
pub(crate) trait FromService {
    fn from_service(e: Error) -> Self;
}

/// The `SdkError` a `send()` returns for `exception`.
pub(crate) fn sdk_error<E: FromService>(exception: Exception) -> SdkError<E> {
    let error = Error::from(exception);
    let status = error.status();
    SdkError::service(E::from_service(error), status)
}

macro_rules! operation_error {
    ($(#[$doc:meta])* $name:ident { $($variant:ident / $is:ident),+ }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $($variant($variant),)+
            /// An exception the SDK does not model for this operation (recognise it by
            /// `code()`).
            Unhandled(Unhandled),
        }

        impl $name {
            /// An `Unhandled` error with this metadata.
            pub fn generic(meta: ErrorMetadata) -> Self {
                $name::Unhandled(Unhandled { meta })
            }
            /// The error's code and message.
            pub fn meta(&self) -> &ErrorMetadata {
                match self {
                    $($name::$variant(e) => e.meta(),)+
                    $name::Unhandled(e) => &e.meta,
                }
            }
            $(
                #[doc = concat!("Whether this is a `", stringify!($variant), "`.")]
                pub fn $is(&self) -> bool {
                    matches!(self, $name::$variant(_))
                }
            )+
            /// Not part of the SDK (its retry classifier decides this): whether DynamoDB
            /// refused the request for throughput. Nothing was written; wait and retry.
            pub fn is_throttling(&self) -> bool {
                is_throttling_code(self.code())
            }
            /// Not part of the SDK: whether the AWS SDKs would retry this error with backoff.
            pub fn is_retryable(&self) -> bool {
                is_retryable_code(self.code())
            }
        }

        impl ProvideErrorMetadata for $name {
            fn meta(&self) -> &ErrorMetadata {
                $name::meta(self)
            }
        }

        impl CreateUnhandledError for $name {
            fn create_unhandled_error(meta: ErrorMetadata) -> Self {
                $name::generic(meta)
            }
        }

        impl FromService for $name {
            fn from_service(e: Error) -> Self {
                match e {
                    $(Error::$variant(e) => $name::$variant(e),)+
                    other => $name::Unhandled(Unhandled { meta: other.meta().clone() }),
                }
            }
        }

        impl From<$name> for Error {
            fn from(e: $name) -> Error {
                match e {
                    $($name::$variant(e) => Error::$variant(e),)+
                    $name::Unhandled(e) => Error::Unhandled(e),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $($name::$variant(e) => fmt::Display::fmt(e, f),)+
                    $name::Unhandled(e) => fmt::Display::fmt(e, f),
                }
            }
        }

        impl std::error::Error for $name {}
    };
}

operation_error!(
    /// The errors of BatchGetItem (`aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemError`).
    BatchGetItemError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception
});

operation_error!(
    /// The errors of BatchWriteItem (`aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemError`).
    BatchWriteItemError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ItemCollectionSizeLimitExceededException / is_item_collection_size_limit_exceeded_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    ReplicatedWriteConflictException / is_replicated_write_conflict_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception
});

operation_error!(
    /// The errors of CreateTable (`aws_sdk_dynamodb::operation::create_table::CreateTableError`).
    CreateTableError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceInUseException / is_resource_in_use_exception
});

operation_error!(
    /// The errors of DeleteItem (`aws_sdk_dynamodb::operation::delete_item::DeleteItemError`).
    DeleteItemError {
    ConditionalCheckFailedException / is_conditional_check_failed_exception,
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ItemCollectionSizeLimitExceededException / is_item_collection_size_limit_exceeded_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    ReplicatedWriteConflictException / is_replicated_write_conflict_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionConflictException / is_transaction_conflict_exception
});

operation_error!(
    /// The errors of DeleteTable (`aws_sdk_dynamodb::operation::delete_table::DeleteTableError`).
    DeleteTableError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceInUseException / is_resource_in_use_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of DescribeTable (`aws_sdk_dynamodb::operation::describe_table::DescribeTableError`).
    DescribeTableError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of DescribeTimeToLive (`aws_sdk_dynamodb::operation::describe_time_to_live::DescribeTimeToLiveError`).
    DescribeTimeToLiveError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of ExecuteStatement (`aws_sdk_dynamodb::operation::execute_statement::ExecuteStatementError`).
    ExecuteStatementError {
    ConditionalCheckFailedException / is_conditional_check_failed_exception,
    DuplicateItemException / is_duplicate_item_exception,
    InternalServerError / is_internal_server_error,
    ItemCollectionSizeLimitExceededException / is_item_collection_size_limit_exceeded_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionConflictException / is_transaction_conflict_exception
});

operation_error!(
    /// The errors of BatchExecuteStatement (`aws_sdk_dynamodb::operation::batch_execute_statement::BatchExecuteStatementError`):
    /// few, since each statement's own failure is an `Error` in its response, not an
    /// exception of the call.
    BatchExecuteStatementError {
    InternalServerError / is_internal_server_error,
    RequestLimitExceeded / is_request_limit_exceeded,
    ThrottlingException / is_throttling_exception
});

operation_error!(
    /// The errors of ExecuteTransaction (`aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError`).
    ExecuteTransactionError {
    IdempotentParameterMismatchException / is_idempotent_parameter_mismatch_exception,
    InternalServerError / is_internal_server_error,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionCanceledException / is_transaction_canceled_exception,
    TransactionInProgressException / is_transaction_in_progress_exception
});

operation_error!(
    /// The errors of GetItem (`aws_sdk_dynamodb::operation::get_item::GetItemError`).
    GetItemError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception
});

operation_error!(
    /// The errors of ListTables (`aws_sdk_dynamodb::operation::list_tables::ListTablesError`).
    ListTablesError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception
});

operation_error!(
    /// The errors of PutItem (`aws_sdk_dynamodb::operation::put_item::PutItemError`).
    PutItemError {
    ConditionalCheckFailedException / is_conditional_check_failed_exception,
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ItemCollectionSizeLimitExceededException / is_item_collection_size_limit_exceeded_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    ReplicatedWriteConflictException / is_replicated_write_conflict_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionConflictException / is_transaction_conflict_exception
});

operation_error!(
    /// The errors of Query (`aws_sdk_dynamodb::operation::query::QueryError`).
    QueryError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception
});

operation_error!(
    /// The errors of Scan (`aws_sdk_dynamodb::operation::scan::ScanError`).
    ScanError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception
});

operation_error!(
    /// The errors of TransactGetItems (`aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError`).
    TransactGetItemsError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionCanceledException / is_transaction_canceled_exception
});

operation_error!(
    /// The errors of TransactWriteItems (`aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError`).
    TransactWriteItemsError {
    IdempotentParameterMismatchException / is_idempotent_parameter_mismatch_exception,
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionCanceledException / is_transaction_canceled_exception,
    TransactionInProgressException / is_transaction_in_progress_exception
});

operation_error!(
    /// The errors of UpdateItem (`aws_sdk_dynamodb::operation::update_item::UpdateItemError`).
    UpdateItemError {
    ConditionalCheckFailedException / is_conditional_check_failed_exception,
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ItemCollectionSizeLimitExceededException / is_item_collection_size_limit_exceeded_exception,
    ProvisionedThroughputExceededException / is_provisioned_throughput_exceeded_exception,
    ReplicatedWriteConflictException / is_replicated_write_conflict_exception,
    RequestLimitExceeded / is_request_limit_exceeded,
    ResourceNotFoundException / is_resource_not_found_exception,
    ThrottlingException / is_throttling_exception,
    TransactionConflictException / is_transaction_conflict_exception
});

operation_error!(
    /// The errors of UpdateTable (`aws_sdk_dynamodb::operation::update_table::UpdateTableError`).
    UpdateTableError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceInUseException / is_resource_in_use_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of UpdateTimeToLive (`aws_sdk_dynamodb::operation::update_time_to_live::UpdateTimeToLiveError`).
    UpdateTimeToLiveError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceInUseException / is_resource_in_use_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of DescribeStream (`aws_sdk_dynamodbstreams::operation::describe_stream::DescribeStreamError`).
    DescribeStreamError {
    InternalServerError / is_internal_server_error,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of GetRecords (`aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError`).
    GetRecordsError {
    ExpiredIteratorException / is_expired_iterator_exception,
    InternalServerError / is_internal_server_error,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceNotFoundException / is_resource_not_found_exception,
    TrimmedDataAccessException / is_trimmed_data_access_exception
});

operation_error!(
    /// The errors of GetShardIterator (`aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorError`).
    GetShardIteratorError {
    InternalServerError / is_internal_server_error,
    ResourceNotFoundException / is_resource_not_found_exception,
    TrimmedDataAccessException / is_trimmed_data_access_exception
});

operation_error!(
    /// The errors of ListStreams (`aws_sdk_dynamodbstreams::operation::list_streams::ListStreamsError`).
    ListStreamsError {
    InternalServerError / is_internal_server_error,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of TagResource (`aws_sdk_dynamodb::operation::tag_resource::TagResourceError`).
    TagResourceError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceInUseException / is_resource_in_use_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of UntagResource (`aws_sdk_dynamodb::operation::untag_resource::UntagResourceError`).
    UntagResourceError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    LimitExceededException / is_limit_exceeded_exception,
    ResourceInUseException / is_resource_in_use_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of ListTagsOfResource (`aws_sdk_dynamodb::operation::list_tags_of_resource::ListTagsOfResourceError`).
    ListTagsOfResourceError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    ResourceNotFoundException / is_resource_not_found_exception
});

operation_error!(
    /// The errors of DescribeContinuousBackups (`aws_sdk_dynamodb::operation::describe_continuous_backups::DescribeContinuousBackupsError`).
    DescribeContinuousBackupsError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    TableNotFoundException / is_table_not_found_exception
});

operation_error!(
    /// The errors of UpdateContinuousBackups (`aws_sdk_dynamodb::operation::update_continuous_backups::UpdateContinuousBackupsError`).
    UpdateContinuousBackupsError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception,
    TableNotFoundException / is_table_not_found_exception
});

operation_error!(
    /// The errors of DescribeEndpoints (`aws_sdk_dynamodb::operation::describe_endpoints::DescribeEndpointsError`).
    DescribeEndpointsError {
    InternalServerError / is_internal_server_error
});

operation_error!(
    /// The errors of DescribeLimits (`aws_sdk_dynamodb::operation::describe_limits::DescribeLimitsError`).
    DescribeLimitsError {
    InternalServerError / is_internal_server_error,
    InvalidEndpointException / is_invalid_endpoint_exception
});
