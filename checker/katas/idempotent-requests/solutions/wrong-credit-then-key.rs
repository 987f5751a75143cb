//! Known-wrong solution of `idempotent-requests`: the credit, then the record, as two writes.
//!
//! The card is credited first (UpdateItem), then the key's record is created with a
//! conditional PutItem. If the record's write fails — its partition has no leader, it is
//! throttled — the credit stays and the key is not recorded: the app's retry credits the card
//! again. (A duplicate is caught before the credit by a GetItem of the record.)

use engine::error::SdkError;
use engine::operation::put_item::PutItemError;
use engine::{item, AttributeValue, Client};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE};

/// Credits the card, then records the key.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    let pk = record_pk(&request.idempotency_key);
    if let Some(stored) = stored_receipt(client, &pk, now)? {
        if stored.card != request.card || stored.amount_cents != request.amount_cents {
            return Err(TopUpError::KeyReused {
                idempotency_key: request.idempotency_key.clone(),
            });
        }
        return Ok(stored);
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
    let record = item! {
        "PK" => pk,
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
        Ok(_) | Err(PutItemError::ConditionalCheckFailedException(_)) => Ok(Receipt {
            card: request.card.clone(),
            amount_cents: request.amount_cents,
            credited_at: now,
        }),
        Err(e) => Err(TopUpError::Engine(e.into())),
    }
}

/// The receipt in the key's live record, read strongly consistent.
fn stored_receipt(client: &Client, pk: &str, now: u64) -> Result<Option<Receipt>, TopUpError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(pk.to_string()))
        .consistent_read(true)
        .send()?;
    let Some(item) = out.item() else {
        return Ok(None);
    };
    let number = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_default()
    };
    if number("expiresAt") < now {
        return Ok(None);
    }
    let card = item.get("card").and_then(|v| v.as_s().ok()).cloned();
    Ok(Some(Receipt {
        card: card.unwrap_or_default(),
        amount_cents: number("amount"),
        credited_at: number("creditedAt"),
    }))
}
