//! Operations on a table as a resource, beyond its definition: tags (TagResource,
//! UntagResource, ListTagsOfResource, addressed by ARN), point-in-time recovery
//! (DescribeContinuousBackups, UpdateContinuousBackups), encryption at rest
//! (CreateTable's `SSESpecification`) — and the account-level DescribeEndpoints and
//! DescribeLimits.

use engine::types::{
    ContinuousBackupsDescription, PointInTimeRecoverySpecification, SseSpecification, Tag,
};
use serde_json::Value;

use super::read::Fields;
use super::write::Out;
use super::{Api, WireError};

type Result<T> = std::result::Result<T, WireError>;

/// A `Tags` list (CreateTable, TagResource). A tag missing its key or value has been
/// recorded as a constraint breach and is left out.
pub fn tags(req: &Fields<'_>) -> Result<Option<Vec<Tag>>> {
    let Some(list) = req.objects("Tags")? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(list.len());
    for t in list {
        let key = t.require("Key", t.string("Key")?);
        let value = t.require("Value", t.string("Value")?);
        if let (Some(key), Some(value)) = (key, value) {
            out.push(Tag { key, value });
        }
    }
    Ok(Some(out))
}

pub fn tag_resource(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .tag_resource()
        .set_resource_arn(req.string("ResourceArn")?)
        .set_tags(tags(req)?);
    req.finish()?;
    call.send()?;
    Ok(Out::new().done())
}

pub fn untag_resource(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .untag_resource()
        .set_resource_arn(req.string("ResourceArn")?)
        .set_tag_keys(req.strings("TagKeys")?);
    req.finish()?;
    call.send()?;
    Ok(Out::new().done())
}

pub fn list_tags_of_resource(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .list_tags_of_resource()
        .set_resource_arn(req.string("ResourceArn")?)
        .set_next_token(req.string("NextToken")?);
    req.finish()?;
    let out = call.send()?;
    let tags = out
        .tags()
        .iter()
        .map(|t| {
            Out::new()
                .str("Key", Some(t.key()))
                .str("Value", Some(t.value()))
                .done()
        })
        .collect();
    Ok(Out::new()
        .put("Tags", Some(Value::Array(tags)))
        .str("NextToken", out.next_token())
        .done())
}

/// CreateTable's `SSESpecification`.
pub fn sse_specification(req: &Fields<'_>) -> Result<Option<SseSpecification>> {
    let Some(f) = req.object("SSESpecification")? else {
        return Ok(None);
    };
    Ok(Some(
        SseSpecification::builder()
            .set_enabled(f.bool("Enabled")?)
            .set_sse_type(f.enumeration("SSEType")?)
            .set_kms_master_key_id(f.string("KMSMasterKeyId")?)
            .build(),
    ))
}

fn continuous_backups(d: Option<&ContinuousBackupsDescription>, epoch_seconds: u64) -> Value {
    let time = |ms: Option<u64>| ms.map(|ms| super::write::timestamp(epoch_seconds * 1000 + ms));
    let description = d.map(|d| {
        Out::new()
            .str(
                "ContinuousBackupsStatus",
                Some(d.continuous_backups_status().as_str()),
            )
            .put(
                "PointInTimeRecoveryDescription",
                d.point_in_time_recovery_description().map(|p| {
                    Out::new()
                        .str(
                            "PointInTimeRecoveryStatus",
                            p.point_in_time_recovery_status().map(|s| s.as_str()),
                        )
                        .put(
                            "RecoveryPeriodInDays",
                            p.recovery_period_in_days().map(Value::from),
                        )
                        .put(
                            "EarliestRestorableDateTime",
                            time(p.earliest_restorable_date_time_ms),
                        )
                        .put(
                            "LatestRestorableDateTime",
                            time(p.latest_restorable_date_time_ms),
                        )
                        .done()
                }),
            )
            .done()
    });
    Out::new()
        .put("ContinuousBackupsDescription", description)
        .done()
}

pub fn describe_continuous_backups(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let call = api
        .client
        .describe_continuous_backups()
        .set_table_name(req.string("TableName")?);
    req.finish()?;
    let out = call.send()?;
    Ok(continuous_backups(
        out.continuous_backups_description(),
        api.epoch_seconds,
    ))
}

pub fn update_continuous_backups(api: &Api, req: &Fields<'_>) -> Result<Value> {
    let spec = match req.object("PointInTimeRecoverySpecification")? {
        Some(f) => {
            let enabled = f.bool("PointInTimeRecoveryEnabled")?;
            let days = f.i32("RecoveryPeriodInDays")?;
            f.require("PointInTimeRecoveryEnabled", enabled)
                .map(|enabled| PointInTimeRecoverySpecification {
                    point_in_time_recovery_enabled: enabled,
                    recovery_period_in_days: days,
                })
        }
        None => None,
    };
    let call = api
        .client
        .update_continuous_backups()
        .set_table_name(req.string("TableName")?)
        .set_point_in_time_recovery_specification(spec);
    req.finish()?;
    let out = call.send()?;
    Ok(continuous_backups(
        out.continuous_backups_description(),
        api.epoch_seconds,
    ))
}

pub fn describe_endpoints(api: &Api, req: &Fields<'_>) -> Result<Value> {
    req.finish()?;
    let out = api.client.describe_endpoints().send()?;
    let endpoints = out
        .endpoints()
        .iter()
        .map(|e| {
            Out::new()
                .str("Address", Some(e.address()))
                .put(
                    "CachePeriodInMinutes",
                    Some(Value::from(e.cache_period_in_minutes())),
                )
                .done()
        })
        .collect();
    Ok(Out::new()
        .put("Endpoints", Some(Value::Array(endpoints)))
        .done())
}

pub fn describe_limits(api: &Api, req: &Fields<'_>) -> Result<Value> {
    req.finish()?;
    let out = api.client.describe_limits().send()?;
    Ok(Out::new()
        .put(
            "AccountMaxReadCapacityUnits",
            out.account_max_read_capacity_units().map(Value::from),
        )
        .put(
            "AccountMaxWriteCapacityUnits",
            out.account_max_write_capacity_units().map(Value::from),
        )
        .put(
            "TableMaxReadCapacityUnits",
            out.table_max_read_capacity_units().map(Value::from),
        )
        .put(
            "TableMaxWriteCapacityUnits",
            out.table_max_write_capacity_units().map(Value::from),
        )
        .done())
}
