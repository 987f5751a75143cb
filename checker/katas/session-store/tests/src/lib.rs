//! Hidden tests of the `session-store` kata.
//!
//! Each test builds a fresh world with the kata's table (`sessions`, partition key
//! `session_id`, on-demand, TTL on `expires_at`) and its GSI `by-user` (`user_id`,
//! `expires_at`, projection ALL), moves the world's clock a seeded amount into the day, and
//! judges the learner's functions from the outside: what they return, the table as the test's
//! own strongly consistent reads see it, and the request log (which requests each call sent,
//! whether its reads were strongly consistent, which index it queried). The engine's TTL
//! sweeper runs hourly and deletes items expired for at least an hour, so an expired session
//! stays in the table for one to two hours: the tests look at it in that window.
//!
//! - `login_writes_an_expiry_ttl_understands`: each login stores exactly `session_id`,
//!   `user_id`, `expires_at` = the world's now + 1,800 as a Number of seconds, in one write,
//!   and returns that session; two hours past the last expiry, TTL has deleted every item.
//! - `a_session_is_live_right_after_login`: every replica of each session's partition receives
//!   writes 60 s late; `session` right after `login` finds it, from one strongly consistent
//!   GetItem.
//! - `an_expired_session_is_over`: live one second before `expires_at`, over at `expires_at`,
//!   over 20 minutes later (its item still in the table) and after TTL deleted it.
//! - `refresh_extends_only_a_live_session`: a live session is extended; an expired one still in
//!   the table, one TTL deleted, one deleted by the test, one at its last second and an unknown
//!   id give `Ok(None)` and leave the table exactly as it was.
//! - `logout_ends_the_session`: the item is gone, `session` is `None`, the user's other session
//!   stays; logging out twice, or an unknown id, is `Ok(())`.
//! - `lists_a_users_live_sessions`: live, expired-but-not-deleted, TTL-deleted and logged-out
//!   sessions of several users; `sessions_of` returns exactly the live ones, from one Query of
//!   the index.
//! - `a_refresh_racing_a_logout_never_revives_it`: on the engine's seeded schedule one client
//!   logs out while three refresh; afterwards the session is gone, and no refresh that started
//!   after the logout's DeleteItem returned it.
//! - `errors_are_not_missing_sessions`: with the partition's leader stopped (writes and strong
//!   reads fail with InternalServerError), no function turns the failure into `Ok`.

use std::time::Duration;

use engine::error::{ProvideErrorMetadata, SdkError};
use engine::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ScalarAttributeType, TimeToLiveSpecification,
};
use engine::value::item_to_json;
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::{AttributeValue, Client, Error, Item, World};
use given::{Session, BY_USER, EXPIRES_AT, SESSION_LIFETIME_S, TABLE};
use katas_testkit::{check_eq_text, fail, run, seeded, thousands, Rng};
use learner::{login, logout, refresh, session, sessions_of};

/// How late every replica of a session's partition receives writes in the read-your-write test.
const LAG: Duration = Duration::from_secs(60);
/// Logins of the read-your-write test.
const LOGINS: usize = 12;
/// Rounds of the race test, and the refreshes each refreshing client makes per round.
const RACE_ROUNDS: u64 = 6;
const RACE_CLIENTS: usize = 4;
const REFRESHES: usize = 2;
/// How long after an expiry the tests wait to be sure TTL's sweep has deleted the item: the
/// engine deletes items expired for at least `ttl_delete_delay_s` (1 h), sweeping hourly.
const SWEPT_AFTER: Duration = Duration::from_secs(2 * 3600 + 1);
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
/// What every "expired but still returned" explanation says about TTL.
const TTL_LAG: &str = "TTL deletes an expired item only some time later (DynamoDB: typically \
                       within 48 hours, \"within a few days\"; this world: one to two hours \
                       after expiry), and until then GetItem, Query and Scan still return it. \
                       Decide liveness in your reads: a session is live while now < expires_at.";

katas_testkit::learner! {
    /// Starts a session for `user_id`, lasting `SESSION_LIFETIME_S` from now; returns it.
    fn login(client: &Client, session_id: &str, user_id: &str) -> Result<Session, Error>;
    /// The session if it is live, `None` if it has expired or does not exist.
    fn session(client: &Client, session_id: &str) -> Result<Option<Session>, Error>;
    /// Extends a live session; `None` (and nothing written) if it is not live.
    fn refresh(client: &Client, session_id: &str) -> Result<Option<Session>, Error>;
    /// Ends the session.
    fn logout(client: &Client, session_id: &str) -> Result<(), Error>;
    /// The live sessions of `user_id`, in any order.
    fn sessions_of(client: &Client, user_id: &str) -> Result<Vec<Session>, Error>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded(
            "login_writes_an_expiry_ttl_understands",
            login_writes_an_expiry_ttl_understands,
        ),
        seeded(
            "a_session_is_live_right_after_login",
            a_session_is_live_right_after_login,
        ),
        seeded("an_expired_session_is_over", an_expired_session_is_over),
        seeded(
            "refresh_extends_only_a_live_session",
            refresh_extends_only_a_live_session,
        ),
        seeded("logout_ends_the_session", logout_ends_the_session),
        seeded("lists_a_users_live_sessions", lists_a_users_live_sessions),
        seeded(
            "a_refresh_racing_a_logout_never_revives_it",
            a_refresh_racing_a_logout_never_revives_it,
        ),
        seeded(
            "errors_are_not_missing_sessions",
            errors_are_not_missing_sessions,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Logins at seeded times: the item, the expiry's unit and clock, the returned session; then
/// TTL's sweep deletes every item.
fn login_writes_an_expiry_ttl_understands(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut last_expiry = 0;
    let mut ids = Vec::new();
    for n in 1..=4 {
        s.world.advance(Duration::from_secs(1 + rng.below(600)));
        let (id, user) = (format!("s-{n}"), format!("u-{}", 1 + rng.below(3)));
        let now = s.now();
        let want = Session {
            session_id: id.clone(),
            user_id: user.clone(),
            expires_at: now + SESSION_LIFETIME_S,
        };
        let call = format!("login(\"{id}\", \"{user}\") at {}", at(now));
        let from = s.next_seq();
        let result = login(&s.client, &id, &user);
        let sent = s.requests_since(from);
        let returned = match result {
            Ok(session) => session,
            Err(e) => fail(format!(
                "{call} failed: {e}\nIts requests: {}",
                show_requests(&sent)
            )),
        };
        let writes = sent.iter().filter(|r| is_write(r)).count();
        if writes != 1 {
            fail(format!(
                "{call} sent {writes} writes ({}): a login is one write of the session item",
                show_requests(&sent)
            ));
        }
        let Some(item) = s.stored(&id) else {
            fail(format!(
                "{call} returned Ok, but the table has no item with session_id = \"{id}\" (the \
                 test's strongly consistent GetItem). Its requests: {}",
                show_requests(&sent)
            ));
        };
        check_expiry(&call, &item, now);
        check_eq_text(
            &show_item(&session_item(&want)),
            &show_item(&item),
            format!(
                "{call}: the session item must be exactly session_id (S), user_id (S) and \
                 expires_at (N) = now + {SESSION_LIFETIME_S}"
            ),
        );
        check_eq_text(
            &format!("{want:#?}"),
            &format!("{returned:#?}"),
            format!("{call} must return the session it stored"),
        );
        last_expiry = want.expires_at;
        ids.push(id);
    }
    // Two hours past the last expiry, TTL's sweep has run: DynamoDB deleted them by itself.
    s.world.advance(SWEPT_AFTER);
    for id in ids {
        if let Some(item) = s.stored(&id) {
            fail(format!(
                "At {}, two hours after the last session expired ({}), TTL has not deleted \
                 session {id}: {}. TTL deletes an item only when its TTL attribute (expires_at) \
                 is a Number of epoch seconds in the past.",
                at(s.now()),
                at(last_expiry),
                show_item(&item)
            ));
        }
    }
}

/// Every replica of each session's partition receives writes 60 s late: `session` right after
/// `login` must still find the session, reading it strongly consistent.
fn a_session_is_live_right_after_login(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    for n in 1..=LOGINS {
        s.world.advance(Duration::from_secs(1 + rng.below(120)));
        let (id, user) = (format!("s-{n}"), format!("u-{}", 1 + rng.below(4)));
        let partition = s.partition_of(&id);
        for az in Az::ALL {
            s.world
                .lag_replica(TABLE, partition, az, LAG)
                .unwrap_or_else(|e| fail(format!("the test could not make replicas lag: {e}")));
        }
        let logged_in = s.login(&id, &user);
        let put = s.requests_since(0).into_iter().rev().find(is_write);
        let call = format!(
            "Right after login(\"{id}\", \"{user}\") at {} ({}), session(\"{id}\")",
            at(s.now()),
            put.as_ref().map_or("its write".to_string(), show_bare)
        );
        let from = s.next_seq();
        let result = session(&s.client, &id);
        let sent = s.requests_since(from);
        let lag_note = format!(
            "In this test the slowest replica of partition {partition} receives writes {} s \
             late: a write is acknowledged once the leader and one follower have it, and an \
             eventually consistent read may be answered by the third.",
            LAG.as_secs()
        );
        let found = match result {
            Ok(found) => found,
            Err(e) => fail(format!(
                "{call} failed: {e}\nIts requests: {}",
                show_requests(&sent)
            )),
        };
        let gets: Vec<&RequestRecord> = sent.iter().filter(|r| r.operation == "GetItem").collect();
        let eventual = sent.iter().find(|r| r.consistent_read == Some(false));
        match (&found, eventual) {
            (None, Some(read)) if s.stored(&id).is_some() => fail(format!(
                "{call} returned Ok(None): the user who has just logged in is told they are not. \
                 Its {} was eventually consistent, and the item is on the partition's leader \
                 (the test's strongly consistent read finds it): a replica that had not yet \
                 received the login's write answered. {lag_note} Only a read served by the leader is \
                 sure to reflect every acknowledged write.",
                show_bare(read)
            )),
            (_, Some(read)) => fail(format!(
                "{call} sent an eventually consistent read, {}. This time it was answered by a \
                 replica that had the login, but eventual reads go to any of the three: one \
                 right after login can miss it. {lag_note}",
                show_bare(read)
            )),
            _ => {}
        }
        if gets.len() != 1 || sent.len() != 1 {
            fail(format!(
                "{call} sent {}: checking a session is one GetItem of its key",
                show_requests(&sent)
            ));
        }
        check_eq_text(
            &format!("{:#?}", Some(&logged_in)),
            &format!("{:#?}", found.as_ref()),
            format!("{call} must return the session login returned"),
        );
    }
    match session(&s.client, "s-never") {
        Ok(None) => {}
        Ok(Some(found)) => fail(format!(
            "session(\"s-never\") returned {found:?}: there is no such session"
        )),
        Err(e) => fail(format!(
            "session(\"s-never\") failed: {e}. A GetItem that finds no item succeeds with no \
             item: Ok(None)"
        )),
    }
}

/// Live one second before `expires_at`; over at `expires_at`, 20 minutes later (item still in
/// the table) and once TTL has deleted it.
fn an_expired_session_is_over(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    // s-0 first: it is checked 20 minutes after it expired, before the others expire.
    let first = s.login("s-0", "u-1");
    s.world.advance(Duration::from_secs(21 * 60));
    let mut logins = Vec::new();
    for n in 1..=3 {
        s.world.advance(Duration::from_secs(1 + rng.below(300)));
        let id = format!("s-{n}");
        let user = format!("u-{}", 1 + rng.below(3));
        logins.push(s.login(&id, &user));
    }
    // Twenty minutes past s-0's expiry: its item is still in the table, not deleted by TTL yet.
    s.advance_to(first.expires_at + 20 * 60);
    let lingering = s.stored("s-0").unwrap_or_else(|| {
        fail("the test expected s-0 still in the table 20 minutes after it expired")
    });
    let from = s.next_seq();
    let found = session(&s.client, "s-0");
    if !matches!(found, Ok(None)) {
        fail(format!(
            "session s-0 expired at {} (expires_at = {}), 20 minutes ago. At {} its item is \
             still in the table — {} — and session(\"s-0\") (its {}) returned {}. {TTL_LAG}",
            at(first.expires_at),
            first.expires_at,
            at(s.now()),
            show_item(&lingering),
            show_requests(&s.requests_since(from)),
            show_found(&found)
        ));
    }
    for logged_in in &logins {
        let (id, expires_at) = (&logged_in.session_id, logged_in.expires_at);
        let story = format!(
            "session {id} was logged in at {} and expires at {} (expires_at = {expires_at})",
            at(expires_at - SESSION_LIFETIME_S),
            at(expires_at)
        );
        s.advance_to(expires_at - 1);
        match session(&s.client, id) {
            Ok(Some(found)) if found == *logged_in => {}
            other => fail(format!(
                "{story}. At {}, its last live second, session(\"{id}\") returned {}: the \
                 session is live while now < expires_at",
                at(s.now()),
                show_found(&other)
            )),
        }
        s.advance_to(expires_at);
        let found = session(&s.client, id);
        if !matches!(found, Ok(None)) {
            fail(format!(
                "{story}. At {}, that very second, session(\"{id}\") returned {}: from \
                 expires_at on the session is over: it is live while now < expires_at, and at \
                 expires_at itself it has ended",
                at(s.now()),
                show_found(&found)
            ));
        }
    }
    s.world.advance(SWEPT_AFTER);
    for id in ["s-0", "s-1", "s-2", "s-3"] {
        let found = session(&s.client, id);
        if !matches!(found, Ok(None)) {
            fail(format!(
                "At {}, after TTL deleted session {id}, session(\"{id}\") returned {}",
                at(s.now()),
                show_found(&found)
            ));
        }
    }
}

/// A live session is extended; no other refresh writes anything that lands.
fn refresh_extends_only_a_live_session(seed: u64) {
    let s = Scene::new(seed);
    let user = "u-7";
    let t0 = s.now();
    let start = |id: &str| s.login(id, user);
    // s-swept expires at t0 + 30 min; TTL deletes it within two hours of that.
    start("s-swept");
    s.advance_to(t0 + 3 * 3600);
    if s.stored("s-swept").is_some() {
        fail("the test expected TTL to have deleted s-swept by now (an engine change?)");
    }
    start("s-expired"); // expires at t0 + 3:30
    s.advance_to(t0 + 3 * 3600 + 25 * 60);
    start("s-edge"); // expires at t0 + 3:55
    s.advance_to(t0 + 3 * 3600 + 40 * 60);
    start("s-live"); // expires at t0 + 4:10
    start("s-out");
    s.delete("s-out");
    s.advance_to(t0 + 3 * 3600 + 55 * 60);
    let now = s.now();

    // The live one: extended to now + the lifetime, returned as stored, user_id kept.
    let call = format!("refresh(\"s-live\") at {}", at(now));
    let want = Session {
        session_id: "s-live".into(),
        user_id: user.into(),
        expires_at: now + SESSION_LIFETIME_S,
    };
    let from = s.next_seq();
    let got = refresh(&s.client, "s-live");
    let sent = s.requests_since(from);
    match &got {
        Ok(Some(found)) if *found == want => {}
        other => fail(format!(
            "{call} — a session logged in at {} and live until {} — returned {}, not the \
             session extended to now + {SESSION_LIFETIME_S} s ({}). Its requests: {}",
            at(now - 15 * 60),
            at(now + 15 * 60),
            show_found(other),
            want.expires_at,
            show_requests(&sent)
        )),
    }
    check_eq_text(
        &show_item(&session_item(&want)),
        &s.stored("s-live")
            .map_or("no item".to_string(), |i| show_item(&i)),
        format!("after {call}, the table's item (the test's strongly consistent read)"),
    );

    // The others: Ok(None), and the table exactly as it was.
    let cases = [
        (
            "s-expired",
            format!(
                "expired at {} and still in the table, waiting for TTL's sweep",
                at(t0 + 3 * 3600 + SESSION_LIFETIME_S)
            ),
        ),
        (
            "s-edge",
            format!("expires at {} — this very second", at(now)),
        ),
        (
            "s-swept",
            format!(
                "expired at {} and was deleted by TTL since",
                at(t0 + SESSION_LIFETIME_S)
            ),
        ),
        (
            "s-out",
            "was deleted (logged out) 15 minutes ago".to_string(),
        ),
        ("s-never", "never existed".to_string()),
    ];
    for (id, what) in cases {
        let before = s.stored(id);
        let from = s.next_seq();
        let got = refresh(&s.client, id);
        let sent = s.requests_since(from);
        let after = s.stored(id);
        let call = format!("refresh(\"{id}\") at {} — a session that {what} —", at(now));
        if let Err(e) = &got {
            fail(format!(
                "{call} failed: {e}\nIts requests: {}. A session that is not live is \
                 Ok(None), not an error.{}",
                show_requests(&sent),
                condition_note(e)
            ));
        }
        let write = sent.iter().find(|r| is_write(r) && r.succeeded());
        if before != after {
            let shown = |i: &Option<Item>| i.as_ref().map_or("no item".to_string(), show_item);
            let cause = match (&before, write) {
                (Some(_), Some(w)) => format!(
                    "its {} succeeded on an item that is no longer a live session, and rescued \
                     it: an expired item stays in the table until TTL's sweep, and a new \
                     expires_at takes it off the sweep's list.",
                    show_bare(w)
                ),
                (None, Some(w)) => format!(
                    "its {} succeeded on a key with no item: an UpdateItem creates the item it \
                     updates (an upsert), so the session came back as a fragment.",
                    show_bare(w)
                ),
                _ => format!("its requests: {}.", show_requests(&sent)),
            };
            fail(format!(
                "{call} changed the table: {cause} A write can carry its own \
                 condition, evaluated on the item as the leader has it, atomically with the \
                 write; when it is false — on a missing item too — nothing is written.\nBefore: {}\nAfter:  {}",
                shown(&before),
                shown(&after)
            ));
        }
        if let Ok(Some(found)) = &got {
            fail(format!(
                "{call} returned Ok(Some({found:?})): it is not a live session, so Ok(None). \
                 Its requests: {}",
                show_requests(&sent)
            ));
        }
    }
}

/// `logout` deletes the one session; again, or of an unknown id, is fine.
fn logout_ends_the_session(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    s.world.advance(Duration::from_secs(1 + rng.below(600)));
    let phone = s.login("s-phone", "u-1");
    s.login("s-laptop", "u-1");
    s.world.advance(Duration::from_secs(1 + rng.below(600)));
    let from = s.next_seq();
    let out = logout(&s.client, "s-laptop");
    let sent = s.requests_since(from);
    if let Err(e) = out {
        fail(format!(
            "logout(\"s-laptop\") failed: {e}\nIts requests: {}",
            show_requests(&sent)
        ));
    }
    if let Some(item) = s.stored("s-laptop") {
        fail(format!(
            "after logout(\"s-laptop\") the item is still in the table: {}. Its requests: {}. \
             A logout ends the session now: waiting for TTL leaves it usable for up to 30 \
             minutes",
            show_item(&item),
            show_requests(&sent)
        ));
    }
    if sent.iter().filter(|r| is_write(r)).count() != 1 {
        fail(format!(
            "logout(\"s-laptop\") sent {}: a logout is one DeleteItem",
            show_requests(&sent)
        ));
    }
    let from = s.next_seq();
    let found = session(&s.client, "s-laptop");
    let sent = s.requests_since(from);
    if !matches!(found, Ok(None)) {
        let stale = match sent.iter().find(|r| r.consistent_read == Some(false)) {
            Some(read) => format!(
                " Its {} was answered by a replica that had not yet received the logout's \
                 DeleteItem, with the session it ended: an eventually consistent read may be \
                 served by a replica that has not received a write yet, a delete too. Only the \
                 leader is sure to reflect every acknowledged write.",
                show_bare(read)
            ),
            None => format!(" Its requests: {}.", show_requests(&sent)),
        };
        fail(format!(
            "right after logout(\"s-laptop\"), session(\"s-laptop\") returned {}: the session \
             has ended.{stale}",
            show_found(&found)
        ));
    }
    match session(&s.client, "s-phone") {
        Ok(Some(found)) if found == phone => {}
        other => fail(format!(
            "after logout(\"s-laptop\"), session(\"s-phone\") — the same user's other device, \
             still live — returned {}: a logout ends one session",
            show_found(&other)
        )),
    }
    for id in ["s-laptop", "s-never"] {
        if let Err(e) = logout(&s.client, id) {
            fail(format!(
                "logout(\"{id}\") of a session that does not exist (any more) failed: {e}. \
                 Ending a session that is already gone is not an error: a DeleteItem of a \
                 missing key succeeds"
            ));
        }
    }
}

/// Users with live, expired-but-not-deleted, TTL-deleted and logged-out sessions: the list is
/// exactly the live ones, from one Query of `by-user`.
fn lists_a_users_live_sessions(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let users = ["u-1", "u-2", "u-3", "u-4"];
    let mut next = 0;
    let mut open = |user: &str| {
        next += 1;
        s.login(&format!("s-{next}"), user)
    };
    let mut swept = Vec::new();
    let mut expired = Vec::new();
    let mut live = Vec::new();
    let mut ended = Vec::new();
    for user in &users[..3] {
        swept.push(open(user));
    }
    s.world.advance(Duration::from_secs(3 * 3600));
    for user in &users[..3] {
        for _ in 0..1 + rng.below(2) {
            expired.push(open(user));
        }
    }
    s.world
        .advance(Duration::from_secs(SESSION_LIFETIME_S + 5 * 60));
    for user in &users[..3] {
        for _ in 0..1 + rng.below(3) {
            live.push(open(user));
        }
        ended.push(open(user));
    }
    for e in &ended {
        s.delete(&e.session_id);
    }
    s.world.advance(Duration::from_secs(60 + rng.below(300)));
    let now = s.now();
    for e in &expired {
        if s.stored(&e.session_id).is_none() {
            fail("the test expected an expired session still in the table (an engine change?)");
        }
    }
    let what = |id: &str| -> String {
        let find = |list: &[Session]| list.iter().find(|x| x.session_id == id).cloned();
        if let Some(x) = find(&expired) {
            format!(
                "{id} expired at {} ({} minutes ago) and is still in the table and the index: \
                 TTL has not deleted it yet",
                at(x.expires_at),
                (now - x.expires_at) / 60
            )
        } else if let Some(x) = find(&swept) {
            format!(
                "{id} expired at {} and was deleted by TTL",
                at(x.expires_at)
            )
        } else if find(&ended).is_some() {
            format!("{id} was logged out (deleted)")
        } else if let Some(x) = find(&live) {
            format!("{id} is live until {}", at(x.expires_at))
        } else {
            format!("{id} is not one of the test's sessions")
        }
    };
    for user in users {
        let call = format!("sessions_of(\"{user}\") at {}", at(now));
        let from = s.next_seq();
        let result = sessions_of(&s.client, user);
        let sent = s.requests_since(from);
        let mut got = match result {
            Ok(got) => got,
            Err(e) => {
                let gsi_note = if e.to_string().contains("Consistent reads are not supported") {
                    " A global secondary index is maintained asynchronously, so it has no \
                     strongly consistent reads: ConsistentRead = true on a Query (or Scan) of a \
                     GSI is refused with this ValidationException. Its reads are eventually \
                     consistent, and a list of devices can afford to miss a login a few \
                     milliseconds old."
                } else {
                    ""
                };
                fail(format!(
                    "{call} failed: {e}\nIts requests: {}.{gsi_note}",
                    show_requests(&sent)
                ))
            }
        };
        if let Some(scan) = sent.iter().find(|r| r.operation == "Scan") {
            fail(format!(
                "{call} sent a Scan, {}, which read {} items — every session of every user — to \
                 list one user's. The index {BY_USER} keeps each user's sessions together under \
                 their user_id, so a read of it can touch only theirs. Its reads are \
                 eventually consistent — the only kind a GSI has — and that is fine for this \
                 page.",
                show_bare(scan),
                scan.items_read
            ));
        }
        let queries: Vec<&RequestRecord> = sent.iter().filter(|r| r.operation == "Query").collect();
        if sent.len() != 1 || queries.len() != 1 || queries[0].index.as_deref() != Some(BY_USER) {
            fail(format!(
                "{call} sent {}: listing a user's sessions is one Query of the index \
                 {BY_USER}",
                show_requests(&sent)
            ));
        }
        let mut want: Vec<Session> = live.iter().filter(|x| x.user_id == user).cloned().collect();
        want.sort();
        got.sort();
        if let Some(extra) = got.iter().find(|x| !want.contains(x)) {
            let ttl = if expired.iter().any(|x| x.session_id == extra.session_id) {
                format!(
                    " {TTL_LAG} The index's sort key is expires_at: the key condition \
                          can leave expired sessions out without reading them."
                )
            } else {
                String::new()
            };
            fail(format!(
                "{call} returned {} ({}), which is not a live session of {user}: {}.{ttl}",
                extra.session_id,
                show_session(extra),
                what(&extra.session_id)
            ));
        }
        check_eq_text(
            &show_sessions(&want),
            &show_sessions(&got),
            format!("{call}: the user's live sessions (sorted by session_id here)"),
        );
    }
}

/// On the engine's seeded schedule, client 0 logs out while the others refresh the session.
fn a_refresh_racing_a_logout_never_revives_it(seed: u64) {
    let s = Scene::new(seed);
    for round in 1..=RACE_ROUNDS {
        s.world.advance(Duration::from_secs(60));
        let id = format!("s-{round}");
        let user = format!("u-{round}");
        s.login(&id, &user);
        s.world.advance(Duration::from_secs(60));
        let start = s.next_seq();
        let calls: Vec<Vec<Call>> = s
            .world
            .concurrently(seed.wrapping_mul(31).wrapping_add(round))
            .run(RACE_CLIENTS, |i, client| {
                let world = client.world().clone();
                let seq = || world.request_totals().requests;
                let mut calls = Vec::new();
                if i == 0 {
                    let from = seq();
                    let result = logout(&client, &id).map(|()| None);
                    calls.push(Call::new(i, "logout", result, from, seq()));
                } else {
                    for _ in 0..REFRESHES {
                        let from = seq();
                        let result = refresh(&client, &id);
                        calls.push(Call::new(i, "refresh", result, from, seq()));
                    }
                }
                calls
            });
        let calls: Vec<Call> = calls.into_iter().flatten().collect();
        let log = s.requests_since(start);
        let story = format!(
            "Round {round}: session {id} (user {user}), live; 4 clients on the engine's seeded \
             schedule — client 0 logs out, clients 1 to 3 refresh it twice each. What each \
             call sent:\n{}",
            calls
                .iter()
                .map(|c| c.show(&log))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let Some(logout_call) = calls.iter().find(|c| c.what == "logout") else {
            fail("the race's logout did not run");
        };
        if let Err(e) = &logout_call.result {
            fail(format!("{story}\nThe logout failed: {e}"));
        }
        let delete = logout_call
            .requests(&log)
            .into_iter()
            .rfind(|r| r.operation == "DeleteItem" && r.succeeded());
        let Some(delete) = delete else {
            fail(format!(
                "{story}\nThe logout sent no successful DeleteItem."
            ));
        };
        if let Some(item) = s.stored(&id) {
            let reviver = log
                .iter()
                .rfind(|r| r.seq > delete.seq && is_write(r) && r.succeeded());
            let cause = match reviver {
                Some(w) => {
                    let by = calls.iter().find(|c| c.owns(w));
                    let check = by
                        .map(|c| c.requests(&log))
                        .and_then(|own| own.into_iter().rfind(|r| r.seq < w.seq && !is_write(r)))
                        .filter(|r| r.seq < delete.seq);
                    match check {
                        Some(read) => format!(
                            "{} came after the logout's {} and succeeded. That refresh had \
                             checked the session with {}, before the logout: the check and the \
                             write are two requests, and the logout landed between them. An \
                             UpdateItem on a key with no item creates one (an upsert).",
                            show_request(w),
                            show_bare(&delete),
                            show_bare(&read)
                        ),
                        None => format!(
                            "{} came after the logout's {} and succeeded: an UpdateItem on a \
                             key with no item creates one (an upsert), and nothing in the \
                             request said it may only update a live session.",
                            show_request(w),
                            show_bare(&delete)
                        ),
                    }
                }
                None => "no write after the logout's DeleteItem succeeded; yet the item is \
                         there"
                    .to_string(),
            };
            fail(format!(
                "{story}\nAfter the race the session is back in the table: {}. {cause} A check made \
                 by another request may be out of date by the time the write lands; a \
                 condition carried by the write itself is evaluated on the item as the leader \
                 has it when the write is applied.",
                show_item(&item)
            ));
        }
        for c in calls.iter().filter(|c| c.what == "refresh") {
            let own = c.requests(&log);
            let after = own.first().is_some_and(|r| r.seq > delete.seq);
            match &c.result {
                Ok(Some(_)) if after => fail(format!(
                    "{story}\nClient {}'s refresh sent every request after the logout's {}, yet \
                     returned the session: it had ended.",
                    c.client,
                    show_bare(&delete)
                )),
                Err(e) => fail(format!(
                    "{story}\nClient {}'s refresh failed: {e}. A session that has ended is \
                     Ok(None), not an error.{}",
                    c.client,
                    condition_note(e)
                )),
                _ => {}
            }
        }
    }
}

/// While the session's partition has no leader, failures are errors, not "no session".
fn errors_are_not_missing_sessions(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    s.world.advance(Duration::from_secs(1 + rng.below(600)));
    let id = "s-1";
    s.login(id, "u-1");
    s.world.settle();
    let partition = s.partition_of(id);
    // A second session id on the same partition, for the failed login.
    let other = (2..)
        .map(|n| format!("s-{n}"))
        .find(|k| s.partition_of(k) == partition)
        .unwrap_or_else(|| fail("the test found no second session id on the partition"));
    s.world
        .stop_leader(TABLE, partition)
        .unwrap_or_else(|e| fail(format!("the test could not stop the leader: {e}")));
    let fault = format!(
        "partition {partition}'s leader is down (an election follows within seconds): writes \
         and strongly consistent reads on it fail with InternalServerError"
    );
    let judge = |call: String, shown: String, sent: Vec<RequestRecord>, ok_is_data: bool| {
        let failed = sent.iter().find(|r| r.error.is_some());
        match failed {
            Some(r) if !ok_is_data => fail(format!(
                "While {fault}, {call} returned {shown}, although its {} failed. When DynamoDB \
                 refuses a request, nothing is known about the session: Ok(None) tells the \
                 caller the user has no session, and they are logged out by a failed read.",
                show_bare(r)
            )),
            _ => {}
        }
    };
    let from = s.next_seq();
    let r = session(&s.client, id);
    let sent = s.requests_since(from);
    if let Ok(found) = &r {
        // An eventually consistent read is still served (the other test catches it); only an
        // answer made up after a failed request is wrong here.
        judge(
            format!("session(\"{id}\")"),
            show_found(&r),
            sent,
            found.is_some(),
        );
    }
    let from = s.next_seq();
    let r = refresh(&s.client, id);
    if r.is_ok() {
        judge(
            format!("refresh(\"{id}\")"),
            show_found(&r),
            s.requests_since(from),
            false,
        );
    }
    let from = s.next_seq();
    let r = login(&s.client, &other, "u-2");
    if let Ok(made) = &r {
        judge(
            format!("login(\"{other}\", \"u-2\")"),
            format!("Ok({})", show_session(made)),
            s.requests_since(from),
            false,
        );
    }
    let from = s.next_seq();
    if logout(&s.client, id).is_ok() {
        judge(
            format!("logout(\"{id}\")"),
            "Ok(())".to_string(),
            s.requests_since(from),
            false,
        );
    }
}

// ---------------------------------------------------------------------------------------
// The scene and its helpers
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new(
                "session_id",
                ScalarAttributeType::S,
            ))
            .attribute_definitions(AttributeDefinition::new("user_id", ScalarAttributeType::S))
            .attribute_definitions(AttributeDefinition::new(EXPIRES_AT, ScalarAttributeType::N))
            .key_schema(KeySchemaElement::new("session_id", KeyType::Hash))
            .global_secondary_indexes(GlobalSecondaryIndex::new(
                BY_USER,
                vec![
                    KeySchemaElement::new("user_id", KeyType::Hash),
                    KeySchemaElement::new(EXPIRES_AT, KeyType::Range),
                ],
                Projection::all(),
            ))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        client
            .update_time_to_live()
            .table_name(TABLE)
            .time_to_live_specification(TimeToLiveSpecification::new(true, EXPIRES_AT))
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not enable TTL: {e}")));
        // Somewhere in the day, so that times differ from seed to seed.
        world.advance(Duration::from_secs(
            6 * 3600 + Rng::new(seed).below(12 * 3600),
        ));
        Scene { world, client }
    }

    fn now(&self) -> u64 {
        self.world.epoch_seconds()
    }

    /// The learner's `login`, for a test's set-up: it must work, and its expiry must be the
    /// world's now + the lifetime in seconds (else every later step fails for that reason).
    fn login(&self, session_id: &str, user_id: &str) -> Session {
        let now = self.now();
        let call = format!("login(\"{session_id}\", \"{user_id}\") at {}", at(now));
        let session = login(&self.client, session_id, user_id)
            .unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
        let Some(item) = self.stored(session_id) else {
            fail(format!(
                "{call} returned Ok, but the table has no item with session_id = \"{session_id}\""
            ));
        };
        check_expiry(&call, &item, now);
        session
    }

    /// Moves the clock to `epoch_s` (never back).
    fn advance_to(&self, epoch_s: u64) {
        let now = self.now();
        if epoch_s > now {
            self.world.advance(Duration::from_secs(epoch_s - now));
        }
    }

    /// The session's item as the leader has it (the test's own strongly consistent read).
    fn stored(&self, session_id: &str) -> Option<Item> {
        let out = self
            .client
            .get_item()
            .table_name(TABLE)
            .key("session_id", AttributeValue::S(session_id.into()))
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not read the table: {e}")));
        out.item().cloned()
    }

    /// The test's own DeleteItem (a logout made elsewhere).
    fn delete(&self, session_id: &str) {
        self.client
            .delete_item()
            .table_name(TABLE)
            .key("session_id", AttributeValue::S(session_id.into()))
            .send()
            .map_err(SdkError::into_service_error)
            .unwrap_or_else(|e| fail(format!("the test could not delete a session: {e}")));
    }

    fn partition_of(&self, session_id: &str) -> u32 {
        self.world
            .partition_of(TABLE, &AttributeValue::S(session_id.into()))
            .unwrap_or_else(|e| fail(format!("the test could not find the partition: {e}")))
    }

    /// The position in the request log of the next request.
    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    /// The requests sent since `from`.
    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }
}

/// One call of the race: which client, which function, what it returned, its span of the log.
struct Call {
    client: usize,
    what: &'static str,
    result: Result<Option<Session>, Error>,
    from: u64,
    to: u64,
}

impl Call {
    fn new(
        client: usize,
        what: &'static str,
        result: Result<Option<Session>, Error>,
        from: u64,
        to: u64,
    ) -> Call {
        Call {
            client,
            what,
            result,
            from,
            to,
        }
    }

    /// The requests this call sent (a client's calls run one after another).
    fn requests(&self, log: &[RequestRecord]) -> Vec<RequestRecord> {
        log.iter().filter(|r| self.owns(r)).cloned().collect()
    }

    fn owns(&self, r: &RequestRecord) -> bool {
        r.client == Some(self.client) && self.from <= r.seq && r.seq < self.to
    }

    fn show(&self, log: &[RequestRecord]) -> String {
        let result = match &self.result {
            Ok(None) if self.what == "logout" => "Ok(())".to_string(),
            Err(e) => format!("Err({})", e.code().unwrap_or("error")),
            other => show_found(other),
        };
        let sent: Vec<String> = self.requests(log).iter().map(show_bare).collect();
        format!(
            "  client {}: {} → {result}: {}",
            self.client,
            self.what,
            if sent.is_empty() {
                "no request".to_string()
            } else {
                sent.join(", ")
            }
        )
    }
}

/// Fails with the cause when the item's `expires_at` is not a Number of the world's seconds,
/// `now` + the lifetime.
fn check_expiry(call: &str, item: &Item, now: u64) {
    let want = now + SESSION_LIFETIME_S;
    let value = match item.get(EXPIRES_AT) {
        None => fail(format!(
            "{call} stored {} — no expires_at: TTL deletes only items whose TTL attribute \
             (expires_at) holds a Number of epoch seconds, so this session never expires",
            show_item(item)
        )),
        Some(AttributeValue::N(n)) => n.clone(),
        Some(_) => fail(format!(
            "{call} stored {}: expires_at is not a Number. TTL ignores an attribute of any other \
             type — the item is never deleted",
            show_item(item)
        )),
    };
    let Ok(stored) = value.parse::<f64>() else {
        fail(format!(
            "{call} stored expires_at = {value}, not a number of seconds"
        ));
    };
    if stored == want as f64 {
        return;
    }
    let seconds_note = format!(
        "The world's now is {now} ({}), so expires_at must be {want} ({}): now + \
         {} seconds.",
        at(now),
        at(want),
        thousands(SESSION_LIFETIME_S)
    );
    if stored >= 1e11 {
        fail(format!(
            "{call} stored expires_at = {value}: milliseconds. TTL reads its attribute as epoch \
             seconds, so that is a date some {} years from now — DynamoDB ignores it and never \
             deletes the session. {seconds_note}",
            thousands((stored / 31_557_600.0) as i64)
        ));
    }
    let off = stored - want as f64;
    let clock_note = if off.abs() > 2.0 * SESSION_LIFETIME_S as f64 {
        " An offset this large is another clock's: TTL and the tests run on the world's \
         simulated clock, not on the computer's."
    } else {
        ""
    };
    fail(format!(
        "{call} stored expires_at = {value} ({}), {} s {} the world's now + {SESSION_LIFETIME_S}. \
         {seconds_note}{clock_note}",
        at(stored.max(0.0) as u64),
        off.abs() as u64,
        if off > 0.0 { "after" } else { "before" }
    ));
}

/// What a refresh's error says when it is the refusal of its own condition.
fn condition_note(e: &Error) -> String {
    if e.code() == Some("ConditionalCheckFailedException") {
        " A ConditionalCheckFailedException says that the request's own condition was false: \
         here, that the session was not live."
            .to_string()
    } else {
        String::new()
    }
}

/// The item a session is stored as.
fn session_item(session: &Session) -> Item {
    Item::from([
        (
            "session_id".to_string(),
            AttributeValue::S(session.session_id.clone()),
        ),
        (
            "user_id".to_string(),
            AttributeValue::S(session.user_id.clone()),
        ),
        (
            EXPIRES_AT.to_string(),
            AttributeValue::N(session.expires_at.to_string()),
        ),
    ])
}

fn is_write(r: &RequestRecord) -> bool {
    WRITES.contains(&r.operation)
}

/// `2026-01-01T10:30:00Z`.
fn at(epoch_s: u64) -> String {
    let t = engine::world::iso8601(epoch_s.saturating_mul(1000));
    format!("{}Z", t.trim_end_matches(".000"))
}

/// An item in DynamoDB JSON, attributes sorted by name.
fn show_item(item: &Item) -> String {
    item_to_json(item).to_string()
}

fn show_session(s: &Session) -> String {
    format!(
        "{} of {}, expires_at {} ({})",
        s.session_id,
        s.user_id,
        s.expires_at,
        at(s.expires_at)
    )
}

fn show_sessions(list: &[Session]) -> String {
    if list.is_empty() {
        return "(none)".to_string();
    }
    list.iter().map(show_session).collect::<Vec<_>>().join("\n")
}

fn show_found(r: &Result<Option<Session>, Error>) -> String {
    match r {
        Ok(None) => "Ok(None)".to_string(),
        Ok(Some(s)) => format!("Ok(Some({}))", show_session(s)),
        Err(e) => format!("Err({e})"),
    }
}

/// `client 3's UpdateItem #14 at 2026-01-01T10:30:00Z (ConditionalCheckFailedException)`.
fn show_request(r: &RequestRecord) -> String {
    let who = r
        .client
        .map(|c| format!("client {c}'s "))
        .unwrap_or_default();
    format!("{who}{}", show_bare(r))
}

/// `GetItem #12 (strongly consistent, InternalServerError)`.
fn show_bare(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    if let Some(index) = &r.index {
        notes.push(format!("index {index}"));
    }
    match r.consistent_read {
        Some(true) => notes.push("strongly consistent".to_string()),
        Some(false) => notes.push("eventually consistent".to_string()),
        None => {}
    }
    if let Some(error) = r.error {
        notes.push(error.to_string());
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    format!("{} #{}{notes}", r.operation, r.seq)
}

fn show_requests(requests: &[RequestRecord]) -> String {
    if requests.is_empty() {
        return "no request".to_string();
    }
    requests
        .iter()
        .map(show_bare)
        .collect::<Vec<_>>()
        .join(", ")
}
