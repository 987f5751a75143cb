//! Placeholder bookkeeping for one request, and the per-expression problem collector.
//!
//! DynamoDB treats the `#name` and `:value` maps as belonging to the *request*, not to one
//! expression: a `:v` used only by the ConditionExpression satisfies the "every value must be
//! used" rule for an UpdateItem, and a key no expression mentions is an error even if the
//! request has four expressions. So one [`Placeholders`] is created per request, every
//! expression's parser resolves through it and marks what it used, and
//! [`Placeholders::finish`] reports what was left over.
//!
//! Values are validated and canonicalized once, up front (`:n = {"N": "+01.50"}` becomes
//! `1.5`), so every expression that uses `:n` sees the same canonical value and evaluation
//! never re-parses it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::{Exception, Result};
use crate::value::{canonicalize_value, AttributeValue};

/// The request's two maps, resolved, with a record of which keys the expressions used.
#[derive(Debug)]
pub(crate) struct Placeholders<'a> {
    names: Option<&'a HashMap<String, String>>,
    values: BTreeMap<&'a str, AttributeValue>,
    has_values: bool,
    used_names: BTreeSet<&'a str>,
    used_values: BTreeSet<&'a str>,
}

/// `^[#:][0-9A-Za-z_]+$`: the shape DynamoDB accepts for a map key.
fn valid_key(key: &str, sigil: u8) -> bool {
    let b = key.as_bytes();
    b.len() >= 2
        && b[0] == sigil
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

impl<'a> Placeholders<'a> {
    /// Validate both maps (non-empty, well-formed keys no longer than 255 bytes, valid values)
    /// and canonicalize the values.
    pub(crate) fn new(
        names: Option<&'a HashMap<String, String>>,
        values: Option<&'a HashMap<String, AttributeValue>>,
    ) -> Result<Placeholders<'a>> {
        if let Some(names) = names {
            if names.is_empty() {
                return Err(Exception::validation(
                    "ExpressionAttributeNames must not be empty",
                ));
            }
            // In name order, so that of two bad keys the same one is reported on every run.
            for (key, name) in crate::value::sorted(names) {
                check_key("ExpressionAttributeNames", key, b'#')?;
                crate::value::validate::check_attribute_name(name)?;
            }
        }
        let mut resolved = BTreeMap::new();
        if let Some(values) = values {
            if values.is_empty() {
                return Err(Exception::validation(
                    "ExpressionAttributeValues must not be empty",
                ));
            }
            let values = crate::value::sorted(values);
            for (key, _) in &values {
                check_key("ExpressionAttributeValues", key, b':')?;
            }
            for (key, value) in values {
                let canonical = canonicalize_value(value.clone()).map_err(|e| {
                    Exception::validation(format!(
                        "ExpressionAttributeValues contains invalid value: {} for key {key}",
                        e.message()
                    ))
                })?;
                resolved.insert(key.as_str(), canonical);
            }
        }
        Ok(Placeholders {
            names,
            values: resolved,
            has_values: values.is_some(),
            used_names: BTreeSet::new(),
            used_values: BTreeSet::new(),
        })
    }

    pub(crate) fn has_names(&self) -> bool {
        self.names.is_some()
    }

    pub(crate) fn has_values(&self) -> bool {
        self.has_values
    }

    /// The attribute name `#ph` stands for, marking it used; `None` if undefined.
    pub(crate) fn name(&mut self, ph: &str) -> Option<&'a str> {
        let (key, target) = self.names?.get_key_value(ph)?;
        self.used_names.insert(key.as_str());
        Some(target.as_str())
    }

    /// The canonical value `:ph` stands for, marking it used; `None` if undefined.
    pub(crate) fn value(&mut self, ph: &str) -> Option<AttributeValue> {
        let (key, value) = self.values.get_key_value(ph)?;
        self.used_values.insert(key);
        Some(value.clone())
    }

    /// After every expression of the request parsed: reject keys no expression used.
    pub(crate) fn finish(&self) -> Result<()> {
        if let Some(names) = self.names {
            let mut unused: Vec<&str> = names
                .keys()
                .map(String::as_str)
                .filter(|k| !self.used_names.contains(k))
                .collect();
            unused.sort_unstable();
            if !unused.is_empty() {
                return Err(Exception::validation(format!(
                    "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                    unused.join(", ")
                )));
            }
        }
        let unused: Vec<&str> = self
            .values
            .keys()
            .copied()
            .filter(|k| !self.used_values.contains(k))
            .collect();
        if !unused.is_empty() {
            return Err(Exception::validation(format!(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                unused.join(", ")
            )));
        }
        Ok(())
    }
}

fn check_key(map: &str, key: &str, sigil: u8) -> Result<()> {
    if !valid_key(key, sigil) {
        return Err(Exception::validation(format!(
            "{map} contains invalid key: Syntax error; key: \"{key}\""
        )));
    }
    if key.len() > super::MAX_PLACEHOLDER_BYTES {
        return Err(Exception::validation(format!(
            "{map} contains invalid key: The expression attribute map contains a key that is too \
             long; key: \"{key}\""
        )));
    }
    Ok(())
}

/// The kinds of semantic problem an expression can have, in the order DynamoDB reports them
/// when one expression has several (earlier wins). Syntax errors beat all of them: they
/// stop the parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    RedundantParens,
    TooManyOperators,
    Reserved,
    UnknownFunction,
    MisusedFunction,
    DuplicateSection,
    Undefined,
    PathLimit,
    Overlap,
    Conflict,
    OperandCount,
    Distinct,
    OperandType,
    TooManyInOperands,
}

const PROBLEM_KINDS: usize = Problem::TooManyInOperands as usize + 1;

/// The first problem of each kind found while parsing one expression.
///
/// Design decision: the parser records problems and keeps going instead of returning at the
/// first one, because DynamoDB's answer does not depend on where in the text a problem is: a
/// reserved word at the end is reported before an undefined placeholder at the start. The
/// alternative, a second pass over the tree, would need a tree that can hold unresolved
/// placeholders and unknown functions.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    slots: [Option<String>; PROBLEM_KINDS],
}

impl Problems {
    pub(crate) fn record(&mut self, kind: Problem, message: impl FnOnce() -> String) {
        let slot = &mut self.slots[kind as usize];
        if slot.is_none() {
            *slot = Some(message());
        }
    }

    pub(crate) fn first(&mut self) -> Option<String> {
        self.slots.iter_mut().find_map(Option::take)
    }
}
