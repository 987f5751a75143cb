//! Document paths against items: reading a value at a path, and the overlap rule that
//! UpdateExpression and ProjectionExpression share.

use crate::value::{AttributeValue, Item};

use super::ast::{Path, PathElem};
use super::names::Problem;
use super::parser::Parser;

/// The value at `path` in `item`, or `None` if any step is missing or of the wrong kind.
/// Borrowing only: this runs once per operand per evaluated item.
pub(crate) fn get<'i>(item: &'i Item, path: &Path) -> Option<&'i AttributeValue> {
    let mut elems = path.0.iter();
    let mut cur = match elems.next()? {
        PathElem::Name(n) => item.get(n.as_str())?,
        PathElem::Index(_) => return None,
    };
    for e in elems {
        cur = step(cur, e)?;
    }
    Some(cur)
}

/// One step down from `v`: a map key or a list index.
pub(crate) fn step<'v>(v: &'v AttributeValue, e: &PathElem) -> Option<&'v AttributeValue> {
    match (v, e) {
        (AttributeValue::M(m), PathElem::Name(n)) => m.get(n.as_str()),
        (AttributeValue::L(l), PathElem::Index(i)) => l.get(*i as usize),
        _ => None,
    }
}

/// Reject two paths of one expression that overlap (one is a prefix of the other, or they
/// are equal) or conflict (the same prefix used once as a map and once as a list). Pairs are
/// checked in the order written, so the message names the earlier path first.
pub(crate) fn check_disjoint(p: &mut Parser, paths: &[&Path]) {
    if let Some((kind, message)) = first_clash(paths) {
        p.record(kind, || message);
    }
}

/// The first pair of paths that overlap or conflict, with DynamoDB's message for it.
fn first_clash(paths: &[&Path]) -> Option<(Problem, String)> {
    for (j, later) in paths.iter().enumerate() {
        for earlier in &paths[..j] {
            if let Some(kind) = relation(earlier, later) {
                let verb = if kind == Problem::Overlap {
                    "overlap"
                } else {
                    "conflict"
                };
                return Some((
                    kind,
                    format!(
                        "Two document paths {verb} with each other; must remove or rewrite one of \
                         these paths; path one: {earlier}, path two: {later}"
                    ),
                ));
            }
        }
    }
    None
}

/// The overlap rule for paths that came from elsewhere than an expression's text (a PartiQL
/// `UPDATE`'s assignments): the message for the first clash, if any.
pub(crate) fn paths_clash(paths: &[&Path]) -> Option<String> {
    first_clash(paths).map(|(_, message)| message)
}

fn relation(a: &Path, b: &Path) -> Option<Problem> {
    for (x, y) in a.0.iter().zip(&b.0) {
        match (x, y) {
            (PathElem::Name(m), PathElem::Name(n)) if m == n => continue,
            (PathElem::Index(m), PathElem::Index(n)) if m == n => continue,
            (PathElem::Name(_), PathElem::Index(_)) | (PathElem::Index(_), PathElem::Name(_)) => {
                return Some(Problem::Conflict)
            }
            _ => return None,
        }
    }
    Some(Problem::Overlap)
}
