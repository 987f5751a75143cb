//! A global table's replication group: adding a replica, removing one, describing them.
//!
//! UpdateTable's `replica_updates` come here once parsed (`ops::update_table`): each
//! `Create` copies the table into a new Region — definition, indexes, TTL setting and items,
//! as DynamoDB backfills a new replica — and each `Delete` removes one. The rules checked
//! first are DynamoDB's where it documents them, and say so where the wording is a guess.

use std::collections::BTreeSet;

use super::region::Region;
use super::replication::{GlobalTable, Shipment};
use crate::error::{Exception, Result};
use crate::types::{MultiRegionConsistency, ReplicationGroupUpdate, StreamViewType};
use crate::world::State;

fn invalid(reason: impl std::fmt::Display) -> Exception {
    Exception::validation(format!(
        "One or more parameter values were invalid: {reason}"
    ))
}

/// What one replica update asks for, once checked.
pub(crate) enum ReplicaChange {
    Create(Region),
    Delete(Region),
}

/// Checks the replica updates of a request against the table and the Regions.
pub(crate) fn changes(
    state: &State,
    name: &str,
    updates: &[ReplicationGroupUpdate],
    consistency: Option<MultiRegionConsistency>,
) -> Result<Vec<ReplicaChange>> {
    let here = state.regions.here.clone();
    let group = state.regions.global.get(name);
    match consistency {
        Some(MultiRegionConsistency::Strong) => {
            return Err(invalid(
                "MultiRegionConsistency STRONG (multi-Region strong consistency, MRSC) is not modelled by this engine; its global tables are all EVENTUAL (MREC)",
            ))
        }
        Some(MultiRegionConsistency::Eventual)
            if !updates.iter().any(|u| u.create.is_some()) =>
        {
            // Wording unverified against the service.
            return Err(invalid(
                "MultiRegionConsistency can only be specified together with a replica Create action",
            ));
        }
        _ => {}
    }
    if group.is_some_and(|g| !g.regions.contains(&here)) {
        return Err(invalid(format!(
            "A table named {name} is already a global table in other Regions; this engine keeps one replication group per table name"
        )));
    }
    let table = &state.tables[name];
    let mut changes = Vec::new();
    for update in updates {
        match (&update.create, &update.delete) {
            (Some(c), None) => {
                let region = check_region_name(&c.region_name)?;
                let exists = region == here
                    || group.is_some_and(|g| g.regions.contains(&region))
                    || state
                        .tables_of(&region)
                        .is_some_and(|t| t.contains_key(name));
                if exists {
                    // DynamoDB's wording (sic), unverified.
                    return Err(invalid(format!(
                        "Failed to create a the new replica of table with name: '{name}' because one or more replicas already existed as tables."
                    )));
                }
                if table
                    .stream.clone()
                    .is_some_and(|s| s.stream_view_type != Some(StreamViewType::NewAndOldImages))
                {
                    // Wording unverified against the service.
                    return Err(invalid(format!(
                        "Table {name} must have DynamoDB Streams with StreamViewType NEW_AND_OLD_IMAGES to be replicated"
                    )));
                }
                changes.push(ReplicaChange::Create(region));
            }
            (None, Some(d)) => {
                let region = check_region_name(&d.region_name)?;
                if region == here {
                    // Wording unverified against the service.
                    return Err(invalid(format!(
                        "Cannot delete the replica in {region} through its own endpoint: delete it with DeleteTable"
                    )));
                }
                if !group.is_some_and(|g| g.regions.contains(&region)) {
                    // Wording unverified against the service.
                    return Err(invalid(format!(
                        "Table {name} has no replica in {region}"
                    )));
                }
                changes.push(ReplicaChange::Delete(region));
            }
            // Wording unverified against the service.
            _ => {
                return Err(invalid(
                    "One of ReplicationGroupUpdate's Create, Update and Delete must be set, and only one",
                ))
            }
        }
    }
    Ok(changes)
}

/// A Region name: lower-case letters and digits in dash-separated words (`eu-west-1`).
fn check_region_name(name: &str) -> Result<Region> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name.split('-').count() >= 2
        && name.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !ok {
        return Err(invalid(format!("Invalid Region name: {name}")));
    }
    Ok(Region::new(name))
}

/// Makes `region` a replica of the global table `table` whose replica is in place: copies
/// the table (definition and items, as DynamoDB backfills a new replica), and forwards to it
/// what is still on its way to the Region it was copied from. The caller has validated.
pub(crate) fn add(state: &mut State, table: &str, region: &Region) {
    let here = state.regions.here.clone();
    let now = state.now_ms;
    let epoch_ms = state.config.epoch_seconds * 1000 + now;
    let mut copy = state.tables[table].clone();
    for store in
        std::iter::once(&mut copy.store).chain(copy.indexes.iter_mut().map(|i| &mut i.store))
    {
        store.catch_up(now);
        store.meter = Default::default();
        for p in &mut store.partitions {
            p.load = Default::default();
        }
    }
    copy.region = region.as_str().to_string();
    copy.created_ms = now;
    copy.settings.table_id = crate::table::settings::table_id(region.as_str(), table, now);
    let label = crate::world::stream_label(epoch_ms);
    let view = copy
        .stream_log
        .as_ref()
        .map(|s| s.view_type.clone())
        .unwrap_or(crate::types::StreamViewType::NewAndOldImages);
    let partitions: Vec<u32> = copy.store.partitions.iter().map(|p| p.id).collect();
    copy.stream_log = Some(crate::stream::Stream::new(
        crate::table::stream_arn(region.as_str(), table, &label),
        label.clone(),
        view,
        &partitions,
        now,
        state.pieces.stream_shards.clone(),
    ));
    copy.stream_label = Some(label);
    let g = state
        .regions
        .global
        .entry(table.to_string())
        .or_insert_with(|| GlobalTable {
            regions: BTreeSet::from([here.clone()]),
            ..GlobalTable::default()
        });
    g.regions.insert(region.clone());
    let copied: Vec<_> = g
        .versions
        .iter()
        .filter(|((r, _), _)| *r == here)
        .map(|((_, k), v)| ((region.clone(), k.clone()), v.clone()))
        .collect();
    g.versions.extend(copied);
    let forwarded: Vec<Shipment> = state
        .regions
        .in_flight
        .values()
        .filter(|s| s.table == table && s.to == here)
        .map(|s| Shipment {
            to: region.clone(),
            ..s.clone()
        })
        .collect();
    for s in forwarded {
        let seq = state.regions.next_shipment;
        state.regions.next_shipment += 1;
        state.regions.in_flight.insert((s.due_ms, seq), s);
    }
    state.enter(region);
    state.tables.insert(table.to_string(), copy);
    state.enter(&here);
}

/// Removes `region`'s replica of `table` from its replication group (its table is deleted
/// by the caller, or already was). Writes on their way to it are dropped; a group left with
/// one replica is a single-Region table again.
pub(crate) fn remove(state: &mut State, table: &str, region: &Region) {
    let Some(g) = state.regions.global.get_mut(table) else {
        return;
    };
    g.regions.remove(region);
    g.versions.retain(|(r, _), _| r != region);
    if g.regions.len() < 2 {
        state.regions.global.remove(table);
    }
    state
        .regions
        .in_flight
        .retain(|_, s| !(s.table == table && s.to == *region));
}

/// Fills in the replicas of a global table's description, as DescribeTable in the Region in
/// place shows them: the *other* Regions' replicas (whether DynamoDB also lists the
/// describing Region's own is unverified), the version and the consistency mode.
pub(crate) fn describe(
    state: &State,
    table: &str,
    description: &mut crate::types::TableDescription,
) {
    let here = &state.regions.here;
    let Some(g) = state
        .regions
        .global
        .get(table)
        .filter(|g| g.regions.contains(here))
    else {
        return;
    };
    description.replicas = Some(
        g.regions
            .iter()
            .filter(|r| *r != here)
            .map(|r| crate::types::ReplicaDescription {
                region_name: Some(r.to_string()),
                replica_status: Some(crate::types::ReplicaStatus::Active),
            })
            .collect(),
    );
    description.global_table_version = Some(super::GLOBAL_TABLE_VERSION.to_string());
    description.multi_region_consistency = Some(crate::types::MultiRegionConsistency::Eventual);
}
