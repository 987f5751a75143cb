//! Alternative solution of the gsi-propagation kata: build both entries in full (owned copies,
//! the projection as a copy of the item with the unkept attributes removed, sizes summed by
//! hand), then read the writes off the difference between the two.

use std::borrow::Cow;

use engine::{AttributeValue, Item};
use given::{IndexKey, IndexPropagator, IndexShape, IndexWrite, ProjectionType};

pub fn propagator() -> Box<dyn IndexPropagator> {
    Box::new(Diff)
}

#[derive(Debug)]
pub struct Diff;

/// An entry as the index would hold it: where, what, and how many units it weighs.
struct Entry<'a> {
    partition: &'a AttributeValue,
    sort: Option<&'a AttributeValue>,
    item: Item,
    units: f64,
}

impl<'a> Entry<'a> {
    fn of(index: &IndexShape<'_>, item: &'a Item) -> Option<Entry<'a>> {
        let pk = &index.partition_key;
        let partition = item.get(pk.name)?;
        if !pk.accepts(partition) {
            return None;
        }
        let sort = match &index.sort_key {
            None => None,
            Some(sk) => match item.get(sk.name) {
                Some(v) if sk.accepts(v) => Some(v),
                _ => return None,
            },
        };
        let mut kept = item.clone();
        if index.projection != ProjectionType::All {
            kept.retain(|name, _| {
                [Some(index.table_partition_key), index.table_sort_key]
                    .into_iter()
                    .chain([Some(pk.name), index.sort_key.as_ref().map(|k| k.name)])
                    .flatten()
                    .any(|k| k == name)
                    || (index.projection == ProjectionType::Include
                        && index.non_key_attributes.contains(name))
            });
        }
        let bytes: usize = kept.iter().map(|(n, v)| n.len() + v.size()).sum();
        let units = bytes.div_ceil(1024).max(1) as f64;
        Some(Entry {
            partition,
            sort,
            item: kept,
            units,
        })
    }

    fn key(&self) -> IndexKey<'a> {
        IndexKey {
            partition: self.partition,
            sort: self.sort,
        }
    }
}

impl IndexPropagator for Diff {
    fn propagate<'a>(
        &self,
        index: &IndexShape<'_>,
        old: Option<&'a Item>,
        new: Option<&'a Item>,
    ) -> Vec<IndexWrite<'a>> {
        let before = old.and_then(|o| Entry::of(index, o));
        let after = new.and_then(|n| Entry::of(index, n));
        let mut writes = Vec::new();
        if let Some(b) = &before {
            let stays = after.as_ref().is_some_and(|a| a.key() == b.key());
            if !stays {
                writes.push(IndexWrite::Delete {
                    key: b.key(),
                    units: b.units,
                });
            }
        }
        if let Some(a) = after {
            let unchanged = before
                .as_ref()
                .is_some_and(|b| b.key() == a.key() && b.item == a.item);
            if !unchanged {
                writes.push(IndexWrite::Put {
                    key: a.key(),
                    units: a.units,
                    entry: Cow::Owned(a.item),
                });
            }
        }
        writes
    }
}
