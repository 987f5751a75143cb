//! BatchExecuteStatement: up to 25 PartiQL statements in one call, each on its own.
//!
//! Semantics: a batch holds reads only or writes only. Each read is a `SELECT` naming one
//! item by its full key (it runs as BatchGetItem runs a key: each item read costs its own
//! rounded units); each write an `INSERT`, `UPDATE` or `DELETE` (each runs as its
//! single-item write). The batch is no transaction: a statement that fails — a bad
//! statement, a false condition, a duplicate `INSERT`, throttling — gets an `Error { Code,
//! Message }` in its place in `Responses` and the others go ahead; the call itself answers
//! 200. `Responses[i]` answers `Statements[i]`.
//!
//! In the request log a batch of reads is a `BatchGetItem` (via `BatchExecuteStatement`); a
//! batch of writes stays a `BatchExecuteStatement`, since no one operation underneath takes
//! conditional updates.

use std::collections::BTreeMap;

use super::builder::value_setter;
use super::partiql::{self, run, Statement};
use crate::capacity::Consumption;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::types::builders::shape_builder;
use crate::types::{
    BatchStatementErrorCodeEnum, ConsumedCapacity, ReturnConsumedCapacity,
    ReturnValuesOnConditionCheckFailure,
};
use crate::value::{AttributeValue, Item};
use crate::world::State;

/// One statement of a batch, with its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchStatementRequest {
    pub statement: String,
    pub parameters: Option<Vec<AttributeValue>>,
    pub consistent_read: Option<bool>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
}

shape_builder! {
    /// Builds a [`BatchStatementRequest`]; the statement is required.
    BatchStatementRequest => BatchStatementRequestBuilder, fallible {
        req statement / set_statement / get_statement: String,
        opt_list parameters / set_parameters / get_parameters: AttributeValue,
        opt consistent_read / set_consistent_read / get_consistent_read: bool,
        opt return_values_on_condition_check_failure / set_return_values_on_condition_check_failure / get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure,
    }
}

impl BatchStatementRequest {
    pub fn statement(&self) -> &str {
        &self.statement
    }
    pub fn parameters(&self) -> &[AttributeValue] {
        self.parameters.as_deref().unwrap_or_default()
    }
    pub fn consistent_read(&self) -> Option<bool> {
        self.consistent_read
    }
    pub fn return_values_on_condition_check_failure(
        &self,
    ) -> Option<&ReturnValuesOnConditionCheckFailure> {
        self.return_values_on_condition_check_failure.as_ref()
    }
}

/// The answer to one statement: its item (a read), or its error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchStatementResponse {
    pub error: Option<BatchStatementError>,
    pub table_name: Option<String>,
    pub item: Option<Item>,
}

shape_builder! {
    /// Builds a [`BatchStatementResponse`] (for mocking a response, as the SDK's).
    BatchStatementResponse => BatchStatementResponseBuilder, infallible {
        opt error / set_error / get_error: BatchStatementError,
        opt table_name / set_table_name / get_table_name: String,
        opt_map item / set_item / get_item: AttributeValue,
    }
}

impl BatchStatementResponse {
    pub fn error(&self) -> Option<&BatchStatementError> {
        self.error.as_ref()
    }
    pub fn table_name(&self) -> Option<&str> {
        self.table_name.as_deref()
    }
    pub fn item(&self) -> Option<&Item> {
        self.item.as_ref()
    }
}

/// Why one statement of a batch failed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchStatementError {
    pub code: Option<BatchStatementErrorCodeEnum>,
    pub message: Option<String>,
    /// The item as it is, when a condition failed and the statement asked for `ALL_OLD`.
    pub item: Option<Item>,
}

shape_builder! {
    /// Builds a [`BatchStatementError`] (for mocking a response, as the SDK's).
    BatchStatementError => BatchStatementErrorBuilder, infallible {
        opt code / set_code / get_code: BatchStatementErrorCodeEnum,
        opt message / set_message / get_message: String,
        opt_map item / set_item / get_item: AttributeValue,
    }
}

impl BatchStatementError {
    pub fn code(&self) -> Option<&BatchStatementErrorCodeEnum> {
        self.code.as_ref()
    }
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    pub fn item(&self) -> Option<&Item> {
        self.item.as_ref()
    }
}

/// The parameters of a BatchExecuteStatement request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchExecuteStatementInput {
    pub statements: Option<Vec<BatchStatementRequest>>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
}

/// What BatchExecuteStatement returns: one response per statement, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchExecuteStatementOutput {
    pub responses: Option<Vec<BatchStatementResponse>>,
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

impl BatchExecuteStatementOutput {
    pub fn responses(&self) -> &[BatchStatementResponse] {
        self.responses.as_deref().unwrap_or_default()
    }
    /// One entry per table, when the request asked for it.
    pub fn consumed_capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

/// Builds and sends a BatchExecuteStatement request.
#[derive(Clone, Debug)]
pub struct BatchExecuteStatementFluentBuilder {
    client: Client,
    input: BatchExecuteStatementInput,
}

impl BatchExecuteStatementFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        BatchExecuteStatementFluentBuilder {
            client,
            input: BatchExecuteStatementInput::default(),
        }
    }
    /// Appends one statement.
    pub fn statements(mut self, statement: BatchStatementRequest) -> Self {
        self.input
            .statements
            .get_or_insert_with(Vec::new)
            .push(statement);
        self
    }
    /// Replaces all statements.
    pub fn set_statements(mut self, statements: Option<Vec<BatchStatementRequest>>) -> Self {
        self.input.statements = statements;
        self
    }
    pub fn get_statements(&self) -> &Option<Vec<BatchStatementRequest>> {
        &self.input.statements
    }
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);

    pub fn send(
        self,
    ) -> std::result::Result<
        BatchExecuteStatementOutput,
        crate::error::SdkError<crate::error::operations::BatchExecuteStatementError>,
    > {
        self.client
            .world()
            .send("BatchExecuteStatement", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(
    state: &mut State,
    input: &BatchExecuteStatementInput,
) -> Result<BatchExecuteStatementOutput> {
    let requests = input.statements.as_deref().unwrap_or_default();
    let n = requests.len();
    if n == 0 || n > MAX_STATEMENTS {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{n}' at 'statements' failed to satisfy constraint: Member must have length {}",
            if n == 0 {
                "greater than or equal to 1".to_string()
            } else {
                format!("less than or equal to {MAX_STATEMENTS}")
            }
        )));
    }
    let statements: Vec<Result<Statement>> = requests
        .iter()
        .map(|r| partiql::parse_statement(Some(&r.statement), r.parameters.as_deref()))
        .collect();
    let reads = statements.iter().flatten().filter(|s| s.is_read()).count();
    let writes = statements.iter().flatten().count() - reads;
    if reads > 0 && writes > 0 {
        // Wording unverified: ExecuteTransaction's (recorded), for the batch.
        return Err(Exception::validation(
            "BatchExecuteStatement API does not support both read and write operations in the same request.",
        ));
    }
    if reads > 0 {
        state.log.runs_as("BatchGetItem");
    }
    let mut consumption: BTreeMap<String, Consumption> = BTreeMap::new();
    let mut responses = Vec::with_capacity(n);
    for (request, statement) in requests.iter().zip(statements) {
        let table = statement.as_ref().ok().map(table_of);
        let answer = statement.and_then(|s| one(state, request, s));
        responses.push(match answer {
            Ok((item, used)) => {
                if let Some(t) = &table {
                    consumption.entry(t.clone()).or_default().add(&used);
                }
                BatchStatementResponse {
                    error: None,
                    table_name: table,
                    item,
                }
            }
            Err(e) => BatchStatementResponse {
                error: Some(BatchStatementError {
                    code: partiql::batch_error_code(&e).parse().ok(),
                    message: Some(e.message().to_string()),
                    item: e.item().cloned(),
                }),
                table_name: table,
                item: None,
            },
        });
    }
    Ok(BatchExecuteStatementOutput {
        responses: Some(responses),
        consumed_capacity: super::transact_write_items::report(
            &consumption,
            input.return_consumed_capacity.clone(),
        ),
    })
}

/// Runs one statement of the batch: what it answers, and what it cost.
fn one(
    state: &mut State,
    request: &BatchStatementRequest,
    statement: Statement,
) -> Result<(Option<Item>, Consumption)> {
    match statement {
        Statement::Select(select) => {
            if select.index.is_some() {
                // Unverified wording, from DynamoDB's catalogue of PartiQL messages.
                return Err(Exception::validation(
                    "This operation is not supported on an index",
                ));
            }
            let read = run::key_read(state, &select)?;
            state.log.target(&read.table, None);
            run::get(state, read, request.consistent_read)
        }
        Statement::Exists(_) => Err(run::exists_outside_transaction()),
        write => {
            let plan = partiql::write(state, &write)?;
            state.log.target(plan.table(), None);
            let written = run::write(
                state,
                plan,
                request.return_values_on_condition_check_failure.clone(),
            )?;
            Ok((written.item, written.consumption))
        }
    }
}

fn table_of(statement: &Statement) -> String {
    match statement {
        Statement::Select(s) | Statement::Exists(s) => s.table.clone(),
        Statement::Insert(i) => i.table.clone(),
        Statement::Update(u) => u.table.clone(),
        Statement::Delete(d) => d.table.clone(),
    }
}

/// Statements per batch. DynamoDB: 25 (BatchWriteItem's and BatchGetItem's bound for writes).
pub const MAX_STATEMENTS: usize = 25;
