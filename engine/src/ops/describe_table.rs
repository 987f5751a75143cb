//! DescribeTable: a table's definition, status and approximate size.

use super::builder::string_setter;
use super::require_table_name;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::primitives::DateTime;
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
    let mut description = describe(table, state.config.epoch_seconds);
    crate::global::replicas::describe(state, name, &mut description);
    Ok(DescribeTableOutput {
        table: Some(description),
    })
}

/// The description of a table as DescribeTable (and CreateTable, UpdateTable) report it;
/// times are the world's clock on its calendar, which starts at `epoch_seconds`.
pub(crate) fn describe(table: &Table, epoch_seconds: u64) -> TableDescription {
    let date = |ms: u64| DateTime::from_millis((epoch_seconds * 1000 + ms) as i64);
    let throughput = |t: Option<crate::types::ProvisionedThroughput>| {
        let (read, write) = t.map_or((0, 0), |t| (t.read_capacity_units, t.write_capacity_units));
        ProvisionedThroughputDescription {
            read_capacity_units: Some(read),
            write_capacity_units: Some(write),
            number_of_decreases_today: Some(0),
        }
    };
    let provisioned = table.billing_mode == BillingMode::Provisioned;
    fn non_empty<T>(v: Vec<T>) -> Option<Vec<T>> {
        (!v.is_empty()).then_some(v)
    }
    TableDescription {
        table_name: Some(table.name.clone()),
        table_arn: Some(table.arn()),
        table_id: Some(table.settings.table_id.clone()),
        table_status: Some(table.status.clone()),
        key_schema: Some(table.key_elements.clone()),
        attribute_definitions: Some(table.attribute_definitions.clone()),
        billing_mode_summary: Some(BillingModeSummary {
            billing_mode: Some(table.billing_mode.clone()),
            last_update_to_pay_per_request_date_time: table
                .settings
                .pay_per_request_since_ms
                .map(date),
        }),
        provisioned_throughput: Some(throughput(if provisioned {
            table.throughput.clone()
        } else {
            None
        })),
        global_secondary_indexes: non_empty(
            table
                .indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Global)
                .map(|i| GlobalSecondaryIndexDescription {
                    index_name: Some(i.name.clone()),
                    index_arn: Some(table.index_arn(&i.name)),
                    key_schema: Some(i.key_elements.clone()),
                    projection: Some(i.projection.clone()),
                    index_status: Some(i.status.clone()),
                    backfilling: (i.status == IndexStatus::Creating).then_some(true),
                    provisioned_throughput: Some(throughput(if provisioned {
                        i.throughput.clone()
                    } else {
                        None
                    })),
                    item_count: Some(i.store.item_count() as i64),
                    index_size_bytes: Some(i.store.size_bytes() as i64),
                })
                .collect(),
        ),
        local_secondary_indexes: non_empty(
            table
                .indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Local)
                .map(|i| LocalSecondaryIndexDescription {
                    index_name: Some(i.name.clone()),
                    index_arn: Some(table.index_arn(&i.name)),
                    key_schema: Some(i.key_elements.clone()),
                    projection: Some(i.projection.clone()),
                    item_count: Some(i.store.item_count() as i64),
                    index_size_bytes: Some(i.store.size_bytes() as i64),
                })
                .collect(),
        ),
        stream_specification: table.stream.clone(),
        latest_stream_arn: table
            .stream_label
            .as_ref()
            .map(|l| format!("{}/stream/{l}", table.arn())),
        latest_stream_label: table.stream_label.clone(),
        creation_date_time: Some(date(table.created_ms)),
        item_count: Some(table.store.item_count() as i64),
        table_size_bytes: Some(table.store.size_bytes() as i64),
        replicas: None,
        global_table_version: None,
        multi_region_consistency: None,
        sse_description: table.settings.sse.clone(),
    }
}
