//! `AttributeUpdates`: attribute → action and value, turned into the actions an
//! `UpdateExpression` parses to.
//!
//! | entry | expression |
//! |---|---|
//! | `PUT v` (the default action) | `SET a = :v` |
//! | `DELETE` without a value | `REMOVE a` |
//! | `DELETE` a set | `DELETE a :set` |
//! | `ADD` a number or a set | `ADD a :v` |
//! | `ADD` a list | `SET a = list_append(if_not_exists(a, :empty), :v)` |
//!
//! The last row is the one thing the legacy form does that the `ADD` clause cannot: append
//! to a list (creating it when absent).

use std::collections::HashMap;

use super::top_level;
use crate::error::{Exception, Result};
use crate::expr::{Projection, SetValue, UpdateAction, UpdateExpr, UpdateOperand};
use crate::types::{AttributeAction, AttributeValueUpdate};
use crate::value::{canonicalize_value, sorted, AttributeValue};

/// The update of a whole `AttributeUpdates` map (none when the map is empty).
pub(super) fn attribute_updates(
    map: &HashMap<String, AttributeValueUpdate>,
) -> Result<Option<UpdateExpr>> {
    let mut actions = Vec::with_capacity(map.len());
    for (name, u) in sorted(map) {
        actions.push(action(name, u)?);
    }
    if actions.is_empty() {
        return Ok(None);
    }
    let targets = Projection::from_paths(actions.iter().map(|a| a.path().clone()).collect());
    Ok(Some(UpdateExpr { actions, targets }))
}

fn action(name: &str, u: &AttributeValueUpdate) -> Result<UpdateAction> {
    let path = top_level(name);
    let action = u.action.clone().unwrap_or(AttributeAction::Put);
    let Some(value) = &u.value else {
        return match action {
            AttributeAction::Delete => Ok(UpdateAction::Remove(path)),
            _ => Err(invalid(
                "Only DELETE action is allowed when no attribute value is specified".to_string(),
            )),
        };
    };
    let value = canonicalize_value(value.clone())?;
    let ty = value.type_name();
    let is_set = matches!(ty, "SS" | "NS" | "BS");
    Ok(match action {
        AttributeAction::Put => {
            UpdateAction::Set(path, SetValue::Operand(UpdateOperand::Value(value)))
        }
        AttributeAction::Delete if is_set => UpdateAction::Delete(path, value),
        AttributeAction::Delete => {
            return Err(invalid(format!(
                "DELETE action with value is not supported for the type {ty}"
            )))
        }
        AttributeAction::Add if is_set || ty == "N" => UpdateAction::Add(path, value),
        AttributeAction::Add if ty == "L" => {
            let current = UpdateOperand::IfNotExists(
                path.clone(),
                Box::new(UpdateOperand::Value(AttributeValue::L(Vec::new()))),
            );
            UpdateAction::Set(
                path,
                SetValue::Operand(UpdateOperand::ListAppend(
                    Box::new(current),
                    Box::new(UpdateOperand::Value(value)),
                )),
            )
        }
        AttributeAction::Add => {
            return Err(invalid(format!(
                "ADD action is not supported for the type {ty}"
            )))
        }
    })
}

fn invalid(problem: String) -> Exception {
    Exception::validation(format!(
        "One or more parameter values were invalid: {problem}"
    ))
}
