//! PutItem: create an item, or replace the whole item with the same key.
//!
//! Semantics (reference §4.3): only the key attributes are required; an existing item with
//! the same key is replaced entirely, not merged. A `ConditionExpression` is evaluated
//! against the item as stored (an absent item has no attributes, so
//! `attribute_not_exists(PK)` means "create only"). `ReturnValues` may be `NONE` or
//! `ALL_OLD`. Cost: the larger of the old and new item, per started KB — also when the
//! condition fails.

use std::collections::HashMap;

use super::builder::{item_setters, map_setters, placeholder_setters, string_setter, value_setter};
use super::{
    admit_item_write, check_writable, condition_failed, prepare_item, require_data_table_name,
    table, write_cost,
};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::expr::ExpressionInput;
use crate::types::{
    ConsumedCapacity, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use crate::value::{AttributeValue, Item};
use crate::world::State;

/// The parameters of a PutItem request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PutItemInput {
    pub table_name: Option<String>,
    pub item: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values: Option<ReturnValue>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
    /// `SIZE`: report the size of the item collection the write changed (tables with local
    /// secondary indexes only).
    pub return_item_collection_metrics: Option<crate::types::ReturnItemCollectionMetrics>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
    /// Legacy: conditions on the stored item (`ConditionExpression`'s predecessor).
    pub expected: Option<HashMap<String, crate::types::ExpectedAttributeValue>>,
    /// Legacy: how the entries of `expected` combine (`AND` when absent).
    pub conditional_operator: Option<crate::types::ConditionalOperator>,
}

/// What PutItem returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PutItemOutput {
    /// The replaced item, with `ReturnValues=ALL_OLD` and only if one existed.
    pub attributes: Option<Item>,
    pub consumed_capacity: Option<ConsumedCapacity>,
    /// With `ReturnItemCollectionMetrics=SIZE` on a table with local secondary indexes.
    pub item_collection_metrics: Option<crate::types::ItemCollectionMetrics>,
}

impl PutItemOutput {
    pub fn attributes(&self) -> Option<&Item> {
        self.attributes.as_ref()
    }
    pub fn consumed_capacity(&self) -> Option<&ConsumedCapacity> {
        self.consumed_capacity.as_ref()
    }
    pub fn item_collection_metrics(&self) -> Option<&crate::types::ItemCollectionMetrics> {
        self.item_collection_metrics.as_ref()
    }
}

/// Builds and sends a PutItem request.
#[derive(Clone, Debug)]
pub struct PutItemFluentBuilder {
    client: Client,
    input: PutItemInput,
}

impl PutItemFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        PutItemFluentBuilder {
            client,
            input: PutItemInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    item_setters!(
        /// Adds one attribute to the item.
        item, set_item, get_item, item
    );
    string_setter!(
        condition_expression,
        set_condition_expression,
        get_condition_expression
    );
    placeholder_setters!();
    value_setter!(return_values, set_return_values, get_return_values: ReturnValue);
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);
    value_setter!(return_item_collection_metrics, set_return_item_collection_metrics, get_return_item_collection_metrics: crate::types::ReturnItemCollectionMetrics);
    value_setter!(return_values_on_condition_check_failure, set_return_values_on_condition_check_failure, get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure);
    map_setters!(
        /// Legacy: adds one expected-attribute condition.
        expected, set_expected, get_expected: crate::types::ExpectedAttributeValue
    );
    value_setter!(conditional_operator, set_conditional_operator, get_conditional_operator: crate::types::ConditionalOperator);

    /// The request as built so far.
    pub fn as_input(&self) -> &PutItemInput {
        &self.input
    }

    pub fn send(
        self,
    ) -> std::result::Result<
        PutItemOutput,
        crate::error::SdkError<crate::error::operations::PutItemError>,
    > {
        self.client
            .world()
            .send("PutItem", move |state| execute(state, self.input))
    }
}

pub(crate) fn execute(state: &mut State, input: PutItemInput) -> Result<PutItemOutput> {
    require_data_table_name(&input.table_name)?;
    let exprs = ExpressionInput {
        condition: input.condition_expression.as_deref(),
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        value_expressions: &["ConditionExpression"],
        ..ExpressionInput::default()
    };
    let legacy = super::legacy::LegacyInput {
        expected: input.expected.as_ref(),
        conditional_operator: input.conditional_operator.clone(),
        ..Default::default()
    };
    let parsed = super::legacy::parse(&legacy, &exprs)?;
    run(state, input, &parsed)
}

/// Runs a PutItem whose condition is already parsed (PartiQL's `INSERT` comes here, with
/// its `attribute_not_exists` on the key).
pub(crate) fn run(
    state: &mut State,
    mut input: PutItemInput,
    parsed: &crate::expr::ParsedExpressions,
) -> Result<PutItemOutput> {
    let name = require_data_table_name(&input.table_name)?;
    match input.return_values {
        None | Some(ReturnValue::None) | Some(ReturnValue::AllOld) => {}
        Some(_) => {
            return Err(Exception::validation(
                "ReturnValues can only be ALL_OLD or NONE",
            ))
        }
    }
    let item = input.item.take().ok_or_else(|| {
        Exception::validation("The parameter 'Item' is required but was not present in the request")
    })?;
    let table = table(state, name)?;
    let (key, item) = prepare_item(table, item, state.config.max_item_size, false)?;
    check_writable(state, name, &key)?;
    let current = table.store.current(&key);
    let failed = match &parsed.condition {
        Some(condition) if !condition.evaluate(current) => Some(condition_failed(
            current,
            input.return_values_on_condition_check_failure,
        )),
        _ => None,
    };
    // Capacity is taken before the condition's verdict: a failed condition still pays (for
    // the item as it is; no index is written).
    let consumption = match failed {
        Some(error) => {
            let cost = write_cost(current, None, false);
            state.admit_write(name, key.hash, cost)?;
            return Err(error);
        }
        None => admit_item_write(state, name, &key, Some(&item), false)?,
    };
    let metrics_key =
        super::wants_metrics(input.return_item_collection_metrics).then(|| key.clone());
    let old = state.commit_write(name, key, Some(item));
    let attributes = match input.return_values {
        Some(ReturnValue::AllOld) => old,
        _ => None,
    };
    Ok(PutItemOutput {
        attributes: attributes.map(crate::table::partition::Stored::into_item),
        consumed_capacity: consumption.report(name, input.return_consumed_capacity),
        item_collection_metrics: super::collection_metrics(state, name, metrics_key.as_ref()),
    })
}
