//! What DynamoDB refuses in a value, and the form in which it stores what it accepts.
//!
//! Every value that enters the engine (an item to put, a key, an expression attribute value)
//! goes through [`canonicalize_value`]. It checks, in DynamoDB's order:
//!
//! - `N` (alone or in `NS`) parses and fits: 38 digits, magnitude 1E-130 … 9.99…E+125;
//! - `NULL` is `true`;
//! - sets are non-empty and have no duplicates (`NS` compared numerically);
//! - `L`/`M` nest at most [`MAX_DEPTH`] levels,
//!
//! and returns the value with every number in canonical form (`"+01.50"` → `"1.5"`), so that
//! stored items, traces and JSON output never show two spellings of one number.
//!
//! Key rules (types, non-empty strings, key sizes) and the 400 KB item limit are checked by
//! the callers, which know the table and need their own messages.

use std::collections::{BTreeSet, HashMap};

use super::json::encode_base64;
use super::{AttributeValue, Item, Number};
use crate::error::{Exception, Result};

/// How deeply `L` and `M` may nest: a map at the top of an attribute is level 1.
pub const MAX_DEPTH: usize = 32;

const INVALID: &str = "One or more parameter values were invalid";
pub(crate) const MSG_NESTING: &str = "Nesting Levels have exceeded supported limits: \
     Attributes in the item have nested levels beyond supported limit";

/// Longest attribute name, in bytes. The documentation says 64 KB; the service accepts
/// 65,535 bytes and refuses 65,536 (as a peer suite run against it finds).
pub const MAX_ATTRIBUTE_NAME_BYTES: usize = 65_535;

/// An attribute name — of an item, or named through `ExpressionAttributeNames` in a
/// projection, a condition or an update — within [`MAX_ATTRIBUTE_NAME_BYTES`]. The service's
/// message starts "…Attribute name" and names 65536 (its exact wording is unverified).
pub fn check_attribute_name(name: &str) -> Result<()> {
    if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(Exception::validation(format!(
            "{INVALID}: Attribute name is too large, must be less than 65536 bytes"
        )));
    }
    Ok(())
}

/// Validates a value as DynamoDB does on input and returns it in canonical form.
pub fn canonicalize_value(v: AttributeValue) -> Result<AttributeValue> {
    canonical(v, 0)
}

/// Canonicalizes every value of `item`; attribute names must be non-empty. Does not check key
/// attributes or the item size limit (callers do: they need different messages).
pub fn canonicalize_item(mut item: Item) -> Result<Item> {
    // In place: most items are canonical already, and rebuilding the map would cost a copy
    // on every write. Of several bad attributes, the one first in name order is reported
    // (the map's own order differs from run to run); the item is dropped on error.
    let mut first: Option<(String, Exception)> = None;
    for (name, value) in item.iter_mut() {
        let checked = if name.is_empty() {
            // Wording unverified against the service.
            Err(Exception::validation(format!(
                "{INVALID}: An attribute name cannot be empty"
            )))
        } else if let Err(e) = check_attribute_name(name) {
            Err(e)
        } else {
            let owned = std::mem::replace(value, AttributeValue::Null(true));
            canonical(owned, 0).map(|v| *value = v)
        };
        if let Err(e) = checked {
            keep_first(&mut first, name, e);
        }
    }
    match first {
        Some((_, e)) => Err(e),
        None => Ok(item),
    }
}

/// Keeps the error of the attribute first in name order.
fn keep_first(first: &mut Option<(String, Exception)>, name: &str, e: Exception) {
    if first.as_ref().is_none_or(|(n, _)| name < n.as_str()) {
        *first = Some((name.to_string(), e));
    }
}

fn canonical_number(s: String) -> Result<String> {
    // Fast path: a plain integer of at most 38 digits without leading zeros is already in
    // canonical form.
    let digits = s.strip_prefix('-').unwrap_or(&s);
    let plain = !digits.is_empty()
        && digits.len() <= 38
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits.len() == 1 || !digits.starts_with('0'))
        && s != "-0";
    if plain {
        return Ok(s);
    }
    Ok(Number::parse(&s)?.to_string())
}

fn canonical(v: AttributeValue, depth: usize) -> Result<AttributeValue> {
    use AttributeValue as V;
    Ok(match v {
        V::N(s) => V::N(canonical_number(s)?),
        V::Null(false) => {
            return Err(Exception::validation(format!(
                "{INVALID}: Null attribute value types must have the value of true"
            )))
        }
        V::Ss(set) => {
            if set.is_empty() {
                return Err(Exception::validation(format!(
                    "{INVALID}: An string set  may not be empty"
                )));
            }
            let mut seen = BTreeSet::new();
            if !set.iter().all(|s| seen.insert(s.as_str())) {
                return Err(duplicates(&set, ""));
            }
            V::Ss(set)
        }
        V::Ns(set) => {
            if set.is_empty() {
                return Err(Exception::validation(format!(
                    "{INVALID}: An number set  may not be empty"
                )));
            }
            let numbers = set
                .iter()
                .map(|s| Number::parse(s))
                .collect::<Result<Vec<_>>>()?;
            let mut seen = BTreeSet::new();
            if !numbers.iter().all(|n| seen.insert(*n)) {
                return Err(duplicates(&set, ""));
            }
            V::Ns(numbers.iter().map(Number::to_string).collect())
        }
        V::Bs(set) => {
            if set.is_empty() {
                return Err(Exception::validation(format!(
                    "{INVALID}: Binary sets should not be empty"
                )));
            }
            let mut seen = BTreeSet::new();
            if !set.iter().all(|b| seen.insert(b.as_ref())) {
                let shown: Vec<String> = set.iter().map(|b| encode_base64(b.as_ref())).collect();
                return Err(duplicates(&shown, "of type BS"));
            }
            V::Bs(set)
        }
        V::L(list) => {
            let depth = nest(depth)?;
            V::L(
                list.into_iter()
                    .map(|e| canonical(e, depth))
                    .collect::<Result<_>>()?,
            )
        }
        V::M(map) => {
            let depth = nest(depth)?;
            let mut first: Option<(String, Exception)> = None;
            let mut out = HashMap::with_capacity(map.len());
            for (k, e) in map {
                match canonical(e, depth) {
                    Ok(v) => {
                        out.insert(k, v);
                    }
                    Err(e) => keep_first(&mut first, &k, e),
                }
            }
            if let Some((_, e)) = first {
                return Err(e);
            }
            V::M(out)
        }
        other @ (V::S(_) | V::B(_) | V::Bool(_) | V::Null(true)) => other,
    })
}

fn nest(depth: usize) -> Result<usize> {
    if depth >= MAX_DEPTH {
        Err(Exception::validation(MSG_NESTING))
    } else {
        Ok(depth + 1)
    }
}

/// `Input collection [a, b, a] contains duplicates.`; the BS form reads
/// `[..]of type BS contains duplicates.`, without a space, as the service writes it.
fn duplicates(elements: &[String], kind: &str) -> Exception {
    let kind = if kind.is_empty() {
        " ".to_owned()
    } else {
        format!("{kind} ")
    };
    Exception::validation(format!(
        "{INVALID}: Input collection [{}]{kind}contains duplicates.",
        elements.join(", ")
    ))
}
