//! Alternative solution of the gsi-propagation kata: decide by the two index keys first (same
//! key, new key, key gone, key come), then by the projected attributes, compared one by one
//! without building the old entry.

use std::borrow::Cow;

use engine::Item;
use given::{
    item_size, IndexKey, IndexPropagator, IndexShape, IndexWrite, ProjectionType, WRITE_UNIT_BYTES,
};

pub fn propagator() -> Box<dyn IndexPropagator> {
    Box::new(KeyFirst)
}

#[derive(Debug)]
pub struct KeyFirst;

fn key<'a>(index: &IndexShape<'_>, item: Option<&'a Item>) -> Option<IndexKey<'a>> {
    let item = item?;
    let pk = item.get(index.partition_key.name)?;
    if !index.partition_key.accepts(pk) {
        return None;
    }
    let sk = match &index.sort_key {
        Some(s) => {
            let v = item.get(s.name)?;
            if !s.accepts(v) {
                return None;
            }
            Some(v)
        }
        None => None,
    };
    Some(IndexKey {
        partition: pk,
        sort: sk,
    })
}

fn projected(index: &IndexShape<'_>, name: &str) -> bool {
    match index.projection {
        ProjectionType::All => return true,
        ProjectionType::Include if index.non_key_attributes.iter().any(|a| a == name) => {
            return true
        }
        _ => {}
    }
    [
        Some(index.table_partition_key),
        index.table_sort_key,
        Some(index.partition_key.name),
        index.sort_key.as_ref().map(|k| k.name),
    ]
    .contains(&Some(name))
}

fn project<'a>(index: &IndexShape<'_>, item: &'a Item) -> Cow<'a, Item> {
    match index.projection {
        ProjectionType::All => Cow::Borrowed(item),
        _ => Cow::Owned(
            item.iter()
                .filter(|(n, _)| projected(index, n))
                .map(|(n, v)| (n.clone(), v.clone()))
                .collect(),
        ),
    }
}

fn cost(entry: &Item) -> f64 {
    let blocks = item_size(entry).div_ceil(WRITE_UNIT_BYTES);
    blocks.max(1) as f64
}

impl IndexPropagator for KeyFirst {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        let (old_key, new_key) = (key(index, old), key(index, new));
        let mut writes = Vec::new();
        if let (Some(k), Some(o)) = (old_key, old) {
            if old_key != new_key {
                writes.push(IndexWrite::Delete {
                    key: k,
                    units: cost(&project(index, o)),
                });
            }
        }
        if let (Some(k), Some(n)) = (new_key, new) {
            let same_entry = old_key == new_key
                && old.is_some_and(|o| {
                    let names = o.keys().chain(n.keys()).filter(|a| projected(index, a));
                    names.into_iter().all(|a| o.get(a) == n.get(a))
                });
            if !same_entry {
                let entry = project(index, n);
                let units = cost(&entry);
                writes.push(IndexWrite::Put {
                    key: k,
                    entry,
                    units,
                });
            }
        }
        writes
    }
}
