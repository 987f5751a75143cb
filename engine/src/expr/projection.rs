//! ProjectionExpression: parsing and applying (§5.7).
//!
//! A projection is a list of document paths. Applying it keeps, for each path, the value at
//! that path *inside the structure that encloses it*, trimmed to what was asked for:
//!
//! ```text
//! item        {"a": {"M": {"x": 1, "y": 2}}, "l": {"L": [10, 20, 30]}, "z": 3}
//! projection  a.y, l[2], l[0], missing
//! result      {"a": {"M": {"y": 2}}, "l": {"L": [10, 30]}}
//! ```
//!
//! List elements keep their relative order and close up (`l[2], l[0]` gives a two-element
//! list); paths that lead nowhere are silently left out. The paths are compiled into a tree
//! once, at parse time, so applying a projection is one walk of the item per page of results.

use std::collections::{BTreeMap, HashMap};

use crate::error::Result;
use crate::value::{AttributeValue, Item};

use super::ast::{Path, PathElem};
use super::lexer::Tok;
use super::parser::Parser;
use super::paths::check_disjoint;

/// A parsed ProjectionExpression (also used for ReturnValues `UPDATED_*`).
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    paths: Vec<Path>,
    tree: BTreeMap<String, Node>,
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Leaf,
    Map(BTreeMap<String, Node>),
    List(BTreeMap<u32, Node>),
}

impl Projection {
    /// Compile paths into a projection. Where paths overlap (which a parsed expression never
    /// has), the shorter one wins: it already includes the longer.
    pub fn from_paths(paths: Vec<Path>) -> Projection {
        let mut tree = BTreeMap::new();
        for path in &paths {
            let Some((PathElem::Name(head), rest)) = path.0.split_first() else {
                continue;
            };
            let slot = tree.entry(head.clone()).or_insert_with(|| build(rest));
            merge(slot, rest);
        }
        Projection { paths, tree }
    }

    /// The paths as written (names resolved).
    pub fn paths(&self) -> &[Path] {
        &self.paths
    }

    /// The top-level attributes the projection reads, each once.
    pub fn top_level_names(&self) -> Vec<&str> {
        self.tree.keys().map(String::as_str).collect()
    }

    /// `item` reduced to the projected paths.
    pub fn apply(&self, item: &Item) -> Item {
        let mut out = Item::new();
        for (name, node) in &self.tree {
            if let Some(v) = item.get(name).and_then(|v| project(v, node)) {
                out.insert(name.clone(), v);
            }
        }
        out
    }
}

fn build(rest: &[PathElem]) -> Node {
    let Some((first, rest)) = rest.split_first() else {
        return Node::Leaf;
    };
    match first {
        PathElem::Name(n) => Node::Map(BTreeMap::from([(n.clone(), build(rest))])),
        PathElem::Index(i) => Node::List(BTreeMap::from([(*i, build(rest))])),
    }
}

fn merge(node: &mut Node, rest: &[PathElem]) {
    let Some((first, tail)) = rest.split_first() else {
        *node = Node::Leaf;
        return;
    };
    match (node, first) {
        (Node::Leaf, _) => {}
        (Node::Map(m), PathElem::Name(n)) => match m.get_mut(n) {
            Some(child) => merge(child, tail),
            None => {
                m.insert(n.clone(), build(tail));
            }
        },
        (Node::List(l), PathElem::Index(i)) => match l.get_mut(i) {
            Some(child) => merge(child, tail),
            None => {
                l.insert(*i, build(tail));
            }
        },
        // A map/list conflict: the parser rejects it; keep the first shape.
        _ => {}
    }
}

fn project(v: &AttributeValue, node: &Node) -> Option<AttributeValue> {
    match (node, v) {
        (Node::Leaf, _) => Some(v.clone()),
        (Node::Map(children), AttributeValue::M(m)) => {
            let out: HashMap<String, AttributeValue> = children
                .iter()
                .filter_map(|(k, n)| Some((k.clone(), project(m.get(k)?, n)?)))
                .collect();
            (!out.is_empty()).then_some(AttributeValue::M(out))
        }
        (Node::List(children), AttributeValue::L(l)) => {
            let out: Vec<AttributeValue> = children
                .iter()
                .filter_map(|(i, n)| project(l.get(*i as usize)?, n))
                .collect();
            (!out.is_empty()).then_some(AttributeValue::L(out))
        }
        _ => None,
    }
}

/// `path { ',' path }`, with overlapping or conflicting paths rejected.
pub(crate) fn parse_projection(p: &mut Parser) -> Result<Projection> {
    let mut paths = vec![p.parse_path()?];
    while p.peek().kind == Tok::Comma {
        p.bump();
        paths.push(p.parse_path()?);
    }
    let refs: Vec<&Path> = paths.iter().collect();
    check_disjoint(p, &refs);
    Ok(Projection::from_paths(paths))
}
