//! The shapes of DynamoDB's legacy parameters, as `aws_sdk_dynamodb::types` has them.
//!
//! Before expressions (2014), conditions, filters, key conditions and updates were written
//! as structured maps of attribute name → a small shape: a [`Condition`] (an operator and
//! its arguments) for `KeyConditions`, `QueryFilter` and `ScanFilter`; an
//! [`ExpectedAttributeValue`] for `Expected`; an [`AttributeValueUpdate`] for
//! `AttributeUpdates`; and one [`ConditionalOperator`] joining all the entries of a map.
//! The service still accepts them, and `crate::ops::legacy` turns each into the expression
//! tree the engine already evaluates.

use super::builders::shape_builder;
use super::fmt;
use crate::value::AttributeValue;

wire_enum!(
    /// The operator of a legacy [`Condition`] or [`ExpectedAttributeValue`].
    ComparisonOperator {
        Eq => "EQ",
        Ne => "NE",
        In => "IN",
        Le => "LE",
        Lt => "LT",
        Ge => "GE",
        Gt => "GT",
        Between => "BETWEEN",
        NotNull => "NOT_NULL",
        Null => "NULL",
        Contains => "CONTAINS",
        NotContains => "NOT_CONTAINS",
        BeginsWith => "BEGINS_WITH",
    }
);
wire_enum!(
    /// How the entries of one legacy map combine: all must hold (`AND`, the default) or one.
    ConditionalOperator { And => "AND", Or => "OR" }
);
wire_enum!(
    /// What a legacy `AttributeUpdates` entry does to its attribute (`PUT` by default).
    AttributeAction { Add => "ADD", Put => "PUT", Delete => "DELETE" }
);

/// One entry of `KeyConditions`, `QueryFilter` or `ScanFilter`: the attribute (the map's
/// key) compared by `comparison_operator` with the values of `attribute_value_list`.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub attribute_value_list: Option<Vec<AttributeValue>>,
    pub comparison_operator: ComparisonOperator,
}

impl Condition {
    pub fn attribute_value_list(&self) -> &[AttributeValue] {
        self.attribute_value_list.as_deref().unwrap_or_default()
    }
    pub fn comparison_operator(&self) -> &ComparisonOperator {
        &self.comparison_operator
    }
}

shape_builder! {
    /// Builds a [`Condition`]; the operator is required.
    Condition => ConditionBuilder, fallible {
        opt_list attribute_value_list / set_attribute_value_list / get_attribute_value_list: AttributeValue,
        req comparison_operator / set_comparison_operator / get_comparison_operator: ComparisonOperator,
    }
}

/// One entry of `Expected`: either `Value` (the attribute must equal it) with `Exists`
/// (`false`: the attribute must be absent, and then no `Value`), or a `ComparisonOperator`
/// with its `AttributeValueList` (or one `Value`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpectedAttributeValue {
    pub value: Option<AttributeValue>,
    pub exists: Option<bool>,
    pub comparison_operator: Option<ComparisonOperator>,
    pub attribute_value_list: Option<Vec<AttributeValue>>,
}

impl ExpectedAttributeValue {
    pub fn value(&self) -> Option<&AttributeValue> {
        self.value.as_ref()
    }
    pub fn exists(&self) -> Option<bool> {
        self.exists
    }
    pub fn comparison_operator(&self) -> Option<&ComparisonOperator> {
        self.comparison_operator.as_ref()
    }
    pub fn attribute_value_list(&self) -> &[AttributeValue] {
        self.attribute_value_list.as_deref().unwrap_or_default()
    }
}

shape_builder! {
    /// Builds an [`ExpectedAttributeValue`]; every field is optional (which combinations
    /// are allowed is DynamoDB's to check, at `send()`).
    ExpectedAttributeValue => ExpectedAttributeValueBuilder, infallible {
        opt value / set_value / get_value: AttributeValue,
        opt exists / set_exists / get_exists: bool,
        opt comparison_operator / set_comparison_operator / get_comparison_operator: ComparisonOperator,
        opt_list attribute_value_list / set_attribute_value_list / get_attribute_value_list: AttributeValue,
    }
}

/// One entry of `AttributeUpdates`: what to do (`PUT` when absent) with which value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributeValueUpdate {
    pub value: Option<AttributeValue>,
    pub action: Option<AttributeAction>,
}

impl AttributeValueUpdate {
    pub fn value(&self) -> Option<&AttributeValue> {
        self.value.as_ref()
    }
    pub fn action(&self) -> Option<&AttributeAction> {
        self.action.as_ref()
    }
}

shape_builder! {
    /// Builds an [`AttributeValueUpdate`]; both fields are optional.
    AttributeValueUpdate => AttributeValueUpdateBuilder, infallible {
        opt value / set_value / get_value: AttributeValue,
        opt action / set_action / get_action: AttributeAction,
    }
}
