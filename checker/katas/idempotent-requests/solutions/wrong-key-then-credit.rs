//! Known-wrong solution of `idempotent-requests`: the record and the credit are two writes.
//!
//! A conditional PutItem creates the key's record (so duplicates, even racing ones, are
//! caught), then an UpdateItem credits the card. If the credit fails — its partition has no
//! leader, it is throttled — the record stays: every retry is taken for a duplicate of a
//! top-up that never credited anything.

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::{item, AttributeValue, Client};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE};

/// Records the key, then credits the card.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    let pk = record_pk(&request.idempotency_key);
    let record = item! {
        "PK" => pk.clone(),
        "card" => request.card.clone(),
        "amount" => request.amount_cents,
        "creditedAt" => now,
        "expiresAt" => now + KEY_LIFETIME_S,
    };
    let created = client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(record))
        .condition_expression("attribute_not_exists(PK) OR expiresAt < :now")
        .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
        .send()
        .map_err(SdkError::into_service_error);
    match created {
        Ok(_) => {}
        Err(PutItemError::ConditionalCheckFailedException(_)) => {
            let out = client
                .get_item()
                .table_name(TABLE)
                .key("PK", AttributeValue::S(pk))
                .consistent_read(true)
                .send()?;
            let item = out.item().cloned().unwrap_or_default();
            let number = |name: &str| {
                item.get(name)
                    .and_then(|v| v.as_n().ok())
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or_default()
            };
            let card = item.get("card").and_then(|v| v.as_s().ok()).cloned();
            let stored = Receipt {
                card: card.unwrap_or_default(),
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
        Err(e) => return Err(TopUpError::Engine(e.into())),
    }
    client
        .update_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(card_pk(&request.card)))
        .update_expression("ADD balance :amount")
        .expression_attribute_values(
            ":amount",
            AttributeValue::N(request.amount_cents.to_string()),
        )
        .send()?;
    Ok(Receipt {
        card: request.card.clone(),
        amount_cents: request.amount_cents,
        credited_at: now,
    })
}
