//! Known-wrong: the city in the key as written (`CITY#Berlin#…`), and as typed in the reads:
//! sort keys are case-sensitive, so a visitor who types `berlin` finds nothing.

use std::collections::HashMap;

use engine::types::AttributeValue;
use engine::{Client, Error};
use given::{bad_item, invalid_store, Cursor, Page, Store, SEPARATOR, TABLE};

/// The partition key: one item collection per country.
fn country_pk(country: &str) -> AttributeValue {
    AttributeValue::S(format!("COUNTRY#{}", country.to_uppercase()))
}

/// The sort-key prefix of a city's stores, its separator included.
fn city_prefix(city: &str) -> String {
    format!("CITY#{city}#")
}

fn store_sk(city: &str, id: u32) -> AttributeValue {
    AttributeValue::S(format!("{}STORE#{id:04}", city_prefix(city)))
}

fn text(item: &HashMap<String, AttributeValue>, name: &str) -> Result<String, Error> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .ok_or_else(|| bad_item(format!("no string `{name}`")))
}

fn store_from(item: &HashMap<String, AttributeValue>) -> Result<Store, Error> {
    let id = item
        .get("id")
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad_item("no number `id`"))?;
    Ok(Store {
        country: text(item, "country")?,
        city: text(item, "city")?,
        id,
        name: text(item, "name")?,
        about: text(item, "about")?,
    })
}

/// One PutItem. A `#` in the city would be read as a separator, so such a store is refused.
pub fn add_store(client: &Client, store: &Store) -> Result<(), Error> {
    if store.city.contains(SEPARATOR) {
        return Err(invalid_store(format!(
            "the city {:?} contains {SEPARATOR}",
            store.city
        )));
    }
    client
        .put_item()
        .table_name(TABLE)
        .item("PK", country_pk(&store.country))
        .item("SK", store_sk(&store.city, store.id))
        .item("country", AttributeValue::S(store.country.to_uppercase()))
        .item("city", AttributeValue::S(store.city.clone()))
        .item("id", AttributeValue::N(store.id.to_string()))
        .item("name", AttributeValue::S(store.name.clone()))
        .item("about", AttributeValue::S(store.about.clone()))
        .send()?;
    Ok(())
}

/// One GetItem of the whole key.
pub fn store(client: &Client, country: &str, city: &str, id: u32) -> Result<Option<Store>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", country_pk(country))
        .key("SK", store_sk(city, id))
        .send()?;
    out.item().map(store_from).transpose()
}

/// One Query of the city's range, newest (highest id) first.
pub fn stores_in_city(client: &Client, country: &str, city: &str) -> Result<Vec<Store>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :city)")
        .expression_attribute_values(":pk", country_pk(country))
        .expression_attribute_values(":city", AttributeValue::S(city_prefix(city)))
        .scan_index_forward(false)
        .send()?;
    out.items().iter().map(store_from).collect()
}

/// One Query of every city's range, `limit` stores from where the last page stopped.
pub fn stores_in_country(
    client: &Client,
    country: &str,
    limit: i32,
    start: Option<Cursor>,
) -> Result<Page, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :any_city)")
        .expression_attribute_values(":pk", country_pk(country))
        .expression_attribute_values(":any_city", AttributeValue::S("CITY#".into()))
        .limit(limit)
        .set_exclusive_start_key(start)
        .send()?;
    Ok(Page {
        stores: out
            .items()
            .iter()
            .map(store_from)
            .collect::<Result<_, _>>()?,
        next: out.last_evaluated_key().cloned(),
    })
}
