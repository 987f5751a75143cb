//! The TableExists waiter: DescribeTable until the table is `ACTIVE`
//! (`aws_sdk_dynamodb::waiters::table_exists`).

use std::time::Duration;

use super::{wait, Acceptor, FinalPoll, WaiterError};
use crate::client::Client;
use crate::error::SdkError;
use crate::operation::describe_table::{DescribeTableError, DescribeTableOutput};
use crate::types::TableStatus;

/// The poll that ended the wait: DescribeTable's output with the table `ACTIVE`.
pub type TableExistsFinalPoll = FinalPoll<DescribeTableOutput, SdkError<DescribeTableError>>;

/// Why a TableExists wait failed.
pub type WaitUntilTableExistsError = WaiterError<DescribeTableOutput, SdkError<DescribeTableError>>;

/// Builds and runs a TableExists wait: `client.wait_until_table_exists().table_name(..)
/// .wait(max_wait)`.
#[derive(Clone, Debug)]
pub struct TableExistsFluentBuilder {
    client: Client,
    table_name: Option<String>,
}

impl TableExistsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        TableExistsFluentBuilder {
            client,
            table_name: None,
        }
    }
    pub fn table_name(mut self, input: impl Into<String>) -> Self {
        self.table_name = Some(input.into());
        self
    }
    pub fn set_table_name(mut self, input: Option<String>) -> Self {
        self.table_name = input;
        self
    }
    pub fn get_table_name(&self) -> &Option<String> {
        &self.table_name
    }

    /// Polls DescribeTable until the table is `ACTIVE`; a `ResourceNotFoundException` (the
    /// table not there yet) is polled again, any other error ends the wait. Sleeps on the
    /// simulated clock, for at most `max_wait` (see [`crate::waiters`]).
    // The error holds a whole DescribeTable output or SdkError, as the SDK's does.
    #[allow(clippy::result_large_err)]
    pub fn wait(
        self,
        max_wait: Duration,
    ) -> Result<TableExistsFinalPoll, WaitUntilTableExistsError> {
        let Some(name) = self.table_name else {
            return Err(super::construction_failure("table_name"));
        };
        let client = &self.client;
        wait(
            client.world(),
            max_wait,
            || client.describe_table().table_name(&name).send(),
            |result| match result {
                Ok(out) => match out.table().and_then(|t| t.table_status()) {
                    Some(TableStatus::Active) => Acceptor::Success,
                    _ => Acceptor::Retry,
                },
                Err(e) => match e.as_service_error() {
                    Some(DescribeTableError::ResourceNotFoundException(_)) => Acceptor::Retry,
                    _ => Acceptor::Failure,
                },
            },
        )
    }
}
