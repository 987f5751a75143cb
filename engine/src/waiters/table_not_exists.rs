//! The TableNotExists waiter: DescribeTable until it answers `ResourceNotFoundException`
//! (`aws_sdk_dynamodb::waiters::table_not_exists`).

use std::time::Duration;

use super::{wait, Acceptor, FinalPoll, WaiterError};
use crate::client::Client;
use crate::error::SdkError;
use crate::operation::describe_table::{DescribeTableError, DescribeTableOutput};

/// The poll that ended the wait: the `ResourceNotFoundException` of DescribeTable.
pub type TableNotExistsFinalPoll = FinalPoll<DescribeTableOutput, SdkError<DescribeTableError>>;

/// Why a TableNotExists wait failed.
pub type WaitUntilTableNotExistsError =
    WaiterError<DescribeTableOutput, SdkError<DescribeTableError>>;

/// Builds and runs a TableNotExists wait: `client.wait_until_table_not_exists()
/// .table_name(..).wait(max_wait)`.
#[derive(Clone, Debug)]
pub struct TableNotExistsFluentBuilder {
    client: Client,
    table_name: Option<String>,
}

impl TableNotExistsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        TableNotExistsFluentBuilder {
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

    /// Polls DescribeTable until it answers `ResourceNotFoundException`; while the table is
    /// there (even `DELETING`) it polls again, and any other error ends the wait. Sleeps on
    /// the simulated clock, for at most `max_wait` (see [`crate::waiters`]).
    // The error holds a whole DescribeTable output or SdkError, as the SDK's does.
    #[allow(clippy::result_large_err)]
    pub fn wait(
        self,
        max_wait: Duration,
    ) -> Result<TableNotExistsFinalPoll, WaitUntilTableNotExistsError> {
        let Some(name) = self.table_name else {
            return Err(super::construction_failure("table_name"));
        };
        let client = &self.client;
        wait(
            client.world(),
            max_wait,
            || client.describe_table().table_name(&name).send(),
            |result| match result {
                Ok(_) => Acceptor::Retry,
                Err(e) => match e.as_service_error() {
                    Some(DescribeTableError::ResourceNotFoundException(_)) => Acceptor::Success,
                    _ => Acceptor::Failure,
                },
            },
        )
    }
}
