//! Known-wrong solution of `idempotent-requests`: read the key, then write.
//!
//! A strongly consistent GetItem looks for the key's record; if there is none, one transaction
//! writes the record and the credit — without a condition on the record. Two duplicates that
//! both read before either wrote both find no record, and both credit the card.

use engine::types::{Put, TransactWriteItem, Update};
use engine::{AttributeValue, Client};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE};

/// Credits the card unless the key's record says it was already done.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    let pk = AttributeValue::S(record_pk(&request.idempotency_key));
    let found = client
        .get_item()
        .table_name(TABLE)
        .key("PK", pk.clone())
        .consistent_read(true)
        .send()?;
    if let Some(item) = found.item() {
        let number = |name: &str| {
            item.get(name)
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_default()
        };
        let live = number("expiresAt") >= now;
        if live {
            let card = item.get("card").and_then(|v| v.as_s().ok());
            let stored = Receipt {
                card: card.cloned().unwrap_or_default(),
                amount_cents: number("amount"),
                credited_at: number("creditedAt"),
            };
            if stored.card != request.card || stored.amount_cents != request.amount_cents {
                return Err(TopUpError::KeyReused {
                    idempotency_key: request.idempotency_key.clone(),
                });
            }
            return Ok(stored);
        }
    }
    let n = |v: u64| AttributeValue::N(v.to_string());
    let record = Put::builder()
        .table_name(TABLE)
        .item("PK", pk)
        .item("card", AttributeValue::S(request.card.clone()))
        .item("amount", n(request.amount_cents))
        .item("creditedAt", n(now))
        .item("expiresAt", n(now + KEY_LIFETIME_S))
        .build()
        .expect("table and item are set");
    let credit = Update::builder()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(card_pk(&request.card)))
        .update_expression("ADD balance :amount")
        .expression_attribute_values(":amount", n(request.amount_cents))
        .build()
        .expect("table, key and expression are set");
    client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(record).build())
        .transact_items(TransactWriteItem::builder().update(credit).build())
        .send()?;
    Ok(Receipt {
        card: request.card.clone(),
        amount_cents: request.amount_cents,
        credited_at: now,
    })
}
