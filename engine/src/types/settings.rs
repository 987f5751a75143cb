//! The shapes of a table's control-plane settings, as `aws_sdk_dynamodb::types` has them:
//! encryption at rest (`SseSpecification` in, `SseDescription` out), point-in-time recovery
//! (`PointInTimeRecoverySpecification` in, `ContinuousBackupsDescription` out), and the
//! `Endpoint` DescribeEndpoints lists.

use super::builders::shape_builder;
use super::fmt;

wire_enum!(
    /// Who holds the key a table is encrypted with: `KMS` (a KMS key) or `AES256` (the
    /// legacy name of the AWS owned key).
    SseType { Aes256 => "AES256", Kms => "KMS" }
);
wire_enum!(
    /// The state of a table's encryption settings.
    SseStatus {
        Enabling => "ENABLING",
        Enabled => "ENABLED",
        Disabling => "DISABLING",
        Disabled => "DISABLED",
        Updating => "UPDATING",
    }
);
wire_enum!(
    /// Whether continuous backups (and so point-in-time recovery) are on.
    ContinuousBackupsStatus { Enabled => "ENABLED", Disabled => "DISABLED" }
);
wire_enum!(
    /// Whether point-in-time recovery is on.
    PointInTimeRecoveryStatus { Enabled => "ENABLED", Disabled => "DISABLED" }
);

/// CreateTable's `SSESpecification`: `enabled = true` encrypts with a KMS key (the AWS
/// managed key unless `kms_master_key_id` names one); absent or `false`, the AWS owned key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseSpecification {
    pub enabled: Option<bool>,
    pub sse_type: Option<SseType>,
    pub kms_master_key_id: Option<String>,
}

shape_builder! {
    /// Builds an [`SseSpecification`]; every field is optional.
    SseSpecification => SseSpecificationBuilder, infallible {
        opt enabled / set_enabled / get_enabled: bool,
        opt sse_type / set_sse_type / get_sse_type: SseType,
        opt kms_master_key_id / set_kms_master_key_id / get_kms_master_key_id: String,
    }
}

/// DescribeTable's `SSEDescription`: present only for a table encrypted with a KMS key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseDescription {
    pub status: Option<SseStatus>,
    pub sse_type: Option<SseType>,
    pub kms_master_key_arn: Option<String>,
}

impl SseDescription {
    pub fn status(&self) -> Option<&SseStatus> {
        self.status.as_ref()
    }
    pub fn sse_type(&self) -> Option<&SseType> {
        self.sse_type.as_ref()
    }
    pub fn kms_master_key_arn(&self) -> Option<&str> {
        self.kms_master_key_arn.as_deref()
    }
}

/// UpdateContinuousBackups' `PointInTimeRecoverySpecification`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointInTimeRecoverySpecification {
    pub point_in_time_recovery_enabled: bool,
    pub recovery_period_in_days: Option<i32>,
}

shape_builder! {
    /// Builds a [`PointInTimeRecoverySpecification`]; `point_in_time_recovery_enabled` is
    /// required.
    PointInTimeRecoverySpecification => PointInTimeRecoverySpecificationBuilder, fallible {
        req point_in_time_recovery_enabled / set_point_in_time_recovery_enabled / get_point_in_time_recovery_enabled: bool,
        opt recovery_period_in_days / set_recovery_period_in_days / get_recovery_period_in_days: i32,
    }
}

/// What DescribeContinuousBackups reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContinuousBackupsDescription {
    /// Always `ENABLED`: every table can be backed up on demand.
    pub continuous_backups_status: ContinuousBackupsStatus,
    pub point_in_time_recovery_description: Option<PointInTimeRecoveryDescription>,
}

impl ContinuousBackupsDescription {
    pub fn continuous_backups_status(&self) -> &ContinuousBackupsStatus {
        &self.continuous_backups_status
    }
    pub fn point_in_time_recovery_description(&self) -> Option<&PointInTimeRecoveryDescription> {
        self.point_in_time_recovery_description.as_ref()
    }
}

/// Point-in-time recovery's state and window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointInTimeRecoveryDescription {
    pub point_in_time_recovery_status: Option<PointInTimeRecoveryStatus>,
    pub recovery_period_in_days: Option<i32>,
    /// Not part of the SDK (a `DateTime` there): simulated milliseconds since the world's
    /// epoch of the earliest restorable time.
    pub earliest_restorable_date_time_ms: Option<u64>,
    /// Not part of the SDK: the latest restorable time, as above.
    pub latest_restorable_date_time_ms: Option<u64>,
}

impl PointInTimeRecoveryDescription {
    pub fn point_in_time_recovery_status(&self) -> Option<&PointInTimeRecoveryStatus> {
        self.point_in_time_recovery_status.as_ref()
    }
    pub fn recovery_period_in_days(&self) -> Option<i32> {
        self.recovery_period_in_days
    }
}

/// One address DescribeEndpoints lists, and how long a client may cache it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub address: String,
    pub cache_period_in_minutes: i64,
}

impl Endpoint {
    pub fn address(&self) -> &str {
        &self.address
    }
    pub fn cache_period_in_minutes(&self) -> i64 {
        self.cache_period_in_minutes
    }
}
