//! KeyConditionExpression: which item collection a Query reads, and which sort-key range
//! (§5.5).
//!
//! It parses with the condition grammar, then must have a very particular shape: `pk = :v`,
//! optionally `AND` one sort-key condition (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`,
//! `begins_with`), in either order, each on a top-level attribute. The shape is checked when
//! the request is parsed; whether the attributes are *the* keys, and the values of the right
//! types, is checked by [`KeyConditionExpr::resolve`] against the table's or index's schema.

use std::cmp::Ordering;

use crate::error::{Exception, Result};
use crate::value::AttributeValue;

use super::ast::{Comparator, CondNode, Operand, Path};
use super::eval::begins_with;

/// The type of a key attribute (`ScalarAttributeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    S,
    N,
    B,
}

impl ScalarType {
    /// `S`, `N` or `B`, as DynamoDB spells it.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
            ScalarType::B => "B",
        }
    }

    /// Whether `v` is of this type.
    pub fn matches(self, v: &AttributeValue) -> bool {
        v.type_name() == self.name()
    }
}

/// A condition on the sort key; also the form of each part of a parsed key condition.
#[derive(Clone, Debug, PartialEq)]
pub enum SortCondition {
    Eq(AttributeValue),
    Lt(AttributeValue),
    Le(AttributeValue),
    Gt(AttributeValue),
    Ge(AttributeValue),
    Between(AttributeValue, AttributeValue),
    BeginsWith(AttributeValue),
}

impl SortCondition {
    /// Whether a sort-key value lies in the range.
    pub fn matches(&self, sk: &AttributeValue) -> bool {
        let cmp = |v: &AttributeValue| sk.dynamo_cmp(v);
        match self {
            SortCondition::Eq(v) => cmp(v) == Some(Ordering::Equal),
            SortCondition::Lt(v) => cmp(v) == Some(Ordering::Less),
            SortCondition::Le(v) => matches!(cmp(v), Some(Ordering::Less | Ordering::Equal)),
            SortCondition::Gt(v) => cmp(v) == Some(Ordering::Greater),
            SortCondition::Ge(v) => matches!(cmp(v), Some(Ordering::Greater | Ordering::Equal)),
            SortCondition::Between(lo, hi) => {
                matches!(cmp(lo), Some(Ordering::Greater | Ordering::Equal))
                    && matches!(cmp(hi), Some(Ordering::Less | Ordering::Equal))
            }
            SortCondition::BeginsWith(prefix) => begins_with(sk, prefix),
        }
    }

    fn values(&self) -> impl Iterator<Item = &AttributeValue> {
        let (a, b) = match self {
            SortCondition::Eq(v)
            | SortCondition::Lt(v)
            | SortCondition::Le(v)
            | SortCondition::Gt(v)
            | SortCondition::Ge(v)
            | SortCondition::BeginsWith(v) => (v, None),
            SortCondition::Between(lo, hi) => (lo, Some(hi)),
        };
        std::iter::once(a).chain(b)
    }
}

/// A parsed KeyConditionExpression: one or two conditions, each on one attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyConditionExpr {
    parts: Vec<(String, SortCondition)>,
}

/// A key condition resolved against a key schema.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyCondition {
    pub partition_value: AttributeValue,
    pub sort: Option<SortCondition>,
}

impl KeyConditionExpr {
    /// The attributes the condition is on, in the order written.
    pub fn attribute_names(&self) -> Vec<&str> {
        self.parts.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Check the condition against a key schema (the table's, or the queried index's).
    pub fn resolve(
        &self,
        pk_name: &str,
        pk_type: ScalarType,
        sk: Option<(&str, ScalarType)>,
    ) -> Result<KeyCondition> {
        let pk = self
            .parts
            .iter()
            .find(|(n, _)| n == pk_name)
            .ok_or_else(|| {
                Exception::validation(format!(
                    "Query condition missed key schema element: {pk_name}"
                ))
            })?;
        let SortCondition::Eq(partition_value) = &pk.1 else {
            return Err(Exception::validation("Query key condition not supported"));
        };
        check_type(partition_value, pk_type)?;
        let mut sort = None;
        for (name, cond) in &self.parts {
            if name == pk_name {
                continue;
            }
            match sk {
                Some((sk_name, sk_type)) if sk_name == name => {
                    for v in cond.values() {
                        check_type(v, sk_type)?;
                    }
                    sort = Some(cond.clone());
                }
                _ => return Err(Exception::validation("Query key condition not supported")),
            }
        }
        Ok(KeyCondition {
            partition_value: partition_value.clone(),
            sort,
        })
    }
}

fn check_type(v: &AttributeValue, ty: ScalarType) -> Result<()> {
    if ty.matches(v) {
        Ok(())
    } else {
        Err(Exception::validation(
            "One or more parameter values were invalid: Condition parameter type does not match \
             schema type",
        ))
    }
}

fn invalid_operator(op: &str) -> Exception {
    Exception::validation(format!(
        "Invalid operator used in KeyConditionExpression: {op}"
    ))
}

fn invalid_condition(problem: &str) -> Exception {
    Exception::validation(format!(
        "Invalid condition in KeyConditionExpression: {problem}"
    ))
}

/// Check the shape of a parsed condition and turn it into key-condition parts.
pub(crate) fn from_condition(root: CondNode) -> Result<KeyConditionExpr> {
    let mut parts = Vec::with_capacity(2);
    collect(root, &mut parts)?;
    if parts.len() > 2 {
        return Err(Exception::validation(
            "Conditions can be of length 1 or 2 only",
        ));
    }
    Ok(KeyConditionExpr { parts })
}

/// The key attribute named by `operands` (exactly one top-level path), checking nesting.
fn key_attribute(operands: &[&Operand]) -> Result<Option<(usize, String)>> {
    let mut found: Option<(usize, String)> = None;
    for (i, op) in operands.iter().enumerate() {
        match op {
            Operand::Size(_) => {
                return Err(Exception::validation(
                    "KeyConditionExpressions cannot contain nested operations",
                ))
            }
            Operand::Path(Path(elems)) => {
                if found.is_some() {
                    return Err(invalid_condition(
                        "Multiple attribute names used in one condition",
                    ));
                }
                if elems.len() > 1 {
                    return Err(Exception::validation(
                        "KeyConditionExpressions cannot have conditions on nested attributes",
                    ));
                }
                found = Some((i, Path(elems.clone()).head().to_string()));
            }
            Operand::Value(_) => {}
        }
    }
    Ok(found)
}

fn value_of(op: Operand) -> AttributeValue {
    match op {
        Operand::Value(v) => v,
        // key_attribute() has ruled paths and size() out for every other operand.
        _ => AttributeValue::Null(true),
    }
}

fn collect(node: CondNode, parts: &mut Vec<(String, SortCondition)>) -> Result<()> {
    let (name, cond) = match node {
        CondNode::And(a, b) => {
            collect(*a, parts)?;
            return collect(*b, parts);
        }
        CondNode::Or(..) => return Err(invalid_operator("OR")),
        CondNode::Not(_) => return Err(invalid_operator("NOT")),
        CondNode::In(..) => return Err(invalid_operator("IN")),
        CondNode::Compare(Comparator::Ne, ..) => return Err(invalid_operator("<>")),
        CondNode::Exists(_) => return Err(invalid_operator("attribute_exists")),
        CondNode::NotExists(_) => return Err(invalid_operator("attribute_not_exists")),
        CondNode::AttrType(..) => return Err(invalid_operator("attribute_type")),
        CondNode::Contains(..) => return Err(invalid_operator("contains")),
        CondNode::Compare(cmp, a, b) => {
            let Some((ix, name)) = key_attribute(&[&a, &b])? else {
                return Err(invalid_condition("No key attribute specified"));
            };
            let (cmp, v) = if ix == 0 {
                (cmp, value_of(b))
            } else {
                (cmp.flipped(), value_of(a))
            };
            let cond = match cmp {
                Comparator::Eq => SortCondition::Eq(v),
                Comparator::Lt => SortCondition::Lt(v),
                Comparator::Le => SortCondition::Le(v),
                Comparator::Gt => SortCondition::Gt(v),
                _ => SortCondition::Ge(v),
            };
            (name, cond)
        }
        CondNode::Between(x, lo, hi) => {
            if !matches!(x, Operand::Path(_)) {
                if matches!(x, Operand::Size(_)) {
                    key_attribute(&[&x])?;
                }
                return Err(invalid_condition(
                    "BETWEEN operator must have the key attribute as its first operand",
                ));
            }
            let Some((_, name)) = key_attribute(&[&x, &lo, &hi])? else {
                return Err(invalid_condition("No key attribute specified"));
            };
            (name, SortCondition::Between(value_of(lo), value_of(hi)))
        }
        CondNode::BeginsWith(a, b) => {
            if !matches!(a, Operand::Path(_)) {
                if matches!(a, Operand::Size(_)) {
                    key_attribute(&[&a])?;
                }
                return Err(invalid_condition(
                    "begins_with operator must have the key attribute as its first operand",
                ));
            }
            let Some((_, name)) = key_attribute(&[&a, &b])? else {
                return Err(invalid_condition("No key attribute specified"));
            };
            (name, SortCondition::BeginsWith(value_of(b)))
        }
    };
    if parts.iter().any(|(n, _)| *n == name) {
        return Err(Exception::validation(
            "KeyConditionExpressions must only contain one condition per key",
        ));
    }
    parts.push((name, cond));
    Ok(())
}
