//! Evaluating a condition against an item (§5.3, §5.4).
//!
//! Evaluation never fails: a condition is a question about the item, and DynamoDB answers
//! "no" to a question that does not apply (comparing a number with a string, `size` of a
//! number, a path through a string). The only outcome is `true` or `false`; everything that
//! can be refused was refused when the expression was parsed.
//!
//! Design decision: operands are evaluated to borrowed values ([`Ev::Ref`]) so a condition
//! checked on every PutItem, or a filter run on every item of a Query page, allocates
//! nothing. Only `size(…)` produces a fresh number, and only when it is compared.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::value::{AttributeValue, Item, Number};

use super::ast::{Comparator, CondNode, Condition, Operand, PathElem};
use super::paths;

impl Condition {
    /// Whether the condition holds for `item` as stored (`None`: no item, every path absent).
    pub fn evaluate(&self, item: Option<&Item>) -> bool {
        eval(&self.root, item)
    }

    /// The top-level attribute names the condition reads, each once, in order of appearance
    /// (a Query checks them against the key schema: filters may not read key attributes).
    pub fn top_level_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        collect_names(&self.root, &mut out);
        out
    }
}

fn push_name<'a>(out: &mut Vec<&'a str>, elems: &'a [PathElem]) {
    if let Some(PathElem::Name(n)) = elems.first() {
        if !out.contains(&n.as_str()) {
            out.push(n);
        }
    }
}

fn collect_operand<'a>(op: &'a Operand, out: &mut Vec<&'a str>) {
    match op {
        Operand::Path(p) => push_name(out, &p.0),
        Operand::Size(inner) => collect_operand(inner, out),
        Operand::Value(_) => {}
    }
}

fn collect_names<'a>(node: &'a CondNode, out: &mut Vec<&'a str>) {
    match node {
        CondNode::Compare(_, a, b) | CondNode::BeginsWith(a, b) | CondNode::Contains(a, b) => {
            collect_operand(a, out);
            collect_operand(b, out);
        }
        CondNode::Between(a, b, c) => {
            for op in [a, b, c] {
                collect_operand(op, out);
            }
        }
        CondNode::In(a, list) => {
            collect_operand(a, out);
            for op in list {
                collect_operand(op, out);
            }
        }
        CondNode::Exists(p) | CondNode::NotExists(p) => push_name(out, &p.0),
        CondNode::AttrType(x, _) => collect_operand(x, out),
        CondNode::And(a, b) | CondNode::Or(a, b) => {
            collect_names(a, out);
            collect_names(b, out);
        }
        CondNode::Not(a) => collect_names(a, out),
    }
}

/// An evaluated operand: absent, borrowed from the item or the expression, or computed.
type Ev<'a> = Option<Cow<'a, AttributeValue>>;

fn operand<'a>(op: &'a Operand, item: Option<&'a Item>) -> Ev<'a> {
    match op {
        Operand::Value(v) => Some(Cow::Borrowed(v)),
        Operand::Path(p) => paths::get(item?, p).map(Cow::Borrowed),
        Operand::Size(inner) => {
            let v = operand(inner, item)?;
            let n = size_of(&v)?;
            Some(Cow::Owned(AttributeValue::N(n.to_string())))
        }
    }
}

/// `size()`: bytes of S and B, elements of sets and lists, entries of maps; nothing for N,
/// BOOL and NULL. A string's size is its UTF-8 length, the unit DynamoDB measures strings
/// in everywhere else.
pub(crate) fn size_of(v: &AttributeValue) -> Option<usize> {
    Some(match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Ss(s) | AttributeValue::Ns(s) => s.len(),
        AttributeValue::Bs(s) => s.len(),
        AttributeValue::L(l) => l.len(),
        AttributeValue::M(m) => m.len(),
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null(_) => return None,
    })
}

fn eval(node: &CondNode, item: Option<&Item>) -> bool {
    match node {
        CondNode::And(a, b) => eval(a, item) && eval(b, item),
        CondNode::Or(a, b) => eval(a, item) || eval(b, item),
        CondNode::Not(a) => !eval(a, item),
        CondNode::Compare(cmp, a, b) => {
            let (x, y) = (operand(a, item), operand(b, item));
            match (x, y) {
                (Some(x), Some(y)) => compare(*cmp, &x, &y),
                // A missing operand: only "is different from" holds.
                _ => *cmp == Comparator::Ne,
            }
        }
        CondNode::Between(x, lo, hi) => {
            let (Some(x), Some(lo), Some(hi)) =
                (operand(x, item), operand(lo, item), operand(hi, item))
            else {
                return false;
            };
            matches!(x.dynamo_cmp(&lo), Some(Ordering::Greater | Ordering::Equal))
                && matches!(x.dynamo_cmp(&hi), Some(Ordering::Less | Ordering::Equal))
        }
        CondNode::In(x, list) => match operand(x, item) {
            Some(x) => list
                .iter()
                .any(|o| operand(o, item).is_some_and(|v| x.dynamo_eq(&v))),
            None => false,
        },
        CondNode::Exists(p) => item.and_then(|i| paths::get(i, p)).is_some(),
        CondNode::NotExists(p) => item.and_then(|i| paths::get(i, p)).is_none(),
        CondNode::AttrType(x, ty) => operand(x, item).is_some_and(|v| v.type_name() == *ty),
        CondNode::BeginsWith(a, b) => match (operand(a, item), operand(b, item)) {
            (Some(a), Some(b)) => begins_with(&a, &b),
            _ => false,
        },
        CondNode::Contains(a, b) => match (operand(a, item), operand(b, item)) {
            (Some(a), Some(b)) => contains(&a, &b),
            _ => false,
        },
    }
}

fn compare(cmp: Comparator, x: &AttributeValue, y: &AttributeValue) -> bool {
    match cmp {
        Comparator::Eq => x.dynamo_eq(y),
        Comparator::Ne => !x.dynamo_eq(y),
        _ => match x.dynamo_cmp(y) {
            None => false,
            Some(o) => match cmp {
                Comparator::Lt => o == Ordering::Less,
                Comparator::Le => o != Ordering::Greater,
                Comparator::Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            },
        },
    }
}

pub(crate) fn begins_with(a: &AttributeValue, b: &AttributeValue) -> bool {
    match (a, b) {
        (AttributeValue::S(a), AttributeValue::S(b)) => a.as_bytes().starts_with(b.as_bytes()),
        (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref().starts_with(b.as_ref()),
        _ => false,
    }
}

fn number_str_eq(a: &str, b: &str) -> bool {
    a == b
        || match (Number::parse(a), Number::parse(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
}

/// `contains(a, b)`: substring of a string, element of a set of b's type, or an element of a
/// list equal to b.
fn contains(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue as V;
    match (a, b) {
        (V::S(a), V::S(b)) => a.contains(b.as_str()),
        (V::B(a), V::B(b)) => {
            let (hay, needle) = (a.as_ref(), b.as_ref());
            needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
        }
        (V::Ss(set), V::S(e)) => set.iter().any(|x| x == e),
        (V::Ns(set), V::N(e)) => set.iter().any(|x| number_str_eq(x, e)),
        (V::Bs(set), V::B(e)) => set.iter().any(|x| x == e),
        (V::L(list), e) => list.iter().any(|x| x.dynamo_eq(e)),
        _ => false,
    }
}
