//! # Kata: document versions — another correct route
//!
//! The same transaction, built differently: `v0` is rewritten whole with a `Put` (the item is a
//! copy of the new history item, so both are built from one map), guarded by `version =
//! :expected` or, for a new document, `attribute_not_exists(PK)`. On a cancellation it reads
//! `v0` again, strongly consistent, to say where the document is. The history is the
//! sort-key range `v0001` … `v9999` (BETWEEN), newest first.

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Put, TransactWriteItem};
use engine::{AttributeValue, Client, Error, Item};
use given::{bad_item, SaveError, Version, LATEST, MAX_VERSION, TABLE};

const DOC_PREFIX: &str = "DOC#";

fn key_item(doc_id: &str, sk: String) -> Item {
    Item::from([
        (
            "PK".to_string(),
            AttributeValue::S(format!("{DOC_PREFIX}{doc_id}")),
        ),
        ("SK".to_string(), AttributeValue::S(sk)),
    ])
}

fn sk_of(version: u64) -> String {
    format!("v{version:04}")
}

fn parse(item: &Item) -> Result<Version, Error> {
    let field = |name: &str| {
        item.get(name)
            .ok_or_else(|| bad_item(format!("an item of the document has no {name}")))
    };
    let version = field("version")?
        .as_n()
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or_else(|| bad_item("version is not a whole number"))?;
    let text = |name: &str| -> Result<String, Error> {
        field(name)?
            .as_s()
            .cloned()
            .map_err(|_| bad_item(format!("{name} is not a string")))
    };
    Ok(Version {
        version,
        body: text("body")?,
        author: text("author")?,
    })
}

/// Saves `body` as version `expected + 1`, only if the latest is still `expected`.
pub fn save(
    client: &Client,
    doc_id: &str,
    expected: u64,
    author: &str,
    body: &str,
) -> Result<u64, SaveError> {
    let next = expected + 1;
    let content = |sk: String| {
        let mut item = key_item(doc_id, sk);
        item.insert("version".into(), AttributeValue::N(next.to_string()));
        item.insert("body".into(), AttributeValue::S(body.to_string()));
        item.insert("author".into(), AttributeValue::S(author.to_string()));
        item
    };
    let guard = if expected == 0 {
        Put::builder().condition_expression("attribute_not_exists(PK)")
    } else {
        Put::builder()
            .condition_expression("version = :expected")
            .expression_attribute_values(":expected", AttributeValue::N(expected.to_string()))
    };
    let latest_put = guard
        .table_name(TABLE)
        .set_item(Some(content(LATEST.to_string())))
        .build()
        .map_err(Error::from)?;
    let history_put = Put::builder()
        .table_name(TABLE)
        .set_item(Some(content(sk_of(next))))
        .condition_expression("attribute_not_exists(PK)")
        .build()
        .map_err(Error::from)?;
    let result = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(latest_put).build())
        .transact_items(TransactWriteItem::builder().put(history_put).build())
        .send();
    let err = match result {
        Ok(_) => return Ok(next),
        Err(err) => err.into_service_error(),
    };
    let conflict = matches!(&err, TransactWriteItemsError::TransactionCanceledException(c)
        if c.cancellation_reasons().iter().any(|r| r.code() == Some("ConditionalCheckFailed")));
    if !conflict {
        return Err(SaveError::Engine(err.into()));
    }
    let current = latest(client, doc_id)?.map_or(0, |v| v.version);
    Err(SaveError::Conflict { current })
}

/// The latest version, strongly consistent.
pub fn latest(client: &Client, doc_id: &str) -> Result<Option<Version>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .set_key(Some(key_item(doc_id, LATEST.to_string())))
        .consistent_read(true)
        .send()?;
    match out.item() {
        Some(item) => parse(item).map(Some),
        None => Ok(None),
    }
}

/// The newest `limit` versions of the history, newest first.
pub fn history(client: &Client, doc_id: &str, limit: i32) -> Result<Vec<Version>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("#pk = :pk AND #sk BETWEEN :first AND :last")
        .expression_attribute_names("#pk", "PK")
        .expression_attribute_names("#sk", "SK")
        .expression_attribute_values(":pk", AttributeValue::S(format!("{DOC_PREFIX}{doc_id}")))
        .expression_attribute_values(":first", AttributeValue::S(sk_of(1)))
        .expression_attribute_values(":last", AttributeValue::S(sk_of(MAX_VERSION)))
        .scan_index_forward(false)
        .limit(limit)
        .send()
        .map_err(SdkError::into_service_error)?;
    let mut versions = Vec::with_capacity(out.items().len());
    for item in out.items() {
        versions.push(parse(item)?);
    }
    Ok(versions)
}

/// One version, by its history item.
pub fn version(client: &Client, doc_id: &str, version: u64) -> Result<Option<Version>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .set_key(Some(key_item(doc_id, sk_of(version))))
        .send()?;
    out.item().map(parse).transpose()
}
