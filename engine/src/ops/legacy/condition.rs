//! `Expected`, `KeyConditions`, `QueryFilter` and `ScanFilter`: maps of attribute → operator
//! and arguments, turned into the condition tree a `ConditionExpression`,
//! `KeyConditionExpression` or `FilterExpression` parses to.
//!
//! | operator | arguments | expression |
//! |---|---|---|
//! | `EQ` `NE` `LT` `LE` `GT` `GE` | 1 | `a = :v`, `a <> :v`, `a < :v`, … |
//! | `BETWEEN` | 2 | `a BETWEEN :lo AND :hi` |
//! | `IN` | 1 or more | `a IN (:v1, :v2, …)` |
//! | `BEGINS_WITH` | 1 | `begins_with(a, :v)` |
//! | `CONTAINS` / `NOT_CONTAINS` | 1 | `contains(a, :v)` / `NOT contains(a, :v)` |
//! | `NOT_NULL` / `NULL` | 0 | `attribute_exists(a)` / `attribute_not_exists(a)` |
//!
//! `Expected` has a second, older form: `{"Value": v}` (the attribute equals v; `Exists`
//! may say `true` too) or `{"Exists": false}` (the attribute is absent).
//!
//! Entries are visited in attribute-name order, so the first error reported is always the
//! same one; the emulator's order is the request's, which a `HashMap` does not keep.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::top_level;
use crate::error::{Exception, Result};
use crate::expr::{Comparator, CondNode, Condition as Tree, KeyConditionExpr, Operand};
use crate::types::{
    ComparisonOperator as Op, Condition, ConditionalOperator, ExpectedAttributeValue,
};
use crate::value::{canonicalize_value, sorted, AttributeValue};

/// `Expected`: every entry's condition, joined by `ConditionalOperator`.
pub(super) fn expected(
    map: &HashMap<String, ExpectedAttributeValue>,
    combine: ConditionalOperator,
) -> Result<Option<Tree>> {
    let mut nodes = Vec::with_capacity(map.len());
    for (name, e) in sorted(map) {
        nodes.push(expected_one(name, e)?);
    }
    Ok(join(nodes, combine))
}

fn expected_one(name: &str, e: &ExpectedAttributeValue) -> Result<CondNode> {
    if e.attribute_value_list.is_some() && e.value.is_some() {
        return Err(invalid(format!(
            "Value and AttributeValueList cannot be used together for Attribute: {name}"
        )));
    }
    let Some(op) = e.comparison_operator.clone() else {
        if e.attribute_value_list.is_some() {
            return Err(invalid(format!(
                "AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
            )));
        }
        return match (e.exists, &e.value) {
            (Some(false), Some(_)) => Err(invalid(format!(
                "Value cannot be used when Exists is false for Attribute: {name}"
            ))),
            (Some(false), None) => Ok(CondNode::NotExists(top_level(name))),
            (exists, None) => Err(invalid(format!(
                "Value must be provided when Exists is {} for Attribute: {name}",
                if exists.is_some() { "true" } else { "null" }
            ))),
            (_, Some(v)) => Ok(CondNode::Compare(
                Comparator::Eq,
                Operand::Path(top_level(name)),
                Operand::Value(canonicalize_value(v.clone())?),
            )),
        };
    };
    if e.exists.is_some() {
        return Err(invalid(format!(
            "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
        )));
    }
    let args: Vec<AttributeValue> = match (&e.attribute_value_list, &e.value) {
        (Some(list), _) => list.clone(),
        (None, Some(v)) => vec![v.clone()],
        (None, None) if matches!(op, Op::Null | Op::NotNull) => Vec::new(),
        (None, None) => {
            return Err(invalid(format!(
                "Value or AttributeValueList must be used with ComparisonOperator: {} for Attribute: {name}",
                op.as_str()
            )))
        }
    };
    // The service checks argument counts and homogeneity here, not the types each
    // operator accepts (the emulator's finding; unverified): a mistyped argument simply
    // never matches, as in a condition expression.
    let args = check_arguments(op.clone(), args, false)?;
    Ok(node(name, op, args))
}

/// `QueryFilter` / `ScanFilter`: every entry's condition, joined by `ConditionalOperator`.
pub(super) fn filter(
    map: &HashMap<String, Condition>,
    combine: ConditionalOperator,
) -> Result<Option<Tree>> {
    let mut nodes = Vec::with_capacity(map.len());
    for (name, c) in sorted(map) {
        let args = check_arguments(
            c.comparison_operator.clone(),
            c.attribute_value_list().to_vec(),
            true,
        )?;
        nodes.push(node(name, c.comparison_operator.clone(), args));
    }
    Ok(join(nodes, combine))
}

/// `KeyConditions`: one or two entries, `EQ` on the partition key and one of the ordered
/// operators on the sort key. The result is the parsed form of the equivalent
/// `KeyConditionExpression`, so which attribute is the key, and with which type, is
/// checked later exactly as for an expression.
pub(super) fn key_conditions(map: &HashMap<String, Condition>) -> Result<KeyConditionExpr> {
    let mut nodes = Vec::with_capacity(map.len());
    for (name, c) in sorted(map) {
        let op = c.comparison_operator.clone();
        let args = check_arguments(op.clone(), c.attribute_value_list().to_vec(), true)?;
        if matches!(
            op,
            Op::Null | Op::NotNull | Op::Ne | Op::Contains | Op::NotContains | Op::In
        ) {
            return Err(Exception::validation(
                "Attempted conditional constraint is not an indexable operation",
            ));
        }
        nodes.push(node(name, op, args));
    }
    if nodes.len() > 2 {
        // Three conditions cannot all be on the two key attributes (message unverified).
        return Err(Exception::validation("Query key condition not supported"));
    }
    let root = join(nodes, ConditionalOperator::And).map(|t| t.root).ok_or_else(|| {
        Exception::validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
        )
    })?;
    crate::expr::key_condition_from_tree(root)
}

/// Validates the arguments of one operator (and canonicalizes them): their number, that
/// they share one type, and — for filters and key conditions — that the operator accepts
/// that type.
fn check_arguments(
    op: Op,
    args: Vec<AttributeValue>,
    check_types: bool,
) -> Result<Vec<AttributeValue>> {
    let args = args
        .into_iter()
        .map(canonicalize_value)
        .collect::<Result<Vec<_>>>()?;
    let count_ok = match op {
        Op::Null | Op::NotNull => args.is_empty(),
        Op::In => !args.is_empty(),
        Op::Between => args.len() == 2,
        _ => args.len() == 1,
    };
    if !count_ok {
        return Err(invalid(format!(
            "Invalid number of argument(s) for the {} ComparisonOperator",
            op.as_str()
        )));
    }
    if let Some(first) = args.first() {
        if args.iter().any(|a| a.type_name() != first.type_name()) {
            return Err(invalid(
                "AttributeValues inside AttributeValueList must be of same type".to_string(),
            ));
        }
    }
    if check_types {
        for a in &args {
            if !accepts(op.clone(), a.type_name()) {
                return Err(invalid(format!(
                    "ComparisonOperator {} is not valid for {} AttributeValue type",
                    op.as_str(),
                    a.type_name()
                )));
            }
        }
    }
    if let (Op::Between, [lo, hi]) = (op, args.as_slice()) {
        if lo.dynamo_cmp(hi) == Some(Ordering::Greater) {
            return Err(Exception::validation(
                "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
            ));
        }
    }
    Ok(args)
}

/// The argument types an operator takes. The API Reference: `EQ` and `NE` take any type
/// (lists and maps included), the ordering operators, `IN`, `BETWEEN` and the `CONTAINS`
/// pair a scalar, `BEGINS_WITH` a string or binary.
fn accepts(op: Op, ty: &str) -> bool {
    match op {
        Op::Eq | Op::Ne => true,
        Op::BeginsWith => matches!(ty, "S" | "B"),
        _ => matches!(ty, "S" | "N" | "B"),
    }
}

/// The condition tree of one validated entry (its arguments counted by
/// [`check_arguments`]).
fn node(name: &str, op: Op, args: Vec<AttributeValue>) -> CondNode {
    let path = || Operand::Path(top_level(name));
    if op == Op::In {
        return CondNode::In(path(), args.into_iter().map(Operand::Value).collect());
    }
    let mut values = args.into_iter().map(Operand::Value);
    let mut next = move || {
        values
            .next()
            .unwrap_or(Operand::Value(AttributeValue::Null(true)))
    };
    let compare = |c, v| CondNode::Compare(c, path(), v);
    match op {
        Op::Eq => compare(Comparator::Eq, next()),
        Op::Ne => compare(Comparator::Ne, next()),
        Op::Lt => compare(Comparator::Lt, next()),
        Op::Le => compare(Comparator::Le, next()),
        Op::Gt => compare(Comparator::Gt, next()),
        Op::Ge => compare(Comparator::Ge, next()),
        Op::NotNull => CondNode::Exists(top_level(name)),
        Op::Null => CondNode::NotExists(top_level(name)),
        Op::BeginsWith => CondNode::BeginsWith(path(), next()),
        Op::Contains => CondNode::Contains(path(), next()),
        Op::NotContains => CondNode::Not(Box::new(CondNode::Contains(path(), next()))),
        Op::Between => {
            let lo = next();
            CondNode::Between(path(), lo, next())
        }
        Op::In => CondNode::In(path(), Vec::new()),
    }
}

/// Joins entries with `AND` or `OR`; no entries, no condition.
fn join(nodes: Vec<CondNode>, combine: ConditionalOperator) -> Option<Tree> {
    let root = nodes.into_iter().reduce(|a, b| match combine {
        ConditionalOperator::And => CondNode::And(Box::new(a), Box::new(b)),
        ConditionalOperator::Or => CondNode::Or(Box::new(a), Box::new(b)),
    })?;
    Some(Tree { root })
}

fn invalid(problem: String) -> Exception {
    Exception::validation(format!(
        "One or more parameter values were invalid: {problem}"
    ))
}
