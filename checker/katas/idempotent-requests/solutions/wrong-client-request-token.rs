//! Known-wrong solution of `idempotent-requests`: the transaction's ClientRequestToken is the
//! only guard.
//!
//! The record and the credit go in one TransactWriteItems whose ClientRequestToken is the
//! idempotency key, and the record's Put has no condition. DynamoDB replays a token only for
//! 10 minutes after the first call: a retry an hour later credits the card again. (Within the
//! window, a replay returns success without writing, and the receipt is read from the record.)

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Put, TransactWriteItem, Update};
use engine::{AttributeValue, Client};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE};

/// Credits the card; DynamoDB's token makes a retry of the same call a no-op.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    let n = |v: u64| AttributeValue::N(v.to_string());
    let pk = AttributeValue::S(record_pk(&request.idempotency_key));
    let record = Put::builder()
        .table_name(TABLE)
        .item("PK", pk.clone())
        .item("card", AttributeValue::S(request.card.clone()))
        .item("amount", n(request.amount_cents))
        .build()
        .expect("table and item are set");
    let credit = Update::builder()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(card_pk(&request.card)))
        .update_expression("ADD balance :amount")
        .expression_attribute_values(":amount", n(request.amount_cents))
        .build()
        .expect("table, key and expression are set");
    let sent = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(record).build())
        .transact_items(TransactWriteItem::builder().update(credit).build())
        .client_request_token(request.idempotency_key.clone())
        .send()
        .map_err(SdkError::into_service_error);
    match sent {
        Ok(_) => {}
        Err(TransactWriteItemsError::IdempotentParameterMismatchException(_)) => {
            return Err(TopUpError::KeyReused {
                idempotency_key: request.idempotency_key.clone(),
            })
        }
        Err(e) => return Err(TopUpError::Engine(e.into())),
    }
    // The first call's time, written once by a create-only update.
    let stamped = client
        .update_item()
        .table_name(TABLE)
        .key("PK", pk)
        .update_expression("SET creditedAt = if_not_exists(creditedAt, :now), expiresAt = if_not_exists(expiresAt, :exp)")
        .expression_attribute_values(":now", n(now))
        .expression_attribute_values(":exp", n(now + KEY_LIFETIME_S))
        .return_values(engine::types::ReturnValue::AllNew)
        .send()?;
    let credited_at = stamped
        .attributes()
        .and_then(|a| a.get("creditedAt"))
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(now);
    Ok(Receipt {
        card: request.card.clone(),
        amount_cents: request.amount_cents,
        credited_at,
    })
}
