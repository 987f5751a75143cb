//! Running a translated statement: the operations' own `run`, given the parsed expressions.
//!
//! The operations underneath always report their capacity in full (`INDEXES`) to the code
//! here, which adds up what several of them spent (the Queries of an `IN`, the statements
//! of a batch) and reports it the way the statement's request asked.

use crate::capacity::Consumption;
use crate::error::{Exception, Result};
use crate::expr::{Condition, ParsedExpressions, Projection};
use crate::ops::{delete_item, get_item, put_item, update_item};
use crate::types::{
    ConsumedCapacity, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use crate::value::Item;
use crate::world::State;

use super::parser::Select;
use super::{full_key, WritePlan, DUPLICATE_MESSAGE};

/// What a single write statement did: the item it returns (`RETURNING`) and what it cost.
pub(crate) struct Written {
    pub item: Option<Item>,
    pub consumption: Consumption,
}

/// Runs an `INSERT`, `UPDATE` or `DELETE` as its single-item write.
pub(crate) fn write(
    state: &mut State,
    plan: WritePlan,
    rv: Option<ReturnValuesOnConditionCheckFailure>,
) -> Result<Written> {
    let full = Some(ReturnConsumedCapacity::Indexes);
    let (item, capacity) = match plan {
        WritePlan::Put {
            table,
            item,
            parsed,
        } => {
            state.log.runs_as("PutItem");
            let input = put_item::PutItemInput {
                table_name: Some(table),
                item: Some(item),
                return_consumed_capacity: full,
                return_values_on_condition_check_failure: rv,
                ..Default::default()
            };
            let out = put_item::run(state, input, &parsed).map_err(|e| match e {
                Exception::ConditionalCheckFailed { .. } => Exception::DuplicateItem {
                    message: DUPLICATE_MESSAGE.to_string(),
                },
                other => other,
            })?;
            (None, out.consumed_capacity)
        }
        WritePlan::Update {
            table,
            key,
            parsed,
            returning,
        } => {
            state.log.runs_as("UpdateItem");
            let input = update_item::UpdateItemInput {
                table_name: Some(table),
                key: Some(key),
                return_values: returning,
                return_consumed_capacity: full,
                return_values_on_condition_check_failure: rv,
                ..Default::default()
            };
            let out = update_item::run(state, &input, &parsed)?;
            (out.attributes, out.consumed_capacity)
        }
        WritePlan::Delete {
            table,
            key,
            parsed,
            returning,
        } => {
            state.log.runs_as("DeleteItem");
            let input = delete_item::DeleteItemInput {
                table_name: Some(table),
                key: Some(key),
                return_values: returning.then_some(ReturnValue::AllOld),
                return_consumed_capacity: full,
                return_values_on_condition_check_failure: rv,
                ..Default::default()
            };
            let out = delete_item::run(state, &input, &parsed)?;
            (out.attributes, out.consumed_capacity)
        }
        WritePlan::Check { .. } => return Err(exists_outside_transaction()),
    };
    Ok(Written {
        item,
        consumption: capacity.as_ref().map(from_report).unwrap_or_default(),
    })
}

/// `EXISTS` anywhere but in a transaction of writes.
pub(crate) fn exists_outside_transaction() -> Exception {
    Exception::validation("EXISTS can only be used in ExecuteTransaction write requests.")
}

/// A `SELECT` that names one item by its full key (in a batch or a transaction).
pub(crate) struct KeyRead {
    pub table: String,
    pub key: Item,
    pub projection: Option<Projection>,
    /// What the `WHERE` says beyond the key.
    pub rest: Option<Condition>,
}

pub(crate) fn key_read(state: &State, s: &Select) -> Result<KeyRead> {
    let (_, key, rest) = full_key(state, &s.table, s.condition.as_ref())?;
    let projection = match &s.projection {
        Some(paths) => Some(super::translate::projection(paths)?),
        None => None,
    };
    Ok(KeyRead {
        table: s.table.clone(),
        key,
        projection,
        rest: rest.map(|root| Condition { root }),
    })
}

/// Reads one item as a GetItem does (a batch's `SELECT`); the rest of the `WHERE` decides
/// whether the item read is returned, after it was read and paid for.
pub(crate) fn get(
    state: &mut State,
    read: KeyRead,
    consistent: Option<bool>,
) -> Result<(Option<Item>, Consumption)> {
    let input = get_item::GetItemInput {
        table_name: Some(read.table.clone()),
        key: Some(read.key),
        consistent_read: consistent,
        return_consumed_capacity: Some(ReturnConsumedCapacity::Indexes),
        ..Default::default()
    };
    let out = get_item::run(state, &read.table, &input, &ParsedExpressions::default())?;
    let consumption = out.consumed_capacity().map(from_report).unwrap_or_default();
    let item = out
        .into_item()
        .filter(|item| read.rest.as_ref().is_none_or(|c| c.evaluate(Some(item))))
        .map(|item| match &read.projection {
            Some(p) => p.apply(&item),
            None => item,
        });
    Ok((item, consumption))
}

/// What an operation spent, read back from its full (`INDEXES`) report.
pub(crate) fn from_report(c: &ConsumedCapacity) -> Consumption {
    let units = |cap: Option<&crate::types::Capacity>| {
        cap.map_or((0.0, 0.0), |c| {
            (
                c.read_capacity_units().unwrap_or(0.0),
                c.write_capacity_units().unwrap_or(0.0),
            )
        })
    };
    let (read, write) = units(c.table());
    let mut consumption = Consumption {
        read,
        write,
        ..Consumption::default()
    };
    let indexes = [
        (c.global_secondary_indexes(), true),
        (c.local_secondary_indexes(), false),
    ];
    for (map, global) in indexes {
        for (name, cap) in map.into_iter().flatten() {
            let (r, w) = units(Some(cap));
            consumption.indexes.insert(name.clone(), (r, w, global));
        }
    }
    consumption
}
