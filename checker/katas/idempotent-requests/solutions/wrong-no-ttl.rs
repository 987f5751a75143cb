//! Known-wrong solution of `idempotent-requests`: the idempotency record has no expiry.
//!
//! The transaction is right, but the record never gets `expiresAt`: TTL never deletes it, and
//! the table collects one record per top-up, forever. (Its condition is plain
//! `attribute_not_exists(PK)`: with no expiry, a key is a duplicate forever.)

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Put, TransactWriteItem, Update};
use engine::{AttributeValue, Client};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, TABLE};

/// Credits `request.amount_cents` to the card once per idempotency key; a duplicate returns
/// the first request's receipt.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    // Two passes at most: a record found missing after a failed condition (deleted by TTL in
    // between) makes the key new again.
    for _ in 0..2 {
        match credit_with_record(client, request, now) {
            Ok(()) => {
                return Ok(Receipt {
                    card: request.card.clone(),
                    amount_cents: request.amount_cents,
                    credited_at: now,
                })
            }
            Err(TransactWriteItemsError::TransactionCanceledException(cancelled))
                if cancelled
                    .cancellation_reasons()
                    .first()
                    .and_then(|r| r.code())
                    == Some("ConditionalCheckFailed") =>
            {
                if let Some(receipt) = stored_receipt(client, request)? {
                    return matching(request, receipt);
                }
            }
            Err(other) => return Err(TopUpError::Engine(other.into())),
        }
    }
    Err(TopUpError::Engine(given::unexpected(
        "the idempotency record kept appearing and vanishing",
    )))
}

/// The transaction: the record (create-only, unless expired) and the credit.
fn credit_with_record(
    client: &Client,
    request: &TopUp,
    now: u64,
) -> Result<(), TransactWriteItemsError> {
    let n = |v: u64| AttributeValue::N(v.to_string());
    let record = Put::builder()
        .table_name(TABLE)
        .item("PK", AttributeValue::S(record_pk(&request.idempotency_key)))
        .item("card", AttributeValue::S(request.card.clone()))
        .item("amount", n(request.amount_cents))
        .item("creditedAt", n(now))
        .condition_expression("attribute_not_exists(PK)")
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
        .send()
        .map(|_| ())
        .map_err(SdkError::into_service_error)
}

/// The receipt stored in the key's record, read strongly consistent (the record may be
/// milliseconds old); `None` if there is no record.
fn stored_receipt(client: &Client, request: &TopUp) -> Result<Option<Receipt>, TopUpError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(record_pk(&request.idempotency_key)))
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
    let card = item.get("card").and_then(|v| v.as_s().ok());
    Ok(Some(Receipt {
        card: card.cloned().unwrap_or_default(),
        amount_cents: number("amount"),
        credited_at: number("creditedAt"),
    }))
}

/// The stored receipt if the request asks for the same top-up; a refusal otherwise.
fn matching(request: &TopUp, stored: Receipt) -> Result<Receipt, TopUpError> {
    if stored.card == request.card && stored.amount_cents == request.amount_cents {
        Ok(stored)
    } else {
        Err(TopUpError::KeyReused {
            idempotency_key: request.idempotency_key.clone(),
        })
    }
}
