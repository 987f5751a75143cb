//! ExecuteTransaction: up to 100 PartiQL statements, all or nothing.
//!
//! Semantics: a transaction holds reads only or writes only. Its reads are `SELECT`s naming
//! one item each by its full key, run as one TransactGetItems (a snapshot, at a
//! transaction's double cost); its writes — `INSERT`, `UPDATE`, `DELETE`, and `EXISTS(SELECT
//! … WHERE <full key> AND <condition>)` as a condition check — run as one
//! TransactWriteItems: every condition is checked first, and if any fails nothing is
//! written and the call fails with `TransactionCanceledException`, one cancellation reason
//! per statement in order (`DuplicateItem` for an `INSERT` whose key exists). A
//! `ClientRequestToken` makes a retry of the same statements safe for 10 minutes, as
//! TransactWriteItems' does: the tokens are one store.
//!
//! The request log records the transaction as the operation that ran it
//! (`TransactWriteItems` or `TransactGetItems`, via `ExecuteTransaction`).

use super::builder::value_setter;
use super::partiql::{self, run, Statement};
use super::transact_get_items::{self, PreparedGet};
use super::transact_write_items::{self, TokenedRequest};
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::types::builders::shape_builder;
use crate::types::{
    ConsumedCapacity, ItemResponse, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure,
};
use crate::value::AttributeValue;
use crate::world::State;

/// One statement of a transaction, with its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParameterizedStatement {
    pub statement: String,
    pub parameters: Option<Vec<AttributeValue>>,
    pub return_values_on_condition_check_failure: Option<ReturnValuesOnConditionCheckFailure>,
}

shape_builder! {
    /// Builds a [`ParameterizedStatement`]; the statement is required.
    ParameterizedStatement => ParameterizedStatementBuilder, fallible {
        req statement / set_statement / get_statement: String,
        opt_list parameters / set_parameters / get_parameters: AttributeValue,
        opt return_values_on_condition_check_failure / set_return_values_on_condition_check_failure / get_return_values_on_condition_check_failure: ReturnValuesOnConditionCheckFailure,
    }
}

impl ParameterizedStatement {
    pub fn statement(&self) -> &str {
        &self.statement
    }
    pub fn parameters(&self) -> &[AttributeValue] {
        self.parameters.as_deref().unwrap_or_default()
    }
    pub fn return_values_on_condition_check_failure(
        &self,
    ) -> Option<&ReturnValuesOnConditionCheckFailure> {
        self.return_values_on_condition_check_failure.as_ref()
    }
}

/// The parameters of an ExecuteTransaction request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExecuteTransactionInput {
    pub transact_statements: Option<Vec<ParameterizedStatement>>,
    pub client_request_token: Option<String>,
    pub return_consumed_capacity: Option<ReturnConsumedCapacity>,
}

/// What ExecuteTransaction returns: for reads, one response per statement, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExecuteTransactionOutput {
    pub responses: Option<Vec<ItemResponse>>,
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

impl ExecuteTransactionOutput {
    pub fn responses(&self) -> &[ItemResponse] {
        self.responses.as_deref().unwrap_or_default()
    }
    /// One entry per table, when the request asked for it.
    pub fn consumed_capacity(&self) -> &[ConsumedCapacity] {
        self.consumed_capacity.as_deref().unwrap_or_default()
    }
}

/// Builds and sends an ExecuteTransaction request.
#[derive(Clone, Debug)]
pub struct ExecuteTransactionFluentBuilder {
    client: Client,
    input: ExecuteTransactionInput,
}

impl ExecuteTransactionFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        ExecuteTransactionFluentBuilder {
            client,
            input: ExecuteTransactionInput::default(),
        }
    }
    /// Appends one statement.
    pub fn transact_statements(mut self, statement: ParameterizedStatement) -> Self {
        self.input
            .transact_statements
            .get_or_insert_with(Vec::new)
            .push(statement);
        self
    }
    /// Replaces all statements.
    pub fn set_transact_statements(
        mut self,
        statements: Option<Vec<ParameterizedStatement>>,
    ) -> Self {
        self.input.transact_statements = statements;
        self
    }
    pub fn get_transact_statements(&self) -> &Option<Vec<ParameterizedStatement>> {
        &self.input.transact_statements
    }
    pub fn client_request_token(mut self, token: impl Into<String>) -> Self {
        self.input.client_request_token = Some(token.into());
        self
    }
    pub fn set_client_request_token(mut self, token: Option<String>) -> Self {
        self.input.client_request_token = token;
        self
    }
    pub fn get_client_request_token(&self) -> &Option<String> {
        &self.input.client_request_token
    }
    value_setter!(return_consumed_capacity, set_return_consumed_capacity, get_return_consumed_capacity: ReturnConsumedCapacity);

    pub fn send(
        self,
    ) -> std::result::Result<
        ExecuteTransactionOutput,
        crate::error::SdkError<crate::error::operations::ExecuteTransactionError>,
    > {
        self.client
            .world()
            .send("ExecuteTransaction", |state| execute(state, &self.input))
    }
}

pub(crate) fn execute(
    state: &mut State,
    input: &ExecuteTransactionInput,
) -> Result<ExecuteTransactionOutput> {
    let requests = input.transact_statements.as_deref().unwrap_or_default();
    let n = requests.len();
    if n == 0 || n > transact_write_items::MAX_ACTIONS {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{n}' at 'transactStatements' failed to satisfy constraint: Member must have length {}",
            if n == 0 { "greater than or equal to 1" } else { "less than or equal to 100" }
        )));
    }
    let statements = requests
        .iter()
        .map(|r| partiql::parse_statement(Some(&r.statement), r.parameters.as_deref()))
        .collect::<Result<Vec<_>>>()?;
    let reads = statements.iter().filter(|s| s.is_read()).count();
    if reads > 0 && reads < n {
        return Err(Exception::validation(
            "ExecuteTransaction API does not support both read and write operations in the same request.",
        ));
    }
    if reads == n {
        return read(state, statements, input.return_consumed_capacity.clone());
    }
    state.log.runs_as("TransactWriteItems");
    let mut prepared = Vec::with_capacity(n);
    for (request, statement) in requests.iter().zip(&statements) {
        let returning = match statement {
            Statement::Update(u) => u.returning.is_some(),
            Statement::Delete(d) => d.returning,
            _ => false,
        };
        prepared.push(if returning {
            // Wording unverified (the service refuses RETURNING in a transaction).
            Err(Exception::validation(
                "RETURNING is not supported in ExecuteTransaction",
            ))
        } else {
            partiql::write(state, statement).map(|plan| {
                state.log.target(plan.table(), None);
                partiql::transaction_action(
                    plan,
                    request.return_values_on_condition_check_failure.clone(),
                )
            })
        });
    }
    let token = input
        .client_request_token
        .as_deref()
        .map(|t| (t, TokenedRequest::Statements(requests.to_vec())));
    let out = transact_write_items::run(
        state,
        prepared.into_iter(),
        token,
        input.return_consumed_capacity.clone(),
        None,
    )?;
    Ok(ExecuteTransactionOutput {
        responses: None,
        consumed_capacity: out.consumed_capacity,
    })
}

/// A transaction of `SELECT`s, each by its full key, as one TransactGetItems.
fn read(
    state: &mut State,
    statements: Vec<Statement>,
    return_consumed_capacity: Option<ReturnConsumedCapacity>,
) -> Result<ExecuteTransactionOutput> {
    state.log.runs_as("TransactGetItems");
    let mut prepared = Vec::with_capacity(statements.len());
    for statement in &statements {
        let Statement::Select(select) = statement else {
            unreachable!("all reads")
        };
        if select.index.is_some() {
            return Err(Exception::validation(
                "Reads on indices are not supported within transactions.",
            ));
        }
        let keyed = || {
            Exception::validation(
                "Select statements within ExecuteTransaction must specify the primary key in the where clause.",
            )
        };
        let read = run::key_read(state, select).map_err(|e| {
            if e.message() == partiql::INCOMPLETE_KEY {
                keyed()
            } else {
                e
            }
        })?;
        if read.rest.is_some() {
            return Err(keyed());
        }
        state.log.target(&read.table, None);
        prepared.push(Ok(PreparedGet {
            table_name: read.table,
            key: read.key,
            projection: read.projection,
        }));
    }
    let out = transact_get_items::run(state, prepared.into_iter(), return_consumed_capacity)?;
    Ok(ExecuteTransactionOutput {
        responses: Some(out.responses),
        consumed_capacity: out.consumed_capacity,
    })
}
