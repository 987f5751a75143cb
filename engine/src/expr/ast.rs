//! The parsed forms of the four expression kinds.
//!
//! Every placeholder is already resolved here: a [`Path`] holds real attribute names (the
//! targets of `#name`s), an operand holds the canonical [`AttributeValue`] a `:value` stood
//! for. Evaluation therefore never looks at the request's maps again, and a condition that
//! runs against a million items parses its placeholders once.

use std::fmt;

use crate::value::AttributeValue;

/// One step of a document path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathElem {
    /// `.name` (or the leading name): a top-level attribute or a map key.
    Name(String),
    /// `[n]`: a list element.
    Index(u32),
}

/// A document path such as `a.b[2].c`: at least one element, the first always a name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Path(pub Vec<PathElem>);

impl Path {
    /// The top-level attribute the path starts at.
    pub fn head(&self) -> &str {
        match self.0.first() {
            Some(PathElem::Name(n)) => n,
            _ => "",
        }
    }

    pub fn elems(&self) -> &[PathElem] {
        &self.0
    }
}

/// DynamoDB's rendering in error messages: `[a, b, [2], c]`.
impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match e {
                PathElem::Name(n) => f.write_str(n)?,
                PathElem::Index(ix) => write!(f, "[{ix}]")?,
            }
        }
        f.write_str("]")
    }
}

/// A value-producing term of a condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Path(Path),
    Value(AttributeValue),
    /// `size(x)`: a number, or "no value" when x is absent or has no size.
    Size(Box<Operand>),
}

/// `=`, `<>`, `<`, `<=`, `>`, `>=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparator {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparator {
    pub fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }

    /// The same comparison with its operands swapped (`:v < a` is `a > :v`).
    pub fn flipped(self) -> Comparator {
        match self {
            Comparator::Lt => Comparator::Gt,
            Comparator::Le => Comparator::Ge,
            Comparator::Gt => Comparator::Lt,
            Comparator::Ge => Comparator::Le,
            other => other,
        }
    }
}

/// One node of a condition tree.
#[derive(Clone, Debug, PartialEq)]
pub enum CondNode {
    Compare(Comparator, Operand, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    Exists(Path),
    NotExists(Path),
    /// `attribute_type(x, :t)`; the type name is one of the ten tags. `x` is a path, or a
    /// value (`attribute_type(:v, :t)`, which the service accepts too).
    AttrType(Operand, &'static str),
    BeginsWith(Operand, Operand),
    Contains(Operand, Operand),
    And(Box<CondNode>, Box<CondNode>),
    Or(Box<CondNode>, Box<CondNode>),
    Not(Box<CondNode>),
}

/// A parsed ConditionExpression or FilterExpression.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub root: CondNode,
}

/// A term on the right-hand side of `SET path = …`.
#[derive(Clone, Debug, PartialEq)]
pub enum UpdateOperand {
    Path(Path),
    Value(AttributeValue),
    IfNotExists(Path, Box<UpdateOperand>),
    ListAppend(Box<UpdateOperand>, Box<UpdateOperand>),
}

/// The whole right-hand side of a SET action.
#[derive(Clone, Debug, PartialEq)]
pub enum SetValue {
    Operand(UpdateOperand),
    Plus(UpdateOperand, UpdateOperand),
    Minus(UpdateOperand, UpdateOperand),
}

/// One action of an UpdateExpression.
#[derive(Clone, Debug, PartialEq)]
pub enum UpdateAction {
    Set(Path, SetValue),
    Remove(Path),
    Add(Path, AttributeValue),
    Delete(Path, AttributeValue),
}

impl UpdateAction {
    pub fn path(&self) -> &Path {
        match self {
            UpdateAction::Set(p, _)
            | UpdateAction::Remove(p)
            | UpdateAction::Add(p, _)
            | UpdateAction::Delete(p, _) => p,
        }
    }
}

/// A parsed UpdateExpression: its actions in the order written.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateExpr {
    pub actions: Vec<UpdateAction>,
    /// The target paths as a projection, for ReturnValues `UPDATED_OLD` / `UPDATED_NEW`.
    pub(crate) targets: super::projection::Projection,
}

/// Which expression parameter a text came from; names the `Invalid <Kind>: ` prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Condition,
    Filter,
    KeyCondition,
    Update,
    Projection,
}

impl ExprKind {
    /// The request parameter's name (`ConditionExpression`, …).
    pub fn param_name(self) -> &'static str {
        match self {
            ExprKind::Condition => "ConditionExpression",
            ExprKind::Filter => "FilterExpression",
            ExprKind::KeyCondition => "KeyConditionExpression",
            ExprKind::Update => "UpdateExpression",
            ExprKind::Projection => "ProjectionExpression",
        }
    }

    /// Whether `word` (already known to be an identifier) is a keyword of this kind's grammar.
    pub(crate) fn is_keyword(self, word: &str) -> bool {
        const CONDITION: [&str; 5] = ["AND", "OR", "NOT", "BETWEEN", "IN"];
        const UPDATE: [&str; 4] = ["SET", "REMOVE", "ADD", "DELETE"];
        let list: &[&str] = match self {
            ExprKind::Condition | ExprKind::Filter | ExprKind::KeyCondition => &CONDITION,
            ExprKind::Update => &UPDATE,
            ExprKind::Projection => &[],
        };
        list.iter().any(|k| k.eq_ignore_ascii_case(word))
    }
}
