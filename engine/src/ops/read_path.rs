//! The page loop Query and Scan share.
//!
//! A page holds the stored items it returns, shared with the store, not copies of them
//! ([`Items`], whose module essay has the decision and its cost).
//!
//! Both walk stored items in key order and build one *page*, following the pipeline of
//! reference §4.7: read an item → count it against `Limit` and the 1 MB page → apply the
//! filter → apply the projection. The walk stops when `Limit` items have been *read* (not
//! returned) or 1 MB has been read, and then — whether or not anything remains — the page
//! carries a `LastEvaluatedKey`. Only a page that ran out of items has none.
//!
//! **Reading a local index past its projection.** A Query or Scan of a local secondary index
//! that asks for attributes the index does not hold — `Select=ALL_ATTRIBUTES`, or a
//! projection or filter naming a non-projected attribute — gets them from the table, as
//! DynamoDB does: each index entry read is completed with the table's item (same partition
//! key, so the same partition), at extra cost — every fetched item is charged on its own,
//! its whole size rounded up to 4 KB, on top of the index entries' page (reference §3.2). A
//! global index cannot do this (the request is refused before, `check_select`). The fetch
//! reads the table's current item (its leader's), also for an eventually consistent read: the
//! model does not pick a second replica for it.

use std::ops::Bound;

use super::items::Items;
use crate::error::{Exception, Result};
use crate::expr::{Condition, Projection};
use crate::table::key::{KeySchema, KeyValue, StoreKey};
use crate::table::partition::{Data, Stored};
use crate::table::{Index, IndexKind, Store};
use crate::types::{ProjectionType, Select};
use crate::value::Item;
use std::sync::Arc;

/// The bounds of an item collection in key order (they live with the keys).
pub(crate) use crate::table::key::{highest_with, lowest_with};

/// Item data one page may read: 1 MB.
pub const PAGE_BYTES: usize = 1024 * 1024;

/// Accumulates one page.
pub(crate) struct Pager<'a> {
    pub limit: Option<usize>,
    pub filter: Option<&'a Condition>,
    pub projection: Option<&'a Projection>,
    pub count_only: bool,
    pub items: Items,
    pub count: usize,
    pub scanned: usize,
    pub bytes: usize,
    /// Set when the page stopped early: the key of the last item read.
    pub last: Option<StoreKey>,
    /// For a local index read past its projection: the table to complete entries from.
    pub fetch: Option<Fetch<'a>>,
    /// The size of every table item fetched (each is charged on its own).
    pub fetched: Vec<usize>,
}

/// Where a local index's entries are completed from: the table's store and key schema.
pub(crate) struct Fetch<'a> {
    pub store: &'a Store,
    pub schema: &'a KeySchema,
}

/// Whether a read of `index` must fetch table items (see the module's essay): a local index
/// not projecting `ALL`, and `Select=ALL_ATTRIBUTES` or a projection or filter naming an
/// attribute the index does not keep.
pub(crate) fn fetches_from_table(
    index: Option<&Index>,
    table: &KeySchema,
    select: Option<Select>,
    projection: Option<&Projection>,
    filter: Option<&Condition>,
) -> bool {
    let Some(index) = index.filter(|i| i.kind == IndexKind::Local) else {
        return false;
    };
    if index.projection_type() == ProjectionType::All {
        return false;
    }
    if select == Some(Select::AllAttributes) {
        return true;
    }
    let names = projection
        .map(Projection::top_level_names)
        .unwrap_or_default()
        .into_iter()
        .chain(filter.map(Condition::top_level_names).unwrap_or_default());
    names
        .into_iter()
        .any(|n| !crate::index::projects(index, table, n))
}

impl<'a> Pager<'a> {
    pub fn new(
        limit: Option<usize>,
        filter: Option<&'a Condition>,
        projection: Option<&'a Projection>,
        count_only: bool,
    ) -> Self {
        Pager {
            limit,
            filter,
            projection,
            count_only,
            // Room for a page of a typical size at once: growing from empty costs three
            // allocations and two copies of the items moved so far for a page of ten.
            items: if count_only {
                Items::new()
            } else {
                Items::with_capacity(limit.map_or(16, |l| l.min(128)))
            },
            count: 0,
            scanned: 0,
            bytes: 0,
            last: None,
            fetch: None,
            fetched: Vec::new(),
        }
    }

    /// Completes every entry read with the table's item (a local index read past its
    /// projection).
    pub fn fetching(mut self, fetch: Option<Fetch<'a>>) -> Self {
        self.fetch = fetch;
        self
    }

    /// Reads one item into the page; false when the page is full.
    pub fn offer(&mut self, key: &StoreKey, stored: &Arc<Stored>) -> bool {
        self.scanned += 1;
        self.bytes += stored.size();
        let fetched = self.fetch.as_ref().and_then(|f| {
            let (pk, sk) = key.base.as_deref()?;
            f.store
                .current_stored(&f.schema.store_key(pk.clone(), sk.clone()))
        });
        if let Some(full) = fetched {
            self.fetched.push(full.size());
        }
        let shared = fetched.unwrap_or(stored);
        if self.filter.is_none_or(|f| f.evaluate(Some(shared.item()))) {
            self.count += 1;
            if !self.count_only {
                // The stored item itself, not a copy (see `ops/items.rs`).
                match self.projection {
                    Some(p) => self.items.push_owned(p.apply(shared.item())),
                    None => self.items.push_shared(Arc::clone(shared)),
                }
            }
        }
        let full = self.limit.is_some_and(|l| self.scanned >= l) || self.bytes >= PAGE_BYTES;
        if full {
            self.last = Some(key.clone());
        }
        !full
    }

    pub fn is_full(&self) -> bool {
        self.last.is_some()
    }

    /// The page read, without the pager's borrows.
    pub fn finish(self) -> Page {
        Page {
            items: self.items,
            count: self.count,
            scanned: self.scanned,
            bytes: self.bytes,
            fetched: self.fetched,
        }
    }
}

/// One page, read: what Query and Scan answer and charge.
pub(crate) struct Page {
    pub items: Items,
    pub count: usize,
    pub scanned: usize,
    pub bytes: usize,
    pub fetched: Vec<usize>,
}

/// What the table items a page fetched cost: each its whole size rounded up to 4 KB, as a
/// strongly or eventually consistent read.
pub(crate) fn fetched_units(sizes: &[usize], consistent: bool) -> f64 {
    let kind = crate::capacity::ReadKind::from_consistent(consistent);
    sizes
        .iter()
        .map(|s| crate::capacity::read_units(*s, kind))
        .sum()
}

/// Iterates `data` between two bounds, forwards or backwards, without the panics
/// `BTreeMap::range` has for empty or inverted ranges.
pub(crate) fn walk<'d>(
    data: &'d Data,
    lo: Bound<StoreKey>,
    hi: Bound<StoreKey>,
    forward: bool,
) -> Box<dyn Iterator<Item = (&'d StoreKey, &'d Arc<Stored>)> + 'd> {
    let empty = match (&lo, &hi) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b))
        | (Bound::Excluded(a), Bound::Excluded(b)) => a >= b,
        _ => false,
    };
    if empty {
        return Box::new(std::iter::empty());
    }
    let range = data.range((lo, hi));
    if forward {
        Box::new(range)
    } else {
        Box::new(range.rev())
    }
}

/// Converts an `ExclusiveStartKey` into the store key it names. For an index, the key holds
/// the index key and the table key.
pub(crate) fn start_key(
    esk: &Item,
    store: &KeySchema,
    table: Option<&KeySchema>,
) -> Result<StoreKey> {
    let invalid = || {
        Exception::validation("The provided starting key is invalid: The provided key element does not match the schema")
    };
    let mut expected: Vec<&str> = vec![store.pk.as_str()];
    expected.extend(store.sk_name());
    if let Some(t) = table {
        expected.push(t.pk.as_str());
        expected.extend(t.sk_name());
    }
    expected.sort_unstable();
    expected.dedup();
    if esk.len() != expected.len() || !expected.iter().all(|n| esk.contains_key(*n)) {
        return Err(invalid());
    }
    let part = |name: &str, t| {
        esk.get(name)
            .and_then(|v| KeyValue::from_attribute(v, t))
            .ok_or_else(invalid)
    };
    let pk = part(&store.pk, store.pk_type.clone())?;
    let sk = match &store.sk {
        Some((n, t)) => Some(part(n, t.clone())?),
        None => None,
    };
    let mut key = store.store_key(pk, sk);
    if let Some(t) = table {
        let tpk = part(&t.pk, t.pk_type.clone())?;
        let tsk = match &t.sk {
            Some((n, ty)) => Some(part(n, ty.clone())?),
            None => None,
        };
        key.base = Some(std::sync::Arc::new((tpk, tsk)));
    }
    Ok(key)
}

/// The `LastEvaluatedKey` for a stored item: its key attributes (index and table keys for an
/// index).
pub(crate) fn evaluated_key(item: &Item, store: &KeySchema, table: Option<&KeySchema>) -> Item {
    let mut out = store.key_attributes_of(item);
    if let Some(t) = table {
        out.extend(t.key_attributes_of(item));
    }
    out
}
