//! # The given part of the kata: store locator
//!
//! What the tests and your code share: the table's name, the store type your functions take
//! and return, the page a country listing returns, and the errors to return. It is not yours
//! to change — the checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/store-locator/given/`), so an edit here would be judged at home and lost in
//! grading. Your crate reaches it as `given` (`use given::{...};`).

use std::collections::HashMap;

use engine::{AttributeValue, Error};

/// The table the tests create for you: `stores`, partition key `PK` (string), sort key `SK`
/// (string), on-demand. A country's stores share `PK = COUNTRY#<CC>`; each store is
/// `SK = CITY#<city in lower case>#STORE#<id in 4 digits>` (the README lays it out).
pub const TABLE: &str = "stores";

/// The highest store id: ids are 1 … 9999, written in the sort key in 4 digits (`STORE#0012`).
pub const MAX_STORE_ID: u32 = 9999;

/// The separator between the levels of the sort key. A city whose name contains it cannot be
/// stored: its name would read as more levels.
pub const SEPARATOR: char = '#';

/// One store, as `add_store` takes it and the reads return it. Stored with `country` (S, the
/// code in upper case), `city` (S, as written: `"München"`), `id` (N), `name` (S) and
/// `about` (S: the store page's text — opening hours, services, directions; a few KB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    /// ISO 3166 two-letter country code, upper case: `"DE"`.
    pub country: String,
    /// The city's name as people write it: `"Berlin"`, `"München"`, `"Überlingen"`.
    pub city: String,
    /// The chain's store number, 1 … 9999, handed out in opening order: in a city, the store
    /// with the highest id is the newest.
    pub id: u32,
    pub name: String,
    pub about: String,
}

/// Where the next page of a country's listing starts: a `LastEvaluatedKey`, as DynamoDB
/// returns it (`out.last_evaluated_key()`), passed back as `ExclusiveStartKey`.
pub type Cursor = HashMap<String, AttributeValue>;

/// One page of a country's stores.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Page {
    /// The stores of this page, in the order the sort key gives (city, then id).
    pub stores: Vec<Store>,
    /// Where the next page starts; `None` only when the country has no more stores.
    pub next: Option<Cursor>,
}

/// The error `add_store` returns for a store it must not write (a city containing `#`):
/// `invalid_store("the city \"Berlin#Mitte\" contains #")`. Nothing is written.
pub fn invalid_store(why: impl Into<String>) -> Error {
    Error::validation(format!("invalid store: {}", why.into()))
}

/// The error to return when an item the table holds is not shaped as the README's layout says
/// (an attribute missing, or of another type): `bad_item("COUNTRY#DE / CITY#berlin#STORE#0012
/// has no number id")`. Your own items never are; this is for the `None` your code must still
/// handle.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/store-locator/README.md)"
    ))
}
