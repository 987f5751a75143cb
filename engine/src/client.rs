//! # The client
//!
//! [`Client`] is the entry point a learner's code holds, shaped like `aws_sdk_dynamodb::Client`:
//! one method per operation returning a fluent builder that ends in `.send()`. Unlike the
//! SDK, `send()` is synchronous — the world is in-process and the clock is simulated, so
//! there is nothing to await.
//!
//! A `Client` is a cheap handle (`Clone + Send + Sync`) to its [`World`]; clone it into as
//! many threads as you like. On the threads of [`World::concurrently`] every `send()` first
//! waits for its turn on a seeded schedule, so a race between clients replays from its seed
//! ([`crate::world::schedule`]); everywhere else it goes straight to the world.

use crate::ops::streams::{
    DescribeStreamFluentBuilder, GetRecordsFluentBuilder, GetShardIteratorFluentBuilder,
    ListStreamsFluentBuilder,
};
use crate::ops::update_table::UpdateTableFluentBuilder;
use crate::ops::update_time_to_live::{
    DescribeTimeToLiveFluentBuilder, UpdateTimeToLiveFluentBuilder,
};
use crate::ops::{
    batch_get_item::BatchGetItemFluentBuilder, batch_write_item::BatchWriteItemFluentBuilder,
    create_table::CreateTableFluentBuilder, delete_item::DeleteItemFluentBuilder,
    delete_table::DeleteTableFluentBuilder, describe_table::DescribeTableFluentBuilder,
    get_item::GetItemFluentBuilder, list_tables::ListTablesFluentBuilder,
    put_item::PutItemFluentBuilder, query::QueryFluentBuilder, scan::ScanFluentBuilder,
    transact_get_items::TransactGetItemsFluentBuilder,
    transact_write_items::TransactWriteItemsFluentBuilder, update_item::UpdateItemFluentBuilder,
};
use crate::world::World;

/// A handle for sending requests to a [`World`].
#[derive(Clone)]
pub struct Client {
    world: World,
}

/// `Client { .. }`: a fluent builder's `{:?}` shows its request, not the whole world (which
/// `World`'s own `Debug` and the inspection methods show on purpose).
impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Client {
    pub(crate) fn from_world(world: World) -> Client {
        Client { world }
    }

    /// The world this client talks to.
    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn create_table(&self) -> CreateTableFluentBuilder {
        CreateTableFluentBuilder::new(self.clone())
    }
    pub fn describe_table(&self) -> DescribeTableFluentBuilder {
        DescribeTableFluentBuilder::new(self.clone())
    }
    pub fn delete_table(&self) -> DeleteTableFluentBuilder {
        DeleteTableFluentBuilder::new(self.clone())
    }
    pub fn list_tables(&self) -> ListTablesFluentBuilder {
        ListTablesFluentBuilder::new(self.clone())
    }
    pub fn get_item(&self) -> GetItemFluentBuilder {
        GetItemFluentBuilder::new(self.clone())
    }
    pub fn put_item(&self) -> PutItemFluentBuilder {
        PutItemFluentBuilder::new(self.clone())
    }
    pub fn update_item(&self) -> UpdateItemFluentBuilder {
        UpdateItemFluentBuilder::new(self.clone())
    }
    pub fn delete_item(&self) -> DeleteItemFluentBuilder {
        DeleteItemFluentBuilder::new(self.clone())
    }
    pub fn query(&self) -> QueryFluentBuilder {
        QueryFluentBuilder::new(self.clone())
    }
    pub fn scan(&self) -> ScanFluentBuilder {
        ScanFluentBuilder::new(self.clone())
    }
    pub fn batch_get_item(&self) -> BatchGetItemFluentBuilder {
        BatchGetItemFluentBuilder::new(self.clone())
    }
    pub fn batch_write_item(&self) -> BatchWriteItemFluentBuilder {
        BatchWriteItemFluentBuilder::new(self.clone())
    }
    pub fn transact_write_items(&self) -> TransactWriteItemsFluentBuilder {
        TransactWriteItemsFluentBuilder::new(self.clone())
    }
    pub fn transact_get_items(&self) -> TransactGetItemsFluentBuilder {
        TransactGetItemsFluentBuilder::new(self.clone())
    }
    /// One PartiQL statement ([`crate::ops::execute_statement`]).
    pub fn execute_statement(
        &self,
    ) -> crate::operation::execute_statement::builders::ExecuteStatementFluentBuilder {
        crate::operation::execute_statement::builders::ExecuteStatementFluentBuilder::new(
            self.clone(),
        )
    }
    /// Up to 25 PartiQL statements, each on its own ([`crate::ops::batch_execute_statement`]).
    pub fn batch_execute_statement(
        &self,
    ) -> crate::operation::batch_execute_statement::builders::BatchExecuteStatementFluentBuilder
    {
        crate::operation::batch_execute_statement::builders::BatchExecuteStatementFluentBuilder::new(
            self.clone(),
        )
    }
    /// Up to 100 PartiQL statements, all or nothing ([`crate::ops::execute_transaction`]).
    pub fn execute_transaction(
        &self,
    ) -> crate::operation::execute_transaction::builders::ExecuteTransactionFluentBuilder {
        crate::operation::execute_transaction::builders::ExecuteTransactionFluentBuilder::new(
            self.clone(),
        )
    }
    pub fn update_table(&self) -> UpdateTableFluentBuilder {
        UpdateTableFluentBuilder::new(self.clone())
    }
    pub fn update_time_to_live(&self) -> UpdateTimeToLiveFluentBuilder {
        UpdateTimeToLiveFluentBuilder::new(self.clone())
    }
    pub fn describe_time_to_live(&self) -> DescribeTimeToLiveFluentBuilder {
        DescribeTimeToLiveFluentBuilder::new(self.clone())
    }
    pub fn describe_continuous_backups(
        &self,
    ) -> crate::ops::continuous_backups::DescribeContinuousBackupsFluentBuilder {
        crate::ops::continuous_backups::DescribeContinuousBackupsFluentBuilder::new(self.clone())
    }
    pub fn update_continuous_backups(
        &self,
    ) -> crate::ops::continuous_backups::UpdateContinuousBackupsFluentBuilder {
        crate::ops::continuous_backups::UpdateContinuousBackupsFluentBuilder::new(self.clone())
    }
    pub fn describe_endpoints(
        &self,
    ) -> crate::ops::describe_endpoints::DescribeEndpointsFluentBuilder {
        crate::ops::describe_endpoints::DescribeEndpointsFluentBuilder::new(self.clone())
    }
    pub fn describe_limits(&self) -> crate::ops::describe_limits::DescribeLimitsFluentBuilder {
        crate::ops::describe_limits::DescribeLimitsFluentBuilder::new(self.clone())
    }
    pub fn tag_resource(&self) -> crate::ops::tags::TagResourceFluentBuilder {
        crate::ops::tags::TagResourceFluentBuilder::new(self.clone())
    }
    pub fn untag_resource(&self) -> crate::ops::tags::UntagResourceFluentBuilder {
        crate::ops::tags::UntagResourceFluentBuilder::new(self.clone())
    }
    pub fn list_tags_of_resource(&self) -> crate::ops::tags::ListTagsOfResourceFluentBuilder {
        crate::ops::tags::ListTagsOfResourceFluentBuilder::new(self.clone())
    }
    /// Streams API (a separate client in the AWS SDK).
    pub fn list_streams(&self) -> ListStreamsFluentBuilder {
        ListStreamsFluentBuilder::new(self.clone())
    }
    /// Streams API (a separate client in the AWS SDK).
    pub fn describe_stream(&self) -> DescribeStreamFluentBuilder {
        DescribeStreamFluentBuilder::new(self.clone())
    }
    /// Streams API (a separate client in the AWS SDK).
    pub fn get_shard_iterator(&self) -> GetShardIteratorFluentBuilder {
        GetShardIteratorFluentBuilder::new(self.clone())
    }
    /// Streams API (a separate client in the AWS SDK).
    pub fn get_records(&self) -> GetRecordsFluentBuilder {
        GetRecordsFluentBuilder::new(self.clone())
    }
}

/// The waiters (`aws_sdk_dynamodb::client::Waiters`): `use engine::client::Waiters;` brings
/// `wait_until_table_exists` and `wait_until_table_not_exists` into scope. They sleep on the
/// simulated clock ([`crate::waiters`]).
pub trait Waiters {
    /// Waits until DescribeTable says the table is `ACTIVE`.
    fn wait_until_table_exists(&self) -> crate::waiters::table_exists::TableExistsFluentBuilder;
    /// Waits until DescribeTable answers `ResourceNotFoundException`.
    fn wait_until_table_not_exists(
        &self,
    ) -> crate::waiters::table_not_exists::TableNotExistsFluentBuilder;
}

impl Waiters for Client {
    fn wait_until_table_exists(&self) -> crate::waiters::table_exists::TableExistsFluentBuilder {
        crate::waiters::table_exists::TableExistsFluentBuilder::new(self.clone())
    }
    fn wait_until_table_not_exists(
        &self,
    ) -> crate::waiters::table_not_exists::TableNotExistsFluentBuilder {
        crate::waiters::table_not_exists::TableNotExistsFluentBuilder::new(self.clone())
    }
}
