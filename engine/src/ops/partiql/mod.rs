//! # PartiQL: SQL-shaped statements over the same operations
//!
//! PartiQL is a query language compatible with SQL; DynamoDB accepts a small part of it —
//! `SELECT`, `INSERT`, `UPDATE`, `DELETE` on one table at a time — through three operations:
//! `ExecuteStatement` (one statement), `BatchExecuteStatement` (up to 25, each on its own)
//! and `ExecuteTransaction` (up to 100, all or nothing). A statement is text with `?` for
//! its parameters, which travel typed in `Parameters`:
//!
//! ```text
//!   SELECT * FROM "orders" WHERE PK = ? AND begins_with(SK, 'ORDER#')     Parameters: [S "C#1"]
//!   INSERT INTO "orders" VALUE {'PK': 'C#1', 'SK': 'ORDER#7', 'total': 42}
//!   UPDATE "orders" SET total = total + 1 REMOVE coupon WHERE PK = 'C#1' AND SK = 'ORDER#7'
//!   DELETE FROM "orders" WHERE PK = 'C#1' AND SK = 'ORDER#7' AND total < 10
//! ```
//!
//! ## Nothing new underneath
//!
//! PartiQL is another way of *asking*, not another way of *doing*: DynamoDB runs each
//! statement as one of the operations a learner already knows, with that operation's cost,
//! limits and consistency. This model does the same, in three steps:
//!
//! ```text
//!   text ──parser.rs──▶ Statement (conditions as expr::CondNode, updates as expr actions)
//!                         │ translate.rs: which key does the WHERE fix, against the schema?
//!                         ▼
//!   SELECT, partition key fixed by = or IN   → Query (one per value); sort-key conjunct as
//!                                              its key condition, the rest as its filter
//!   SELECT, partition key not fixed          → Scan, the whole WHERE as its filter
//!   INSERT                                   → PutItem  + attribute_not_exists(pk)
//!   UPDATE … WHERE <full key> [AND c]        → UpdateItem + attribute_exists(pk) [AND c]
//!   DELETE … WHERE <full key> [AND c]        → DeleteItem [+ attribute_not_exists(pk) OR c]
//!   EXISTS(SELECT … <full key> AND c)        → a ConditionCheck (transactions only)
//!                         │
//!                         ▼ ops::query::run, scan::run, put_item::run, … — the operations'
//!                           own code, given the parsed expressions instead of their text
//! ```
//!
//! Decision: a statement is translated into the *parsed* form of the operation's
//! expressions ([`crate::expr::ParsedExpressions`]), the way the legacy parameters are
//! (`ops::legacy`), and handed to the operation after its own parsing step — not rewritten
//! into expression strings with made-up placeholders. The operation cannot tell where its
//! request came from, so capacity, indexes, streams and every rule it enforces hold for both
//! by construction; and no PartiQL error is reported in the words of a `FilterExpression` the
//! learner never wrote. The request log records the operation that ran (a `SELECT` without
//! the partition key is a `Scan` there, whatever a kata's test looks for), with the API that
//! was called in `via`.
//!
//! **The rule to remember**: a `SELECT` whose `WHERE` does not fix the partition key with `=`
//! or `IN` reads the whole table — a Scan, paid for by every item read, however few it
//! returns. PartiQL hides this behind familiar syntax; the request log and
//! `ConsumedCapacity` do not.
//!
//! The rest follows from the operations underneath: `UPDATE` of a missing item fails with
//! `ConditionalCheckFailedException` (its condition is that the item exists), `DELETE` of a
//! missing item succeeds and deletes nothing, `INSERT` of a key that exists fails with
//! `DuplicateItemException` (its condition failed; nothing is overwritten). `Limit` counts
//! the items read, not returned, as Query's and Scan's does, and a page that stopped early
//! carries a `NextToken` to send back with the same statement and parameters.
//!
//! Messages follow DynamoDB's wording where its PartiQL messages are known (DynamoDB Local,
//! which AWS publishes, carries a catalogue of them; which case answers which message is
//! sometimes inferred, and marked unverified where it is made); a syntax error is
//! `Statement wasn't well formed, can't be processed: <detail>`, whose details here are
//! this model's (unverified), except `Expected data manipulation` for a statement that is
//! not one of the four.
//!
//! ## What the model leaves out
//!
//! - PartiQL's reserved words beyond this grammar's keywords (DynamoDB refuses some more as
//!   bare names, `pad` among them); quote a name to be safe.
//! - Functions, aliases and arithmetic in a projection, arithmetic in a `WHERE`, `IS NULL`
//!   matching a missing attribute (here it means the `NULL` type only), Ion literals.
//! - Nested paths in a projection come back nested, as a `ProjectionExpression`'s do
//!   (DynamoDB names them by their last part; unverified).
//! - The 1 MB page across the several Queries of an `IN`: each Query stops at its own 1 MB.

mod condition;
mod lexer;
mod parser;
pub(crate) mod run;
mod translate;
mod values;

pub(crate) use parser::{parse, Select, Statement};
pub(crate) use translate::{full_key, select, transaction_action, write, Reads, WritePlan};

use crate::error::{Exception, Result};
use crate::value::{canonicalize_value, AttributeValue};

/// The syntax error, with its detail.
pub(crate) fn malformed(detail: &str) -> Exception {
    Exception::validation(format!(
        "Statement wasn't well formed, can't be processed: {detail}"
    ))
}

/// An `UPDATE` or `DELETE` (or a `SELECT` that must name one item) without `=` on every
/// key attribute.
pub(crate) const INCOMPLETE_KEY: &str =
    "Where clause does not contain a mandatory equality on all key attributes";

/// `DuplicateItemException`'s message.
pub(crate) const DUPLICATE_MESSAGE: &str = "Duplicate primary key exists in table";

/// A statement's text and parameters, checked as the API checks them, then parsed.
pub(crate) fn parse_statement(
    statement: Option<&str>,
    parameters: Option<&[AttributeValue]>,
) -> Result<Statement> {
    let text = statement.ok_or_else(|| {
        Exception::validation(
            "The parameter 'Statement' is required but was not present in the request",
        )
    })?;
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_STATEMENT_CHARS {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '{text}' at 'statement' failed to satisfy constraint: Member must have length {}",
            if chars == 0 {
                "greater than or equal to 1".to_string()
            } else {
                format!("less than or equal to {MAX_STATEMENT_CHARS}")
            }
        )));
    }
    let parameters = match parameters {
        Some([]) => {
            return Err(Exception::validation(
                "1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1",
            ))
        }
        Some(list) => list
            .iter()
            .cloned()
            .map(canonicalize_value)
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    parse(text, &parameters)
}

impl Statement {
    /// Whether the statement reads (`SELECT`) rather than writes; `EXISTS` counts with the
    /// writes, as the transaction's condition check it is.
    pub(crate) fn is_read(&self) -> bool {
        matches!(self, Statement::Select(_))
    }
}

/// The `BatchStatementError` code of an exception (the API's list: `ConditionalCheckFailed`,
/// `DuplicateItem`, `ValidationError`, …).
pub(crate) fn batch_error_code(e: &Exception) -> &'static str {
    match e {
        Exception::Validation { .. } => "ValidationError",
        Exception::ConditionalCheckFailed { .. } => "ConditionalCheckFailed",
        Exception::DuplicateItem { .. } => "DuplicateItem",
        Exception::ResourceNotFound { .. } => "ResourceNotFound",
        Exception::ProvisionedThroughputExceeded { .. } => "ProvisionedThroughputExceeded",
        Exception::Throttling { .. } => "ThrottlingError",
        Exception::RequestLimitExceeded { .. } => "RequestLimitExceeded",
        Exception::ItemCollectionSizeLimitExceeded { .. } => "ItemCollectionSizeLimitExceeded",
        Exception::TransactionConflict { .. } => "TransactionConflict",
        _ => "InternalServerError",
    }
}

/// Longest statement, in characters (DynamoDB: 8192).
pub const MAX_STATEMENT_CHARS: usize = 8192;
