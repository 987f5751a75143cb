//! Query: read one item collection — the items sharing a partition key — in sort-key order.
//!
//! Semantics (reference §4.7, §5.5): the `KeyConditionExpression` names the partition key
//! with `=` and optionally one condition on the sort key (`= < <= > >= BETWEEN begins_with`).
//! Items come back sorted by sort key (`ScanIndexForward=false` reverses). Each page reads at
//! most `Limit` items and at most 1 MB; the filter runs *after* the read, so filtered-out
//! items still count against `Limit` and still cost. A page that stopped early carries a
//! `LastEvaluatedKey` to pass back as `ExclusiveStartKey`. Cost: the sizes of all items read,
//! summed and rounded up to 4 KB once (at least one unit for the partition touched).
//!
//! On an index (`IndexName`), the same walk runs over the index's entries; a global secondary
//! index is eventually consistent only.

use std::collections::HashMap;
use std::ops::Bound;

use super::builder::{
    item_setters, list_setters, map_setters, placeholder_setters, string_setter, value_setter,
};
use super::items::Items;
use super::read_path::{
    evaluated_key, fetched_units, highest_with, lowest_with, start_key, walk, Fetch, Pager,
};
use super::{require_data_table_name, table};
use crate::capacity::{read_units_min_blocks, Consumption, ReadKind};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::expr::{ExpressionInput, SortCondition};
use crate::table::key::{KeyValue, StoreKey};
use crate::table::IndexKind;
use crate::types::{ConsumedCapacity, ReturnConsumedCapacity, Select};
use crate::value::{AttributeValue, Item};
use crate::world::State;

/// The parameters of a Query request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryInput {
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub key_condition_expression: Option<String>,
    pub filter_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub select: Option<Select>,
    pub limit: Option<i32>,
    pub consistent_read: Option<bool>,
    pub scan_index_forward: Option<bool>,
    pub exclusive_start_key: Option<Item>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
    /// Legacy: the key conditions (`KeyConditionExpression`'s predecessor).
    pub key_conditions: Option<HashMap<String, crate::types::Condition>>,
    /// Legacy: the filter (`FilterExpression`'s predecessor).
    pub query_filter: Option<HashMap<String, crate::types::Condition>>,
    /// Legacy: the attributes to return (`ProjectionExpression`'s predecessor).
    pub attributes_to_get: Option<Vec<String>>,
    /// Legacy: how the entries of `query_filter` combine (`AND` when absent).
    pub conditional_operator: Option<crate::types::ConditionalOperator>,
}

/// One page of Query results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryOutput {
    /// The matching items (absent with `Select=COUNT`), shared with the store ([`Items`]).
    pub items: Option<Items>,
    /// Items returned (after the filter).
    pub count: i32,
    /// Items read (before the filter).
    pub scanned_count: i32,
    /// Present when the page stopped early; pass it back as `ExclusiveStartKey`.
    pub last_evaluated_key: Option<Item>,
    pub consumed_capacity: Option<ConsumedCapacity>,
}

impl QueryOutput {
    /// The items of this page (empty with `Select=COUNT`).
    /// The items of this page (empty with `Select=COUNT`). The SDK's gives a
    /// `&[HashMap<..>]`; [`Items`] reads the same without copying.
    pub fn items(&self) -> &Items {
        self.items.as_ref().unwrap_or(Items::empty())
    }
    pub fn count(&self) -> i32 {
        self.count
    }
    pub fn scanned_count(&self) -> i32 {
        self.scanned_count
    }
    pub fn last_evaluated_key(&self) -> Option<&Item> {
        self.last_evaluated_key.as_ref()
    }
    pub fn consumed_capacity(&self) -> Option<&ConsumedCapacity> {
        self.consumed_capacity.as_ref()
    }
}

/// Builds and sends a Query request.
#[derive(Clone, Debug)]
pub struct QueryFluentBuilder {
    client: Client,
    input: QueryInput,
}

impl QueryFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        QueryFluentBuilder {
            client,
            input: QueryInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    string_setter!(index_name, set_index_name, get_index_name);
    string_setter!(
        key_condition_expression,
        set_key_condition_expression,
        get_key_condition_expression
    );
    string_setter!(
        filter_expression,
        set_filter_expression,
        get_filter_expression
    );
    string_setter!(
        projection_expression,
        set_projection_expression,
        get_projection_expression
    );
    placeholder_setters!();
    value_setter!(select, set_select, get_select: Select);
    value_setter!(limit, set_limit, get_limit: i32);
    value_setter!(consistent_read, set_consistent_read, get_consistent_read: bool);
    value_setter!(scan_index_forward, set_scan_index_forward, get_scan_index_forward: bool);
    item_setters!(
        /// Adds one attribute of the key to start after.
        exclusive_start_key, set_exclusive_start_key, get_exclusive_start_key, exclusive_start_key
    );
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);
    map_setters!(
        /// Legacy: adds one key condition.
        key_conditions, set_key_conditions, get_key_conditions: crate::types::Condition
    );
    map_setters!(
        /// Legacy: adds one filter condition.
        query_filter, set_query_filter, get_query_filter: crate::types::Condition
    );
    list_setters!(
        /// Legacy: adds one attribute to return.
        attributes_to_get, set_attributes_to_get, get_attributes_to_get: String
    );
    value_setter!(conditional_operator, set_conditional_operator, get_conditional_operator: crate::types::ConditionalOperator);

    pub fn send(
        self,
    ) -> std::result::Result<
        QueryOutput,
        crate::error::SdkError<crate::error::operations::QueryError>,
    > {
        self.client
            .world()
            .send("Query", |state| execute(state, &self.input))
    }
}

/// Checks `Limit` (≥ 1) and returns it as a count. The two reads word the refusal
/// differently, as the service does (both verified by a peer conformance suite): Query's
/// message names the member `Limit` and quotes no value, Scan's quotes the value at `limit`.
pub(crate) fn check_limit(limit: Option<i32>, query: bool) -> Result<Option<usize>> {
    match limit {
        Some(_) if query && limit < Some(1) => Err(Exception::validation(
            "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
        )),
        Some(l) if l < 1 => Err(Exception::validation(format!(
            "1 validation error detected: Value '{l}' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
        ))),
        Some(l) => Ok(Some(l as usize)),
        None => Ok(None),
    }
}

/// Checks `Select` against the projection and the index; returns whether only a count is wanted.
pub(crate) fn check_select(
    select: Option<Select>,
    has_projection: bool,
    index: Option<(&str, IndexKind, bool)>,
) -> Result<bool> {
    let select = match select {
        Some(s) => s,
        None => return Ok(false),
    };
    if has_projection && select != Select::SpecificAttributes {
        return Err(Exception::validation(format!(
            "Cannot specify the ProjectionExpression when choosing to get {}",
            select.as_str()
        )));
    }
    match select {
        Select::SpecificAttributes if !has_projection => Err(Exception::validation(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        )),
        Select::AllProjectedAttributes if index.is_none() => Err(Exception::validation(
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
        )),
        Select::AllAttributes => match index {
            Some((name, IndexKind::Global, false)) => Err(Exception::validation(format!(
                "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index {name} because its projection type is not ALL"
            ))),
            _ => Ok(false),
        },
        Select::Count => Ok(true),
        _ => Ok(false),
    }
}

pub(crate) fn execute(state: &mut State, input: &QueryInput) -> Result<QueryOutput> {
    let name = require_data_table_name(&input.table_name)?;
    state.log.target(name, input.index_name.as_deref());
    if input.key_condition_expression.is_none() && input.key_conditions.is_none() {
        return Err(Exception::validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."));
    }
    let legacy = super::legacy::LegacyInput {
        key_conditions: input.key_conditions.as_ref(),
        query_filter: input.query_filter.as_ref(),
        attributes_to_get: input.attributes_to_get.as_deref(),
        conditional_operator: input.conditional_operator.clone(),
        select: input.select.clone(),
        ..Default::default()
    };
    let parsed = super::legacy::parse(
        &legacy,
        &ExpressionInput {
            key_condition: input.key_condition_expression.as_deref(),
            filter: input.filter_expression.as_deref(),
            projection: input.projection_expression.as_deref(),
            names: input.expression_attribute_names.as_ref(),
            values: input.expression_attribute_values.as_ref(),
            ..ExpressionInput::default()
        },
    )?;
    run(state, input, &parsed, KeyFilter::Refused)
}

/// Whether a filter may name the key attributes of the store it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyFilter {
    /// The Query API's rule: a `FilterExpression` on a key attribute is refused (the key
    /// condition is the place for it).
    Refused,
    /// A PartiQL `SELECT`: every condition of the `WHERE` that is not the key condition is
    /// the filter, key attributes included (`sk <> 'x'` cannot be a key condition, and the
    /// service still serves it with a Query).
    Allowed,
}

/// Runs a Query whose expressions are already parsed: the expression parameters' path
/// (`execute`) and PartiQL's `SELECT` (`ops::partiql`) both end here, so the two cannot
/// differ in what they read, cost or log. `input`'s expression strings are not read again.
pub(crate) fn run(
    state: &mut State,
    input: &QueryInput,
    parsed: &crate::expr::ParsedExpressions,
    key_filter: KeyFilter,
) -> Result<QueryOutput> {
    let name = require_data_table_name(&input.table_name)?;
    let limit = check_limit(input.limit, true)?;
    let consistent = input.consistent_read.unwrap_or(false);
    state.log.read_consistency(consistent);
    let forward = input.scan_index_forward.unwrap_or(true);

    let table = table(state, name)?;
    let table_schema = table.schema().clone();
    let index = match &input.index_name {
        Some(index_name) => Some(table.index(index_name).ok_or_else(|| {
            Exception::validation(format!(
                "The table does not have the specified index: {index_name}"
            ))
        })?),
        None => None,
    };
    if let Some(index) = index {
        super::check_index_readable(index)?;
        if index.kind == IndexKind::Global && consistent {
            return Err(Exception::validation(
                "Consistent reads are not supported on global secondary indexes",
            ));
        }
    }
    let count_only = check_select(
        input.select.clone(),
        parsed.projection.is_some(),
        index.map(|i| {
            (
                i.name.as_str(),
                i.kind,
                i.projection_type() == crate::types::ProjectionType::All,
            )
        }),
    )?;
    let fetch = super::read_path::fetches_from_table(
        index,
        &table_schema,
        input.select.clone(),
        parsed.projection.as_ref(),
        parsed.filter.as_ref(),
    );
    let store_schema = index.map_or(table_schema.clone(), |i| i.store.schema.clone());
    let base_schema = index.map(|_| &table_schema);
    let key_condition = parsed
        .key_condition
        .as_ref()
        .expect("parsed when given")
        .resolve(
            &store_schema.pk,
            store_schema.pk_type.clone().into(),
            store_schema
                .sk
                .as_ref()
                .map(|(n, t)| (n.as_str(), t.clone().into())),
        )?;
    if let Some(filter) = parsed
        .filter
        .as_ref()
        .filter(|_| key_filter == KeyFilter::Refused)
    {
        for attribute in filter.top_level_names() {
            if store_schema.is_key_attribute(attribute) {
                return Err(Exception::validation(format!(
                    "Filter Expression can only contain non-primary key attributes: Primary key attribute: {attribute}"
                )));
            }
        }
    }
    let pk = KeyValue::from_attribute(&key_condition.partition_value, store_schema.pk_type.clone())
        .ok_or_else(|| {
            Exception::validation("Condition parameter type does not match schema type")
        })?;
    let hash = store_schema.hash(&pk, None);
    let sk_type = store_schema.sk.as_ref().map(|(_, t)| t);
    let sort_key =
        |v: &AttributeValue| sk_type.and_then(|t| KeyValue::from_attribute(v, t.clone()));
    let (mut lo, mut hi) = sort_bounds(hash, &pk, key_condition.sort.as_ref(), &sort_key);
    if let Some(esk) = &input.exclusive_start_key {
        let start = start_key(esk, &store_schema, base_schema)?;
        if start.pk != pk {
            return Err(Exception::validation("The provided starting key is invalid: The provided key element does not match the schema"));
        }
        if forward {
            lo = Bound::Excluded(start);
        } else {
            hi = Bound::Excluded(start);
        }
    }

    let now = state.now_ms;
    let State { tables, rng, .. } = &mut *state;
    let crate::table::Table {
        store: base_store,
        indexes,
        ..
    } = tables.get_mut(name).expect("checked above");
    let (store, base_store) = match &input.index_name {
        Some(i) => (
            &mut indexes
                .iter_mut()
                .find(|x| &x.name == i)
                .expect("checked above")
                .store,
            Some(&*base_store),
        ),
        None => (base_store, None),
    };
    let p = store.locate(hash);
    let replica = store.read_replica(p, consistent, now, rng)?;
    let data = store.partitions[p].replica_data(replica, now);
    let sk_name = store_schema.sk_name();
    let mut pager = Pager::new(
        limit,
        parsed.filter.as_ref(),
        parsed.projection.as_ref(),
        count_only,
    )
    .fetching(base_store.filter(|_| fetch).map(|store| Fetch {
        store,
        schema: &table_schema,
    }));
    for (key, item) in walk(data, lo, hi, forward) {
        if let (Some(cond), Some(sk)) = (&key_condition.sort, sk_name) {
            if !item.get(sk).is_some_and(|v| cond.matches(v)) {
                continue;
            }
        }
        if !pager.offer(key, item) {
            break;
        }
    }
    let last_evaluated_key = pager
        .last
        .as_ref()
        .and_then(|k| data.get(k))
        .map(|item| evaluated_key(item, &store_schema, base_schema));
    // The page, apart from its borrows of the stores (the fetch source among them).
    let page = pager.finish();
    state.log.read_items(page.scanned);
    let units = read_units_min_blocks(page.bytes, ReadKind::from_consistent(consistent), 1);
    let fetched = fetched_units(&page.fetched, consistent);
    match (
        &input.index_name,
        index_kind(state, name, input.index_name.as_deref()),
    ) {
        (Some(i), Some(IndexKind::Global)) => state.admit_index_read(name, i, hash, units)?,
        _ => state.admit_read(name, hash, units + fetched)?,
    }
    let consumption = match (
        &input.index_name,
        index_kind(state, name, input.index_name.as_deref()),
    ) {
        (Some(i), Some(kind)) => {
            // Items fetched from the table are the table's reads.
            let mut c = Consumption::read(fetched);
            c.indexes
                .insert(i.clone(), (units, 0.0, kind == IndexKind::Global));
            c
        }
        _ => Consumption::read(units),
    };
    Ok(QueryOutput {
        items: (!count_only).then_some(page.items),
        count: page.count as i32,
        scanned_count: page.scanned as i32,
        last_evaluated_key,
        consumed_capacity: consumption.report(name, input.return_consumed_capacity.clone()),
    })
}

fn index_kind(state: &State, table: &str, index: Option<&str>) -> Option<IndexKind> {
    state.tables.get(table)?.index(index?).map(|i| i.kind)
}

/// The store-key range a sort-key condition selects within one item collection.
fn sort_bounds(
    hash: u64,
    pk: &KeyValue,
    sort: Option<&SortCondition>,
    sort_key: &dyn Fn(&AttributeValue) -> Option<KeyValue>,
) -> (Bound<StoreKey>, Bound<StoreKey>) {
    let first = Bound::Included(lowest_with(hash, pk, None));
    let last = Bound::Included(highest_with(hash, pk, Some(KeyValue::Max)));
    let lo = |v: &AttributeValue| sort_key(v).map(|k| lowest_with(hash, pk, Some(k)));
    let hi = |v: &AttributeValue| sort_key(v).map(|k| highest_with(hash, pk, Some(k)));
    let (l, h) = match sort {
        None => (first, last),
        Some(SortCondition::Eq(v)) => (
            lo(v).map_or(first.clone(), Bound::Included),
            hi(v).map_or(last.clone(), Bound::Included),
        ),
        Some(SortCondition::Lt(v)) => (first, lo(v).map_or(last.clone(), Bound::Excluded)),
        Some(SortCondition::Le(v)) => (first, hi(v).map_or(last.clone(), Bound::Included)),
        Some(SortCondition::Gt(v)) => (hi(v).map_or(first.clone(), Bound::Excluded), last),
        Some(SortCondition::Ge(v)) => (lo(v).map_or(first.clone(), Bound::Included), last),
        Some(SortCondition::Between(a, b)) => (
            lo(a).map_or(first.clone(), Bound::Included),
            hi(b).map_or(last.clone(), Bound::Included),
        ),
        Some(SortCondition::BeginsWith(v)) => (lo(v).map_or(first.clone(), Bound::Included), last),
    };
    (l, h)
}

super::paginate::paged_by_key!(
    QueryFluentBuilder,
    QueryOutput,
    crate::error::operations::QueryError
);
