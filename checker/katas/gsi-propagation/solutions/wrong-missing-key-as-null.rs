//! Known-wrong solution of the gsi-propagation kata: an item without the index's key
//! attributes is indexed under NULL key values instead of being left out.

use std::borrow::Cow;

use engine::{AttributeValue, Item};

/// The key value of an item that lacks the attribute.
static NULL: AttributeValue = AttributeValue::Null(true);
use given::{
    item_size, IndexKey, IndexPropagator, IndexShape, IndexWrite, ProjectionType, WRITE_UNIT_BYTES,
};

/// The propagator the engine runs in your world: one value, shared by every table and index.
pub fn propagator() -> Box<dyn IndexPropagator> {
    Box::new(Propagator)
}

/// DynamoDB's propagation rules, as a pure function of the change.
#[derive(Debug)]
pub struct Propagator;

/// The item's key in the index, if it has every key attribute, each of the declared type.
fn key_of<'a>(index: &IndexShape<'_>, item: &'a Item) -> Option<IndexKey<'a>> {
    let partition = item.get(index.partition_key.name).unwrap_or(&NULL);
    let sort = index
        .sort_key
        .as_ref()
        .map(|key| item.get(key.name).unwrap_or(&NULL));
    Some(IndexKey { partition, sort })
}

/// Whether the index keeps attribute `name`.
fn keeps(index: &IndexShape<'_>, name: &str) -> bool {
    let key = name == index.table_partition_key
        || Some(name) == index.table_sort_key
        || name == index.partition_key.name
        || index.sort_key.as_ref().is_some_and(|k| k.name == name);
    match index.projection {
        ProjectionType::All => true,
        ProjectionType::Include => key || index.non_key_attributes.iter().any(|a| a == name),
        _ => key,
    }
}

/// The entry the index holds for `item`.
fn entry<'a>(index: &IndexShape<'_>, item: &'a Item) -> Cow<'a, Item> {
    if index.projection == ProjectionType::All {
        return Cow::Borrowed(item);
    }
    let kept: Item = item
        .iter()
        .filter(|(name, _)| keeps(index, name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    Cow::Owned(kept)
}

/// Write units of writing (or removing) `entry`: one per started KB, at least one.
fn units(entry: &Item) -> f64 {
    item_size(entry).div_ceil(WRITE_UNIT_BYTES).max(1) as f64
}

/// The entry's place and content, for an item that is in the index.
type Placed<'a> = (IndexKey<'a>, Cow<'a, Item>);

fn placed<'a>(index: &IndexShape<'_>, item: Option<&'a Item>) -> Option<Placed<'a>> {
    let item = item?;
    Some((key_of(index, item)?, entry(index, item)))
}

fn put<'a>((key, entry): Placed<'a>) -> IndexWrite<'a> {
    let units = units(&entry);
    IndexWrite::Put { key, entry, units }
}

fn delete<'a>((key, entry): Placed<'a>) -> IndexWrite<'a> {
    IndexWrite::Delete {
        key,
        units: units(&entry),
    }
}

impl IndexPropagator for Propagator {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        match (placed(index, old), placed(index, new)) {
            (None, None) => vec![],
            (None, Some(after)) => vec![put(after)],
            (Some(before), None) => vec![delete(before)],
            (Some(before), Some(after)) if before.0 != after.0 => {
                vec![delete(before), put(after)]
            }
            (Some(before), Some(after)) if before.1 == after.1 => vec![],
            (Some(_), Some(after)) => vec![put(after)],
        }
    }
}
