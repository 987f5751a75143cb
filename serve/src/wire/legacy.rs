//! The legacy parameters' shapes on the wire: `KeyConditions`, `QueryFilter` and
//! `ScanFilter` (maps of `Condition`), `Expected` (of `ExpectedAttributeValue`) and
//! `AttributeUpdates` (of `AttributeValueUpdate`). The engine gives them their meaning
//! (`engine::ops::legacy`); this reads them.

use std::collections::HashMap;

use engine::types::{AttributeValueUpdate, Condition, ExpectedAttributeValue};

use super::read::Fields;
use super::WireError;

type Result<T> = std::result::Result<T, WireError>;

/// A map of `Condition`s. An entry whose operator is missing or outside its set has been
/// recorded as a constraint breach (reported before the operation runs) and is left out.
pub fn conditions(req: &Fields<'_>, key: &str) -> Result<Option<HashMap<String, Condition>>> {
    let Some(entries) = req.object_map(key)? else {
        return Ok(None);
    };
    let mut out = HashMap::with_capacity(entries.len());
    for (name, f) in entries {
        let op: Option<engine::types::ComparisonOperator> =
            f.require("ComparisonOperator", f.enumeration("ComparisonOperator")?);
        let list = f.values("AttributeValueList")?;
        if let Some(op) = op {
            let condition = Condition::builder()
                .set_attribute_value_list(list)
                .comparison_operator(op)
                .build()
                .map_err(|e| WireError::validation(e.to_string()))?;
            out.insert(name, condition);
        }
    }
    Ok(Some(out))
}

/// `Expected`.
pub fn expected(req: &Fields<'_>) -> Result<Option<HashMap<String, ExpectedAttributeValue>>> {
    let Some(entries) = req.object_map("Expected")? else {
        return Ok(None);
    };
    let mut out = HashMap::with_capacity(entries.len());
    for (name, f) in entries {
        let e = ExpectedAttributeValue::builder()
            .set_value(f.value("Value")?)
            .set_exists(f.bool("Exists")?)
            .set_comparison_operator(f.enumeration("ComparisonOperator")?)
            .set_attribute_value_list(f.values("AttributeValueList")?)
            .build();
        out.insert(name, e);
    }
    Ok(Some(out))
}

/// `AttributeUpdates`.
pub fn attribute_updates(
    req: &Fields<'_>,
) -> Result<Option<HashMap<String, AttributeValueUpdate>>> {
    let Some(entries) = req.object_map("AttributeUpdates")? else {
        return Ok(None);
    };
    let mut out = HashMap::with_capacity(entries.len());
    for (name, f) in entries {
        let u = AttributeValueUpdate::builder()
            .set_value(f.value("Value")?)
            .set_action(f.enumeration("Action")?)
            .build();
        out.insert(name, u);
    }
    Ok(Some(out))
}
