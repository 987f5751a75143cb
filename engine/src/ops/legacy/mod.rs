//! # Legacy parameters: the API before expressions
//!
//! Until 2014 a DynamoDB request said *which* items and *what* to change with structured
//! maps rather than expression strings. The service still accepts them, old code and old
//! tools still send them, and each has an expression that means the same:
//!
//! | legacy parameter | used by | expression counterpart |
//! |---|---|---|
//! | `KeyConditions` | Query | `KeyConditionExpression` |
//! | `QueryFilter`, `ScanFilter` | Query, Scan | `FilterExpression` |
//! | `Expected` | PutItem, UpdateItem, DeleteItem | `ConditionExpression` |
//! | `AttributeUpdates` | UpdateItem | `UpdateExpression` |
//! | `AttributesToGet` | GetItem, BatchGetItem, Query, Scan | `ProjectionExpression` |
//! | `ConditionalOperator` | with `Expected` or a filter | `AND` / `OR` inside the expression |
//!
//! ```text
//!   "Expected": {"stock": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "0"}]}}
//!        │  condition::expected        (its own validation: operator, argument count, types)
//!        ▼
//!   CondNode::Compare(Gt, Path[stock], Value N 0)   ← the tree `stock > :zero` parses to
//!        │
//!        ▼  the operation runs exactly as with ConditionExpression
//! ```
//!
//! Decision: every legacy parameter is translated into the parsed form its expression
//! counterpart has ([`ParsedExpressions`]) before the operation looks at it, rather than
//! being interpreted by a second evaluator. The operation then cannot tell the two apart, so
//! capacity, indexes, streams, the request log and every rule the operation enforces (key
//! attributes cannot be updated, a failed condition still pays) hold for both by
//! construction. What stays here is what is different: the shapes' own validation, in the
//! words DynamoDB uses for them, and the one rule tying the two styles together —
//! **a request uses one or the other**. Mixing them (`Expected` with a
//! `ConditionExpression`, `QueryFilter` with a `KeyConditionExpression`) is a
//! `ValidationException` naming both sides. One exception: `KeyConditions` may come with a
//! `FilterExpression` or `ProjectionExpression` when no `KeyConditionExpression` is given
//! (the emulator dynalite documents it so; unverified against the service).
//!
//! Requests without any legacy parameter go straight to the expression parser: the check
//! is a few `is_none()`s, off the hot path's cost.
//!
//! Messages follow the dynalite emulator, which was built by diffing against the service
//! (reference §4.1); they are unverified against the service itself.
//!
//! ## What the model leaves out
//!
//! - The `Exists`-only form's historical quirks (`Exists: true` without `Value` is refused,
//!   as today's service does; the oldest API accepted it).
//! - The order in which DynamoDB lists several parameters in the mixing message (one fixed
//!   order is used, unverified).

mod condition;
mod update;

use std::collections::HashMap;

use crate::error::{Exception, Result};
use crate::expr::{ExpressionInput, ParsedExpressions, Path, PathElem, Projection};
use crate::types::{
    AttributeValueUpdate, Condition, ConditionalOperator, ExpectedAttributeValue, Select,
};

/// The legacy parameters of one request; absent ones are `None`.
#[derive(Clone, Debug, Default)]
pub(crate) struct LegacyInput<'a> {
    pub attributes_to_get: Option<&'a [String]>,
    pub attribute_updates: Option<&'a HashMap<String, AttributeValueUpdate>>,
    pub expected: Option<&'a HashMap<String, ExpectedAttributeValue>>,
    pub key_conditions: Option<&'a HashMap<String, Condition>>,
    pub query_filter: Option<&'a HashMap<String, Condition>>,
    pub scan_filter: Option<&'a HashMap<String, Condition>>,
    pub conditional_operator: Option<ConditionalOperator>,
    /// Query's and Scan's `Select`, which must agree with `AttributesToGet`.
    pub select: Option<Select>,
}

impl LegacyInput<'_> {
    fn is_empty(&self) -> bool {
        self.attributes_to_get.is_none()
            && self.attribute_updates.is_none()
            && self.expected.is_none()
            && self.key_conditions.is_none()
            && self.query_filter.is_none()
            && self.scan_filter.is_none()
            && self.conditional_operator.is_none()
    }

    /// The legacy parameters present, by name, in the order the mixing message lists them.
    fn present(&self, with_key_condition_expression: bool) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut add = |present: bool, name| {
            if present {
                out.push(name)
            }
        };
        add(self.attributes_to_get.is_some(), "AttributesToGet");
        add(self.attribute_updates.is_some(), "AttributeUpdates");
        add(self.expected.is_some(), "Expected");
        add(
            self.key_conditions.is_some() && with_key_condition_expression,
            "KeyConditions",
        );
        add(self.query_filter.is_some(), "QueryFilter");
        add(self.scan_filter.is_some(), "ScanFilter");
        add(self.conditional_operator.is_some(), "ConditionalOperator");
        out
    }
}

/// Parses every expression and every legacy parameter of a request into one
/// [`ParsedExpressions`]. Without legacy parameters this is the expression parser alone.
pub(crate) fn parse(
    legacy: &LegacyInput<'_>,
    exprs: &ExpressionInput<'_>,
) -> Result<ParsedExpressions> {
    if legacy.is_empty() {
        return crate::expr::parse_request(exprs);
    }
    check_mixing(legacy, exprs)?;
    let mut parsed = crate::expr::parse_request(exprs)?;
    let combine = legacy
        .conditional_operator
        .clone()
        .unwrap_or(ConditionalOperator::And);
    if let Some(updates) = legacy.attribute_updates {
        parsed.update = update::attribute_updates(updates)?;
    }
    if let Some(expected) = legacy.expected {
        parsed.condition = condition::expected(expected, combine.clone())?;
    }
    if let Some(conditions) = legacy.key_conditions {
        parsed.key_condition = Some(condition::key_conditions(conditions)?);
    }
    for filter in [legacy.query_filter, legacy.scan_filter]
        .into_iter()
        .flatten()
    {
        parsed.filter = condition::filter(filter, combine.clone())?;
    }
    if let Some(names) = legacy.attributes_to_get {
        parsed.projection = Some(attributes_to_get(names, legacy.select.clone())?);
    }
    Ok(parsed)
}

/// One request, one style: a legacy parameter next to an expression parameter is refused.
fn check_mixing(legacy: &LegacyInput<'_>, exprs: &ExpressionInput<'_>) -> Result<()> {
    let expressions: Vec<&str> = [
        (exprs.projection.is_some(), "ProjectionExpression"),
        (exprs.update.is_some(), "UpdateExpression"),
        (exprs.condition.is_some(), "ConditionExpression"),
        (exprs.key_condition.is_some(), "KeyConditionExpression"),
        (exprs.filter.is_some(), "FilterExpression"),
    ]
    .into_iter()
    .filter_map(|(present, name)| present.then_some(name))
    .collect();
    if expressions.is_empty() {
        return Ok(());
    }
    let legacy = legacy.present(exprs.key_condition.is_some());
    if legacy.is_empty() {
        return Ok(());
    }
    Err(Exception::validation(format!(
        "Can not use both expression and non-expression parameters in the same request: \
         Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
        legacy.join(", "),
        expressions.join(", ")
    )))
}

/// `AttributesToGet`: top-level attribute names, as a projection of those attributes.
fn attributes_to_get(names: &[String], select: Option<Select>) -> Result<Projection> {
    if names.is_empty() {
        return Err(Exception::validation(
            "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy \
             constraint: Member must have length greater than or equal to 1",
        ));
    }
    if names.len() > MAX_ATTRIBUTES_TO_GET {
        return Err(Exception::validation(format!(
            "1 validation error detected: Value '[{}]' at 'attributesToGet' failed to satisfy \
             constraint: Member must have length less than or equal to {MAX_ATTRIBUTES_TO_GET}",
            names.join(", ")
        )));
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(Exception::validation(format!(
                "One or more parameter values were invalid: Duplicate value in attribute name: {name}"
            )));
        }
    }
    if let Some(select) = select.filter(|s| *s != Select::SpecificAttributes) {
        return Err(Exception::validation(format!(
            "Cannot specify the AttributesToGet when choosing to get {}",
            select.as_str()
        )));
    }
    Ok(Projection::from_paths(
        names.iter().map(|n| top_level(n)).collect(),
    ))
}

/// The path of a top-level attribute: legacy parameters name attributes, never paths
/// (`a.b` is the attribute called `a.b`).
fn top_level(name: &str) -> Path {
    Path(vec![PathElem::Name(name.to_string())])
}

/// Most names in one `AttributesToGet` (DynamoDB's API model: 255).
pub const MAX_ATTRIBUTES_TO_GET: usize = 255;
