//! The PartiQL operations: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.
//!
//! A batch answers 200 even when some statements failed: each failure is an `Error` object
//! (`Code`, `Message`, and the `Item` of a failed condition that asked for it) in the
//! statement's place in `Responses`. A cancelled transaction answers
//! `TransactionCanceledException` with its `CancellationReasons`, as TransactWriteItems does.

use engine::types::{BatchStatementRequest, ParameterizedStatement};
use serde_json::Value;

use super::read::Fields;
use super::write::{items, Out};
use super::{Api, WireError};

pub fn execute_statement(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .execute_statement()
        .set_statement(req.string("Statement")?)
        .set_parameters(req.values("Parameters")?)
        .set_consistent_read(req.bool("ConsistentRead")?)
        .set_next_token(req.string("NextToken")?)
        .set_limit(req.i32("Limit")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?)
        .set_return_values_on_condition_check_failure(
            req.enumeration("ReturnValuesOnConditionCheckFailure")?,
        );
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put("Items", Some(items(out.items())))
        .str("NextToken", out.next_token())
        .item("LastEvaluatedKey", out.last_evaluated_key())
        .capacity(out.consumed_capacity())
        .done())
}

pub fn batch_execute_statement(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let mut statements = Vec::new();
    for s in req.objects("Statements")?.unwrap_or_default() {
        statements.push(BatchStatementRequest {
            statement: s.string("Statement")?.unwrap_or_default(),
            parameters: s.values("Parameters")?,
            consistent_read: s.bool("ConsistentRead")?,
            return_values_on_condition_check_failure: s
                .enumeration("ReturnValuesOnConditionCheckFailure")?,
        });
    }
    let call = api
        .client
        .batch_execute_statement()
        .set_statements(Some(statements))
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?);
    req.finish()?;
    let out = call.send()?;
    let responses = out.responses().iter().map(|r| {
        let error = r.error().map(|e| {
            Out::new()
                .str("Code", e.code().map(|c| c.as_str()))
                .str("Message", e.message())
                .item("Item", e.item())
                .done()
        });
        Out::new()
            .put("Error", error)
            .str("TableName", r.table_name())
            .item("Item", r.item())
            .done()
    });
    Ok(Out::new()
        .put("Responses", Some(Value::Array(responses.collect())))
        .capacities(out.consumed_capacity.as_ref())
        .done())
}

pub fn execute_transaction(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let mut statements = Vec::new();
    for s in req.objects("TransactStatements")?.unwrap_or_default() {
        statements.push(ParameterizedStatement {
            statement: s.string("Statement")?.unwrap_or_default(),
            parameters: s.values("Parameters")?,
            return_values_on_condition_check_failure: s
                .enumeration("ReturnValuesOnConditionCheckFailure")?,
        });
    }
    let call = api
        .client
        .execute_transaction()
        .set_transact_statements(Some(statements))
        .set_client_request_token(req.string("ClientRequestToken")?)
        .set_return_consumed_capacity(req.enumeration("ReturnConsumedCapacity")?);
    req.finish()?;
    let out = call.send()?;
    let responses = out.responses.as_ref().map(|list| {
        Value::Array(
            list.iter()
                .map(|r| Out::new().item("Item", r.item()).done())
                .collect(),
        )
    });
    Ok(Out::new()
        .put("Responses", responses)
        .capacities(out.consumed_capacity.as_ref())
        .done())
}
