//! How DynamoDB quotes a request's value back in a constraint message.
//!
//! A parameter that breaks a length constraint is echoed whole in the
//! `1 validation error detected: Value '<v>' at '<field>' …` message: the service renders it
//! with its Java model's `toString`, structures as `Name(field=value, …)`, lists as `[a, b]`,
//! maps as `{k=v, …}`, absent members as `null`. An empty list is `'[]'`, and three key-schema
//! elements are `'[KeySchemaElement(attributeName=pk, keyType=HASH), …]'` (both verified
//! against the service by a peer conformance suite). How the service renders the members of
//! a `WriteRequest` or a `TransactWriteItem` is not pinned down anywhere we know of (a peer
//! suite calls it the same `toString` shape and notes it has changed before): the rendering of
//! those, of `AttributeValue` and of binaries below follows the same convention and is
//! **(unverified)** in its detail.
//!
//! Decision: render the request's own values rather than a count (which the engine wrote
//! before): a learner who pastes the message into a search engine finds DynamoDB's, and sees
//! which value was meant. Maps are rendered in name order, never in a `HashMap`'s order,
//! which differs from run to run.

use std::collections::HashMap;

use super::batch_write_item::WriteRequest;
use super::transact_get_items::TransactGetItem;
use super::transact_write_items::TransactWriteItem;
use crate::types::KeySchemaElement;
use crate::value::{sorted, AttributeValue, Blob};

/// `[KeySchemaElement(attributeName=pk, keyType=HASH), …]`.
pub(crate) fn key_schema(elements: &[KeySchemaElement]) -> String {
    list(elements.iter().map(|e| {
        format!(
            "KeySchemaElement(attributeName={}, keyType={})",
            e.attribute_name,
            e.key_type.as_str()
        )
    }))
}

/// `{table=[WriteRequest(putRequest=PutRequest(item={…}), deleteRequest=null), …]}`.
pub(crate) fn request_items(items: &HashMap<String, Vec<WriteRequest>>) -> String {
    map(items, |requests| list(requests.iter().map(write_request)))
}

fn write_request(r: &WriteRequest) -> String {
    let put = r.put_request.as_ref().map(|p| {
        format!(
            "PutRequest(item={})",
            opt(p.item.as_ref().map(|i| map(i, attribute_value)))
        )
    });
    let delete = r.delete_request.as_ref().map(|d| {
        format!(
            "DeleteRequest(key={})",
            opt(d.key.as_ref().map(|k| map(k, attribute_value)))
        )
    });
    format!(
        "WriteRequest(putRequest={}, deleteRequest={})",
        opt(put),
        opt(delete)
    )
}

/// `[TransactWriteItem(conditionCheck=null, put=Put(…), delete=null, update=null), …]`.
pub(crate) fn transact_write_items(items: &[TransactWriteItem]) -> String {
    list(items.iter().map(|t| {
        let check = t.condition_check.as_ref().map(|c| {
            structure(
                "ConditionCheck",
                &[
                    ("key", opt(c.key.as_ref().map(|k| map(k, attribute_value)))),
                    ("tableName", opt(c.table_name.clone())),
                    ("conditionExpression", opt(c.condition_expression.clone())),
                ],
            )
        });
        let put = t.put.as_ref().map(|p| {
            structure(
                "Put",
                &[
                    (
                        "item",
                        opt(p.item.as_ref().map(|i| map(i, attribute_value))),
                    ),
                    ("tableName", opt(p.table_name.clone())),
                    ("conditionExpression", opt(p.condition_expression.clone())),
                ],
            )
        });
        let delete = t.delete.as_ref().map(|d| {
            structure(
                "Delete",
                &[
                    ("key", opt(d.key.as_ref().map(|k| map(k, attribute_value)))),
                    ("tableName", opt(d.table_name.clone())),
                    ("conditionExpression", opt(d.condition_expression.clone())),
                ],
            )
        });
        let update = t.update.as_ref().map(|u| {
            structure(
                "Update",
                &[
                    ("key", opt(u.key.as_ref().map(|k| map(k, attribute_value)))),
                    ("updateExpression", opt(u.update_expression.clone())),
                    ("tableName", opt(u.table_name.clone())),
                    ("conditionExpression", opt(u.condition_expression.clone())),
                ],
            )
        });
        structure(
            "TransactWriteItem",
            &[
                ("conditionCheck", opt(check)),
                ("put", opt(put)),
                ("delete", opt(delete)),
                ("update", opt(update)),
            ],
        )
    }))
}

/// `[TransactGetItem(get=Get(key={…}, tableName=t, …)), …]`.
pub(crate) fn transact_get_items(items: &[TransactGetItem]) -> String {
    list(items.iter().map(|t| {
        let get = t.get.as_ref().map(|g| {
            structure(
                "Get",
                &[
                    ("key", opt(g.key.as_ref().map(|k| map(k, attribute_value)))),
                    ("tableName", opt(g.table_name.clone())),
                    ("projectionExpression", opt(g.projection_expression.clone())),
                ],
            )
        });
        structure("TransactGetItem", &[("get", opt(get))])
    }))
}

/// `AttributeValue(s=x, n=null, …)`: every member, the absent ones `null`.
fn attribute_value(v: &AttributeValue) -> String {
    use AttributeValue as V;
    let mut fields: [(&str, Option<String>); 10] = [
        ("s", None),
        ("n", None),
        ("b", None),
        ("sS", None),
        ("nS", None),
        ("bS", None),
        ("m", None),
        ("l", None),
        ("nULL", None),
        ("bOOL", None),
    ];
    let slot = match v {
        V::S(s) => (0, s.clone()),
        V::N(n) => (1, n.clone()),
        V::B(b) => (2, blob(b)),
        V::Ss(s) => (3, list(s.iter().cloned())),
        V::Ns(s) => (4, list(s.iter().cloned())),
        V::Bs(s) => (5, list(s.iter().map(blob))),
        V::M(m) => (6, map(m, attribute_value)),
        V::L(l) => (7, list(l.iter().map(attribute_value))),
        V::Null(b) => (8, b.to_string()),
        V::Bool(b) => (9, b.to_string()),
    };
    fields[slot.0].1 = Some(slot.1);
    let fields: Vec<(&str, String)> = fields.into_iter().map(|(k, v)| (k, opt(v))).collect();
    structure("AttributeValue", &fields)
}

/// A binary as Java prints a heap buffer.
fn blob(b: &Blob) -> String {
    format!("java.nio.HeapByteBuffer[pos=0 lim={0} cap={0}]", b.len())
}

fn structure(name: &str, fields: &[(&str, String)]) -> String {
    let inner: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}({})", inner.join(", "))
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

fn map<V>(m: &HashMap<String, V>, value: impl Fn(&V) -> String) -> String {
    let entries: Vec<String> = sorted(m)
        .into_iter()
        .map(|(k, v)| format!("{k}={}", value(v)))
        .collect();
    format!("{{{}}}", entries.join(", "))
}

fn opt(v: Option<String>) -> String {
    v.unwrap_or_else(|| "null".to_string())
}
