//! # Kata: document versions — known wrong: two separate writes
//!
//! Each write is conditioned correctly — the history item create-only, v0 on the version
//! expected — but they are two requests: a PutItem, then an UpdateItem. Each is atomic on its
//! own item; together they are not. When the second fails (its partition's leader stopped
//! between them), the history has a version that v0 does not.

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::operation::update_item::UpdateItemError;
use engine::{AttributeValue, Client, Error, Item};
use given::{bad_item, SaveError, Version, LATEST, TABLE};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn pk(doc_id: &str) -> AttributeValue {
    s(&format!("DOC#{doc_id}"))
}

/// The sort key of a history item: `v0001` … `v9999`. Zero-padded, because sort keys compare
/// as strings: unpadded, `v10` would sort between `v1` and `v2`.
fn history_sk(version: u64) -> String {
    format!("v{version:04}")
}

fn version_of(item: &Item) -> Option<u64> {
    item.get("version")?.as_n().ok()?.parse().ok()
}

fn to_version(item: &Item) -> Result<Version, Error> {
    let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
    let sk = text("SK").unwrap_or_default();
    Ok(Version {
        version: version_of(item).ok_or_else(|| bad_item(format!("{sk} has no number version")))?,
        body: text("body").ok_or_else(|| bad_item(format!("{sk} has no string body")))?,
        author: text("author").ok_or_else(|| bad_item(format!("{sk} has no string author")))?,
    })
}

/// Saves `body` by `author` as version `expected + 1` of the document, only if its latest is
/// still version `expected` (0: the document does not exist yet); returns the new version.
pub fn save(
    client: &Client,
    doc_id: &str,
    expected: u64,
    author: &str,
    body: &str,
) -> Result<u64, SaveError> {
    let next = expected + 1;
    // First the history item, create-only: if another editor took this number, stop here.
    let put = client
        .put_item()
        .table_name(TABLE)
        .item("PK", pk(doc_id))
        .item("SK", s(&history_sk(next)))
        .item("version", n(next))
        .item("body", s(body))
        .item("author", s(author))
        .condition_expression("attribute_not_exists(SK)")
        .send();
    match put.map_err(SdkError::into_service_error) {
        Ok(_) => {}
        Err(PutItemError::ConditionalCheckFailedException(_)) => {
            return Err(SaveError::Conflict {
                current: current_version(client, doc_id)?,
            })
        }
        Err(e) => return Err(SaveError::Engine(e.into())),
    }
    // Then the latest, conditioned on the version expected.
    let update = client
        .update_item()
        .table_name(TABLE)
        .key("PK", pk(doc_id))
        .key("SK", s(LATEST))
        .update_expression("SET version = :next, body = :body, author = :author")
        .expression_attribute_values(":next", n(next))
        .expression_attribute_values(":body", s(body))
        .expression_attribute_values(":author", s(author));
    let update = if expected == 0 {
        update.condition_expression("attribute_not_exists(SK)")
    } else {
        update
            .condition_expression("version = :expected")
            .expression_attribute_values(":expected", n(expected))
    };
    match update.send().map_err(SdkError::into_service_error) {
        Ok(_) => Ok(next),
        Err(UpdateItemError::ConditionalCheckFailedException(_)) => Err(SaveError::Conflict {
            current: current_version(client, doc_id)?,
        }),
        Err(e) => Err(SaveError::Engine(e.into())),
    }
}

fn current_version(client: &Client, doc_id: &str) -> Result<u64, Error> {
    Ok(latest(client, doc_id)?.map_or(0, |v| v.version))
}

/// The latest version of the document (None: it does not exist), read strongly consistent.
pub fn latest(client: &Client, doc_id: &str) -> Result<Option<Version>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", pk(doc_id))
        .key("SK", s(LATEST))
        .consistent_read(true)
        .send()?;
    out.item().map(to_version).transpose()
}

/// The document's history, newest first, at most `limit` versions; the latest (`v0`) is not
/// among them, and not read.
pub fn history(client: &Client, doc_id: &str, limit: i32) -> Result<Vec<Version>, Error> {
    let out = client
        .query()
        .table_name(TABLE)
        .key_condition_expression("PK = :pk AND SK > :latest")
        .expression_attribute_values(":pk", pk(doc_id))
        .expression_attribute_values(":latest", s(LATEST))
        .scan_index_forward(false)
        .limit(limit)
        .send()?;
    out.items().iter().map(to_version).collect()
}

/// One version of the document (None: it never had that version).
pub fn version(client: &Client, doc_id: &str, version: u64) -> Result<Option<Version>, Error> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", pk(doc_id))
        .key("SK", s(&history_sk(version)))
        .send()?;
    out.item().map(to_version).transpose()
}
