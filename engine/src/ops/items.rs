//! The items of a Query or Scan page: the stored items themselves, shared, in the shape of
//! the SDK's `Vec<HashMap<String, AttributeValue>>`.
//!
//! In `aws-sdk-dynamodb`, `QueryOutput.items` and `ScanOutput.items` are public fields of
//! type `Option<Vec<HashMap<String, AttributeValue>>>`, and `items()` gives the slice. A
//! `Vec` of owned maps means one copy of every returned item: a map's table and a heap
//! string per name and per value, about thirteen allocations for a six-attribute item, and
//! as many frees when the page is dropped. Measured on a page of 10 items of 102 bytes, that
//! copy was about three quarters of a Query's time (the page loop, expressions and capacity
//! are the rest). GetItem already shares its item with the store
//! ([`GetItemOutput`](crate::operation::get_item::GetItemOutput)); a page does the same here.
//!
//! **Decision: the field keeps its name and its `Option`, its type is [`Items`].** `Items`
//! holds the page's stored items by reference count (a projected item, which is new, is held
//! owned) and reads like the `Vec` it stands for, without copying:
//!
//! - `items.iter()`, `for item in &items`, `items[i]`, `len()`, `is_empty()`, `first()`,
//!   `last()`, `get(i)` give `&HashMap<String, AttributeValue>` straight from the store, so
//!   `items.iter().map(|i| i.into())` into a learner's `From<&HashMap<..>>` type, or
//!   `item.get("title")`, compile as with the SDK.
//! - `for item in items`, `into_iter()`, `to_vec()`, `.cloned()` and `from_items(items)` give
//!   owned maps, copied one by one as they are taken, as with the SDK they were copied when
//!   the page arrived.
//! - Any other slice method (`windows`, `contains`, a sub-slice `&items[..n]`) goes through
//!   `Deref<Target = [HashMap<..>]>`, which copies the page once, on first use, and keeps the
//!   copy; `DerefMut` (`sort_by`, `swap`) does the same and keeps only the copy. So do
//!   coercions to `&[HashMap<..>]` and `Option::as_deref`.
//!
//! Code that names the field's type (`let v: Vec<HashMap<..>> = out.items.unwrap()`)
//! writes `.into()` or `.to_vec()` here: that is the one edit this decision costs, and no
//! snippet of the SDK tests (`sdk-snippets/`) needed it.
//!
//! The alternatives, measured in one interleaved run of `cargo bench --bench engine --
//! query` (the README's benchmark section has the figures): keeping `Vec<HashMap<..>>` and
//! copying (the copy cannot be made cheaper: the SDK's `AttributeValue` owns its strings);
//! an element type that derefs to the map (`Vec<SharedItem>`), the same work per item (one
//! reference count; not measured separately) but
//! `items.iter().map(|i| i.into())` and `extend(items().iter().cloned())` into a
//! `Vec<HashMap<..>>` stop compiling; and a field that fills on first access, which Rust
//! cannot express for a public field that a snippet moves out of
//! (`if let Some(items) = out.items`).

use std::ops::{Deref, DerefMut, Index};
use std::sync::{Arc, OnceLock};

use crate::table::partition::Stored;
use crate::value::{Item, SortedMap};

/// The items of one Query or Scan page (see the module's essay).
///
/// Not part of the SDK, where the field is a `Vec<HashMap<String, AttributeValue>>`: this
/// reads the same without copying the stored items.
#[derive(Default)]
pub struct Items {
    /// The items as the page holds them; empty once a mutable borrow replaced them with
    /// `owned`.
    entries: Vec<Entry>,
    /// The page as a slice of owned maps, made on the first slice access.
    owned: OnceLock<Vec<Item>>,
}

/// One item of a page.
#[derive(Clone)]
enum Entry {
    /// A stored item, shared with the replicas that hold it.
    Shared(Arc<Stored>),
    /// An item made for this page (a projection).
    Owned(Item),
}

impl Entry {
    fn item(&self) -> &Item {
        match self {
            Entry::Shared(stored) => stored.item(),
            Entry::Owned(item) => item,
        }
    }

    fn into_item(self) -> Item {
        match self {
            Entry::Shared(stored) => Stored::into_item(stored),
            Entry::Owned(item) => item,
        }
    }
}

impl Items {
    /// An empty page.
    pub const fn new() -> Items {
        Items {
            entries: Vec::new(),
            owned: OnceLock::new(),
        }
    }

    /// The empty page an output without items lends (`items()` with `Select=COUNT`).
    pub(crate) fn empty() -> &'static Items {
        static EMPTY: Items = Items::new();
        &EMPTY
    }

    /// Adds a stored item, shared.
    pub(crate) fn push_shared(&mut self, stored: Arc<Stored>) {
        self.entries.push(Entry::Shared(stored));
    }

    /// Adds an item made for this page.
    pub(crate) fn push_owned(&mut self, item: Item) {
        self.entries.push(Entry::Owned(item));
    }

    pub(crate) fn with_capacity(n: usize) -> Items {
        Items {
            entries: Vec::with_capacity(n),
            owned: OnceLock::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.owned.get().map_or(self.entries.len(), Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The item at `index`, without copying.
    pub fn get(&self, index: usize) -> Option<&Item> {
        match self.owned.get() {
            Some(owned) => owned.get(index),
            None => self.entries.get(index).map(Entry::item),
        }
    }

    pub fn first(&self) -> Option<&Item> {
        self.get(0)
    }

    pub fn last(&self) -> Option<&Item> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The items in order, without copying.
    pub fn iter(&self) -> Iter<'_> {
        match self.owned.get() {
            Some(owned) => Iter(Walk::Owned(owned.iter())),
            None => Iter(Walk::Entries(self.entries.iter())),
        }
    }

    /// The items, copied.
    pub fn to_vec(&self) -> Vec<Item> {
        self.iter().cloned().collect()
    }

    /// The page as a slice of owned maps (copied once, then kept).
    fn slice(&self) -> &Vec<Item> {
        self.owned.get_or_init(|| self.to_vec_from_entries())
    }

    fn to_vec_from_entries(&self) -> Vec<Item> {
        self.entries.iter().map(|e| e.item().clone()).collect()
    }
}

/// The iterator of [`Items::iter`]: `&HashMap<String, AttributeValue>` in page order.
#[derive(Clone)]
pub struct Iter<'a>(Walk<'a>);

#[derive(Clone)]
enum Walk<'a> {
    Entries(std::slice::Iter<'a, Entry>),
    Owned(std::slice::Iter<'a, Item>),
}

impl std::fmt::Debug for Iter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter")
            .field("remaining", &self.len())
            .finish()
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Item;
    fn next(&mut self) -> Option<&'a Item> {
        match &mut self.0 {
            Walk::Entries(it) => it.next().map(Entry::item),
            Walk::Owned(it) => it.next(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Walk::Entries(it) => it.size_hint(),
            Walk::Owned(it) => it.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Walk::Entries(it) => it.next_back().map(Entry::item),
            Walk::Owned(it) => it.next_back(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Items {
    type Item = &'a Item;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Owned items, each copied as it is taken (moved, if the page held the only reference).
impl IntoIterator for Items {
    type Item = Item;
    type IntoIter = std::vec::IntoIter<Item>;
    fn into_iter(self) -> Self::IntoIter {
        Vec::from(self).into_iter()
    }
}

impl From<Items> for Vec<Item> {
    fn from(mut items: Items) -> Vec<Item> {
        match items.owned.take() {
            Some(owned) => owned,
            None => items.entries.into_iter().map(Entry::into_item).collect(),
        }
    }
}

impl From<Vec<Item>> for Items {
    fn from(items: Vec<Item>) -> Items {
        items.into_iter().collect()
    }
}

impl FromIterator<Item> for Items {
    fn from_iter<I: IntoIterator<Item = Item>>(iter: I) -> Items {
        Items {
            entries: iter.into_iter().map(Entry::Owned).collect(),
            owned: OnceLock::new(),
        }
    }
}

impl Index<usize> for Items {
    type Output = Item;
    fn index(&self, index: usize) -> &Item {
        match self.get(index) {
            Some(item) => item,
            None => panic!(
                "index out of bounds: the page has {} items but the index is {index}",
                self.len()
            ),
        }
    }
}

/// A sub-slice (`&items[..n]`): the page copied once into owned maps, like the other slice
/// methods.
macro_rules! range_index {
    ($($range:ty),*) => {$(
        impl Index<$range> for Items {
            type Output = [Item];
            fn index(&self, range: $range) -> &[Item] {
                &self.slice()[range]
            }
        }
    )*};
}
range_index!(
    std::ops::Range<usize>,
    std::ops::RangeTo<usize>,
    std::ops::RangeFrom<usize>,
    std::ops::RangeFull,
    std::ops::RangeInclusive<usize>,
    std::ops::RangeToInclusive<usize>
);

/// Every other slice method: the page copied once into owned maps (see the module's essay).
impl Deref for Items {
    type Target = [Item];
    fn deref(&self) -> &[Item] {
        self.slice()
    }
}

/// A mutable slice: the page copied once into owned maps, which from then on are the page.
impl DerefMut for Items {
    fn deref_mut(&mut self) -> &mut [Item] {
        if self.owned.get().is_none() {
            let owned = std::mem::take(&mut self.entries)
                .into_iter()
                .map(Entry::into_item)
                .collect();
            let _ = self.owned.set(owned);
        }
        self.entries.clear();
        self.owned.get_mut().expect("set above")
    }
}

impl Clone for Items {
    fn clone(&self) -> Items {
        match self.owned.get() {
            Some(owned) => owned.clone().into(),
            None => Items {
                entries: self.entries.clone(),
                owned: OnceLock::new(),
            },
        }
    }
}

/// Printed as a list of items, each in name order.
impl std::fmt::Debug for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(SortedMap)).finish()
    }
}

impl PartialEq for Items {
    fn eq(&self, other: &Items) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<[Item]> for Items {
    fn eq(&self, other: &[Item]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<Vec<Item>> for Items {
    fn eq(&self, other: &Vec<Item>) -> bool {
        *self == **other
    }
}

impl<const N: usize> PartialEq<[Item; N]> for Items {
    fn eq(&self, other: &[Item; N]) -> bool {
        *self == other[..]
    }
}

impl PartialEq<Items> for Vec<Item> {
    fn eq(&self, other: &Items) -> bool {
        *other == **self
    }
}

impl PartialEq<Items> for [Item] {
    fn eq(&self, other: &Items) -> bool {
        *other == *self
    }
}
