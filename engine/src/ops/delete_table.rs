//! DeleteTable: remove a table, its items, indexes and stream.
//!
//! In DynamoDB the table goes through `DELETING` for a while; here deletion is immediate
//! (the response still reports `DELETING`, as DynamoDB's does, in the reduced description
//! the service gives a table on its way out: no key schema, attribute definitions or index
//! lists).

use super::builder::string_setter;
use super::describe_table::describe;
use super::require_table_name;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::types::{TableDescription, TableStatus};
use crate::world::State;

/// The parameters of a DeleteTable request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeleteTableInput {
    pub table_name: Option<String>,
}

/// What DeleteTable returns.
#[derive(Clone, Debug, PartialEq)]
pub struct DeleteTableOutput {
    pub table_description: Option<TableDescription>,
}

impl DeleteTableOutput {
    pub fn table_description(&self) -> Option<&TableDescription> {
        self.table_description.as_ref()
    }
}

/// Builds and sends a DeleteTable request.
#[derive(Clone, Debug)]
pub struct DeleteTableFluentBuilder {
    client: Client,
    input: DeleteTableInput,
}

impl DeleteTableFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DeleteTableFluentBuilder {
            client,
            input: DeleteTableInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);

    pub fn send(
        self,
    ) -> std::result::Result<
        DeleteTableOutput,
        crate::error::SdkError<crate::error::operations::DeleteTableError>,
    > {
        self.client
            .world()
            .send("DeleteTable", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(state: &mut State, input: &DeleteTableInput) -> Result<DeleteTableOutput> {
    let name = require_table_name(&input.table_name)?;
    if state
        .tables
        .get(name)
        .is_some_and(|t| t.status == TableStatus::Creating)
    {
        // Wording unverified against the service.
        return Err(Exception::ResourceInUse {
            message: format!(
                "Attempt to change a resource which is still in use: Table is being created: {name}"
            ),
        });
    }
    let table = state.tables.remove(name).ok_or_else(|| {
        Exception::resource_not_found(format!(
            "Requested resource not found: Table: {name} not found"
        ))
    })?;
    // The answer is the reduced description the service gives a table on its way out: its
    // name, ARN, id, status, throughput and sizes, but no key schema, attribute definitions
    // or index lists (as a peer suite run against the service checks).
    let mut description = describe(&table, state.config.epoch_seconds);
    description.table_status = Some(TableStatus::Deleting);
    description.key_schema = None;
    description.attribute_definitions = None;
    description.global_secondary_indexes = None;
    description.local_secondary_indexes = None;
    // Deleting one replica of a global table removes it from the replication group.
    let here = state.regions.here.clone();
    crate::global::replicas::remove(state, name, &here);
    Ok(DeleteTableOutput {
        table_description: Some(description),
    })
}
