//! # Kata: store locator — an alternative: key ranges and a cursor of its own
//!
//! Another route to the same requests: each level is a `BETWEEN` range of the sort key instead
//! of `begins_with` (`#` is byte 0x23 and `$` 0x24, so every key that starts with
//! `CITY#berlin#` lies between `CITY#berlin#` and `CITY#berlin$`, and nothing else does), and
//! the next page starts at the key of the last store returned rather than at the
//! `LastEvaluatedKey` (they are the same key: DynamoDB stops exactly there).

use std::collections::HashMap;

use engine::types::AttributeValue;
use engine::{Client, Error};
use given::{bad_item, invalid_store, Cursor, Page, Store, SEPARATOR, TABLE};

/// A level's key range: from its prefix to the same prefix with the separator's successor.
fn range_of(prefix: &str) -> (AttributeValue, AttributeValue) {
    let upper = format!("{}$", prefix.trim_end_matches('#'));
    (
        AttributeValue::S(prefix.to_string()),
        AttributeValue::S(upper),
    )
}

fn key_of(country: &str, city: &str, id: u32) -> HashMap<String, AttributeValue> {
    HashMap::from([
        (
            "PK".to_string(),
            AttributeValue::S(format!("COUNTRY#{}", country.to_uppercase())),
        ),
        (
            "SK".to_string(),
            AttributeValue::S(format!("CITY#{}#STORE#{id:04}", city.to_lowercase())),
        ),
    ])
}

fn parse(item: &HashMap<String, AttributeValue>) -> Result<Store, Error> {
    let s = |name: &str| match item.get(name) {
        Some(AttributeValue::S(text)) => Ok(text.clone()),
        _ => Err(bad_item(format!("no string `{name}`"))),
    };
    let id = match item.get("id") {
        Some(AttributeValue::N(n)) => n.parse().map_err(|_| bad_item("`id` is not a u32"))?,
        _ => return Err(bad_item("no number `id`")),
    };
    Ok(Store {
        country: s("country")?,
        city: s("city")?,
        id,
        name: s("name")?,
        about: s("about")?,
    })
}

pub fn add_store(client: &Client, store: &Store) -> Result<(), Error> {
    if store.city.contains(SEPARATOR) {
        return Err(invalid_store(format!(
            "{:?} contains {SEPARATOR}",
            store.city
        )));
    }
    let mut item = key_of(&store.country, &store.city, store.id);
    item.extend([
        (
            "country".to_string(),
            AttributeValue::S(store.country.to_uppercase()),
        ),
        ("city".to_string(), AttributeValue::S(store.city.clone())),
        ("id".to_string(), AttributeValue::N(store.id.to_string())),
        ("name".to_string(), AttributeValue::S(store.name.clone())),
        ("about".to_string(), AttributeValue::S(store.about.clone())),
    ]);
    client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item))
        .send()?;
    Ok(())
}

pub fn store(client: &Client, country: &str, city: &str, id: u32) -> Result<Option<Store>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .set_key(Some(key_of(country, city, id)))
        .send()?;
    match out.item() {
        Some(item) => parse(item).map(Some),
        None => Ok(None),
    }
}

pub fn stores_in_city(client: &Client, country: &str, city: &str) -> Result<Vec<Store>, Error> {
    let (from, to) = range_of(&format!("CITY#{}#", city.to_lowercase()));
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("#pk = :pk AND #sk BETWEEN :from AND :to")
        .expression_attribute_names("#pk", "PK")
        .expression_attribute_names("#sk", "SK")
        .expression_attribute_values(
            ":pk",
            AttributeValue::S(format!("COUNTRY#{}", country.to_uppercase())),
        )
        .expression_attribute_values(":from", from)
        .expression_attribute_values(":to", to)
        .scan_index_forward(false)
        .send()?;
    out.items().iter().map(parse).collect()
}

pub fn stores_in_country(
    client: &Client,
    country: &str,
    limit: i32,
    start: Option<Cursor>,
) -> Result<Page, Error> {
    let (from, to) = range_of("CITY#");
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("#pk = :pk AND #sk BETWEEN :from AND :to")
        .expression_attribute_names("#pk", "PK")
        .expression_attribute_names("#sk", "SK")
        .expression_attribute_values(
            ":pk",
            AttributeValue::S(format!("COUNTRY#{}", country.to_uppercase())),
        )
        .expression_attribute_values(":from", from)
        .expression_attribute_values(":to", to)
        .limit(limit)
        .set_exclusive_start_key(start)
        .send()?;
    let stores: Vec<Store> = out.items().iter().map(parse).collect::<Result<_, _>>()?;
    // A full page may have more after it; a short one is the end of the range.
    let next = match stores.last() {
        Some(last) if stores.len() == limit as usize => {
            Some(key_of(&last.country, &last.city, last.id))
        }
        _ => None,
    };
    Ok(Page { stores, next })
}
