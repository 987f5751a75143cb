//! Applying an UpdateExpression to an item (§5.6).
//!
//! Two phases, because DynamoDB evaluates every right-hand side against the item *before*
//! the update (`SET a = b, b = a` swaps):
//!
//! 1. compute: every SET value, ADD sum or union and DELETE difference is computed from the
//!    pre-update item, which is only read;
//! 2. write: the results are written into a copy, in path order (so `SET l[7] = :x, l[5] = :y`
//!    on a three-element list appends `:y` then `:x`, "in index order"), then the REMOVEs run
//!    in reverse path order, so that removing `l[1]` cannot shift `l[2]` before it goes: every
//!    index in one expression names an element of the pre-update list.
//!
//! Paths of one expression never overlap (the parser rejects it), which is what makes the
//! order of writes otherwise irrelevant.

use std::borrow::Cow;

use crate::error::{Exception, Result};
use crate::value::{AttributeValue, Blob, Item, Number};

use super::ast::{Path, PathElem, SetValue, UpdateAction, UpdateExpr, UpdateOperand};
use super::paths;

const MISSING: &str =
    "The provided expression refers to an attribute that does not exist in the item";
const WRONG_TYPE: &str = "An operand in the update expression has an incorrect data type";
const BAD_PATH: &str = "The document path provided in the update expression is invalid for update";

impl UpdateExpr {
    /// Apply to `base` (the current item, or just the key attributes when the item does not
    /// exist yet) and return the new item. Fails with DynamoDB's message when a right-hand
    /// side reads a missing attribute, an operand has the wrong type, a path's parent is
    /// missing or of the wrong kind, or a number overflows.
    pub fn apply(&self, base: &Item) -> Result<Item> {
        let mut writes: Vec<(&Path, AttributeValue)> = Vec::with_capacity(self.actions.len());
        let mut removes: Vec<&Path> = Vec::new();
        for action in &self.actions {
            match action {
                UpdateAction::Set(path, value) => writes.push((path, set_value(value, base)?)),
                UpdateAction::Remove(path) => removes.push(path),
                UpdateAction::Add(path, operand) => {
                    writes.push((path, add(paths::get(base, path), operand)?));
                }
                UpdateAction::Delete(path, operand) => {
                    match delete(paths::get(base, path), operand)? {
                        Some(Some(v)) => writes.push((path, v)),
                        Some(None) => removes.push(path),
                        None => {}
                    }
                }
            }
        }
        let mut item = base.clone();
        writes.sort_by(|a, b| a.0.cmp(b.0));
        for (path, value) in writes {
            write(&mut item, path, value)?;
        }
        removes.sort_by(|a, b| b.cmp(a));
        for path in removes {
            remove(&mut item, path)?;
        }
        Ok(item)
    }

    /// Top-level attributes the update writes or removes (the caller rejects key attributes).
    pub fn top_level_targets(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for a in &self.actions {
            let head = a.path().head();
            if !out.contains(&head) {
                out.push(head);
            }
        }
        out
    }

    /// `item` restricted to the paths the update targets (ReturnValues `UPDATED_OLD` on the
    /// item before, `UPDATED_NEW` on the item after).
    pub fn project_updated(&self, item: &Item) -> Item {
        self.targets.apply(item)
    }
}

fn error(message: &str) -> Exception {
    Exception::validation(message)
}

fn operand<'a>(op: &'a UpdateOperand, base: &'a Item) -> Result<Cow<'a, AttributeValue>> {
    match op {
        UpdateOperand::Value(v) => Ok(Cow::Borrowed(v)),
        UpdateOperand::Path(p) => paths::get(base, p)
            .map(Cow::Borrowed)
            .ok_or_else(|| error(MISSING)),
        UpdateOperand::IfNotExists(p, fallback) => match paths::get(base, p) {
            Some(v) => Ok(Cow::Borrowed(v)),
            None => operand(fallback, base),
        },
        UpdateOperand::ListAppend(a, b) => {
            let (a, b) = (operand(a, base)?, operand(b, base)?);
            match (a.as_ref(), b.as_ref()) {
                (AttributeValue::L(x), AttributeValue::L(y)) => {
                    let mut out = Vec::with_capacity(x.len() + y.len());
                    out.extend_from_slice(x);
                    out.extend_from_slice(y);
                    Ok(Cow::Owned(AttributeValue::L(out)))
                }
                _ => Err(error(WRONG_TYPE)),
            }
        }
    }
}

fn number(v: &AttributeValue) -> Result<Number> {
    match v {
        AttributeValue::N(s) => Number::parse(s),
        _ => Err(error(WRONG_TYPE)),
    }
}

fn set_value(value: &SetValue, base: &Item) -> Result<AttributeValue> {
    let (a, b, plus) = match value {
        SetValue::Operand(o) => return Ok(operand(o, base)?.into_owned()),
        SetValue::Plus(a, b) => (a, b, true),
        SetValue::Minus(a, b) => (a, b, false),
    };
    let (x, y) = (
        number(operand(a, base)?.as_ref())?,
        number(operand(b, base)?.as_ref())?,
    );
    let n = if plus {
        x.checked_add(&y)?
    } else {
        x.checked_sub(&y)?
    };
    Ok(AttributeValue::N(n.to_string()))
}

/// ADD: a number is added to (missing counts as 0), a set is unioned with one of its type.
fn add(current: Option<&AttributeValue>, operand: &AttributeValue) -> Result<AttributeValue> {
    use AttributeValue as V;
    let Some(current) = current else {
        return Ok(operand.clone());
    };
    Ok(match (current, operand) {
        (V::N(_), V::N(_)) => V::N(number(current)?.checked_add(&number(operand)?)?.to_string()),
        (V::Ss(a), V::Ss(b)) => V::Ss(union(a, b, |x, y| x == y)),
        (V::Bs(a), V::Bs(b)) => V::Bs(union(a, b, |x: &Blob, y| x == y)),
        (V::Ns(a), V::Ns(b)) => V::Ns(union(a, b, same_number)),
        _ => return Err(error(WRONG_TYPE)),
    })
}

/// DELETE: set difference. `None`: nothing to do (attribute absent); `Some(None)`: the set
/// became empty and the attribute goes (a set cannot be empty); `Some(Some(v))`: the rest.
fn delete(
    current: Option<&AttributeValue>,
    operand: &AttributeValue,
) -> Result<Option<Option<AttributeValue>>> {
    use AttributeValue as V;
    let Some(current) = current else {
        return Ok(None);
    };
    let rest = match (current, operand) {
        (V::Ss(a), V::Ss(b)) => difference(a, b, |x, y| x == y).map(V::Ss),
        (V::Bs(a), V::Bs(b)) => difference(a, b, |x: &Blob, y| x == y).map(V::Bs),
        (V::Ns(a), V::Ns(b)) => difference(a, b, same_number).map(V::Ns),
        _ => return Err(error(WRONG_TYPE)),
    };
    Ok(Some(rest))
}

fn same_number(a: &String, b: &String) -> bool {
    a == b || matches!((Number::parse(a), Number::parse(b)), (Ok(x), Ok(y)) if x == y)
}

fn union<T: Clone>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut out = a.to_vec();
    for x in b {
        if !out.iter().any(|y| eq(x, y)) {
            out.push(x.clone());
        }
    }
    out
}

fn difference<T: Clone>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> Option<Vec<T>> {
    let out: Vec<T> = a
        .iter()
        .filter(|x| !b.iter().any(|y| eq(x, y)))
        .cloned()
        .collect();
    (!out.is_empty()).then_some(out)
}

/// The container holding the last element of `path` (the item itself for a top-level name).
fn parent_mut<'i>(item: &'i mut Item, path: &Path) -> Result<Option<&'i mut AttributeValue>> {
    let elems = &path.0;
    if elems.len() < 2 {
        return Ok(None);
    }
    let PathElem::Name(head) = &elems[0] else {
        return Err(error(BAD_PATH));
    };
    let mut cur = item.get_mut(head.as_str()).ok_or_else(|| error(BAD_PATH))?;
    for e in &elems[1..elems.len() - 1] {
        cur = match (cur, e) {
            (AttributeValue::M(m), PathElem::Name(n)) => m.get_mut(n.as_str()),
            (AttributeValue::L(l), PathElem::Index(i)) => l.get_mut(*i as usize),
            _ => None,
        }
        .ok_or_else(|| error(BAD_PATH))?;
    }
    Ok(Some(cur))
}

fn write(item: &mut Item, path: &Path, value: AttributeValue) -> Result<()> {
    let last = path.0.last().ok_or_else(|| error(BAD_PATH))?;
    match (parent_mut(item, path)?, last) {
        (None, PathElem::Name(n)) => {
            item.insert(n.clone(), value);
        }
        (Some(AttributeValue::M(m)), PathElem::Name(n)) => {
            m.insert(n.clone(), value);
        }
        (Some(AttributeValue::L(l)), PathElem::Index(i)) => match l.get_mut(*i as usize) {
            Some(slot) => *slot = value,
            None => l.push(value),
        },
        _ => return Err(error(BAD_PATH)),
    }
    Ok(())
}

/// REMOVE: a missing attribute or list element is not an error; a path whose parent is
/// missing (`REMOVE a.b` of an item without `a`) or of the wrong kind (`REMOVE a[0]` where
/// `a` is a string) is, as for SET (verified against the service by a peer suite). Of an
/// item that does not exist at all nothing is checked: UpdateItem creates nothing then.
fn remove(item: &mut Item, path: &Path) -> Result<()> {
    let Some(last) = path.0.last() else {
        return Err(error(BAD_PATH));
    };
    match (parent_mut(item, path)?, last) {
        (None, PathElem::Name(n)) => {
            item.remove(n.as_str());
        }
        (Some(AttributeValue::M(m)), PathElem::Name(n)) => {
            m.remove(n.as_str());
        }
        (Some(AttributeValue::L(l)), PathElem::Index(i)) => {
            if (*i as usize) < l.len() {
                l.remove(*i as usize);
            }
        }
        _ => return Err(error(BAD_PATH)),
    }
    Ok(())
}
