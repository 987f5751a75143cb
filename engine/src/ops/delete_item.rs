//! DeleteItem: remove one item by its full primary key.
//!
//! Semantics (reference §4.5): deleting an item that does not exist is not an error (an
//! unconditional delete is idempotent) and costs 1 WCU; otherwise the cost is the deleted
//! item's size per started KB. A `ConditionExpression` guards the delete; `ReturnValues` may
//! be `NONE` or `ALL_OLD`.

use std::collections::HashMap;

use super::builder::{item_setters, map_setters, placeholder_setters, string_setter, value_setter};
use super::{
    admit_item_write, check_writable, condition_failed, require_data_table_name, table, write_cost,
};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::expr::ExpressionInput;
use crate::types::{
    ConsumedCapacity, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use crate::value::{AttributeValue, Item};
use crate::world::State;

/// The parameters of a DeleteItem request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeleteItemInput {
    pub table_name: Option<String>,
    pub key: Option<Item>,
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

/// What DeleteItem returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeleteItemOutput {
    /// The deleted item, with `ReturnValues=ALL_OLD` and only if one existed.
    pub attributes: Option<Item>,
    pub consumed_capacity: Option<ConsumedCapacity>,
    /// With `ReturnItemCollectionMetrics=SIZE` on a table with local secondary indexes.
    pub item_collection_metrics: Option<crate::types::ItemCollectionMetrics>,
}

impl DeleteItemOutput {
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

/// Builds and sends a DeleteItem request.
#[derive(Clone, Debug)]
pub struct DeleteItemFluentBuilder {
    client: Client,
    input: DeleteItemInput,
}

impl DeleteItemFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DeleteItemFluentBuilder {
            client,
            input: DeleteItemInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    item_setters!(
        /// Adds one key attribute.
        key, set_key, get_key, key
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

    pub fn send(
        self,
    ) -> std::result::Result<
        DeleteItemOutput,
        crate::error::SdkError<crate::error::operations::DeleteItemError>,
    > {
        self.client
            .world()
            .send("DeleteItem", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(state: &mut State, input: &DeleteItemInput) -> Result<DeleteItemOutput> {
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

/// Runs a DeleteItem whose condition is already parsed (PartiQL's `DELETE` comes here).
pub(crate) fn run(
    state: &mut State,
    input: &DeleteItemInput,
    parsed: &crate::expr::ParsedExpressions,
) -> Result<DeleteItemOutput> {
    let name = require_data_table_name(&input.table_name)?;
    match input.return_values {
        None | Some(ReturnValue::None) | Some(ReturnValue::AllOld) => {}
        Some(_) => {
            return Err(Exception::validation(
                "ReturnValues can only be ALL_OLD or NONE",
            ))
        }
    }
    let key = input.key.as_ref().ok_or_else(|| {
        Exception::validation("The parameter 'Key' is required but was not present in the request")
    })?;
    let table = table(state, name)?;
    let key = table.schema().key_of_key(key)?;
    check_writable(state, name, &key)?;
    let current = table.store.current(&key);
    let cost = write_cost(current, None, false);
    let failed = match &parsed.condition {
        Some(condition) if !condition.evaluate(current) => Some(condition_failed(
            current,
            input.return_values_on_condition_check_failure.clone(),
        )),
        _ => None,
    };
    let exists = current.is_some();
    let consumption = match failed {
        Some(error) => {
            state.admit_write(name, key.hash, cost)?;
            return Err(error);
        }
        None => admit_item_write(state, name, &key, None, false)?,
    };
    let metrics_key =
        super::wants_metrics(input.return_item_collection_metrics.clone()).then(|| key.clone());
    let old = if exists {
        state.commit_write(name, key, None)
    } else {
        None
    };
    let attributes = match input.return_values {
        Some(ReturnValue::AllOld) => old,
        _ => None,
    };
    Ok(DeleteItemOutput {
        attributes: attributes.map(crate::table::partition::Stored::into_item),
        consumed_capacity: consumption.report(name, input.return_consumed_capacity.clone()),
        item_collection_metrics: super::collection_metrics(state, name, metrics_key.as_ref()),
    })
}
