//! # Operations
//!
//! One file per DynamoDB operation, each with the same shape (after mini-redis's `cmd/`):
//! the request's fields (an `…Input`), a fluent builder that ends in `send()`, the output
//! with the SDK's field names, and `execute`, which reads as the semantics reference does —
//! validate everything first, then take effect. Nothing is written until every check has
//! passed, so a rejected request leaves the world exactly as it was.
//!
//! The operations whose requests carry expressions have two entry points: `execute` parses
//! the expression strings (or the legacy parameters, `legacy`) and hands the parsed form
//! to `run`, which does the rest. PartiQL's statements (`partiql`) enter at `run`, with
//! the parsed form their translation built, so a statement cannot read, cost or log
//! anything the operation itself would not.
//!
//! This file holds what the operations share: finding the table, validating an item for a
//! write, admitting a write, shaping errors. Committing a write, and everything a write
//! sets off, is the write path's ([`crate::write`]), reached through `State::commit_write`.

pub mod batch_execute_statement;
pub mod batch_get_item;
pub mod batch_write_item;
pub mod continuous_backups;
pub mod create_table;
pub mod delete_item;
pub mod delete_table;
pub mod describe_endpoints;
pub mod describe_limits;
pub mod describe_table;
pub mod execute_statement;
pub mod execute_transaction;
pub mod get_item;
pub mod list_tables;
pub mod paginate;
pub mod put_item;
pub mod query;
pub mod scan;
pub mod streams;
pub mod tags;
pub mod transact_get_items;
pub mod transact_write_items;
pub mod update_item;
pub mod update_table;
pub mod update_time_to_live;

mod builder;
mod echo;
pub mod items;
pub(crate) mod legacy;
pub(crate) mod partiql;
mod read_path;

use crate::error::{Exception, Result};
use crate::expr::{ExpressionInput, ParsedExpressions};
use crate::table::key::{KeyValue, StoreKey};
use crate::table::Table;
use crate::types::{ReturnValuesOnConditionCheckFailure, ScalarAttributeType};
use crate::value::{canonicalize_item, item_size, Item};

use crate::world::State;
/// The cost of one item write, in write units ([`crate::write::cost`]).
pub(crate) use crate::write::cost as write_cost;

/// The `TableName` of a read or write (the data plane): present, 1–1024 characters. The
/// API model types it as a name or an ARN (`TableArn`, length 1–1024, no pattern), so a name
/// no table could have (`ab`, `my table`) is not a ValidationException here but simply names
/// no table (ResourceNotFoundException); the 3–255 rule is CreateTable's. Messages as the
/// service words them (verified by a peer conformance suite for the missing name).
pub(crate) fn require_data_table_name(name: &Option<String>) -> Result<&str> {
    let Some(name) = name.as_deref() else {
        return Err(Exception::validation(
            "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null",
        ));
    };
    if name.is_empty() || name.len() > MAX_TABLE_ARN_LENGTH {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{name}' at 'tableName' failed to satisfy constraint: Member must have length {}",
            if name.is_empty() {
                "greater than or equal to 1".to_string()
            } else {
                format!("less than or equal to {MAX_TABLE_ARN_LENGTH}")
            }
        )));
    }
    Ok(name)
}

/// The `TableName` of CreateTable and the control plane: present, 3–255 characters of
/// `[a-zA-Z0-9_.-]`.
pub(crate) fn require_table_name(name: &Option<String>) -> Result<&str> {
    let name = name.as_deref().ok_or_else(|| {
        Exception::validation(
            "The parameter 'TableName' is required but was not present in the request",
        )
    })?;
    validate_name(name, "tableName")?;
    Ok(name)
}

/// Table and index names: 3–255 characters of `[a-zA-Z0-9_.-]`.
pub(crate) fn validate_name(name: &str, field: &str) -> Result<()> {
    let mut problems = Vec::new();
    if name.len() < 3 {
        problems.push(format!(
            "Value '{name}' at '{field}' failed to satisfy constraint: Member must have length greater than or equal to 3"
        ));
    }
    if name.len() > 255 {
        problems.push(format!(
            "Value '{name}' at '{field}' failed to satisfy constraint: Member must have length less than or equal to 255"
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
    {
        problems.push(format!(
            "Value '{name}' at '{field}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    let n = problems.len();
    Err(Exception::validation(format!(
        "{n} validation error{} detected: {}",
        if n == 1 { "" } else { "s" },
        problems.join("; ")
    )))
}

/// The table a data-plane request names, or `ResourceNotFoundException`.
/// The table a read or write names. A table still `CREATING` is refused as if it did not
/// exist, as DynamoDB refuses it (the same ResourceNotFoundException and message; the
/// message for this case is unverified).
pub(crate) fn table<'a>(state: &'a State, name: &str) -> Result<&'a Table> {
    state
        .tables
        .get(name)
        .filter(|t| t.status != crate::types::TableStatus::Creating)
        .ok_or_else(|| Exception::resource_not_found("Requested resource not found"))
}

/// Parses and validates every expression of a request together (placeholder bookkeeping
/// spans all of them).
pub(crate) fn parse_expressions(input: &ExpressionInput<'_>) -> Result<ParsedExpressions> {
    crate::expr::parse_request(input)
}

/// Validates an item for a write to `table`: canonical values, key attributes present and
/// typed, index keys typed, within the size limit. Returns its store key and canonical form.
pub(crate) fn prepare_item(
    table: &Table,
    item: Item,
    max_item_size: usize,
    update: bool,
) -> Result<(StoreKey, Item)> {
    let item = canonicalize_item(item)?;
    let key = table.schema().key_of_item(&item)?;
    check_index_keys(table, &item)?;
    check_item_size(&item, max_item_size, update)?;
    Ok((key, item))
}

pub(crate) fn check_item_size(item: &Item, max_item_size: usize, update: bool) -> Result<()> {
    if item_size(item) > max_item_size {
        return Err(Exception::validation(if update {
            "Item size to update has exceeded the maximum allowed size"
        } else {
            "Item size has exceeded the maximum allowed size"
        }));
    }
    Ok(())
}

/// An attribute that is an index key must have the index's declared type and be non-empty.
pub(crate) fn check_index_keys(table: &Table, item: &Item) -> Result<()> {
    for index in &table.indexes {
        for element in &index.key_elements {
            let name = &element.attribute_name;
            let Some(value) = item.get(name) else {
                continue;
            };
            let expected = attribute_type(table, name).unwrap_or(ScalarAttributeType::S);
            let Some(kv) = KeyValue::from_attribute(value, expected.clone()) else {
                return Err(Exception::validation(format!(
                    "One or more parameter values were invalid: Type mismatch for Index Key {name} Expected: {} Actual: {} IndexName: {}",
                    expected.as_str(),
                    value.type_name(),
                    index.name
                )));
            };
            let is_pk = element.key_type == crate::types::KeyType::Hash;
            crate::table::key::check_key_value(name, &kv, is_pk)?;
        }
    }
    Ok(())
}

/// The declared type of an attribute in the table's AttributeDefinitions.
pub(crate) fn attribute_type(table: &Table, name: &str) -> Option<ScalarAttributeType> {
    table
        .attribute_definitions
        .iter()
        .find(|d| d.attribute_name == name)
        .map(|d| d.attribute_type.clone())
}

/// An index being backfilled cannot be read yet.
pub(crate) fn check_index_readable(index: &crate::table::Index) -> Result<()> {
    if index.status == crate::types::IndexStatus::Creating {
        return Err(Exception::validation(format!(
            "Cannot read from backfilling global secondary index: {}",
            index.name
        )));
    }
    Ok(())
}

/// The error of a failed condition, carrying the current item if the request asked for it.
pub(crate) fn condition_failed(
    current: Option<&Item>,
    rv: Option<ReturnValuesOnConditionCheckFailure>,
) -> Exception {
    let item = match rv {
        Some(ReturnValuesOnConditionCheckFailure::AllOld) => current.cloned(),
        _ => None,
    };
    Exception::ConditionalCheckFailed {
        message: "The conditional request failed".to_string(),
        item,
    }
}

/// What a write reports of the item collection it changed, when the request asked for it
/// (`ReturnItemCollectionMetrics=SIZE`) and the table has local secondary indexes; read
/// after the write ([`crate::write::item_collection_metrics`]).
pub(crate) fn collection_metrics(
    state: &State,
    table_name: &str,
    key: Option<&StoreKey>,
) -> Option<crate::types::ItemCollectionMetrics> {
    crate::write::item_collection_metrics(state.tables.get(table_name)?, key?)
}

/// The item-collection metrics of a batch or a transaction: table → one entry per item
/// collection among the `written` keys (writes to one partition key share one), after the
/// writes; tables without local secondary indexes have none.
pub(crate) fn collections_metrics(
    state: &State,
    written: &[(String, StoreKey)],
) -> std::collections::HashMap<String, Vec<crate::types::ItemCollectionMetrics>> {
    let mut metrics: std::collections::HashMap<String, Vec<crate::types::ItemCollectionMetrics>> =
        std::collections::HashMap::new();
    for (name, key) in written {
        if let Some(m) = collection_metrics(state, name, Some(key)) {
            let list = metrics.entry(name.clone()).or_default();
            if !list.contains(&m) {
                list.push(m);
            }
        }
    }
    metrics
}

/// Whether a request asked for item-collection metrics.
pub(crate) fn wants_metrics(m: Option<crate::types::ReturnItemCollectionMetrics>) -> bool {
    m == Some(crate::types::ReturnItemCollectionMetrics::Size)
}

/// Checks that the partition holding `key` can take a write now.
pub(crate) fn check_writable(state: &State, table_name: &str, key: &StoreKey) -> Result<()> {
    let table = table(state, table_name)?;
    table
        .store
        .check_writable(table.store.locate(key.hash), state.now_ms)
}

/// Admits a table write: the table partition's capacity for the item, and every global
/// secondary index partition the write will change (back-pressure: an index without
/// capacity throttles the table write). Returns what the write consumes, per table and
/// index. Nothing is written here.
pub(crate) fn admit_item_write(
    state: &mut State,
    table_name: &str,
    key: &StoreKey,
    new: Option<&Item>,
    transactional: bool,
) -> Result<crate::capacity::Consumption> {
    let table = table(state, table_name)?;
    let old = table.store.current(key);
    crate::write::check_item_collection(
        table,
        key,
        old,
        new,
        state.config.item_collection_size_limit,
    )?;
    let base = crate::write::cost(old, new, transactional);
    let factor = if transactional { 2.0 } else { 1.0 };
    let mut consumption = crate::capacity::Consumption::write(base);
    let mut gsi_admissions = Vec::new();
    if !table.indexes.is_empty() {
        for cost in crate::index::propagate::costs(table, old, new) {
            let units = cost.units * factor;
            let global = cost.kind == crate::table::IndexKind::Global;
            if global {
                // The index's units are spread evenly over the partitions its writes fall
                // on, not each write's own units to its own partition: the model's
                // simplification (a key change whose old and new entries round to different
                // units charges each partition the average), kept as it was before the
                // propagation seam so that runs replay unchanged.
                let share = units / cost.hashes.len().max(1) as f64;
                for h in &cost.hashes {
                    gsi_admissions.push((cost.index.clone(), *h, share));
                }
            }
            consumption.indexes.insert(cost.index, (0.0, units, global));
        }
    }
    // Local index writes spend the table's capacity.
    let lsi_units: f64 = consumption
        .indexes
        .values()
        .filter(|(_, _, g)| !*g)
        .map(|(_, w, _)| w)
        .sum();
    for (index, hash, units) in gsi_admissions {
        state.admit_index_write(table_name, &index, hash, units)?;
    }
    state.admit_write(table_name, key.hash, base + lsi_units)?;
    Ok(consumption)
}

/// Longest `TableName` a read or write accepts (a table's ARN fits). DynamoDB: 1024.
pub const MAX_TABLE_ARN_LENGTH: usize = 1024;
