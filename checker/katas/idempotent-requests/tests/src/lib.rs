//! Hidden tests of the `idempotent-requests` kata.
//!
//! Each test builds a fresh world with the kata's table (`wallet`, partition key `PK`,
//! on-demand, TTL on `expiresAt`) and a few cards, and judges the learner's `top_up` from the
//! outside: what it returned, the cards' balances and the keys' records afterwards (read by
//! the test, strongly consistent), and the requests the request log saw. Every key and card
//! the tests use is chosen so that the key's record and the card live on different partitions,
//! so a fault can hit one write and not the other.
//!
//! - `credits_once_and_answers_retries`: two top-ups, each retried a little later: each card
//!   credited once per key, every retry answered with the first receipt (its `credited_at`).
//! - `a_retry_hours_later_credits_once`: retries 1 h and almost 24 h after the first request —
//!   long past the 10 minutes a transaction's ClientRequestToken is remembered.
//! - `racing_duplicates_credit_once`: 4 clients on the engine's seeded schedule send the same
//!   request at once (and once more): one credit, the same receipt for all; the record's
//!   partition replicas receive writes 60 s late, so an eventually consistent read misses it.
//! - `a_reused_key_with_other_parameters_is_refused`: the key again with another amount, then
//!   another card: `KeyReused`, nothing credited, the first receipt still returned for the
//!   first request.
//! - `keys_expire_after_a_day`: the record's `expiresAt` is a number, now + 24 h in epoch
//!   seconds, and DynamoDB's TTL deletes the record a few hours after that.
//! - `an_expired_key_is_a_new_request`: 24 h 10 min later the record is expired but TTL has not
//!   deleted it yet: the key is new again, for any card and amount.
//! - `a_failure_leaves_no_half_top_up`: two of the three replicas of the card's partition, then
//!   of the record's partition, are down during a top-up (strongly consistent reads still
//!   work, writes cannot reach a quorum): an error, and neither a record without its credit
//!   nor a credit without its record; the retry after the outage credits once.
//!
//! Each failure is explained from the request log: which request, by which client, on which
//! partition (the record's or the card's), with what outcome.

use std::time::Duration;

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    TimeToLiveSpecification,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::{item, AttributeValue, Client, Item, World};
use given::{card_pk, record_pk, Receipt, TopUp, TopUpError, KEY_LIFETIME_S, TABLE, TTL_ATTRIBUTE};
use katas_testkit::{check_eq_text, fail, run, seeded, Rng};
use learner::top_up;

/// Concurrent clients in the race test, and its rounds (one key each).
const CLIENTS: usize = 4;
const ROUNDS: usize = 3;
/// How late the record's partition replicas receive writes in the race test.
const LAG: Duration = Duration::from_secs(60);
/// Every card starts with this balance (cents).
const OPENING_BALANCE: u64 = 500;
/// How long DynamoDB remembers a transaction's ClientRequestToken.
const TOKEN_WINDOW_S: u64 = 600;
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
/// The rule a double credit by racing duplicates breaks.
const CONDITION_RULE: &str = "DynamoDB evaluates a write's condition on the partition's \
    leader at the moment it applies the write: of several writes racing to record the same key, \
    only one can find it unrecorded.";
/// The rule a half top-up (a record without its credit, or the reverse) breaks.
const ATOMIC_RULE: &str = "DynamoDB applies the writes of one transaction all together or not \
    at all; it promises nothing of the kind across separate requests.";

katas_testkit::learner! {
    /// Credits a top-up once per idempotency key; a duplicate returns the first receipt.
    fn top_up(client: &Client, request: &TopUp, now: u64) -> Result<Receipt, TopUpError>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "credits_once_and_answers_retries",
            credits_once_and_answers_retries,
        ),
        seeded(
            "a_retry_hours_later_credits_once",
            a_retry_hours_later_credits_once,
        ),
        seeded(
            "racing_duplicates_credit_once",
            racing_duplicates_credit_once,
        ),
        seeded(
            "a_reused_key_with_other_parameters_is_refused",
            a_reused_key_with_other_parameters_is_refused,
        ),
        seeded("keys_expire_after_a_day", keys_expire_after_a_day),
        seeded(
            "an_expired_key_is_a_new_request",
            an_expired_key_is_a_new_request,
        ),
        seeded(
            "a_failure_leaves_no_half_top_up",
            a_failure_leaves_no_half_top_up,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Two top-ups, each retried a little later, and the first retried once more.
fn credits_once_and_answers_retries(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let a = s.request(&mut rng, "c-1");
    let b = s.request_for(&mut rng, "c-1");
    let t0 = s.now();
    let script = [
        (&a, 0, 0),
        (&a, 30, 0),
        (&b, 60, 60),
        (&b, 90, 60),
        (&a, 120, 0),
    ];
    for (request, at, first) in script {
        let expected = receipt(request, t0 + first);
        s.expect_call(request, t0 + at, &Ok(expected), "", &[]);
        if at == 0 {
            s.check_record_holds(request, t0);
        }
    }
}

/// Retries an hour and almost a day after the first request.
fn a_retry_hours_later_credits_once(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let a = s.request(&mut rng, "c-1");
    let t0 = s.now();
    s.expect_call(&a, t0, &Ok(receipt(&a, t0)), "", &[]);
    for later in [3600, KEY_LIFETIME_S - 600] {
        s.world.advance(Duration::from_secs(later - (s.now() - t0)));
        let note = format!(
            "This retry comes {} after the first request, within the key's 24 hours. A \
             transaction's ClientRequestToken is remembered for {} minutes only: after that \
             DynamoDB takes the same token for a new transaction. The application's own record \
             (its condition, its expiresAt) is what remembers the key for 24 hours.",
            duration(later),
            TOKEN_WINDOW_S / 60
        );
        s.expect_call(&a, t0 + later, &Ok(receipt(&a, t0)), &note, &[]);
    }
}

/// 4 clients send the same request at once, then once more.
fn racing_duplicates_credit_once(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    for round in 0..ROUNDS {
        let card = format!("c-{}", round + 1);
        let request = s.request(&mut rng, &card);
        let record_partition = s.partition_of(&record_pk(&request.idempotency_key));
        for az in Az::ALL {
            s.world
                .lag_replica(TABLE, record_partition, az, LAG)
                .unwrap_or_else(|e| fail(format!("the test could not make replicas lag: {e}")));
        }
        s.world.advance(Duration::from_secs(60));
        let t0 = s.now();
        let before = s.balance(&card);
        let from = s.next_seq();
        let results = s
            .world
            .concurrently(seed ^ round as u64)
            .run(CLIENTS, |i, client| {
                let first = top_up(&client, &request, t0 + i as u64);
                let again = top_up(&client, &request, t0 + 10 + i as u64);
                [first, again]
            });
        let log = s.requests_since(from);
        let after = s.balance(&card);
        let calls = show_race(&s, &log, &results, t0);
        let context = format!(
            "Round {}: {CLIENTS} clients send {} at once (client i at now = t0 + i s), then \
             each sends it once more 10 s later. Every replica of the record's partition {} \
             receives writes {} s late.\n{calls}",
            round + 1,
            show_top_up(&request),
            record_partition,
            LAG.as_secs()
        );
        let credited = (after - before) / request.amount_cents.max(1);
        if after != before + request.amount_cents {
            let credits: Vec<&RequestRecord> = log.iter().filter(|r| s.credits(r, &card)).collect();
            let shown: Vec<String> = credits.iter().map(|r| s.show(r)).collect();
            let read_first = credits.iter().all(|w| {
                log.iter()
                    .any(|r| r.client == w.client && r.seq < w.seq && r.operation == "GetItem")
            });
            let how = if read_first {
                "each of those writes was sent after its client had looked for the key's record \
                 and, since none of them had written it yet, not found it — a read-then-write \
                 race. A read cannot stop another client from writing between your read and your \
                 write; only a condition on the write can."
            } else {
                "none of those writes was refused when another one had already recorded the key: \
                 the record's write needs a condition that fails once the key is recorded."
            };
            let cause = if credited > 1 {
                format!(
                    "The card was credited {credited} times for one key ({}): {how} \
                     {CONDITION_RULE}",
                    shown.join(", ")
                )
            } else {
                "The card was not credited at all.".to_string()
            };
            fail(format!(
                "{context}\nThe balance of card {card} went from {before} to {after}, not {}. \
                 {cause}",
                before + request.amount_cents
            ));
        }
        let winner = s.record_receipt(&request.idempotency_key);
        for (i, pair) in results.iter().enumerate() {
            for (j, result) in pair.iter().enumerate() {
                let same = match (&winner, result) {
                    (Some(w), Ok(r)) => w == r,
                    _ => false,
                };
                if same {
                    continue;
                }
                let own: Vec<&RequestRecord> = log.iter().filter(|r| r.client == Some(i)).collect();
                let eventual = own.iter().find(|r| r.consistent_read == Some(false));
                let why = match (result, eventual) {
                    (Err(_), Some(read)) => format!(
                        " Its {} was eventually consistent: with the record's replicas 60 s \
                         behind, such a read is answered by a replica the record has not reached, \
                         which has no item. The record another client wrote is \
                         milliseconds old when a duplicate's condition fails, and only the \
                         leader is sure to have it.",
                        s.show_bare(read)
                    ),
                    (Err(_), None) => " A request whose key is already recorded, with the same \
                        card and amount, is a duplicate: it succeeds, with the stored receipt."
                        .to_string(),
                    (Ok(r), _)
                        if winner
                            .as_ref()
                            .is_some_and(|w| w.credited_at != r.credited_at) =>
                    {
                        " A duplicate returns the receipt stored in the key's record — the \
                         credited_at of the request that credited the card — not one made from \
                         its own request."
                            .to_string()
                    }
                    _ => String::new(),
                };
                fail(format!(
                    "{context}\nThe card was credited once, by the request whose receipt the \
                     record holds: {} (t0 = {t0}). But client {i}'s {} call returned {}.{why}",
                    show_option_receipt(&winner),
                    ["first", "second"][j],
                    show_result(result)
                ));
            }
        }
    }
}

/// The key again with another amount, then another card.
fn a_reused_key_with_other_parameters_is_refused(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let a = s.request(&mut rng, "c-1");
    let t0 = s.now();
    s.expect_call(&a, t0, &Ok(receipt(&a, t0)), "", &[]);
    let refused = Err(TopUpError::KeyReused {
        idempotency_key: a.idempotency_key.clone(),
    });
    let other_amount = TopUp {
        amount_cents: a.amount_cents + 1000,
        ..a.clone()
    };
    let other_card = TopUp {
        card: s.other_card(&a, "c-2"),
        ..a.clone()
    };
    let note = format!(
        "The key {} is already recorded, for {}. A request with that key and other parameters is \
         not a retry of that top-up: it is refused with TopUpError::KeyReused, and nothing is \
         credited — answering it with the first receipt would tell the app that a top-up it \
         never made succeeded. A retry repeats every parameter: the card as well as the amount.",
        a.idempotency_key,
        show_top_up(&a)
    );
    s.expect_call(&other_amount, t0 + 10, &refused, &note, &[&a.card]);
    s.expect_call(&other_card, t0 + 20, &refused, &note, &[&a.card]);
    s.expect_call(&a, t0 + 30, &Ok(receipt(&a, t0)), "", &[]);
}

/// The record's expiry: a number of epoch seconds, 24 hours on; TTL deletes the record.
fn keys_expire_after_a_day(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let a = s.request(&mut rng, "c-1");
    let t0 = s.now();
    s.expect_call(&a, t0, &Ok(receipt(&a, t0)), "", &[]);
    let record = s.record(&a.idempotency_key).unwrap_or_else(|| {
        fail(format!(
            "After {}, the table has no record {}",
            show_call(&a, t0),
            record_pk(&a.idempotency_key)
        ))
    });
    let want = t0 + KEY_LIFETIME_S;
    let context = format!(
        "After {}, the key's record is {}. The table's TTL is enabled on {TTL_ATTRIBUTE}: each \
         record must carry {TTL_ATTRIBUTE} = now + 24 h as a number of epoch seconds (here \
         {want}), so that DynamoDB deletes it — for free — once the key is no longer needed.",
        show_call(&a, t0),
        show_item(&record)
    );
    match record.get(TTL_ATTRIBUTE) {
        None => fail(format!(
            "{context} It has no {TTL_ATTRIBUTE}: TTL never deletes it, and the table keeps one \
             record per top-up forever — keys pile up, and storage is paid for every one."
        )),
        Some(AttributeValue::N(n)) => {
            let value: f64 = n.parse().unwrap_or(0.0);
            if value != want as f64 {
                let why = if value > want as f64 * 100.0 {
                    " That is milliseconds: TTL reads the number as seconds, a date tens of \
                     thousands of years away, and never deletes the record."
                        .to_string()
                } else {
                    format!(
                        " That is {} from now: the key must be remembered for \
                         given::KEY_LIFETIME_S (24 h) and no longer — a retry within it is a \
                         duplicate, a request after it is new.",
                        signed_duration(value as i64 - t0 as i64)
                    )
                };
                fail(format!("{context} It holds {n}.{why}"));
            }
        }
        Some(other) => fail(format!(
            "{context} It holds {}, not a number (N): TTL only reads a Number of epoch seconds \
             and ignores any other type, so the record is never deleted.",
            show_value(other)
        )),
    }
    // The table's TTL is on the attribute: DynamoDB deletes the record a while after expiry.
    s.world
        .advance(Duration::from_secs(KEY_LIFETIME_S + 3 * 3600));
    if let Some(left) = s.record(&a.idempotency_key) {
        fail(format!(
            "27 hours after {}, TTL has not deleted the key's record: {}. Check that \
             {TTL_ATTRIBUTE} is the attribute the record's expiry is in.",
            show_call(&a, t0),
            show_item(&left)
        ));
    }
}

/// 24 h 10 min later: the record is expired, not yet deleted; the key is new again.
fn an_expired_key_is_a_new_request(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let a = s.request(&mut rng, "c-1");
    let t0 = s.now();
    s.expect_call(&a, t0, &Ok(receipt(&a, t0)), "", &[]);
    s.world.advance(Duration::from_secs(KEY_LIFETIME_S + 600));
    let t1 = s.now();
    let Some(record) = s.record(&a.idempotency_key) else {
        fail(format!(
            "24 h 10 min after {}, the key's record is gone; the test expects it to be still \
             there (TTL deletes expired items later)",
            show_call(&a, t0)
        ));
    };
    let reused = TopUp {
        card: s.other_card(&a, "c-2"),
        amount_cents: a.amount_cents + 250,
        ..a.clone()
    };
    let note = format!(
        "The key was recorded at t0 = {t0} with {}, so it expired 10 minutes ago — but DynamoDB \
         deletes expired items in the background, some time later (typically within a few days), \
         and the record is still in the table: {}. A key older than its 24 hours is forgotten: a \
         record whose {TTL_ATTRIBUTE} is in the past counts as absent, and this request is a \
         new top-up, whatever its card and amount.",
        show_top_up(&a),
        show_item(&record)
    );
    s.expect_call(&reused, t1, &Ok(receipt(&reused, t1)), &note, &[]);
    s.expect_call(&reused, t1 + 30, &Ok(receipt(&reused, t1)), "", &[]);
    let expires = s
        .record(&a.idempotency_key)
        .and_then(|r| r.get(TTL_ATTRIBUTE).and_then(|v| v.as_n().ok()).cloned());
    if expires.as_deref() != Some((t1 + KEY_LIFETIME_S).to_string().as_str()) {
        fail(format!(
            "After the key was used again at t1 = {t1}, its record's {TTL_ATTRIBUTE} is {}, not \
             t1 + 24 h = {}: the new top-up's record replaces the expired one.",
            expires.unwrap_or_else(|| "missing".into()),
            t1 + KEY_LIFETIME_S
        ));
    }
}

/// Two replicas of the card's partition, then of the record's, are down during a top-up.
fn a_failure_leaves_no_half_top_up(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    for (n, down) in ["card", "record"].into_iter().enumerate() {
        let card = format!("c-{}", n + 1);
        let request = s.request(&mut rng, &card);
        let record_partition = s.partition_of(&record_pk(&request.idempotency_key));
        let card_partition = s.partition_of(&card_pk(&card));
        let stopped = if down == "card" {
            card_partition
        } else {
            record_partition
        };
        s.world.advance(Duration::from_secs(60));
        let before = s.balance(&card);
        s.lose_write_quorum(stopped);
        let t0 = s.now();
        let from = s.next_seq();
        let result = top_up(&s.client, &request, t0);
        let sent = s.requests_since(from);
        // The outage ends: the stopped replicas come back and catch up. The record is read
        // after it: with one replica of three up nobody leads (the engine's majority rule), so
        // no read is served during the outage, and a refused write was never applied.
        s.world.heal_all();
        s.world.advance(Duration::from_secs(5));
        let record = s.record(&request.idempotency_key);
        let after = s.balance(&card);
        let context = format!(
            "During {}, two of the three replicas of the {down}'s partition {stopped} were down \
             (the record is on partition {record_pk_part}, the card on partition {card_part}): \
             its leader still serves strongly consistent reads, but no write to it can reach a \
             quorum of two, and each fails with InternalServerError. Writes to the other \
             partition succeed. It returned {}; its requests: {}.",
            show_call(&request, t0),
            show_result(&result),
            s.show_all(&sent),
            record_pk_part = record_partition,
            card_part = card_partition,
        );
        let first_failed = sent
            .iter()
            .find(|r| r.error.is_some() && WRITES.contains(&r.operation));
        let failed = first_failed.map_or("a write".to_string(), |r| s.show(r));
        if let (Some(rec), true) = (&record, after == before) {
            fail(format!(
                "{context}\nThe key's record was written, {}, but the card was never credited \
                 (balance still {before}): a key without its top-up. The app retries — and its \
                 retry finds the record and is answered as a duplicate of a top-up that never \
                 happened. {failed} failed after the record's write had succeeded: two writes \
                 are two requests, and the second can fail alone. {ATOMIC_RULE}",
                show_item(rec)
            ));
        }
        if record.is_none() && after != before {
            fail(format!(
                "{context}\nThe card was credited (balance {before} → {after}) but the key has no \
                 record: a top-up without its key. The app did not get a receipt, retries with \
                 the same key — and nothing remembers that this key was already paid, so the card \
                 is credited again. {failed} failed after the credit had succeeded: two writes \
                 are two requests, and the second can fail alone. {ATOMIC_RULE}"
            ));
        }
        if let Ok(r) = &result {
            fail(format!(
                "{context}\nIt returned Ok({}) although the {down}'s partition could not be \
                 written. A request that failed is returned as TopUpError::Engine(e), so the app \
                 retries it.",
                show_receipt(r)
            ));
        }
        if let Err(TopUpError::KeyReused { .. }) = &result {
            fail(format!(
                "{context}\nKeyReused is only for a key recorded with other parameters; an engine \
                 error is TopUpError::Engine(e)."
            ));
        }
        // The retry after the outage: credited once, now.
        let note = format!(
            "This is the app's retry after the failed attempt above (the outage is over): the \
             failed attempt left nothing, so the retry is the top-up. The first attempt's \
             requests: {}.",
            s.show_all(&sent)
        );
        s.expect_call(
            &request,
            t0 + 10,
            &Ok(receipt(&request, t0 + 10)),
            &note,
            &[],
        );
    }
}

// ---------------------------------------------------------------------------------------
// The scene: a world with the table and cards, and what the tests read of it
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        let setup = |what: &str, e: &dyn std::fmt::Display| -> ! {
            fail(format!("the test could not {what}: {e}"))
        };
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| setup("create its table", &e));
        client
            .update_time_to_live()
            .table_name(TABLE)
            .time_to_live_specification(TimeToLiveSpecification::new(true, TTL_ATTRIBUTE))
            .send()
            .unwrap_or_else(|e| setup("enable TTL", &e));
        for n in 1..=ROUNDS + 1 {
            client
                .put_item()
                .table_name(TABLE)
                .set_item(Some(
                    item! { "PK" => card_pk(&format!("c-{n}")), "balance" => OPENING_BALANCE },
                ))
                .send()
                .unwrap_or_else(|e| setup("create a card", &e));
        }
        world.advance(Duration::from_secs(1));
        Scene { world, client }
    }

    fn now(&self) -> u64 {
        self.world.epoch_seconds()
    }

    /// A new request for `card` whose record is on another partition than the card.
    fn request(&self, rng: &mut Rng, card: &str) -> TopUp {
        let card_partition = self.partition_of(&card_pk(card));
        loop {
            let key = format!("k-{:08x}", rng.next_u64() as u32);
            if self.partition_of(&record_pk(&key)) != card_partition {
                return TopUp {
                    idempotency_key: key,
                    card: card.to_string(),
                    amount_cents: 100 * (5 + rng.below(46)),
                };
            }
        }
    }

    /// Another request for the same card (its own key).
    fn request_for(&self, rng: &mut Rng, card: &str) -> TopUp {
        self.request(rng, card)
    }

    /// `card`, unless it is the request's card.
    fn other_card(&self, request: &TopUp, card: &str) -> String {
        if request.card == card {
            "c-3".to_string()
        } else {
            card.to_string()
        }
    }

    fn partition_of(&self, pk: &str) -> u32 {
        self.world
            .partition_of(TABLE, &AttributeValue::S(pk.to_string()))
            .unwrap_or_else(|e| fail(format!("the test could not find a partition: {e}")))
    }

    fn get(&self, pk: &str) -> Result<Option<Item>, engine::Error> {
        let out = self
            .client
            .get_item()
            .table_name(TABLE)
            .key("PK", AttributeValue::S(pk.to_string()))
            .consistent_read(true)
            .send()?;
        Ok(out.item().cloned())
    }

    /// The key's record as the leader has it.
    fn record(&self, key: &str) -> Option<Item> {
        self.get(&record_pk(key))
            .unwrap_or_else(|e| fail(format!("the test could not read a record: {e}")))
    }

    /// Takes two of the three replicas of partition `p` down, one leader after the other: the
    /// last replica is elected leader and serves strongly consistent reads, but no write can
    /// reach a quorum of two (about 6 s of simulated time).
    fn lose_write_quorum(&self, p: u32) {
        // Both followers stop, the leader stays: strongly consistent reads are still served,
        // no write reaches a quorum of two. (Stopping the leader twice would leave nobody to
        // lead — an election needs a majority — and the partition would refuse reads too.)
        let leader = self
            .world
            .leader_az(TABLE, p)
            .unwrap_or_else(|e| fail(format!("the test could not find a leader: {e}")))
            .unwrap_or_else(|| fail(format!("partition {p} has no leader before the outage")));
        for az in Az::ALL.into_iter().filter(|az| *az != leader) {
            self.world
                .stop_replica(TABLE, p, az)
                .unwrap_or_else(|e| fail(format!("the test could not stop a replica: {e}")));
        }
    }

    /// The receipt the key's record holds (`card`, `amount`, `creditedAt`).
    fn record_receipt(&self, key: &str) -> Option<Receipt> {
        let record = self.record(key)?;
        let number = |name: &str| {
            record
                .get(name)
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse::<u64>().ok())
        };
        Some(Receipt {
            card: record.get("card")?.as_s().ok()?.clone(),
            amount_cents: number("amount")?,
            credited_at: number("creditedAt")?,
        })
    }

    fn balance(&self, card: &str) -> u64 {
        let item = self
            .get(&card_pk(card))
            .unwrap_or_else(|e| fail(format!("the test could not read a card: {e}")));
        item.as_ref()
            .and_then(|i| i.get("balance"))
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| {
                fail(format!(
                    "card {card} has no numeric balance any more: {}",
                    item.as_ref().map_or("no item".to_string(), show_item)
                ))
            })
    }

    /// After the first request of a key: its record names the card, amount and time.
    fn check_record_holds(&self, request: &TopUp, t0: u64) {
        let got = self.record(&request.idempotency_key);
        let want = receipt(request, t0);
        if self.record_receipt(&request.idempotency_key).as_ref() != Some(&want) {
            fail(format!(
                "After {}, the key's record {} is {}. It must hold what a duplicate is answered \
                 and compared with: card = \"{}\" (S), amount = {} (N) and creditedAt = {t0} (N, \
                 the request's now).",
                show_call(request, t0),
                record_pk(&request.idempotency_key),
                got.as_ref().map_or("missing".to_string(), show_item),
                request.card,
                request.amount_cents
            ));
        }
    }

    /// Calls `top_up(request, now)` and checks its result, and that the balance moved by the
    /// request's amount if `expected` is a receipt credited at `now`, else not at all (nor the
    /// balance of any card in `unchanged`).
    fn expect_call(
        &self,
        request: &TopUp,
        now: u64,
        expected: &Result<Receipt, TopUpError>,
        note: &str,
        unchanged: &[&str],
    ) {
        let cards: Vec<String> = std::iter::once(request.card.clone())
            .chain(unchanged.iter().map(|c| c.to_string()))
            .collect();
        let before: Vec<u64> = cards.iter().map(|c| self.balance(c)).collect();
        let from = self.next_seq();
        let result = top_up(&self.client, request, now);
        let sent = self.requests_since(from);
        let after: Vec<u64> = cards.iter().map(|c| self.balance(c)).collect();
        let credits = matches!(expected, Ok(r) if r.credited_at == now);
        let note = if note.is_empty() {
            String::new()
        } else {
            format!("\n{note}")
        };
        let context = format!(
            "{} returned {}; its requests: {}.{note}",
            show_call(request, now),
            show_result(&result),
            self.show_all(&sent)
        );
        let first_credit = before[0] + request.amount_cents;
        let want_balance = if credits { first_credit } else { before[0] };
        if after[0] != want_balance {
            let how = if after[0] > want_balance {
                let writes: Vec<String> = sent
                    .iter()
                    .filter(|r| self.credits(r, &request.card))
                    .map(|r| self.show(r))
                    .collect();
                format!(
                    "The key {} was already recorded, yet the card was credited again by {}: a \
                     duplicate must credit nothing.",
                    request.idempotency_key,
                    writes.join(", ")
                )
            } else {
                "The card was not credited: the first request with a key credits the card by \
                 its amount."
                    .to_string()
            };
            fail(format!(
                "{context}\nCard {}'s balance went from {} to {}, not {want_balance}. {how}",
                request.card, before[0], after[0]
            ));
        }
        for (i, card) in cards.iter().enumerate().skip(1) {
            if after[i] != before[i] {
                fail(format!(
                    "{context}\nCard {card}'s balance went from {} to {}: this request must \
                     credit nothing.",
                    before[i], after[i]
                ));
            }
        }
        if !same_result(expected, &result) {
            let why = match (expected, &result) {
                (Ok(e), Ok(r)) if e.credited_at != r.credited_at && r.credited_at == now => {
                    format!(
                        " A duplicate returns the receipt stored in the key's record: credited_at \
                         is {} (when the card was credited), not this request's now.",
                        e.credited_at
                    )
                }
                _ => String::new(),
            };
            check_eq_text(
                &show_result(expected),
                &show_result(&result),
                format!("{context}{why}"),
            );
        }
    }

    /// Whether `r` is a successful write that reached the card's partition.
    fn credits(&self, r: &RequestRecord, card: &str) -> bool {
        let p = self.partition_of(&card_pk(card));
        r.succeeded()
            && WRITES.contains(&r.operation)
            && r.partitions.iter().any(|(t, q)| &**t == TABLE && *q == p)
    }

    /// The position in the request log of the next request.
    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }

    /// `client 2's TransactWriteItems #14 on partitions 3, 6 (TransactionCanceledException)`.
    fn show(&self, r: &RequestRecord) -> String {
        let mut notes = Vec::new();
        match r.consistent_read {
            Some(true) => notes.push("strongly consistent".to_string()),
            Some(false) => notes.push("eventually consistent".to_string()),
            None => {}
        }
        notes.push(r.error.unwrap_or("ok").to_string());
        // A failed request's log entry lists only the partitions it reached before failing.
        let on: Vec<String> = if r.succeeded() {
            r.partitions.iter().map(|(_, p)| p.to_string()).collect()
        } else {
            Vec::new()
        };
        let on = match on.len() {
            0 => String::new(),
            1 => format!(" on partition {}", on[0]),
            _ => format!(" on partitions {}", on.join(", ")),
        };
        let who = r
            .client
            .map(|c| format!("client {c}'s "))
            .unwrap_or_default();
        format!("{who}{} #{}{on} ({})", r.operation, r.seq, notes.join(", "))
    }

    /// [`Scene::show`] without the client.
    fn show_bare(&self, r: &RequestRecord) -> String {
        let mut r = r.clone();
        r.client = None;
        self.show(&r)
    }

    fn show_all(&self, requests: &[RequestRecord]) -> String {
        if requests.is_empty() {
            return "no request".to_string();
        }
        let shown: Vec<String> = requests.iter().map(|r| self.show(r)).collect();
        shown.join(", ")
    }
}

/// The race's calls and requests, one client a paragraph (indented: kept as they are).
fn show_race(
    s: &Scene,
    log: &[RequestRecord],
    results: &[[Result<Receipt, TopUpError>; 2]],
    t0: u64,
) -> String {
    let mut text = String::from("The requests, in the order the schedule admitted them:");
    for r in log {
        text.push_str(&format!("\n    {}", s.show(r)));
    }
    for (i, pair) in results.iter().enumerate() {
        text.push_str(&format!(
            "\n  client {i} returned {}, then {}",
            show_short(&pair[0], t0),
            show_short(&pair[1], t0)
        ));
    }
    text
}

// ---------------------------------------------------------------------------------------
// Showing things
// ---------------------------------------------------------------------------------------

fn receipt(request: &TopUp, credited_at: u64) -> Receipt {
    Receipt {
        card: request.card.clone(),
        amount_cents: request.amount_cents,
        credited_at,
    }
}

fn same_result(a: &Result<Receipt, TopUpError>, b: &Result<Receipt, TopUpError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (
            Err(TopUpError::KeyReused { idempotency_key: x }),
            Err(TopUpError::KeyReused { idempotency_key: y }),
        ) => x == y,
        _ => false,
    }
}

fn show_top_up(r: &TopUp) -> String {
    format!(
        "TopUp {{ idempotency_key: \"{}\", card: \"{}\", amount_cents: {} }}",
        r.idempotency_key, r.card, r.amount_cents
    )
}

fn show_call(r: &TopUp, now: u64) -> String {
    format!("top_up({}, now = {now})", show_top_up(r))
}

fn show_receipt(r: &Receipt) -> String {
    format!(
        "Receipt {{ card: \"{}\", amount_cents: {}, credited_at: {} }}",
        r.card, r.amount_cents, r.credited_at
    )
}

/// A result in the race: `Ok(credited_at = t0 + 1 s)`, `Err(KeyReused)`, `Err(Engine(..))`.
fn show_short(r: &Result<Receipt, TopUpError>, t0: u64) -> String {
    match r {
        Ok(receipt) => format!(
            "Ok(credited_at = t0 + {} s)",
            receipt.credited_at as i64 - t0 as i64
        ),
        Err(TopUpError::KeyReused { .. }) => "Err(KeyReused)".to_string(),
        Err(TopUpError::Engine(e)) => format!("Err(Engine({e}))"),
    }
}

fn show_option_receipt(r: &Option<Receipt>) -> String {
    r.as_ref().map_or(
        "no receipt (the key has no complete record)".to_string(),
        show_receipt,
    )
}

fn show_result(r: &Result<Receipt, TopUpError>) -> String {
    match r {
        Ok(receipt) => format!("Ok({})", show_receipt(receipt)),
        Err(TopUpError::KeyReused { idempotency_key }) => {
            format!("Err(KeyReused {{ idempotency_key: \"{idempotency_key}\" }})")
        }
        Err(TopUpError::Engine(e)) => format!("Err(Engine({e}))"),
    }
}

/// An item, attributes sorted: `{PK = "IDEMPOTENCY#k-1", amount = 1500, card = "c-1"}`.
fn show_item(item: &Item) -> String {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let shown: Vec<String> = names
        .into_iter()
        .map(|name| format!("{name} = {}", show_value(&item[name])))
        .collect();
    format!("{{{}}}", shown.join(", "))
}

/// A number as it is, a string quoted, anything else as JSON.
fn show_value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::N(n) => n.clone(),
        AttributeValue::S(s) => format!("\"{s}\""),
        other => {
            let one = Item::from([("v".to_string(), other.clone())]);
            engine::value::item_to_json(&one)["v"].to_string()
        }
    }
}

/// `1 h`, `23 h 50 min`.
fn duration(s: u64) -> String {
    match (s / 3600, (s % 3600) / 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

fn signed_duration(s: i64) -> String {
    if s < 0 {
        format!("{} in the past", duration(s.unsigned_abs()))
    } else {
        duration(s as u64)
    }
}
