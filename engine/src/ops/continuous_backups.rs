//! DescribeContinuousBackups and UpdateContinuousBackups: point-in-time recovery (PITR).
//!
//! Every table has continuous backups in the sense that it can be backed up on demand, so
//! `ContinuousBackupsStatus` is always `ENABLED`; point-in-time recovery — restoring the
//! table as it was at any second of the recovery period — is off until
//! UpdateContinuousBackups turns it on. Once on, the restorable window runs from the moment
//! it was enabled (or the start of the recovery period, 35 days by default, 1–35) to five
//! minutes before now.
//!
//! Left out: restoring (RestoreTableToPointInTime); the model keeps no history to restore
//! from, only the setting and its window.

use super::builder::{string_setter, value_setter};
use super::require_table_name;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::table::Table;
use crate::types::{
    ContinuousBackupsDescription, ContinuousBackupsStatus, PointInTimeRecoveryDescription,
    PointInTimeRecoverySpecification, PointInTimeRecoveryStatus,
};
use crate::world::State;

/// The table, or `TableNotFoundException` (these operations' own "not found"; message
/// unverified).
fn table<'a>(state: &'a mut State, name: &Option<String>) -> Result<&'a mut Table> {
    let name = require_table_name(name)?;
    state
        .tables
        .get_mut(name)
        .ok_or_else(|| Exception::TableNotFound {
            message: format!("Table not found: {name}"),
        })
}

fn description(table: &Table, now_ms: u64) -> ContinuousBackupsDescription {
    let pitr = &table.settings.point_in_time_recovery;
    let window = pitr.enabled_at_ms.map(|enabled| {
        let days = u64::from(pitr.recovery_period_in_days.unsigned_abs());
        let period_start = now_ms.saturating_sub(days * 24 * 3600 * 1000);
        let latest = now_ms.saturating_sub(LATEST_RESTORABLE_LAG_MS).max(enabled);
        (enabled.max(period_start), latest)
    });
    ContinuousBackupsDescription {
        continuous_backups_status: ContinuousBackupsStatus::Enabled,
        point_in_time_recovery_description: Some(PointInTimeRecoveryDescription {
            point_in_time_recovery_status: Some(if window.is_some() {
                PointInTimeRecoveryStatus::Enabled
            } else {
                PointInTimeRecoveryStatus::Disabled
            }),
            recovery_period_in_days: window.map(|_| pitr.recovery_period_in_days),
            earliest_restorable_date_time_ms: window.map(|w| w.0),
            latest_restorable_date_time_ms: window.map(|w| w.1),
        }),
    }
}

/// The parameters of a DescribeContinuousBackups request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DescribeContinuousBackupsInput {
    pub table_name: Option<String>,
}

/// What DescribeContinuousBackups returns.
#[derive(Clone, Debug, PartialEq)]
pub struct DescribeContinuousBackupsOutput {
    pub continuous_backups_description: Option<ContinuousBackupsDescription>,
}

impl DescribeContinuousBackupsOutput {
    pub fn continuous_backups_description(&self) -> Option<&ContinuousBackupsDescription> {
        self.continuous_backups_description.as_ref()
    }
}

/// Builds and sends a DescribeContinuousBackups request.
#[derive(Clone, Debug)]
pub struct DescribeContinuousBackupsFluentBuilder {
    client: Client,
    input: DescribeContinuousBackupsInput,
}

impl DescribeContinuousBackupsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DescribeContinuousBackupsFluentBuilder {
            client,
            input: DescribeContinuousBackupsInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);

    pub fn send(
        self,
    ) -> std::result::Result<
        DescribeContinuousBackupsOutput,
        crate::error::SdkError<crate::error::operations::DescribeContinuousBackupsError>,
    > {
        self.client
            .world()
            .send("DescribeContinuousBackups", |state| {
                let now = state.now_ms;
                let table = table(state, &self.input.table_name)?;
                Ok(DescribeContinuousBackupsOutput {
                    continuous_backups_description: Some(description(table, now)),
                })
            })
    }
}

/// The parameters of an UpdateContinuousBackups request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateContinuousBackupsInput {
    pub table_name: Option<String>,
    pub point_in_time_recovery_specification: Option<PointInTimeRecoverySpecification>,
}

/// What UpdateContinuousBackups returns: the settings after the change.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateContinuousBackupsOutput {
    pub continuous_backups_description: Option<ContinuousBackupsDescription>,
}

impl UpdateContinuousBackupsOutput {
    pub fn continuous_backups_description(&self) -> Option<&ContinuousBackupsDescription> {
        self.continuous_backups_description.as_ref()
    }
}

/// Builds and sends an UpdateContinuousBackups request.
#[derive(Clone, Debug)]
pub struct UpdateContinuousBackupsFluentBuilder {
    client: Client,
    input: UpdateContinuousBackupsInput,
}

impl UpdateContinuousBackupsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        UpdateContinuousBackupsFluentBuilder {
            client,
            input: UpdateContinuousBackupsInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    value_setter!(point_in_time_recovery_specification, set_point_in_time_recovery_specification, get_point_in_time_recovery_specification: PointInTimeRecoverySpecification);

    pub fn send(
        self,
    ) -> std::result::Result<
        UpdateContinuousBackupsOutput,
        crate::error::SdkError<crate::error::operations::UpdateContinuousBackupsError>,
    > {
        self.client.world().send("UpdateContinuousBackups", |state| {
            let spec = self.input.point_in_time_recovery_specification.ok_or_else(|| {
                Exception::validation(
                    "1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null",
                )
            })?;
            let days = spec.recovery_period_in_days.unwrap_or(MAX_RECOVERY_PERIOD_DAYS);
            if !(1..=MAX_RECOVERY_PERIOD_DAYS).contains(&days) {
                return Err(Exception::validation(format!(
                    "1 validation error detected: Value '{days}' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value {} {}",
                    if days < 1 { "greater than or equal to" } else { "less than or equal to" },
                    if days < 1 { 1 } else { MAX_RECOVERY_PERIOD_DAYS }
                )));
            }
            let now = state.now_ms;
            let table = table(state, &self.input.table_name)?;
            let pitr = &mut table.settings.point_in_time_recovery;
            if spec.point_in_time_recovery_enabled {
                pitr.enabled_at_ms.get_or_insert(now);
                pitr.recovery_period_in_days = days;
            } else {
                pitr.enabled_at_ms = None;
            }
            Ok(UpdateContinuousBackupsOutput {
                continuous_backups_description: Some(description(table, now)),
            })
        })
    }
}

/// The longest (and default) recovery period, in days. DynamoDB: 35.
pub const MAX_RECOVERY_PERIOD_DAYS: i32 = 35;
/// How far behind now the latest restorable time is. DynamoDB: about five minutes.
pub const LATEST_RESTORABLE_LAG_MS: u64 = 5 * 60 * 1000;
