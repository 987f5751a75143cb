//! DescribeLimits: the account's and a table's throughput quotas in this Region.
//!
//! DynamoDB's defaults (reference §0): 40,000 read and 40,000 write capacity units per
//! table, 80,000 each per account (provisioned mode; adjustable through Service Quotas).
//! The model reports the defaults; it does not enforce the account-wide sums.

use crate::client::Client;

/// The parameters of a DescribeLimits request: none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DescribeLimitsInput {}

/// What DescribeLimits returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DescribeLimitsOutput {
    pub account_max_read_capacity_units: Option<i64>,
    pub account_max_write_capacity_units: Option<i64>,
    pub table_max_read_capacity_units: Option<i64>,
    pub table_max_write_capacity_units: Option<i64>,
}

impl DescribeLimitsOutput {
    pub fn account_max_read_capacity_units(&self) -> Option<i64> {
        self.account_max_read_capacity_units
    }
    pub fn account_max_write_capacity_units(&self) -> Option<i64> {
        self.account_max_write_capacity_units
    }
    pub fn table_max_read_capacity_units(&self) -> Option<i64> {
        self.table_max_read_capacity_units
    }
    pub fn table_max_write_capacity_units(&self) -> Option<i64> {
        self.table_max_write_capacity_units
    }
}

/// Builds and sends a DescribeLimits request.
#[derive(Clone, Debug)]
pub struct DescribeLimitsFluentBuilder {
    client: Client,
}

impl DescribeLimitsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DescribeLimitsFluentBuilder { client }
    }

    pub fn send(
        self,
    ) -> std::result::Result<
        DescribeLimitsOutput,
        crate::error::SdkError<crate::error::operations::DescribeLimitsError>,
    > {
        self.client.world().send("DescribeLimits", |_| {
            Ok(DescribeLimitsOutput {
                account_max_read_capacity_units: Some(ACCOUNT_MAX_CAPACITY_UNITS),
                account_max_write_capacity_units: Some(ACCOUNT_MAX_CAPACITY_UNITS),
                table_max_read_capacity_units: Some(TABLE_MAX_CAPACITY_UNITS),
                table_max_write_capacity_units: Some(TABLE_MAX_CAPACITY_UNITS),
            })
        })
    }
}

/// Read (and, separately, write) capacity units one table may have. DynamoDB: 40,000.
pub const TABLE_MAX_CAPACITY_UNITS: i64 = 40_000;
/// Read (and, separately, write) capacity units all of an account's tables may have in a
/// Region. DynamoDB: 80,000.
pub const ACCOUNT_MAX_CAPACITY_UNITS: i64 = 80_000;
