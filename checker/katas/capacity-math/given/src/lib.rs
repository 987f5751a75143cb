//! # The given part of the kata: capacity math
//!
//! What the tests and your code share: requests described as data (what each one reads or
//! writes, item by item), the table they go to, the figure your calculator returns, and the
//! page your read plan serves. It is not yours to change — the checker and grading always
//! build your `src/lib.rs` against this copy (`checker/katas/capacity-math/given/`), so an edit
//! here would be judged at home and lost in grading. Your crate reaches it as `given`.
//!
//! Every [`Item`] here is a whole item as the table stores it, key attributes included: `PK`
//! and `SK` (strings), the table's key.

use std::collections::BTreeMap;

use engine::{AttributeValue, Error, Item};

/// The table the read plan reads: partition key `PK` (string), sort key `SK` (string),
/// on-demand, no secondary index. (The calculator's requests go to tables the tests create
/// from a [`Table`]; their names do not matter to the arithmetic.)
pub const TABLE: &str = "catalog";

/// One request, described by what it touches: the items it reads or the item versions it
/// writes. What your calculator needs is all here; what it must not need (expressions, the
/// items a filter throws away) is left as DynamoDB leaves it: still read, still paid for.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// A GetItem by full key. `item` is the item found, `None` if no item has the key.
    GetItem {
        item: Option<Item>,
        /// The request's `ConsistentRead`: `None` when the request does not set it.
        consistent_read: Option<bool>,
    },
    /// A BatchGetItem of several keys of one table, with one `ConsistentRead` for all of them.
    /// One entry per key: the item found, or `None` for a key no item has.
    BatchGetItem {
        items: Vec<Option<Item>>,
        consistent_read: Option<bool>,
    },
    /// A Query (one page, less than 1 MB) of one item collection: `read` holds every item its
    /// key condition matched, in sort-key order — what the Query reads, before its filter.
    Query {
        read: Vec<Item>,
        consistent_read: Option<bool>,
        /// A FilterExpression, if the Query has one: it returns only the items it keeps.
        filter: Option<Filter>,
    },
    /// A TransactGetItems of several keys (always serializable; it has no `ConsistentRead`).
    /// One entry per key: the item found, or `None`.
    TransactGetItems { items: Vec<Option<Item>> },
    /// A PutItem: `after` replaces `before` (the item with that key before, if there was one).
    PutItem { before: Option<Item>, after: Item },
    /// An UpdateItem (an upsert): `before` is the item before (`None` if it did not exist),
    /// `after` the whole item after the update.
    UpdateItem { before: Option<Item>, after: Item },
    /// A DeleteItem: `before` is the item it deleted, `None` if no item had the key.
    DeleteItem { before: Option<Item> },
    /// A BatchWriteItem: each entry a [`Write::Put`] or a [`Write::Delete`] (no updates in a
    /// batch), each on a different item.
    BatchWriteItem { writes: Vec<Write> },
    /// A TransactWriteItems: each entry a Put, an Update or a Delete, each on a different item.
    /// (The tests send transactions only to tables without GSIs.)
    TransactWriteItems { writes: Vec<Write> },
}

/// One item write inside a BatchWriteItem or a TransactWriteItems: the item before and after,
/// as in [`Request::PutItem`], [`Request::UpdateItem`] and [`Request::DeleteItem`].
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Put { before: Option<Item>, after: Item },
    Update { before: Option<Item>, after: Item },
    Delete { before: Option<Item> },
}

/// A Query's FilterExpression `attribute = :value`: the Query returns the items whose
/// `attribute` equals `equals`, and only those.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub attribute: String,
    pub equals: AttributeValue,
}

/// The table a request goes to, as far as its cost is concerned: its global secondary
/// indexes. (Its key is always `PK` + `SK`, both strings.)
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub gsis: Vec<Gsi>,
}

/// A global secondary index. Its key attributes are strings; an item that lacks one of them
/// is not in the index (the index is sparse).
#[derive(Debug, Clone, PartialEq)]
pub struct Gsi {
    pub name: String,
    pub partition_key: String,
    pub sort_key: Option<String>,
    pub projection: Projection,
}

/// What a GSI entry holds besides the keys: the table's key (`PK`, `SK`) and the index's key
/// attributes are in every entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Projection {
    /// The whole item.
    All,
    /// The keys only.
    KeysOnly,
    /// The keys and these attributes (those the item has).
    Include(Vec<String>),
}

/// What a request consumed, as its `ConsumedCapacity` (ReturnConsumedCapacity = INDEXES)
/// reports it: the table's capacity units, and each GSI's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Consumed {
    /// Units the table consumed: read units for a read, write units for a write.
    pub table: f64,
    /// GSI name → the write units it consumed. A GSI the request did not write may be absent
    /// or 0.
    pub gsis: BTreeMap<String, f64>,
}

impl Consumed {
    /// The request's `CapacityUnits`: the table's and every GSI's, added up.
    pub fn total(&self) -> f64 {
        self.table + self.gsis.values().sum::<f64>()
    }
}

/// A product page: the items of one item collection it shows, and what it may spend.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The collection's partition key value (`PRODUCT#<id>`).
    pub pk: String,
    /// Every item of the collection as the table holds it, in sort-key order: what a Query
    /// would read. (The shop's size statistics, so that you can plan before you read.)
    pub collection: Vec<Item>,
    /// The sort keys of the items the page shows, in sort-key order (1 to 40 of them).
    pub needed: Vec<String>,
    /// Whether the page must read with strongly consistent reads (it shows stock levels right
    /// after checkout); otherwise eventually consistent reads are fine.
    pub strong: bool,
    /// The most read units the page may consume, all its requests added up.
    pub budget_rcu: f64,
}

/// Bytes a number (`AttributeValue::N`, its string as DynamoDB's API carries it) counts for in
/// an item: DynamoDB stores about one byte per two significant digits, plus one. The exact rule
/// is fiddly and not the lesson, so here it is.
pub fn number_size(n: &str) -> usize {
    AttributeValue::N(n.to_string()).size()
}

/// The error to return when no plan reads the page within its budget: `needed_rcu` is what
/// your cheapest plan would cost.
pub fn over_budget(needed_rcu: f64, budget_rcu: f64) -> Error {
    Error::validation(format!(
        "over budget: the page needs {needed_rcu} RCU, its budget is {budget_rcu} RCU"
    ))
}

/// What the starter's `read_page` returns until you write it: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/capacity-math/README.md)"
    ))
}
