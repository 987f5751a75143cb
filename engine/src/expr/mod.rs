//! # Expressions: the small languages inside a DynamoDB request
//!
//! DynamoDB has no query language in the SQL sense. Instead, a request carries short strings in
//! four little languages, each with one job:
//!
//! | Parameter | Used by | Job |
//! |---|---|---|
//! | `ConditionExpression` | PutItem, UpdateItem, DeleteItem, TransactWriteItems | a yes/no question about the item *as stored*; the write happens only on yes |
//! | `FilterExpression` | Query, Scan | the same grammar, asked of every item read; items answering no are dropped *after* they were read (and paid for) |
//! | `KeyConditionExpression` | Query | which item collection (`pk = :v`) and which sort-key range to read |
//! | `UpdateExpression` | UpdateItem | what to change: `SET`, `REMOVE`, `ADD`, `DELETE` |
//! | `ProjectionExpression` | GetItem, Query, Scan, BatchGetItem, TransactGetItems | which attributes (or nested parts) to return |
//!
//! ```text
//!   text ──lexer──▶ tokens ──parser──▶ tree with placeholders resolved ──▶ evaluate / apply
//!                                 │
//!        ExpressionAttributeNames ┤  #n  → a literal attribute name
//!        ExpressionAttributeValues┘  :v  → a canonical AttributeValue
//! ```
//!
//! ## Placeholders, and why they exist
//!
//! Values never appear inline: `price < 10` is a syntax error, `price < :max` with
//! `{":max": {"N": "10"}}` is the way. This keeps typed values (numbers that travel as strings,
//! binary, sets, maps) in their JSON form and keeps user data out of the expression text.
//! Names may appear bare, but only if they are simple identifiers and not one of DynamoDB's 573
//! **reserved words** (`name`, `status`, `data`, `size`, `ttl`, … — see [`reserved`]); anything
//! else goes through a `#placeholder`. `#n` stands for one whole attribute name: with
//! `{"#n": "a.b"}`, `#n` is the top-level attribute literally called `a.b`, while `#a.#b` is the
//! path a → b.
//!
//! The two maps belong to the request, not to one expression, and DynamoDB is strict about
//! them: an empty map, a key no expression uses, and a placeholder no map defines are all
//! `ValidationException`s. [`parse_request`] therefore parses every expression of a request
//! together, against one bookkeeping record.
//!
//! ## Conditions read the item before the write
//!
//! A condition is evaluated against the item as it is stored *before* this request changes it
//! (for a missing item, every path is absent: `attribute_not_exists(pk)` means "insert only").
//! Likewise every right-hand side of an UpdateExpression reads the pre-update item, so
//! `SET a = b, b = a` swaps two attributes. Evaluation of a condition never fails: comparing a
//! number with a string is simply false, and a missing attribute makes every comparison false
//! except `<>`. What can be refused is refused at parse time, before any item is touched.
//!
//! ## Legacy parameters
//!
//! The structured parameters that predate expressions (`Expected`, `AttributeUpdates`,
//! `KeyConditions`, `QueryFilter`, …) are not a language: `crate::ops::legacy` turns them
//! into the same trees the parsers here produce, so nothing downstream tells them apart.
//!
//! ## PartiQL
//!
//! PartiQL is a different language altogether (values inline, no placeholders, SQL's
//! shape), with its own parser in `crate::ops::partiql`. It parses into the trees of this
//! module — a `WHERE` into a [`CondNode`] tree, `SET`/`REMOVE` into [`UpdateAction`]s, a
//! `SELECT` list into a [`Projection`] — so once parsed, a statement's condition is evaluated
//! by the same code as a `ConditionExpression`.
//!
//! ## Limits
//!
//! Each expression is at most 4 KB; a placeholder key at most 255 bytes; `IN` takes at most
//! 100 operands; an expression at most 300 operators and functions; a document path at most
//! 32 levels. The constants are at the bottom of this module.
//!
//! ## What the model leaves out
//!
//! - The 2 MB cap on the sum of the two placeholder maps (a test cannot reach it cheaply).
//! - The exact choice of text in a syntax error's `near: "…"` (the service does not document
//!   it; see `parser.rs`), and the order in which DynamoDB reports two different problems of one
//!   expression (one fixed order is used, see `names::Problem`).

mod ast;
mod eval;
mod key_condition;
mod lexer;
mod names;
mod parse_condition;
mod parse_update;
mod parser;
mod paths;
mod projection;
pub mod reserved;
mod update_apply;

use std::collections::HashMap;

use crate::error::{Exception, Result};
use crate::value::AttributeValue;

pub use ast::{
    Comparator, CondNode, Condition, ExprKind, Operand, Path, PathElem, SetValue, UpdateAction,
    UpdateExpr, UpdateOperand,
};
/// The legacy `KeyConditions`, once turned into a condition tree, take the expression's path.
pub(crate) use key_condition::from_condition as key_condition_from_tree;
pub use key_condition::{KeyCondition, KeyConditionExpr, ScalarType, SortCondition};
pub(crate) use paths::paths_clash;
pub use projection::Projection;

use names::Placeholders;
use parser::{invalid, Parser};

/// The raw expression parameters of one request.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExpressionInput<'a> {
    pub condition: Option<&'a str>,
    pub filter: Option<&'a str>,
    pub key_condition: Option<&'a str>,
    pub update: Option<&'a str>,
    pub projection: Option<&'a str>,
    pub names: Option<&'a HashMap<String, String>>,
    pub values: Option<&'a HashMap<String, AttributeValue>>,
}

/// Every expression of one request, parsed and validated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedExpressions {
    pub condition: Option<Condition>,
    pub filter: Option<Condition>,
    pub key_condition: Option<KeyConditionExpr>,
    pub update: Option<UpdateExpr>,
    pub projection: Option<Projection>,
}

/// Parse and validate all the expressions of a request together: the maps (non-empty,
/// well-formed keys, valid values), each expression's syntax, reserved words, functions,
/// operand types known before evaluation, limits, and finally that every placeholder key was
/// used. Expressions are checked in DynamoDB's order: update, condition, key condition,
/// filter, projection.
pub fn parse_request(input: &ExpressionInput) -> Result<ParsedExpressions> {
    let with_values = [
        input.condition,
        input.filter,
        input.key_condition,
        input.update,
    ]
    .iter()
    .any(Option::is_some);
    if input.names.is_some() && !with_values && input.projection.is_none() {
        return Err(Exception::validation(
            "ExpressionAttributeNames can only be specified when using expressions",
        ));
    }
    if input.values.is_some() && !with_values {
        return Err(Exception::validation(
            "ExpressionAttributeValues can only be specified when using expressions",
        ));
    }
    let mut ph = Placeholders::new(input.names, input.values)?;
    debug_assert!(input.names.is_none() || ph.has_names());
    debug_assert!(input.values.is_none() || ph.has_values());

    let update = match input.update {
        Some(src) => Some(parse_one(src, ExprKind::Update, &mut ph, |p| {
            Ok(UpdateExpr::from_actions(parse_update::parse_update(p)?))
        })?),
        None => None,
    };
    let condition = match input.condition {
        Some(src) => Some(parse_condition_kind(src, ExprKind::Condition, &mut ph)?),
        None => None,
    };
    let key_condition = match input.key_condition {
        Some(src) => {
            let c = parse_condition_kind(src, ExprKind::KeyCondition, &mut ph)?;
            Some(key_condition::from_condition(c.root)?)
        }
        None => None,
    };
    let filter = match input.filter {
        Some(src) => Some(parse_condition_kind(src, ExprKind::Filter, &mut ph)?),
        None => None,
    };
    let projection = match input.projection {
        Some(src) => Some(parse_one(
            src,
            ExprKind::Projection,
            &mut ph,
            projection::parse_projection,
        )?),
        None => None,
    };
    ph.finish()?;
    Ok(ParsedExpressions {
        condition,
        filter,
        key_condition,
        update,
        projection,
    })
}

impl UpdateExpr {
    /// An update of these actions (already checked: their paths do not clash).
    pub(crate) fn from_actions(actions: Vec<UpdateAction>) -> UpdateExpr {
        let targets = Projection::from_paths(actions.iter().map(|a| a.path().clone()).collect());
        UpdateExpr { actions, targets }
    }
}

fn parse_condition_kind(src: &str, kind: ExprKind, ph: &mut Placeholders) -> Result<Condition> {
    parse_one(src, kind, ph, |p| {
        Ok(Condition {
            root: parse_condition::parse_condition(p)?,
        })
    })
}

/// The checks every expression gets before its grammar: size, then emptiness.
fn parse_one<T>(
    src: &str,
    kind: ExprKind,
    ph: &mut Placeholders,
    grammar: impl FnOnce(&mut Parser) -> Result<T>,
) -> Result<T> {
    if src.len() > MAX_EXPRESSION_BYTES {
        return Err(invalid(
            kind,
            &format!(
                "Expression size has exceeded the maximum allowed size; expression size: {}",
                src.len()
            ),
        ));
    }
    if src.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
        return Err(invalid(kind, "The expression can not be empty;"));
    }
    let mut p = Parser::new(src, kind, ph);
    let parsed = grammar(&mut p);
    p.finish(parsed)
}

/// Longest expression string, in bytes (DynamoDB: 4 KB, counted on the raw text).
pub const MAX_EXPRESSION_BYTES: usize = 4096;
/// Longest `#name` / `:value` key, in bytes including the sigil (DynamoDB: 255).
pub const MAX_PLACEHOLDER_BYTES: usize = 255;
/// Most operands of one `IN` list (DynamoDB: 100).
pub const MAX_IN_OPERANDS: usize = 100;
/// Most operators and functions in one expression (DynamoDB: 300; documented for
/// UpdateExpression, observed for FilterExpression too). Counted: comparators, `BETWEEN`,
/// `IN`, `AND`, `OR`, `NOT`, `+`, `-` and every function call.
pub const MAX_OPERATORS: usize = 300;
/// Most elements of one document path (DynamoDB: 32, the nesting limit of documents).
pub const MAX_PATH_DEPTH: usize = 32;
/// Deepest nesting of parentheses, `NOT`s and function arguments. Not a documented DynamoDB
/// limit: the model's guard that keeps the recursive-descent parser far from the end of a
/// thread's stack on any 4 KB input. Real expressions nest a handful of levels.
pub const MAX_NESTING: usize = 100;
