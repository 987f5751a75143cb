//! UpdateItem: change some attributes of one item, creating it if it does not exist.
//!
//! Semantics (reference §4.4, §5.6): an upsert. The `UpdateExpression` (SET, REMOVE, ADD,
//! DELETE) is applied to the current item — or, if there is none, to an item holding just the
//! key — with every right-hand side evaluated against the item *before* the update. Key
//! attributes cannot be updated. The `ConditionExpression` is checked against the current
//! item first. `ReturnValues`: `NONE`, `ALL_OLD`, `UPDATED_OLD`, `ALL_NEW`, `UPDATED_NEW`.
//! Cost: the larger of the item before and after, per started KB — the whole item, even if
//! one attribute changed. This is what makes `SET n = n + :d` an atomic counter: the read
//! and the write happen as one step at the partition leader.
//!
//! Without an UpdateExpression, UpdateItem creates an item holding only the key (reference
//! Appendix B.7, unverified; the most plausible behaviour).

use std::collections::HashMap;

use super::builder::{item_setters, map_setters, placeholder_setters, string_setter, value_setter};
use super::{
    admit_item_write, check_index_keys, check_item_size, check_writable, condition_failed,
    require_data_table_name, table, write_cost,
};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::expr::{ExpressionInput, UpdateExpr};
use crate::table::key::StoreKey;
use crate::table::Table;
use crate::types::{
    ConsumedCapacity, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use crate::value::{canonicalize_item, AttributeValue, Item};
use crate::world::State;

/// The parameters of an UpdateItem request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateItemInput {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub update_expression: Option<String>,
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
    /// Legacy: attribute → action and value (`UpdateExpression`'s predecessor).
    pub attribute_updates: Option<HashMap<String, crate::types::AttributeValueUpdate>>,
}

/// What UpdateItem returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateItemOutput {
    /// Per `ReturnValues`: the whole item or the updated attributes, before or after.
    pub attributes: Option<Item>,
    pub consumed_capacity: Option<ConsumedCapacity>,
    /// With `ReturnItemCollectionMetrics=SIZE` on a table with local secondary indexes.
    pub item_collection_metrics: Option<crate::types::ItemCollectionMetrics>,
}

impl UpdateItemOutput {
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

/// Builds and sends an UpdateItem request.
#[derive(Clone, Debug)]
pub struct UpdateItemFluentBuilder {
    client: Client,
    input: UpdateItemInput,
}

impl UpdateItemFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        UpdateItemFluentBuilder {
            client,
            input: UpdateItemInput::default(),
        }
    }
    string_setter!(table_name, set_table_name, get_table_name);
    item_setters!(
        /// Adds one key attribute.
        key, set_key, get_key, key
    );
    string_setter!(
        update_expression,
        set_update_expression,
        get_update_expression
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
    map_setters!(
        /// Legacy: adds one attribute update.
        attribute_updates, set_attribute_updates, get_attribute_updates: crate::types::AttributeValueUpdate
    );

    pub fn send(
        self,
    ) -> std::result::Result<
        UpdateItemOutput,
        crate::error::SdkError<crate::error::operations::UpdateItemError>,
    > {
        self.client
            .world()
            .send("UpdateItem", |state| execute(state, &self.input))
    }
}

/// The outcome of applying an update to the current item, before anything is written.
pub(crate) struct PlannedUpdate {
    pub key: StoreKey,
    pub old: Option<Item>,
    /// The item after the update; `None` when there was none and the update only removes
    /// attributes, which creates nothing (see `plan_update`).
    pub new: Option<Item>,
}

/// Computes the new item of an update (validation only; nothing is written).
pub(crate) fn plan_update(
    table: &Table,
    key: StoreKey,
    update: Option<&UpdateExpr>,
    max_item_size: usize,
) -> Result<PlannedUpdate> {
    let schema = table.schema();
    if let Some(update) = update {
        for target in update.top_level_targets() {
            if schema.is_key_attribute(target) {
                return Err(Exception::validation(format!(
                    "One or more parameter values were invalid: Cannot update attribute {target}. This attribute is part of the key"
                )));
            }
        }
    }
    let old = table.store.current(&key).cloned();
    // An update that only removes, of an item that does not exist, creates nothing and
    // reports nothing (not even with ALL_NEW), as DynamoDB does (a peer suite run against
    // the service checks it); the upsert rule is for updates that set or add something. Its
    // paths are not checked either: `REMOVE a.b` of a missing item is no error, though it is
    // of an item without `a`.
    let only_removes = update.is_some_and(|u| {
        u.actions
            .iter()
            .all(|a| matches!(a, crate::expr::UpdateAction::Remove(_)))
    });
    if old.is_none() && only_removes {
        return Ok(PlannedUpdate {
            key,
            old,
            new: None,
        });
    }
    let base = old.clone().unwrap_or_else(|| schema.key_item(&key));
    let new = match update {
        Some(update) => canonicalize_item(update.apply(&base)?)?,
        None => base,
    };
    check_index_keys(table, &new)?;
    check_item_size(&new, max_item_size, true)?;
    Ok(PlannedUpdate {
        key,
        old,
        new: Some(new),
    })
}

pub(crate) fn execute(state: &mut State, input: &UpdateItemInput) -> Result<UpdateItemOutput> {
    require_data_table_name(&input.table_name)?;
    let exprs = ExpressionInput {
        update: input.update_expression.as_deref(),
        condition: input.condition_expression.as_deref(),
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        value_expressions: &["UpdateExpression", "ConditionExpression"],
        ..ExpressionInput::default()
    };
    let legacy = super::legacy::LegacyInput {
        expected: input.expected.as_ref(),
        attribute_updates: input.attribute_updates.as_ref(),
        conditional_operator: input.conditional_operator.clone(),
        ..Default::default()
    };
    let parsed = super::legacy::parse(&legacy, &exprs)?;
    run(state, input, &parsed)
}

/// Runs an UpdateItem whose expressions are already parsed (PartiQL's `UPDATE` comes here,
/// its `WHERE` beyond the key being the condition).
pub(crate) fn run(
    state: &mut State,
    input: &UpdateItemInput,
    parsed: &crate::expr::ParsedExpressions,
) -> Result<UpdateItemOutput> {
    let name = require_data_table_name(&input.table_name)?;
    let key = input.key.as_ref().ok_or_else(|| {
        Exception::validation("The parameter 'Key' is required but was not present in the request")
    })?;
    let table = table(state, name)?;
    let key = table.schema().key_of_key(key)?;
    check_writable(state, name, &key)?;
    let current = table.store.current(&key);
    if let Some(condition) = &parsed.condition {
        if !condition.evaluate(current) {
            let cost = write_cost(current, None, false);
            let error = condition_failed(
                current,
                input.return_values_on_condition_check_failure.clone(),
            );
            state.admit_write(name, key.hash, cost)?;
            return Err(error);
        }
    }
    let plan = plan_update(
        table,
        key,
        parsed.update.as_ref(),
        state.config.max_item_size,
    )?;
    let consumption = admit_item_write(state, name, &plan.key, plan.new.as_ref(), false)?;
    let attributes = plan.new.as_ref().and_then(|new| {
        return_values(
            input.return_values.clone(),
            parsed.update.as_ref(),
            plan.old.as_ref(),
            new,
        )
    });
    let metrics_key = super::wants_metrics(input.return_item_collection_metrics.clone())
        .then(|| plan.key.clone());
    if let Some(new) = plan.new.filter(|new| plan.old.as_ref() != Some(new)) {
        state.commit_write(name, plan.key, Some(new));
    }
    Ok(UpdateItemOutput {
        attributes,
        consumed_capacity: consumption.report(name, input.return_consumed_capacity.clone()),
        item_collection_metrics: super::collection_metrics(state, name, metrics_key.as_ref()),
    })
}

fn return_values(
    rv: Option<ReturnValue>,
    update: Option<&UpdateExpr>,
    old: Option<&Item>,
    new: &Item,
) -> Option<Item> {
    let projected = |item: &Item| update.map_or_else(Item::new, |u| u.project_updated(item));
    let out = match rv.unwrap_or(ReturnValue::None) {
        ReturnValue::None => return None,
        ReturnValue::AllOld => old?.clone(),
        ReturnValue::UpdatedOld => projected(old?),
        ReturnValue::AllNew => new.clone(),
        ReturnValue::UpdatedNew => projected(new),
    };
    (!out.is_empty()).then_some(out)
}
