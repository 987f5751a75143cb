//! # Kata: idempotent requests — alternative: the record comes back with the cancellation
//!
//! The same transaction as the reference (create-only record + credit), but the record's Put
//! asks for `ReturnValuesOnConditionCheckFailure = ALL_OLD`: when its condition fails, the
//! cancellation reason carries the record as the leader had it, so a duplicate is answered
//! without a second request.

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update};
use engine::{AttributeValue, Client, Item};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE};

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
            Err(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                let record = cancelled.cancellation_reasons().first();
                if record.and_then(|r| r.code()) != Some("ConditionalCheckFailed") {
                    let e = TransactWriteItemsError::TransactionCanceledException(cancelled);
                    return Err(TopUpError::Engine(e.into()));
                }
                // The record as the leader had it when the condition failed.
                if let Some(item) = record.and_then(|r| r.item()) {
                    return matching(request, receipt_of(item));
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
        .item("expiresAt", n(now + KEY_LIFETIME_S))
        .condition_expression("attribute_not_exists(PK) OR expiresAt < :now")
        .expression_attribute_values(":now", n(now))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
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

/// The receipt stored in an idempotency record.
fn receipt_of(item: &Item) -> Receipt {
    let number = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_default()
    };
    let card = item.get("card").and_then(|v| v.as_s().ok());
    Receipt {
        card: card.cloned().unwrap_or_default(),
        amount_cents: number("amount"),
        credited_at: number("creditedAt"),
    }
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
