//! # Kata: idempotent requests — alternative: look before you leap, then let the condition decide
//!
//! Most duplicates are retries of a top-up that went through, so this one first reads the
//! key's record (strongly consistent): a live record answers the duplicate with one read and
//! no write. Only a key without a live record goes on to the transaction — which is still
//! guarded by the record's condition, since another duplicate can commit between the read and
//! the write; a cancelled transaction reads the record again.

use engine::error::SdkError;
use engine::operation::transact_write_items::TransactWriteItemsError;
use engine::types::{Put, TransactWriteItem, Update};
use engine::{AttributeValue, Client, Item};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE};

/// A live record of the key, read from the leader: its receipt.
fn live_record(client: &Client, request: &TopUp, now: u64) -> Result<Option<Receipt>, TopUpError> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(record_pk(&request.idempotency_key)))
        .consistent_read(true)
        .send()?;
    let Some(item) = out.item() else {
        return Ok(None);
    };
    let number = |item: &Item, name: &str| {
        item.get(name)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
    };
    // An expired record that TTL has not deleted yet does not count.
    if number(item, "expiresAt").is_some_and(|at| at < now) {
        return Ok(None);
    }
    Ok(Some(Receipt {
        card: item
            .get("card")
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default(),
        amount_cents: number(item, "amount").unwrap_or_default(),
        credited_at: number(item, "creditedAt").unwrap_or_default(),
    }))
}

fn answer(request: &TopUp, stored: Receipt) -> Result<Receipt, TopUpError> {
    if (stored.card.as_str(), stored.amount_cents) == (request.card.as_str(), request.amount_cents)
    {
        Ok(stored)
    } else {
        Err(TopUpError::KeyReused {
            idempotency_key: request.idempotency_key.clone(),
        })
    }
}

/// Credits the card once per idempotency key; a duplicate returns the first receipt.
pub fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError> {
    if let Some(stored) = live_record(client, request, now)? {
        return answer(request, stored);
    }
    let amount = AttributeValue::N(request.amount_cents.to_string());
    let at = |t: u64| AttributeValue::N(t.to_string());
    let record = Item::from([
        (
            "PK".to_string(),
            AttributeValue::S(record_pk(&request.idempotency_key)),
        ),
        ("card".to_string(), AttributeValue::S(request.card.clone())),
        ("amount".to_string(), amount.clone()),
        ("creditedAt".to_string(), at(now)),
        ("expiresAt".to_string(), at(now + KEY_LIFETIME_S)),
    ]);
    let put = Put::builder()
        .table_name(TABLE)
        .set_item(Some(record))
        .condition_expression("attribute_not_exists(PK) OR expiresAt < :now")
        .expression_attribute_values(":now", at(now))
        .build()
        .expect("table and item are set");
    let credit = Update::builder()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(card_pk(&request.card)))
        .update_expression("SET balance = if_not_exists(balance, :zero) + :amount")
        .expression_attribute_values(":zero", AttributeValue::N("0".into()))
        .expression_attribute_values(":amount", amount)
        .build()
        .expect("table, key and expression are set");
    let sent = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().put(put).build())
        .transact_items(TransactWriteItem::builder().update(credit).build())
        .send();
    match sent.map_err(SdkError::into_service_error) {
        Ok(_) => Ok(Receipt {
            card: request.card.clone(),
            amount_cents: request.amount_cents,
            credited_at: now,
        }),
        Err(TransactWriteItemsError::TransactionCanceledException(c))
            if c.cancellation_reasons()
                .first()
                .is_some_and(|r| r.code() == Some("ConditionalCheckFailed")) =>
        {
            // Another duplicate committed between our read and our write.
            match live_record(client, request, now)? {
                Some(stored) => answer(request, stored),
                None => Err(TopUpError::Engine(given::unexpected(
                    "the idempotency record vanished",
                ))),
            }
        }
        Err(e) => Err(TopUpError::Engine(e.into())),
    }
}
