//! DescribeTable: a table's definition, status and approximate size.

use super::builder::string_setter;
use super::require_table_name;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::table::{IndexKind, Table};
use crate::types::{
    BillingMode, BillingModeSummary, GlobalSecondaryIndexDescription, IndexStatus,
    LocalSecondaryIndexDescription, ProvisionedThroughputDescription, TableDescription,
};
use crate::world::State;

/// The parameters of a DescribeTable request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DescribeTableInput {
    pub table_name: Option<String>,
}

/// What DescribeTable returns.
#[derive(Clone, Debug, PartialEq)]
pub struct DescribeTableOutput {
    pub table: Option<TableDescription>,
}

impl DescribeTableOutput {
    pub fn table(&self) -> Option<&TableDescription> {
        self.table.as_ref()
    }
}

/// Builds and sends a DescribeTable request.
#[derive(Clone, Debug)]
pub struct DescribeTableFluentBuilder {
    client: Client,
    input: DescribeTableInput,
}

impl DescribeTableFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DescribeTableFluentBuilder {
            client,
            input: DescribeTableInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);

    pub fn send(
        self,
    ) -> std::result::Result<
        DescribeTableOutput,
        crate::error::SdkError<crate::error::operations::DescribeTableError>,
    > {
        self.client
            .world()
            .send("DescribeTable", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(state: &State, input: &DescribeTableInput) -> Result<DescribeTableOutput> {
    let name = require_table_name(&input.table_name)?;
    let table = state.tables.get(name).ok_or_else(|| {
        Exception::resource_not_found(format!(
            "Requested resource not found: Table: {name} not found"
        ))
    })?;
    Ok(DescribeTableOutput {
        table: Some(describe(table)),
    })
}

/// The description of a table as DescribeTable (and CreateTable, DeleteTable) report it.
pub(crate) fn describe(table: &Table) -> TableDescription {
    let throughput = |t: Option<crate::types::ProvisionedThroughput>| match t {
        Some(t) => ProvisionedThroughputDescription {
            read_capacity_units: t.read_capacity_units,
            write_capacity_units: t.write_capacity_units,
            number_of_decreases_today: 0,
        },
        None => ProvisionedThroughputDescription::default(),
    };
    let provisioned = table.billing_mode == BillingMode::Provisioned;
    TableDescription {
        table_name: table.name.clone(),
        table_arn: table.arn(),
        table_status: table.status,
        key_schema: table.key_elements.clone(),
        attribute_definitions: table.attribute_definitions.clone(),
        billing_mode_summary: BillingModeSummary {
            billing_mode: table.billing_mode,
        },
        provisioned_throughput: throughput(if provisioned { table.throughput } else { None }),
        global_secondary_indexes: table
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .map(|i| GlobalSecondaryIndexDescription {
                index_name: i.name.clone(),
                key_schema: i.key_elements.clone(),
                projection: i.projection.clone(),
                index_status: i.status,
                backfilling: (i.status == IndexStatus::Creating).then_some(true),
                provisioned_throughput: throughput(if provisioned { i.throughput } else { None }),
                item_count: i.store.item_count() as i64,
                index_size_bytes: i.store.size_bytes() as i64,
            })
            .collect(),
        local_secondary_indexes: table
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Local)
            .map(|i| LocalSecondaryIndexDescription {
                index_name: i.name.clone(),
                key_schema: i.key_elements.clone(),
                projection: i.projection.clone(),
                item_count: i.store.item_count() as i64,
                index_size_bytes: i.store.size_bytes() as i64,
            })
            .collect(),
        stream_specification: table.stream,
        latest_stream_arn: table
            .stream_label
            .as_ref()
            .map(|l| format!("{}/stream/{l}", table.arn())),
        latest_stream_label: table.stream_label.clone(),
        creation_date_time_ms: table.created_ms,
        item_count: table.store.item_count() as i64,
        table_size_bytes: table.store.size_bytes() as i64,
    }
}
