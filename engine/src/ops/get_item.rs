//! GetItem: read one item by its full primary key.
//!
//! Semantics (reference §4.2): the `Key` must name exactly the table's key attributes. An
//! absent item gives an output with no `Item` at all. Reads are eventually consistent unless
//! `ConsistentRead` is set: an eventually consistent read may be served by a replica that has
//! not yet received the latest write. A projection trims the result, never the cost: the
//! whole item is read and charged per started 4 KB (a missing item costs the minimum).

use std::collections::HashMap;

use super::builder::{
    item_setters, list_setters, placeholder_setters, string_setter, value_setter,
};
use super::legacy::LegacyInput;
use super::{require_data_table_name, table};
use crate::capacity::{read_units, Consumption, ReadKind};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::expr::ExpressionInput;
use crate::types::{ConsumedCapacity, ReturnConsumedCapacity};
use std::sync::Arc;

use crate::table::partition::Stored;
use crate::value::Item;
use crate::world::State;

/// The parameters of a GetItem request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GetItemInput {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub consistent_read: Option<bool>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, crate::value::AttributeValue>>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
    /// Legacy: the top-level attributes to return (`ProjectionExpression`'s predecessor).
    pub attributes_to_get: Option<Vec<String>>,
}

/// What GetItem returns.
///
/// The item is read through [`GetItemOutput::item`], the SDK's accessor. Without a projection
/// the output shares the stored item instead of copying it (a read is then as cheap as the
/// lookup); [`GetItemOutput::into_item`] (not part of the SDK) gives an owned copy.
///
/// Unlike the SDK, `item` is not also a public field: an owned field would copy every item
/// read. Measured in one interleaved run of `cargo bench --bench engine -- get` (issue 17):
/// GetItem went from 654k–872k to 450k–524k ops/s (−30 to −40 %) with the field, so code
/// that reads `out.item` writes `out.item()` (or `out.into_item()` for an owned item) here.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GetItemOutput {
    found: Option<Found>,
    pub consumed_capacity: Option<ConsumedCapacity>,
}

/// The item of a GetItem: the stored item itself, or a projection of it.
#[derive(Clone, Debug, PartialEq)]
enum Found {
    Shared(Arc<Stored>),
    Projected(Item),
}

impl GetItemOutput {
    /// The item (projected), or `None` if no item has that key.
    pub fn item(&self) -> Option<&Item> {
        match &self.found {
            Some(Found::Shared(stored)) => Some(stored.item()),
            Some(Found::Projected(item)) => Some(item),
            None => None,
        }
    }

    /// The item, owned.
    pub fn into_item(self) -> Option<Item> {
        match self.found? {
            Found::Shared(stored) => Some(Stored::into_item(stored)),
            Found::Projected(item) => Some(item),
        }
    }

    pub fn consumed_capacity(&self) -> Option<&ConsumedCapacity> {
        self.consumed_capacity.as_ref()
    }
}

/// Builds and sends a GetItem request.
#[derive(Clone, Debug)]
pub struct GetItemFluentBuilder {
    client: Client,
    input: GetItemInput,
}

impl GetItemFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        GetItemFluentBuilder {
            client,
            input: GetItemInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    item_setters!(
        /// Adds one key attribute.
        key, set_key, get_key, key
    );
    value_setter!(consistent_read, set_consistent_read, get_consistent_read: bool);
    string_setter!(
        projection_expression,
        set_projection_expression,
        get_projection_expression
    );
    placeholder_setters!();
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);
    list_setters!(
        /// Legacy: adds one attribute to return.
        attributes_to_get, set_attributes_to_get, get_attributes_to_get: String
    );

    pub fn send(
        self,
    ) -> std::result::Result<
        GetItemOutput,
        crate::error::SdkError<crate::error::operations::GetItemError>,
    > {
        self.client
            .world()
            .send("GetItem", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(state: &mut State, input: &GetItemInput) -> Result<GetItemOutput> {
    let name = require_data_table_name(&input.table_name)?;
    let exprs = ExpressionInput {
        projection: input.projection_expression.as_deref(),
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        ..ExpressionInput::default()
    };
    let legacy = LegacyInput {
        attributes_to_get: input.attributes_to_get.as_deref(),
        ..LegacyInput::default()
    };
    let parsed = super::legacy::parse(&legacy, &exprs)?;
    run(state, name, input, &parsed)
}

/// Runs a GetItem whose projection is already parsed (a PartiQL batch's `SELECT` by full
/// key comes here too).
pub(crate) fn run(
    state: &mut State,
    name: &str,
    input: &GetItemInput,
    parsed: &crate::expr::ParsedExpressions,
) -> Result<GetItemOutput> {
    let key = input.key.as_ref().ok_or_else(|| {
        Exception::validation("The parameter 'Key' is required but was not present in the request")
    })?;
    let key = table(state, name)?.schema().key_of_key(key)?;
    let consistent = input.consistent_read.unwrap_or(false);
    state.log.read_consistency(consistent);
    let now = state.now_ms;
    let State { tables, rng, .. } = &mut *state;
    let store = &mut tables.get_mut(name).expect("checked above").store;
    let found = store.read(&key, consistent, now, rng)?.cloned();
    let units = read_units(
        found.as_ref().map_or(0, |s| s.size()),
        ReadKind::from_consistent(consistent),
    );
    state.admit_read(name, key.hash, units)?;
    let found = match (&parsed.projection, found) {
        (Some(projection), Some(stored)) => Some(Found::Projected(projection.apply(&stored))),
        (None, Some(stored)) => Some(Found::Shared(stored)),
        (_, None) => None,
    };
    Ok(GetItemOutput {
        found,
        consumed_capacity: Consumption::read(units)
            .report(name, input.return_consumed_capacity.clone()),
    })
}
