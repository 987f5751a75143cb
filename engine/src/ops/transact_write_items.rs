//! TransactWriteItems: up to 100 writes and condition checks, all or nothing.
//!
//! Semantics (reference §4.11): every action — `Put`, `Update`, `Delete`, `ConditionCheck` —
//! names one item, and no item may appear twice. All conditions are evaluated first; if any
//! fails (or any action is invalid against the current data), the whole transaction is
//! cancelled with `TransactionCanceledException`, whose `CancellationReasons` has one entry
//! per action, in request order (`None` for the actions that were fine). Nothing is written.
//! Otherwise every write is applied at once. Cost: twice the plain operation's (prepare and
//! commit).
//!
//! Idempotency: a `ClientRequestToken` makes a retry safe. The same token within 10 minutes
//! of the first call returns success without writing again (and reports read units, for
//! reading the items); the same token with different parameters is
//! `IdempotentParameterMismatchException`.
//!
//! The model applies a transaction under the world's lock, so no other request can observe
//! half of it; the `TransactionConflict` reason, which DynamoDB gives when two transactions
//! overlap in time, cannot arise here.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::builder::{struct_placeholder_setters, struct_setters, value_setter};
use super::update_item::plan_update;
use super::{
    admit_item_write, parse_expressions, prepare_item, require_data_table_name, table, write_cost,
};
use crate::capacity::{read_units, Consumption, ReadKind};
use crate::client::Client;
use crate::error::{CancellationReason, Exception, Result};
use crate::expr::{ExpressionInput, ParsedExpressions};
use crate::table::key::StoreKey;
use crate::types::{ConsumedCapacity, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};
use crate::value::{item_size, AttributeValue, Item};
use crate::world::State;

/// A put inside a transaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Put {
    pub table_name: Option<String>,
    pub item: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
}
struct_setters!(Put => PutBuilder, fallible {
    req map item / set_item / get_item;
    req string table_name / set_table_name / get_table_name;
    opt string condition_expression / set_condition_expression / get_condition_expression;
    opt value return_values_on_condition_check_failure / set_return_values_on_condition_check_failure / get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure;
});
struct_placeholder_setters!(Put => PutBuilder);

/// An update inside a transaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Update {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub update_expression: Option<String>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
}
struct_setters!(Update => UpdateBuilder, fallible {
    req map key / set_key / get_key;
    req string update_expression / set_update_expression / get_update_expression;
    req string table_name / set_table_name / get_table_name;
    opt string condition_expression / set_condition_expression / get_condition_expression;
    opt value return_values_on_condition_check_failure / set_return_values_on_condition_check_failure / get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure;
});
struct_placeholder_setters!(Update => UpdateBuilder);

/// A delete inside a transaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delete {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
}
struct_setters!(Delete => DeleteBuilder, fallible {
    req map key / set_key / get_key;
    req string table_name / set_table_name / get_table_name;
    opt string condition_expression / set_condition_expression / get_condition_expression;
    opt value return_values_on_condition_check_failure / set_return_values_on_condition_check_failure / get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure;
});
struct_placeholder_setters!(Delete => DeleteBuilder);

/// A condition on an item the transaction does not write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConditionCheck {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
}
struct_setters!(ConditionCheck => ConditionCheckBuilder, fallible {
    req map key / set_key / get_key;
    req string table_name / set_table_name / get_table_name;
    req string condition_expression / set_condition_expression / get_condition_expression;
    opt value return_values_on_condition_check_failure / set_return_values_on_condition_check_failure / get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure;
});
struct_placeholder_setters!(ConditionCheck => ConditionCheckBuilder);

/// One action of a transaction: exactly one of the four.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactWriteItem {
    pub condition_check: Option<ConditionCheck>,
    pub put: Option<Put>,
    pub delete: Option<Delete>,
    pub update: Option<Update>,
}
struct_setters!(TransactWriteItem => TransactWriteItemBuilder, infallible {
    opt value condition_check / set_condition_check / get_condition_check: ConditionCheck;
    opt value put / set_put / get_put: Put;
    opt value delete / set_delete / get_delete: Delete;
    opt value update / set_update / get_update: Update;
});

/// The parameters of a TransactWriteItems request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactWriteItemsInput {
    pub transact_items: Vec<TransactWriteItem>,
    pub client_request_token: Option<String>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
    /// `SIZE`: report the item collections the transaction changed (tables with local
    /// secondary indexes only).
    pub return_item_collection_metrics: Option<crate::types::ReturnItemCollectionMetrics>,
}

/// What TransactWriteItems returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransactWriteItemsOutput {
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
    /// Table → one entry per item collection the transaction wrote, with
    /// `ReturnItemCollectionMetrics=SIZE` (tables with local secondary indexes only).
    pub item_collection_metrics: Option<HashMap<String, Vec<crate::types::ItemCollectionMetrics>>>,
}

impl TransactWriteItemsOutput {
    pub fn item_collection_metrics(
        &self,
    ) -> Option<&HashMap<String, Vec<crate::types::ItemCollectionMetrics>>> {
        self.item_collection_metrics.as_ref()
    }
    /// One entry per table, when the request asked for it.
    pub fn consumed_capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

/// Builds and sends a TransactWriteItems request.
#[derive(Clone, Debug)]
pub struct TransactWriteItemsFluentBuilder {
    client: Client,
    input: TransactWriteItemsInput,
}

impl TransactWriteItemsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        TransactWriteItemsFluentBuilder {
            client,
            input: TransactWriteItemsInput::default(),
        }
    }
    /// Appends one action.
    pub fn transact_items(mut self, item: TransactWriteItem) -> Self {
        self.input.transact_items.push(item);
        self
    }
    /// Replaces all actions.
    pub fn set_transact_items(mut self, items: Option<Vec<TransactWriteItem>>) -> Self {
        self.input.transact_items = items.unwrap_or_default();
        self
    }
    pub fn client_request_token(mut self, token: impl Into<String>) -> Self {
        self.input.client_request_token = Some(token.into());
        self
    }
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);
    value_setter!(return_item_collection_metrics, set_return_item_collection_metrics, get_return_item_collection_metrics: crate::types::ReturnItemCollectionMetrics);

    pub fn send(
        self,
    ) -> std::result::Result<
        TransactWriteItemsOutput,
        crate::error::SdkError<crate::error::operations::TransactWriteItemsError>,
    > {
        self.client
            .world()
            .send("TransactWriteItems", |state| execute(state, &self.input))
    }
}

/// What one action will do, once every action has been checked.
struct Action {
    table: String,
    key: StoreKey,
    /// `Some(Some(item))` put, `Some(None)` delete, `None` condition check only.
    write: Option<Option<Item>>,
    cost: f64,
}

/// The fields every action shares.
struct Common<'a> {
    table_name: &'a Option<String>,
    condition: Option<&'a str>,
    names: Option<&'a HashMap<String, String>>,
    values: Option<&'a HashMap<String, AttributeValue>>,
    rv: Option<ReturnValuesOnConditionCheckFailure>,
}

fn common(item: &TransactWriteItem) -> Result<Common<'_>> {
    let set = usize::from(item.put.is_some())
        + usize::from(item.update.is_some())
        + usize::from(item.delete.is_some())
        + usize::from(item.condition_check.is_some());
    if set != 1 {
        return Err(Exception::validation(
            "TransactItems can only contain one of Check, Put, Update or Delete",
        ));
    }
    Ok(if let Some(p) = &item.put {
        Common {
            table_name: &p.table_name,
            condition: p.condition_expression.as_deref(),
            names: p.expression_attribute_names.as_ref(),
            values: p.expression_attribute_values.as_ref(),
            rv: p.return_values_on_condition_check_failure.clone(),
        }
    } else if let Some(u) = &item.update {
        Common {
            table_name: &u.table_name,
            condition: u.condition_expression.as_deref(),
            names: u.expression_attribute_names.as_ref(),
            values: u.expression_attribute_values.as_ref(),
            rv: u.return_values_on_condition_check_failure.clone(),
        }
    } else if let Some(d) = &item.delete {
        Common {
            table_name: &d.table_name,
            condition: d.condition_expression.as_deref(),
            names: d.expression_attribute_names.as_ref(),
            values: d.expression_attribute_values.as_ref(),
            rv: d.return_values_on_condition_check_failure.clone(),
        }
    } else {
        let c = item.condition_check.as_ref().expect("counted above");
        if c.condition_expression.is_none() {
            return Err(Exception::validation(
                "The parameter 'ConditionExpression' is required but was not present in the request",
            ));
        }
        Common {
            table_name: &c.table_name,
            condition: c.condition_expression.as_deref(),
            names: c.expression_attribute_names.as_ref(),
            values: c.expression_attribute_values.as_ref(),
            rv: c.return_values_on_condition_check_failure.clone(),
        }
    })
}

/// Which of the four an action is, with the item it puts or the key it names.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Put(Item),
    Update(Item),
    Delete(Item),
    Check(Item),
}

/// One action with its expressions parsed: what the transaction checks and applies. The
/// request's actions become these (parsing their expression strings), and so do PartiQL's
/// write statements (translated, `ops::partiql`): from here on the two cannot differ.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub table_name: String,
    pub target: Target,
    pub parsed: ParsedExpressions,
    pub rv: Option<ReturnValuesOnConditionCheckFailure>,
    /// The cancellation reason's code and message when the condition is false:
    /// `ConditionalCheckFailed` for an action, `DuplicateItem` for PartiQL's `INSERT` (whose
    /// condition is that no item has the key).
    pub failed: (&'static str, &'static str),
}

/// The reason a false condition gives in a transaction.
pub(crate) const CONDITION_FAILED: (&str, &str) =
    ("ConditionalCheckFailed", "The conditional request failed");

/// What an idempotency token remembers of the request that used it: the same token with
/// other parameters is refused. The two APIs keep their tokens in one store, as one service
/// does; a token used by one is "other parameters" for the other.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenedRequest {
    /// TransactWriteItems' actions, compared as values (maps by key).
    Actions(Vec<TransactWriteItem>),
    /// ExecuteTransaction's statements and their parameters.
    Statements(Vec<crate::types::ParameterizedStatement>),
}

/// A key of the wrong shape or type — the `Key` of an Update, Delete or ConditionCheck that
/// does not match the schema, a Put's key attribute of the wrong type — cancels the
/// transaction with a `ValidationError` reason on that action, as the service answers (a peer
/// conformance suite checks it); an empty key value fails the request itself.
fn is_key_type_mismatch(e: &Exception) -> bool {
    crate::table::key::is_schema_mismatch(e)
        || e.message()
            .starts_with("One or more parameter values were invalid: Type mismatch for key ")
}

fn validation_reason(e: &Exception) -> CancellationReason {
    CancellationReason {
        code: Some("ValidationError".to_string()),
        message: Some(e.message().to_string()),
        item: None,
    }
}

/// One request action, its expressions parsed.
fn prepare(item: &TransactWriteItem) -> Result<Prepared> {
    let c = common(item)?;
    let table_name = require_data_table_name(c.table_name)?.to_string();
    let parsed = parse_expressions(&ExpressionInput {
        condition: c.condition,
        update: item
            .update
            .as_ref()
            .and_then(|u| u.update_expression.as_deref()),
        names: c.names,
        values: c.values,
        value_expressions: if item.update.is_some() {
            &["UpdateExpression", "ConditionExpression"]
        } else {
            &["ConditionExpression"]
        },
        ..ExpressionInput::default()
    })?;
    let missing_key = || {
        Exception::validation("The parameter 'Key' is required but was not present in the request")
    };
    let target = if let Some(p) = &item.put {
        Target::Put(p.item.clone().ok_or_else(|| {
            Exception::validation(
                "The parameter 'Item' is required but was not present in the request",
            )
        })?)
    } else if let Some(u) = &item.update {
        Target::Update(u.key.clone().ok_or_else(missing_key)?)
    } else if let Some(d) = &item.delete {
        Target::Delete(d.key.clone().ok_or_else(missing_key)?)
    } else {
        let c = item.condition_check.as_ref().expect("one of the four");
        Target::Check(c.key.clone().ok_or_else(missing_key)?)
    };
    Ok(Prepared {
        table_name,
        target,
        parsed,
        rv: c.rv,
        failed: CONDITION_FAILED,
    })
}

pub(crate) fn execute(
    state: &mut State,
    input: &TransactWriteItemsInput,
) -> Result<TransactWriteItemsOutput> {
    let n = input.transact_items.len();
    if n == 0 || n > MAX_ACTIONS {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{}' at 'transactItems' failed to satisfy constraint: Member must have length {}",
            super::echo::transact_write_items(&input.transact_items),
            if n == 0 { "greater than or equal to 1" } else { "less than or equal to 100" }
        )));
    }
    let token = input
        .client_request_token
        .as_deref()
        .map(|t| (t, TokenedRequest::Actions(input.transact_items.clone())));
    run(
        state,
        input.transact_items.iter().map(prepare),
        token,
        input.return_consumed_capacity.clone(),
        input.return_item_collection_metrics.clone(),
    )
}

/// Runs a transaction of prepared actions, all or nothing, with an idempotency token if
/// given. The actions are prepared one by one as phase 1 reaches them, so a request with
/// two bad actions is refused for the first, as DynamoDB refuses it.
pub(crate) fn run(
    state: &mut State,
    prepared: impl Iterator<Item = Result<Prepared>>,
    token: Option<(&str, TokenedRequest)>,
    return_consumed_capacity: Option<ReturnConsumedCapacity>,
    return_item_collection_metrics: Option<crate::types::ReturnItemCollectionMetrics>,
) -> Result<TransactWriteItemsOutput> {
    if let Some((token, _)) = &token {
        if token.is_empty() || token.len() > 36 {
            return Err(Exception::validation(format!(
                "1 validation error detected: Value '{token}' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"
            )));
        }
    }
    let prepared: Vec<Result<Prepared>> = prepared.collect();
    if let Some((token, request)) = &token {
        if let Some((seen, at)) = state.transaction_tokens.get(*token) {
            if state.now_ms.saturating_sub(*at) <= TOKEN_WINDOW_MS {
                if seen != request {
                    return Err(Exception::IdempotentParameterMismatch {
                        message: "Request has a ClientRequestToken that was already used with different parameters"
                            .to_string(),
                    });
                }
                return Ok(replay(state, &prepared, return_consumed_capacity));
            }
        }
    }

    // Phase 1: validate every action against the request and the current data.
    let n = prepared.len();
    let mut actions = Vec::with_capacity(n);
    let mut reasons = Vec::with_capacity(n);
    let mut seen = BTreeSet::new();
    let mut aggregate = 0usize;
    for action in prepared {
        let Prepared {
            table_name: name,
            target,
            parsed,
            rv,
            failed,
        } = action?;
        let (is_update, is_delete) = (
            matches!(target, Target::Update(_)),
            matches!(target, Target::Delete(_)),
        );
        let table = table(state, &name)?;
        let prepared = match target {
            Target::Put(raw) => prepare_item(table, raw, state.config.max_item_size, false)
                .map(|(k, it)| (k, Some(it))),
            Target::Update(ref raw) | Target::Delete(ref raw) | Target::Check(ref raw) => {
                table.schema().key_of_key(raw).map(|k| (k, None))
            }
        };
        let (key, put_item) = match prepared {
            Ok(p) => p,
            Err(e) if is_key_type_mismatch(&e) => {
                reasons.push(validation_reason(&e));
                actions.push(None);
                continue;
            }
            Err(e) => return Err(e),
        };
        if !seen.insert((name.clone(), key.clone())) {
            return Err(Exception::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        table
            .store
            .check_writable(table.store.locate(key.hash), state.now_ms)?;
        let current = table.store.current(&key);
        aggregate += current.map_or(0, item_size) + put_item.as_ref().map_or(0, item_size);
        let condition_ok = parsed
            .condition
            .as_ref()
            .is_none_or(|cond| cond.evaluate(current));
        if !condition_ok {
            reasons.push(CancellationReason {
                code: Some(failed.0.to_string()),
                message: Some(failed.1.to_string()),
                item: match rv {
                    Some(ReturnValuesOnConditionCheckFailure::AllOld) => current.cloned(),
                    _ => None,
                },
            });
            actions.push(None);
            continue;
        }
        let write = if let Some(it) = put_item {
            Some(Some(it))
        } else if is_update {
            match plan_update(
                table,
                key.clone(),
                parsed.update.as_ref(),
                state.config.max_item_size,
            ) {
                // An update that creates nothing writes nothing, like a condition check.
                Ok(plan) => plan.new.map(Some),
                Err(e) => {
                    reasons.push(CancellationReason {
                        code: Some("ValidationError".to_string()),
                        message: Some(e.message().to_string()),
                        item: None,
                    });
                    actions.push(None);
                    continue;
                }
            }
        } else if is_delete {
            Some(None)
        } else {
            None
        };
        let cost = match &write {
            Some(new) => write_cost(current, new.as_ref(), true),
            None => write_cost(current, None, true),
        };
        reasons.push(CancellationReason {
            code: Some("None".to_string()),
            message: None,
            item: None,
        });
        actions.push(Some(Action {
            table: name,
            key,
            write,
            cost,
        }));
    }
    if aggregate > MAX_AGGREGATE_BYTES {
        return Err(Exception::validation(
            "Transaction request size exceeds the 4 MB limit",
        ));
    }
    // The actions are one request to an on-demand table's allowance (capacity::admission).
    state.atomic_request = true;
    // Capacity: every action's partition (and the index partitions its write changes) must
    // admit its doubled write.
    let mut used = vec![Consumption::default(); actions.len()];
    for (i, action) in actions.iter().enumerate() {
        if let Some(a) = action {
            let admitted = match &a.write {
                Some(new) => admit_item_write(state, &a.table, &a.key, new.as_ref(), true),
                None => state
                    .admit_write(&a.table, a.key.hash, a.cost)
                    .map(|_| Consumption::write(a.cost)),
            };
            match admitted {
                Ok(c) => used[i] = c,
                Err(e) => {
                    if !e.is_retryable() {
                        return Err(e);
                    }
                    reasons[i] = CancellationReason {
                        code: Some(
                            if matches!(e, Exception::Throttling { .. }) {
                                "ThrottlingError"
                            } else {
                                "ProvisionedThroughputExceeded"
                            }
                            .to_string(),
                        ),
                        message: Some(e.message().to_string()),
                        item: None,
                    };
                }
            }
        }
    }
    if reasons.iter().any(|r| r.code() != Some("None")) {
        let codes: Vec<&str> = reasons.iter().map(|r| r.code().unwrap_or("None")).collect();
        return Err(Exception::TransactionCanceled {
            message: format!(
                "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                codes.join(", ")
            ),
            cancellation_reasons: reasons,
        });
    }

    // Phase 2: commit every write.
    let wants_metrics = super::wants_metrics(return_item_collection_metrics);
    let mut written: Vec<(String, StoreKey)> = Vec::new();
    let mut consumption: BTreeMap<String, Consumption> = BTreeMap::new();
    for (action, used) in actions.into_iter().zip(used) {
        let Some(action) = action else { continue };
        consumption
            .entry(action.table.clone())
            .or_default()
            .add(&used);
        if let Some(new) = action.write {
            let exists = table(state, &action.table)?
                .store
                .current(&action.key)
                .is_some();
            let unchanged = new.as_ref() == table(state, &action.table)?.store.current(&action.key);
            if wants_metrics {
                written.push((action.table.clone(), action.key.clone()));
            }
            if (new.is_some() || exists) && !unchanged {
                state.commit_write(&action.table, action.key, new);
            }
        }
    }
    if let Some((token, request)) = token {
        state
            .transaction_tokens
            .insert(token.to_string(), (request, state.now_ms));
    }
    let item_collection_metrics =
        wants_metrics.then(|| super::collections_metrics(state, &written));
    Ok(TransactWriteItemsOutput {
        consumed_capacity: report(&consumption, return_consumed_capacity),
        item_collection_metrics,
    })
}

/// A replayed token: success, no writes. DynamoDB reports read units for reading each item
/// the transaction names — strongly consistent, each item's current size rounded up to 4 KB
/// (a missing item costs the minimum unit).
fn replay(
    state: &State,
    prepared: &[Result<Prepared>],
    return_consumed_capacity: Option<ReturnConsumedCapacity>,
) -> TransactWriteItemsOutput {
    let mut consumption: BTreeMap<String, Consumption> = BTreeMap::new();
    for action in prepared.iter().flatten() {
        let name = &action.table_name;
        let bytes = state
            .tables
            .get(name)
            .and_then(|table| {
                let key = match &action.target {
                    Target::Put(item) => table.schema().key_of_item(item).ok()?,
                    Target::Update(key) | Target::Delete(key) | Target::Check(key) => {
                        table.schema().key_of_key(key).ok()?
                    }
                };
                table.store.current(&key).map(item_size)
            })
            .unwrap_or(0);
        consumption
            .entry(name.clone())
            .or_default()
            .add(&Consumption::read(read_units(bytes, ReadKind::Strong)));
    }
    TransactWriteItemsOutput {
        consumed_capacity: report(&consumption, return_consumed_capacity),
        item_collection_metrics: None,
    }
}

pub(crate) fn report(
    consumption: &BTreeMap<String, Consumption>,
    mode: Option<ReturnConsumedCapacity>,
) -> Option<Vec<ConsumedCapacity>> {
    if mode
        .as_ref()
        .is_none_or(|m| *m == ReturnConsumedCapacity::None)
    {
        return None;
    }
    Some(
        consumption
            .iter()
            .filter_map(|(t, c)| c.report(t, mode.clone()))
            .collect(),
    )
}

/// Actions per transaction. DynamoDB: 100 (25 until September 2022).
pub const MAX_ACTIONS: usize = 100;
/// Aggregate size of the items of one transaction. DynamoDB: 4 MB.
pub const MAX_AGGREGATE_BYTES: usize = 4 * 1024 * 1024;
/// How long a ClientRequestToken makes a retry idempotent. DynamoDB: 10 minutes.
pub const TOKEN_WINDOW_MS: u64 = 10 * 60 * 1000;
