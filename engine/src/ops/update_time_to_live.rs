//! UpdateTimeToLive and DescribeTimeToLive: name the attribute that holds each item's expiry.
//!
//! Semantics (reference §7): enabling names one top-level attribute (1–255 characters);
//! items whose attribute holds a Number of epoch seconds in the past are deleted by a
//! background sweep some time later (see the `ttl` module). Enabling when enabled, or
//! disabling when disabled, is a `ValidationException`, and so is a second change within an
//! hour. To change the attribute, disable and then (an hour later) enable.

use super::builder::{string_setter, value_setter};
use super::require_table_name;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::world::State;

/// Whether TTL is on, and on which attribute.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeToLiveSpecification {
    pub enabled: bool,
    pub attribute_name: String,
}

impl TimeToLiveSpecification {
    pub fn enabled(&self) -> bool {
        self.enabled
    }
    pub fn attribute_name(&self) -> &str {
        &self.attribute_name
    }
    /// Not part of the SDK: a shortcut for the builder.
    pub fn new(enabled: bool, attribute_name: impl Into<String>) -> Self {
        TimeToLiveSpecification {
            enabled,
            attribute_name: attribute_name.into(),
        }
    }
}

/// TTL as DescribeTimeToLive reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeToLiveDescription {
    /// `ENABLED` or `DISABLED`.
    pub time_to_live_status: String,
    pub attribute_name: Option<String>,
}

impl TimeToLiveDescription {
    pub fn attribute_name(&self) -> Option<&str> {
        self.attribute_name.as_deref()
    }
    /// Unlike the SDK (an `Option<&TimeToLiveStatus>`), the status as its name: `ENABLED` or
    /// `DISABLED`.
    pub fn time_to_live_status(&self) -> &str {
        &self.time_to_live_status
    }
}

/// The parameters of an UpdateTimeToLive request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateTimeToLiveInput {
    pub table_name: Option<String>,
    pub time_to_live_specification: Option<TimeToLiveSpecification>,
}

/// What UpdateTimeToLive returns.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateTimeToLiveOutput {
    pub time_to_live_specification: Option<TimeToLiveSpecification>,
}

impl UpdateTimeToLiveOutput {
    pub fn time_to_live_specification(&self) -> Option<&TimeToLiveSpecification> {
        self.time_to_live_specification.as_ref()
    }
}

/// Builds and sends an UpdateTimeToLive request.
#[derive(Clone, Debug)]
pub struct UpdateTimeToLiveFluentBuilder {
    client: Client,
    input: UpdateTimeToLiveInput,
}

impl UpdateTimeToLiveFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        UpdateTimeToLiveFluentBuilder {
            client,
            input: UpdateTimeToLiveInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    value_setter!(time_to_live_specification, set_time_to_live_specification, get_time_to_live_specification: TimeToLiveSpecification);

    pub fn send(
        self,
    ) -> std::result::Result<
        UpdateTimeToLiveOutput,
        crate::error::SdkError<crate::error::operations::UpdateTimeToLiveError>,
    > {
        self.client
            .world()
            .send("UpdateTimeToLive", |state| execute(state, &self.input))
    }
}

/// TTL settings may change once an hour.
pub const TTL_CHANGE_INTERVAL_MS: u64 = 3600 * 1000;

pub(crate) fn execute(
    state: &mut State,
    input: &UpdateTimeToLiveInput,
) -> Result<UpdateTimeToLiveOutput> {
    let name = require_table_name(&input.table_name)?.to_string();
    let spec = input.time_to_live_specification.clone().ok_or_else(|| {
        Exception::validation("The parameter 'TimeToLiveSpecification' is required but was not present in the request")
    })?;
    if spec.attribute_name.is_empty() || spec.attribute_name.len() > 255 {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{}' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length between 1 and 255",
            spec.attribute_name
        )));
    }
    let now = state.now_ms;
    let sweeper = std::sync::Arc::clone(&state.pieces.ttl_sweeper);
    let table = state.tables.get_mut(&name).ok_or_else(|| {
        Exception::resource_not_found(format!(
            "Requested resource not found: Table: {name} not found"
        ))
    })?;
    match (&table.ttl.attribute, spec.enabled) {
        (Some(_), true) => return Err(Exception::validation("TimeToLive is already enabled")),
        (None, false) => return Err(Exception::validation("TimeToLive is already disabled")),
        (Some(current), false) if *current != spec.attribute_name => {
            return Err(Exception::validation(format!(
                "TimeToLive is active on a different AttributeName: current AttributeName is {current}"
            )))
        }
        _ => {}
    }
    if table
        .ttl
        .last_change_ms
        .is_some_and(|t| now < t + TTL_CHANGE_INTERVAL_MS)
    {
        return Err(Exception::validation(
            "Time to live has been modified multiple times within a fixed interval",
        ));
    }
    table.ttl.last_change_ms = Some(now);
    if spec.enabled {
        let items = table
            .store
            .partitions
            .iter()
            .filter_map(|p| p.leader_data())
            .flat_map(|d| d.iter())
            .map(|(k, stored)| (k, stored.item()));
        table.ttl.enable(&spec.attribute_name, sweeper, items);
    } else {
        table.ttl.disable();
    }
    Ok(UpdateTimeToLiveOutput {
        time_to_live_specification: Some(spec),
    })
}

/// The parameters of a DescribeTimeToLive request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DescribeTimeToLiveInput {
    pub table_name: Option<String>,
}

/// What DescribeTimeToLive returns.
#[derive(Clone, Debug, PartialEq)]
pub struct DescribeTimeToLiveOutput {
    pub time_to_live_description: Option<TimeToLiveDescription>,
}

impl DescribeTimeToLiveOutput {
    pub fn time_to_live_description(&self) -> Option<&TimeToLiveDescription> {
        self.time_to_live_description.as_ref()
    }
}

/// Builds and sends a DescribeTimeToLive request.
#[derive(Clone, Debug)]
pub struct DescribeTimeToLiveFluentBuilder {
    client: Client,
    input: DescribeTimeToLiveInput,
}

impl DescribeTimeToLiveFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DescribeTimeToLiveFluentBuilder {
            client,
            input: DescribeTimeToLiveInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);

    pub fn send(
        self,
    ) -> std::result::Result<
        DescribeTimeToLiveOutput,
        crate::error::SdkError<crate::error::operations::DescribeTimeToLiveError>,
    > {
        self.client.world().send("DescribeTimeToLive", |state| {
            let name = require_table_name(&self.input.table_name)?;
            let table = state.tables.get(name).ok_or_else(|| {
                Exception::resource_not_found(format!(
                    "Requested resource not found: Table: {name} not found"
                ))
            })?;
            Ok(DescribeTimeToLiveOutput {
                time_to_live_description: Some(TimeToLiveDescription {
                    time_to_live_status: if table.ttl.attribute.is_some() {
                        "ENABLED"
                    } else {
                        "DISABLED"
                    }
                    .to_string(),
                    attribute_name: table.ttl.attribute.clone(),
                }),
            })
        })
    }
}
