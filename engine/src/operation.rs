//! # Operations, at the SDK's paths
//!
//! `aws_sdk_dynamodb::operation::<op>` holds each operation's input, output, error and fluent
//! builder: `operation::put_item::{PutItemInput, PutItemOutput, builders::PutItemFluentBuilder}`.
//! This module gives the engine's operations those same paths, so that a signature written
//! against the SDK (`fn save(b: PutItemFluentBuilder)`, `-> Result<QueryOutput, ..>`) compiles
//! here unchanged. The operations themselves live in [`crate::ops`], one file each.
//!
//! The streams operations (`list_streams`, `describe_stream`, `get_shard_iterator`,
//! `get_records`) are in a separate SDK crate, `aws_sdk_dynamodbstreams`, at the same
//! relative paths; the engine's [`Client`](crate::Client) serves both.

/// One `operation::<op>` module: the input, the output, and `builders::<Op>FluentBuilder`.
macro_rules! operation {
    ($(#[$doc:meta])* $module:ident => $file:ident { } $builder:ident, $error:ident) => {
        $(#[$doc])*
        pub mod $module {
            pub use crate::error::operations::$error;
            /// The fluent builder `client.<op>()` returns.
            pub mod builders {
                pub use crate::ops::$file::$builder;
            }
        }
    };
    ($(#[$doc:meta])* $module:ident => $file:ident { $($item:ident),+ } $builder:ident, $error:ident) => {
        $(#[$doc])*
        pub mod $module {
            pub use crate::error::operations::$error;
            pub use crate::ops::$file::{$($item),+};
            /// The fluent builder `client.<op>()` returns.
            pub mod builders {
                pub use crate::ops::$file::$builder;
            }
        }
    };
}

operation!(batch_execute_statement => batch_execute_statement { BatchExecuteStatementInput, BatchExecuteStatementOutput } BatchExecuteStatementFluentBuilder, BatchExecuteStatementError);
operation!(batch_get_item => batch_get_item { BatchGetItemInput, BatchGetItemOutput } BatchGetItemFluentBuilder, BatchGetItemError);
operation!(batch_write_item => batch_write_item { BatchWriteItemInput, BatchWriteItemOutput } BatchWriteItemFluentBuilder, BatchWriteItemError);
operation!(create_table => create_table { CreateTableInput, CreateTableOutput } CreateTableFluentBuilder, CreateTableError);
operation!(delete_item => delete_item { DeleteItemInput, DeleteItemOutput } DeleteItemFluentBuilder, DeleteItemError);
operation!(delete_table => delete_table { DeleteTableInput, DeleteTableOutput } DeleteTableFluentBuilder, DeleteTableError);
operation!(describe_table => describe_table { DescribeTableInput, DescribeTableOutput } DescribeTableFluentBuilder, DescribeTableError);
operation!(execute_statement => execute_statement { ExecuteStatementInput, ExecuteStatementOutput } ExecuteStatementFluentBuilder, ExecuteStatementError);
operation!(execute_transaction => execute_transaction { ExecuteTransactionInput, ExecuteTransactionOutput } ExecuteTransactionFluentBuilder, ExecuteTransactionError);
operation!(get_item => get_item { GetItemInput, GetItemOutput } GetItemFluentBuilder, GetItemError);
/// `operation::list_tables`, with its paginator.
pub mod list_tables {
    pub use crate::error::operations::ListTablesError;
    pub use crate::ops::list_tables::{ListTablesInput, ListTablesOutput};
    /// The fluent builder `client.list_tables()` returns.
    pub mod builders {
        pub use crate::ops::list_tables::ListTablesFluentBuilder;
    }
    /// `into_paginator()` and `into_paginator().items()` (synchronous iterators here).
    pub mod paginator {
        /// Every page of a ListTables request.
        pub type ListTablesPaginator =
            crate::ops::paginate::Paginator<super::builders::ListTablesFluentBuilder>;
        /// Every item of every page of a ListTables request.
        pub type ListTablesPaginatorItems =
            crate::ops::paginate::PaginatorItems<super::builders::ListTablesFluentBuilder>;
    }
}
operation!(put_item => put_item { PutItemInput, PutItemOutput } PutItemFluentBuilder, PutItemError);
/// `operation::query`, with its paginator.
pub mod query {
    pub use crate::error::operations::QueryError;
    pub use crate::ops::query::{QueryInput, QueryOutput};
    /// The fluent builder `client.query()` returns.
    pub mod builders {
        pub use crate::ops::query::QueryFluentBuilder;
    }
    /// `into_paginator()` and `into_paginator().items()` (synchronous iterators here).
    pub mod paginator {
        /// Every page of a Query request.
        pub type QueryPaginator =
            crate::ops::paginate::Paginator<super::builders::QueryFluentBuilder>;
        /// Every item of every page of a Query request.
        pub type QueryPaginatorItems =
            crate::ops::paginate::PaginatorItems<super::builders::QueryFluentBuilder>;
    }
}
/// `operation::scan`, with its paginator.
pub mod scan {
    pub use crate::error::operations::ScanError;
    pub use crate::ops::scan::{ScanInput, ScanOutput};
    /// The fluent builder `client.scan()` returns.
    pub mod builders {
        pub use crate::ops::scan::ScanFluentBuilder;
    }
    /// `into_paginator()` and `into_paginator().items()` (synchronous iterators here).
    pub mod paginator {
        /// Every page of a Scan request.
        pub type ScanPaginator =
            crate::ops::paginate::Paginator<super::builders::ScanFluentBuilder>;
        /// Every item of every page of a Scan request.
        pub type ScanPaginatorItems =
            crate::ops::paginate::PaginatorItems<super::builders::ScanFluentBuilder>;
    }
}
operation!(transact_get_items => transact_get_items { TransactGetItemsInput, TransactGetItemsOutput } TransactGetItemsFluentBuilder, TransactGetItemsError);
operation!(transact_write_items => transact_write_items { TransactWriteItemsInput, TransactWriteItemsOutput } TransactWriteItemsFluentBuilder, TransactWriteItemsError);
operation!(update_item => update_item { UpdateItemInput, UpdateItemOutput } UpdateItemFluentBuilder, UpdateItemError);
operation!(update_table => update_table { UpdateTableInput, UpdateTableOutput } UpdateTableFluentBuilder, UpdateTableError);
operation!(update_time_to_live => update_time_to_live { UpdateTimeToLiveInput, UpdateTimeToLiveOutput } UpdateTimeToLiveFluentBuilder, UpdateTimeToLiveError);
operation!(describe_time_to_live => update_time_to_live { DescribeTimeToLiveInput, DescribeTimeToLiveOutput } DescribeTimeToLiveFluentBuilder, DescribeTimeToLiveError);
operation!(describe_continuous_backups => continuous_backups { DescribeContinuousBackupsInput, DescribeContinuousBackupsOutput } DescribeContinuousBackupsFluentBuilder, DescribeContinuousBackupsError);
operation!(update_continuous_backups => continuous_backups { UpdateContinuousBackupsInput, UpdateContinuousBackupsOutput } UpdateContinuousBackupsFluentBuilder, UpdateContinuousBackupsError);
operation!(describe_endpoints => describe_endpoints { DescribeEndpointsInput, DescribeEndpointsOutput } DescribeEndpointsFluentBuilder, DescribeEndpointsError);
operation!(describe_limits => describe_limits { DescribeLimitsInput, DescribeLimitsOutput } DescribeLimitsFluentBuilder, DescribeLimitsError);
operation!(tag_resource => tags { TagResourceInput, TagResourceOutput } TagResourceFluentBuilder, TagResourceError);
operation!(untag_resource => tags { UntagResourceInput, UntagResourceOutput } UntagResourceFluentBuilder, UntagResourceError);
operation!(list_tags_of_resource => tags { ListTagsOfResourceInput, ListTagsOfResourceOutput } ListTagsOfResourceFluentBuilder, ListTagsOfResourceError);
operation!(
    /// `aws_sdk_dynamodbstreams::operation::list_streams`.
    list_streams => streams { ListStreamsOutput } ListStreamsFluentBuilder, ListStreamsError);
operation!(
    /// `aws_sdk_dynamodbstreams::operation::describe_stream`.
    describe_stream => streams { DescribeStreamOutput } DescribeStreamFluentBuilder, DescribeStreamError);
operation!(
    /// `aws_sdk_dynamodbstreams::operation::get_shard_iterator`.
    get_shard_iterator => streams { GetShardIteratorInput, GetShardIteratorOutput } GetShardIteratorFluentBuilder, GetShardIteratorError);
operation!(
    /// `aws_sdk_dynamodbstreams::operation::get_records`.
    get_records => streams { GetRecordsOutput } GetRecordsFluentBuilder, GetRecordsError);
