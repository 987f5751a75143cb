//! Hidden tests of the `unique-email` kata.
//!
//! Each test builds a fresh world with the kata's table (`accounts`, partition key `PK`,
//! on-demand: a user `USER#<username>` with `username`, `email`, `name`; a guard
//! `EMAIL#<email>` with `username`) and judges the learner's functions from the outside: what
//! they returned, the table afterwards (the test's own strongly consistent Scan), and the
//! request log. After every scenario the table must keep the invariant: every user's email has
//! a guard naming the user, every guard names a user whose email it is.
//!
//! - `registers_users`: sign-ups in turn: the items, and one TransactWriteItems each.
//! - `a_taken_email_or_username_is_refused`: EmailTaken / UsernameTaken (both: UsernameTaken),
//!   read from the cancellation reasons, and nothing written.
//! - `a_failed_request_leaves_no_half_user`: the leader of the guard's partition, then of the
//!   user's, is stopped (`World::stop_leader`): `Engine(InternalServerError)`, nothing written.
//! - `a_crash_leaves_no_half_user`: on the seeded schedule, other threads kill the process
//!   (unwind every client at its gate) right after the sign-up's first write: whole or nothing.
//! - `racing_sign_ups_claim_each_email_once`: 6 clients, 24 sign-ups over 3 emails and 18
//!   usernames: no value won twice, every refusal justified, the table the winners'.
//! - `changes_an_email`: changes in turn with every replica 60 s late: one strong read and one
//!   transaction; same email: no write; taken: EmailTaken; unknown user: NoSuchUser.
//! - `racing_email_changes_keep_one_guard`: 5 clients change one user's email at once: Ok or
//!   UserChanged, and exactly one guard held by the user.
//! - `a_team_is_one_transaction`: 50 members in one TransactWriteItems; the first taken member
//!   in team order; an empty team sends nothing.
//! - `a_team_too_large_is_refused`: 51 members: TooLarge { 51, 50 } and no request.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, Put, ScalarAttributeType,
    TransactWriteItem,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::world::schedule::yield_now;
use engine::{AttributeValue, Client, Item, World};
use given::{email_pk, user_pk, AccountError, NewUser, TABLE};
use katas_testkit::{check_eq_text, fail, run, seeded, Rng};
use learner::{change_email, register, register_team};

/// Operations that write items.
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
/// Clients and sign-ups each in the sign-up race.
const RACERS: usize = 6;
const SIGN_UPS_EACH: usize = 4;
/// The sign-up rounds in which every racer claims the same email (with its own username).
const SHARED_ROUNDS: usize = 3;
/// Threads that wait to kill the process in the crash test, and the schedules it tries.
const KILLERS: usize = 7;
const CRASH_TRIES: u64 = 6;
/// Clients and changes each in the email-change race.
const CHANGERS: usize = 5;
const CHANGES_EACH: usize = 2;
/// How late every replica receives writes in the change test.
const LAG: Duration = Duration::from_secs(60);
/// DynamoDB's limit on the actions of one TransactWriteItems, and the team it allows.
const MAX_ACTIONS: usize = 100;
const MAX_TEAM: usize = MAX_ACTIONS / 2;
const ONE_TRANSACTION: &str = "Writes are atomic together only inside one transaction: \
                               DynamoDB commits all of its actions or none, whatever happens to \
                               the caller once it is sent.";
const REASONS: &str = "A cancelled transaction carries one reason per action, in the order the \
                       actions were sent: a reason belongs to the action at its position.";

katas_testkit::learner! {
    /// Registers a user and its email's guard in one transaction.
    fn register(client: &Client, user: &NewUser) -> Result<(), AccountError>;
    /// Moves a user's email guard and updates the user, in one transaction.
    fn change_email(client: &Client, username: &str, new_email: &str) -> Result<(), AccountError>;
    /// Registers every member of a team, or none, in one transaction.
    fn register_team(client: &Client, team: &[NewUser]) -> Result<(), AccountError>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("registers_users", registers_users),
        seeded(
            "a_taken_email_or_username_is_refused",
            a_taken_email_or_username_is_refused,
        ),
        seeded(
            "a_failed_request_leaves_no_half_user",
            a_failed_request_leaves_no_half_user,
        ),
        seeded("a_crash_leaves_no_half_user", a_crash_leaves_no_half_user),
        seeded(
            "racing_sign_ups_claim_each_email_once",
            racing_sign_ups_claim_each_email_once,
        ),
        seeded("changes_an_email", changes_an_email),
        seeded(
            "racing_email_changes_keep_one_guard",
            racing_email_changes_keep_one_guard,
        ),
        seeded("a_team_is_one_transaction", a_team_is_one_transaction),
        seeded("a_team_too_large_is_refused", a_team_too_large_is_refused),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Sign-ups in turn, all free: the items, and one TransactWriteItems each.
fn registers_users(seed: u64) {
    let s = Scene::new(seed);
    let users = [
        NewUser::new("ana", "ana@x.io", "Ana Lima"),
        NewUser::new("bo", "bo@y.org", "Bo Berg"),
        NewUser::new("cy", "cy@x.io", "Cy Ode"),
    ];
    for user in &users {
        s.world.advance(Duration::from_secs(1));
        let call = show_register(user);
        let from = s.next_seq();
        let result = register(&s.client, user);
        let sent = s.requests_since(from);
        if let Err(e) = &result {
            fail(format!(
                "{call} returned {}, but the username and the email were free.\nIts requests: {}",
                show_error(e),
                show_requests(&sent)
            ));
        }
    }
    let table = s.snapshot();
    let mut want = String::new();
    for user in &users {
        want.push_str(&format!(
            "{}\n",
            row_of(&user_pk(&user.username), &user_attrs(user))
        ));
        want.push_str(&format!(
            "{}\n",
            row_of(&email_pk(&user.email), &[("username", &user.username)])
        ));
    }
    let mut got = String::new();
    for user in &users {
        for pk in [user_pk(&user.username), email_pk(&user.email)] {
            let shown = match table.get(&pk) {
                Some(item) => named_row(item, &["username", "email", "name"]),
                None => format!("{pk}  (no item)"),
            };
            got.push_str(&format!("{shown}\n"));
        }
    }
    check_eq_text(
        &want,
        &got,
        "after three sign-ups, each user's item (PK = USER#<username>: username, email, name) \
         and its email's guard (PK = EMAIL#<email>: username, the user who holds it)",
    );
    check_invariant(&table, "after three sign-ups");
}

/// A sign-up with a taken email, one with a taken username, one with both: each refused with
/// the right error and nothing written; then a free sign-up still succeeds.
fn a_taken_email_or_username_is_refused(seed: u64) {
    let s = Scene::new(seed);
    let ana = NewUser::new("ana", "ana@x.io", "Ana Lima");
    s.seed_users(std::slice::from_ref(&ana));
    let held = "ana (USER#ana) holds ana@x.io (EMAIL#ana@x.io names ana)";
    let cases = [
        (
            NewUser::new("bo", "ana@x.io", "Bo Berg"),
            AccountError::EmailTaken {
                email: "ana@x.io".into(),
            },
            "the username bo is free, the email ana@x.io is taken",
            "the guard's Put failed its condition and the user's did not",
        ),
        (
            NewUser::new("ana", "ana.lima@y.org", "Ana Other"),
            AccountError::UsernameTaken {
                username: "ana".into(),
            },
            "the username ana is taken, the email ana.lima@y.org is free",
            "the user's Put failed its condition and the guard's did not",
        ),
        (
            NewUser::new("ana", "ana@x.io", "Ana Again"),
            AccountError::UsernameTaken {
                username: "ana".into(),
            },
            "both are taken: the README's rule is UsernameTaken",
            "both Puts failed their conditions",
        ),
    ];
    for (user, want, situation, reasons) in cases {
        s.world.advance(Duration::from_secs(1));
        let call = show_register(&user);
        let before = s.snapshot();
        let from = s.next_seq();
        let result = register(&s.client, &user);
        let sent = s.requests_since(from);
        let after = s.snapshot();
        let changed = changes(&before, &after);
        let context = format!(
            "{call} when {held} — {situation} — returned {}.\nIts requests: {}",
            show_result(&result),
            show_requests(&sent)
        );
        if result.is_ok() {
            let replaced = changed.iter().any(|c| c.contains("~ USER#"));
            let why = if replaced {
                "The user's Put replaced the other user's item: a Put replaces whatever item \
                 has its key unless a condition of its own refuses — a primary key is the only \
                 thing DynamoDB keeps unique, and only a condition on the write checks it."
            } else {
                "A Put replaces whatever item has its key unless a condition of its own \
                 refuses, and only a refused action cancels a transaction: nothing here \
                 refused."
            };
            fail(format!(
                "{context}\nThe table changed:\n{}\n{why}",
                changed.join("\n")
            ));
        }
        if !changed.is_empty() {
            fail(format!(
                "{context}\nIt was refused, but it wrote:\n{}\nHalf a sign-up stays: each \
                 request is atomic on its own item only. {ONE_TRANSACTION}",
                changed.join("\n")
            ));
        }
        if result.as_ref().err() != Some(&want) {
            let tx = sent
                .iter()
                .find(|r| r.operation == "TransactWriteItems")
                .map(|r| format!(" Its {} was cancelled: {reasons}. {REASONS}", show_bare(r)))
                .unwrap_or_default();
            fail(format!(
                "{context}\nIt should return Err({}).{tx}",
                show_error(&want)
            ));
        }
        check_invariant(&after, &call);
    }
    let cy = NewUser::new("cy", "cy@x.io", "Cy Ode");
    if let Err(e) = register(&s.client, &cy) {
        fail(format!(
            "after the refused sign-ups, {} returned {}, but cy and cy@x.io are free",
            show_register(&cy),
            show_error(&e)
        ));
    }
    check_invariant(&s.snapshot(), "after the refused sign-ups and a free one");
}

/// The leader of the guard's partition is stopped, then the leader of the user's: each time
/// the sign-up fails as `Engine(InternalServerError)` and writes nothing.
fn a_failed_request_leaves_no_half_user(seed: u64) {
    let s = Scene::new(seed);
    let (first, second) = (s.spread_user("dee", 0), s.spread_user("eli", 1));
    for (user, stopped) in [(&first, "guard"), (&second, "user")] {
        s.world.advance(Duration::from_secs(1));
        let pk = if stopped == "guard" {
            email_pk(&user.email)
        } else {
            user_pk(&user.username)
        };
        let partition = s.partition_of(&pk);
        let before = s.snapshot();
        s.world
            .stop_leader(TABLE, partition)
            .unwrap_or_else(|e| fail(format!("the test could not stop a leader: {e}")));
        let call = show_register(user);
        let from = s.next_seq();
        let result = register(&s.client, user);
        let sent = s.requests_since(from);
        s.world.heal_all();
        // The stopped leader's partition elects a new one after the election timeout.
        let election = s.world.config().election_timeout_ms;
        s.world.advance(Duration::from_millis(election + 1));
        let after = s.snapshot();
        let changed = changes(&before, &after);
        let situation = format!(
            "{call} while partition {partition}, which holds {pk}, had no leader (the test \
             stopped it, as when a storage node fails: a write there is refused with \
             InternalServerError; the user is USER#{} on partition {}, the guard EMAIL#{} on \
             partition {})",
            user.username,
            s.partition_of(&user_pk(&user.username)),
            user.email,
            s.partition_of(&email_pk(&user.email)),
        );
        if !changed.is_empty() {
            let half = half_user(&after, user);
            fail(format!(
                "{situation} returned {} and left {half}:\n{}\nIts requests: {}.\nEach write \
                 is atomic on its own item; two writes are not atomic together, and the one \
                 that got through stays. {ONE_TRANSACTION} If any part of it cannot be written, \
                 none is.",
                show_result(&result),
                changed.join("\n"),
                show_requests(&sent)
            ));
        }
        match &result {
            Err(AccountError::Engine(e)) if e.code() == Some("InternalServerError") => {}
            Err(AccountError::Engine(e)) => fail(format!(
                "{situation} returned Err(Engine({e})), but its requests were: {}",
                show_requests(&sent)
            )),
            other => fail(format!(
                "{situation} returned {}. Nothing is taken: the transaction failed with \
                 InternalServerError (its requests: {}), not with a cancellation whose reasons \
                 say a condition failed. Any other error is the README's Engine(e): the caller \
                 may retry it; a user told that a free email is taken would not.",
                show_result(other),
                show_requests(&sent)
            )),
        }
    }
    for user in [&first, &second] {
        if let Err(e) = register(&s.client, user) {
            fail(format!(
                "with every partition healed, {} returned {}: the failed attempt must leave \
                 nothing that blocks the next",
                show_register(user),
                show_error(&e)
            ));
        }
    }
    check_invariant(&s.snapshot(), "after the healed sign-ups");
}

/// On the seeded schedule, killer threads wait for the sign-up's first write and then kill the
/// process: every client stops where it is (unwound at its gate). Whole user or nothing.
fn a_crash_leaves_no_half_user(seed: u64) {
    struct Crash;
    for attempt in 0..CRASH_TRIES {
        let s = Scene::new(seed.wrapping_add(attempt));
        let user = NewUser::new(
            &format!("fay{attempt}"),
            &format!("fay{attempt}@x.io"),
            "Fay",
        );
        let world = &s.world;
        let done = AtomicBool::new(false);
        let wrote = || {
            world
                .request_log()
                .iter()
                .any(|r| r.client == Some(0) && is_write(r))
        };
        let schedule = seed.wrapping_mul(31).wrapping_add(attempt);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            world.concurrently(schedule).run(1 + KILLERS, |i, client| {
                if i == 0 {
                    let result = register(&client, &user);
                    done.store(true, Ordering::SeqCst);
                    return Some(result);
                }
                loop {
                    if done.load(Ordering::SeqCst) {
                        return None;
                    }
                    if wrote() {
                        panic::resume_unwind(Box::new(Crash));
                    }
                    yield_now();
                }
            })
        }));
        let crashed = match outcome {
            Ok(_) => false,
            Err(payload) if payload.is::<Crash>() => true,
            Err(payload) => fail(format!(
                "your code panicked while signing up: {}",
                panic_text(&payload)
            )),
        };
        let table = s.snapshot();
        let log: Vec<RequestRecord> = world
            .request_log()
            .into_iter()
            .filter(|r| r.client == Some(0))
            .collect();
        let has_user = table.contains_key(&user_pk(&user.username));
        let has_guard = table.contains_key(&email_pk(&user.email));
        if has_user != has_guard {
            let first = log.iter().find(|r| is_write(r));
            fail(format!(
                "The test killed the process (every client stopped where it was, as a crash, \
                 an out-of-memory kill or a deploy does) right after {}'s first write, {}, \
                 returned. It left {}.\nIts requests before the crash: {}.\nCode that undoes \
                 the first write when the second fails does not help: after a crash no code \
                 runs. {ONE_TRANSACTION}",
                show_register(&user),
                first.map_or("(none)".to_string(), show_bare),
                half_user(&table, &user),
                show_requests(&log)
            ));
        }
        if !crashed {
            check_invariant(&table, &show_register(&user));
            check_one_transaction(&show_register(&user), &log, "A sign-up", "a user");
        }
    }
}

/// 6 clients on the seeded schedule make 24 sign-ups over 3 emails and 18 usernames.
fn racing_sign_ups_claim_each_email_once(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let names = [
        "ana", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kai", "lu", "mo",
        "ned", "oz", "pia", "quin", "rae",
    ];
    let emails = ["team@x.io", "hello@x.io", "admin@y.org"];
    // Every client opens with usernames of its own, each round with an email all six
    // share; then random pairs (usernames collide too).
    let plan: Vec<Vec<NewUser>> = (0..RACERS)
        .map(|i| {
            (0..SIGN_UPS_EACH)
                .map(|j| {
                    let (name, email) = if j < SHARED_ROUNDS {
                        (names[i + RACERS * j], emails[j % emails.len()])
                    } else {
                        (
                            names[rng.below(names.len() as u64) as usize],
                            emails[rng.below(emails.len() as u64) as usize],
                        )
                    };
                    NewUser::new(name, email, &format!("{name} of {email}"))
                })
                .collect()
        })
        .collect();
    let world = &s.world;
    let raced = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(seed).run(RACERS, |i, client| {
            plan[i]
                .iter()
                .map(|user| {
                    let from = world.request_totals().requests;
                    let result = register(&client, user);
                    let to = world.request_totals().requests;
                    Call {
                        client: i,
                        what: show_register(user),
                        user: user.clone(),
                        result,
                        from,
                        to,
                    }
                })
                .collect::<Vec<_>>()
        })
    }));
    let calls: Vec<Call> = match raced {
        Ok(per_client) => per_client.into_iter().flatten().collect(),
        Err(payload) => fail(format!(
            "your code panicked in one of the concurrent clients: {}",
            panic_text(&payload)
        )),
    };
    let log = s.world.request_log();
    let table = s.snapshot();
    let round = format!(
        "{RACERS} clients each signed up {SIGN_UPS_EACH} users at the same time (on the engine's \
         seeded schedule), over {} usernames and {} emails",
        names.len(),
        emails.len()
    );
    for (what, key) in [
        (
            "email",
            &(|u: &NewUser| u.email.clone()) as &dyn Fn(&NewUser) -> String,
        ),
        ("username", &|u: &NewUser| u.username.clone()),
    ] {
        let mut winners: BTreeMap<String, Vec<&Call>> = BTreeMap::new();
        for c in calls.iter().filter(|c| c.result.is_ok()) {
            winners.entry(key(&c.user)).or_default().push(c);
        }
        if let Some((value, won)) = winners.iter().find(|(_, w)| w.len() > 1) {
            let shown: Vec<String> = won.iter().map(|c| show_call(&log, c)).collect();
            let holder = table
                .get(&if what == "email" {
                    email_pk(value)
                } else {
                    user_pk(value)
                })
                .map_or("no item".to_string(), row);
            fail(format!(
                "{round}. The {what} {value} was won by {} sign-ups:\n{}\nIts item now: \
                 {holder}\n{}",
                won.len(),
                shown.join("\n"),
                race_cause(&log, won)
            ));
        }
    }
    let won_email: BTreeSet<String> = calls
        .iter()
        .filter(|c| c.result.is_ok())
        .map(|c| c.user.email.clone())
        .collect();
    let won_name: BTreeSet<String> = calls
        .iter()
        .filter(|c| c.result.is_ok())
        .map(|c| c.user.username.clone())
        .collect();
    for c in &calls {
        let justified = match &c.result {
            Ok(()) => true,
            Err(AccountError::EmailTaken { email }) => {
                *email == c.user.email && won_email.contains(email)
            }
            Err(AccountError::UsernameTaken { username }) => {
                *username == c.user.username && won_name.contains(username)
            }
            Err(_) => false,
        };
        if !justified {
            fail(format!(
                "{round}. One sign-up was refused for a reason no successful sign-up explains:\n\
                 {}\nEmailTaken and UsernameTaken name the value that another sign-up holds; \
                 any other failure is Engine(e).",
                show_call(&log, c)
            ));
        }
    }
    let mut want = String::new();
    let mut winners: Vec<&Call> = calls.iter().filter(|c| c.result.is_ok()).collect();
    winners.sort_by_key(|c| c.user.username.clone());
    for c in &winners {
        want.push_str(&format!(
            "{}\n",
            row_of(&user_pk(&c.user.username), &user_attrs(&c.user))
        ));
    }
    let mut guards: Vec<&&Call> = winners.iter().collect();
    guards.sort_by_key(|c| c.user.email.clone());
    for c in guards {
        want.push_str(&format!(
            "{}\n",
            row_of(&email_pk(&c.user.email), &[("username", &c.user.username)])
        ));
    }
    let got: String = table
        .values()
        .filter(|i| pk_of(i).starts_with("USER#"))
        .chain(table.values().filter(|i| pk_of(i).starts_with("EMAIL#")))
        .map(|i| format!("{}\n", named_row(i, &["username", "email", "name"])))
        .collect();
    check_eq_text(
        &want,
        &got,
        format!(
            "{round}: the table must hold exactly the users whose sign-up returned Ok, each with \
             its guard (a refused sign-up writes nothing)"
        ),
    );
    check_invariant(&table, &round);
}

/// Changes in turn, every replica 60 s late: one strong read and one transaction each; the same
/// email: Ok and no write; a taken email: EmailTaken; an unknown user: NoSuchUser.
fn changes_an_email(seed: u64) {
    let s = Scene::new(seed);
    s.seed_users(&[
        NewUser::new("ana", "ana@x.io", "Ana Lima"),
        NewUser::new("bo", "bo@y.org", "Bo Berg"),
    ]);
    for p in s
        .world
        .partitions(TABLE)
        .unwrap_or_else(|e| fail(format!("the test could not list partitions: {e}")))
    {
        for az in Az::ALL {
            s.world
                .lag_replica(TABLE, p.id, az, LAG)
                .unwrap_or_else(|e| fail(format!("the test could not make replicas lag: {e}")));
        }
    }
    let lag_note = format!(
        "In this test every replica receives writes {} s late, so an eventually consistent \
         GetItem is often answered by a replica that has not seen the latest change.",
        LAG.as_secs()
    );
    let mut email = "ana@x.io".to_string();
    let mut eventual_reads = Vec::new();
    for next in ["ana@new.io", "ana.lima@new.io", "al@z.net", "ana@x.io"] {
        s.world.advance(Duration::from_millis(200));
        let call = format!("change_email(\"ana\", \"{next}\")");
        let from = s.next_seq();
        let result = change_email(&s.client, "ana", next);
        let sent = s.requests_since(from);
        let table = s.snapshot();
        let context = format!(
            "{call}, ana's email being {email} and no one else changing ana, returned {}.\nIts \
             requests: {}",
            show_result(&result),
            show_requests(&sent)
        );
        let eventual = sent.iter().find(|r| r.consistent_read == Some(false));
        if let (Some(read), Err(AccountError::UserChanged { .. })) = (eventual, &result) {
            fail(format!(
                "{context}\nNo one else changed ana, so the user's Update failed its condition \
                 because the email your {} returned was not ana's current one, {email}: that \
                 read was eventually consistent, answered by a replica that had not yet \
                 received the change made {} ms before. {lag_note} A strongly consistent read \
                 is answered by the leader, which has every committed change.",
                show_bare(read),
                200
            ));
        }
        if let Some(read) = eventual {
            eventual_reads.push(format!("{call}: {}", show_bare(read)));
        }
        if let Err(e) = &result {
            fail(format!(
                "{context}\n{next} is free and ana was not changed by anyone else, so it should \
                 return Ok(()).{}",
                if matches!(e, AccountError::UserChanged { .. }) {
                    format!(" {REASONS}")
                } else {
                    String::new()
                }
            ));
        }
        let writes: Vec<&RequestRecord> = sent.iter().filter(|r| is_write(r)).collect();
        if !matches!(writes.as_slice(), [one] if one.operation == "TransactWriteItems") {
            fail(format!(
                "{context}\nA change of email is three writes that belong together (the old \
                 guard, the new guard, the user): separate requests leave the guard half moved \
                 when one of them fails. {ONE_TRANSACTION}"
            ));
        }
        let user = table.get(&user_pk("ana"));
        let stored = user.and_then(|u| text_attr(u, "email"));
        if stored.as_deref() != Some(next) {
            fail(format!(
                "{context}\nbut USER#ana now reads: {}",
                user.map_or("no item".to_string(), row)
            ));
        }
        if let Some(old) = table.get(&email_pk(&email)) {
            fail(format!(
                "{context}\nThe old guard is still there: {}. ana no longer has {email}, yet no \
                 one can sign up with it, ever: nothing of the change removed it.",
                row(old)
            ));
        }
        check_invariant(&table, &call);
        email = next.to_string();
    }
    if let Some(read) = eventual_reads.first() {
        fail(format!(
            "{read} was eventually consistent. The changes succeeded here, but only because an \
             up-to-date replica happened to answer. {lag_note} A change built on such a read \
             starts from an email the user no longer has, and is refused for nothing or moves \
             the wrong guard."
        ));
    }

    // The same email again: Ok, and no write.
    let call = format!("change_email(\"ana\", \"{email}\")");
    let from = s.next_seq();
    let result = change_email(&s.client, "ana", &email);
    let sent = s.requests_since(from);
    if result.is_err() || sent.iter().any(is_write) {
        fail(format!(
            "{call}, the email ana already has, returned {}, and its requests were: {}.\nA change \
             to the same email is Ok(()) without a write: a transaction that deletes and puts \
             the same guard has two actions on one item, and DynamoDB refuses it \
             (ValidationException).",
            show_result(&result),
            show_requests(&sent)
        ));
    }

    // A taken email: EmailTaken, nothing changed.
    s.world.advance(Duration::from_secs(1));
    let before = s.snapshot();
    let call = "change_email(\"ana\", \"bo@y.org\")";
    let from = s.next_seq();
    let result = change_email(&s.client, "ana", "bo@y.org");
    let sent = s.requests_since(from);
    let changed = changes(&before, &s.snapshot());
    let want = AccountError::EmailTaken {
        email: "bo@y.org".into(),
    };
    if !changed.is_empty() || result.as_ref().err() != Some(&want) {
        let tx = sent
            .iter()
            .find(|r| r.operation == "TransactWriteItems")
            .map(|r| {
                format!(
                    " Its {} was cancelled because the new guard's Put failed its condition \
                     (bo holds EMAIL#bo@y.org); the user's Update and the old guard's Delete \
                     were fine. {REASONS}",
                    show_bare(r)
                )
            })
            .unwrap_or_default();
        fail(format!(
            "{call}, bo@y.org being bo's, returned {}{}.\nIts requests: {}.\nIt should return \
             Err({}) and change nothing.{tx}",
            show_result(&result),
            if changed.is_empty() {
                String::new()
            } else {
                format!(", and changed:\n{}", changed.join("\n"))
            },
            show_requests(&sent),
            show_error(&want)
        ));
    }

    // An unknown user.
    let from = s.next_seq();
    let result = change_email(&s.client, "zed", "zed@x.io");
    let sent = s.requests_since(from);
    let want = AccountError::NoSuchUser {
        username: "zed".into(),
    };
    if result.as_ref().err() != Some(&want) || sent.iter().any(is_write) {
        fail(format!(
            "change_email(\"zed\", \"zed@x.io\"), with no USER#zed, returned {}; its requests: \
             {}.\nIt should return Err({}) without a write.",
            show_result(&result),
            show_requests(&sent),
            show_error(&want)
        ));
    }
    check_invariant(&s.snapshot(), "after the changes");
}

/// 5 clients on the seeded schedule change one user's email at once, each to its own emails.
fn racing_email_changes_keep_one_guard(seed: u64) {
    let s = Scene::new(seed);
    s.seed_users(&[NewUser::new("ana", "ana@x.io", "Ana Lima")]);
    let world = &s.world;
    let raced = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(seed).run(CHANGERS, |i, client| {
            (0..CHANGES_EACH)
                .map(|j| {
                    let email = format!("ana.{i}.{j}@x.io");
                    let from = world.request_totals().requests;
                    let result = change_email(&client, "ana", &email);
                    let to = world.request_totals().requests;
                    Call {
                        client: i,
                        what: format!("change_email(\"ana\", \"{email}\")"),
                        user: NewUser::new("ana", &email, ""),
                        result,
                        from,
                        to,
                    }
                })
                .collect::<Vec<_>>()
        })
    }));
    let calls: Vec<Call> = match raced {
        Ok(per_client) => per_client.into_iter().flatten().collect(),
        Err(payload) => fail(format!(
            "your code panicked in one of the concurrent clients: {}",
            panic_text(&payload)
        )),
    };
    let log = s.world.request_log();
    let table = s.snapshot();
    let round = format!(
        "{CHANGERS} clients each changed ana's email {CHANGES_EACH} times at the same time (on \
         the engine's seeded schedule), each to emails of its own"
    );
    if let Some(c) = calls
        .iter()
        .find(|c| !matches!(c.result, Ok(()) | Err(AccountError::UserChanged { .. })))
    {
        fail(format!(
            "{round}. Every new email was free, so each change must return Ok(()) or, when \
             another change of ana committed after its read, UserChanged. One returned \
             otherwise:\n{}\n{REASONS}",
            show_call(&log, c)
        ));
    }
    let held: Vec<&Item> = table
        .values()
        .filter(|i| {
            pk_of(i).starts_with("EMAIL#") && text_attr(i, "username").as_deref() == Some("ana")
        })
        .collect();
    let email = table
        .get(&user_pk("ana"))
        .and_then(|u| text_attr(u, "email"))
        .unwrap_or_default();
    if held.len() != 1 || held.iter().any(|g| pk_of(g) != email_pk(&email)) {
        let orphans: Vec<String> = held
            .iter()
            .filter(|g| pk_of(g) != email_pk(&email))
            .map(|g| format!("  {}", row(g)))
            .collect();
        let shown: Vec<String> = overtaken(&log, &calls)
            .iter()
            .map(|c| show_call(&log, c))
            .collect();
        fail(format!(
            "{round}. ana's email is now {email}, but {} guards name ana; the others than \
             EMAIL#{email} are held by no one, forever:\n{}\nTwo changes read the same email and both committed, the second \
             after the first had already moved ana's email:\n{}\nThe second deleted a guard \
             that was already gone, claimed its own and set ana's email, and the first one's \
             guard stayed. Nothing in the second change required ana's email to still be the \
             one it read, so nothing cancelled it.",
            held.len(),
            orphans.join("\n"),
            shown.join("\n")
        ));
    }
    let last_ok = calls
        .iter()
        .filter(|c| c.result.is_ok())
        .filter_map(|c| {
            log.iter()
                .filter(|r| r.client == Some(c.client) && r.seq >= c.from && r.seq < c.to)
                .filter(|r| r.operation == "TransactWriteItems" && r.succeeded())
                .map(|r| (r.seq, c.user.email.clone()))
                .next_back()
        })
        .max();
    if let Some((seq, last)) = last_ok {
        if last != email {
            fail(format!(
                "{round}. The last change that committed, TransactWriteItems #{seq}, set \
                 {last}, but ana's email is {email}"
            ));
        }
    }
    check_invariant(&table, &round);
}

/// Teams of 50, 3 and 0 members, and teams with taken usernames and emails.
fn a_team_is_one_transaction(seed: u64) {
    let s = Scene::new(seed);
    let team: Vec<NewUser> = (0..MAX_TEAM)
        .map(|i| NewUser::new(&format!("m{i:02}"), &format!("m{i:02}@corp.io"), "Member"))
        .collect();
    let call = format!("register_team(a team of {MAX_TEAM}: m00 … m49)");
    let from = s.next_seq();
    let result = register_team(&s.client, &team);
    let sent = s.requests_since(from);
    if let Err(e) = &result {
        let why = match e {
            AccountError::TooLarge { max, .. } => format!(
                " A member is two actions (the user and the guard), so a team of {MAX_TEAM} is \
                 {MAX_ACTIONS} actions: exactly what one TransactWriteItems holds (DynamoDB's \
                 limit is {MAX_ACTIONS} actions since September 2022; it was 25 before). Your \
                 max was {max}."
            ),
            _ => String::new(),
        };
        fail(format!(
            "{call} returned Err({}), but every username and email was free.{why}\nIts \
             requests: {}",
            show_error(e),
            show_requests(&sent)
        ));
    }
    check_one_transaction(&call, &sent, "A team", "a team");
    let table = s.snapshot();
    let missing: Vec<&NewUser> = team
        .iter()
        .filter(|u| {
            !table.contains_key(&user_pk(&u.username)) || !table.contains_key(&email_pk(&u.email))
        })
        .collect();
    if let Some(u) = missing.first() {
        fail(format!(
            "{call} returned Ok, but {} of its members are missing from the table, the first: \
             {}",
            missing.len(),
            half_user(&table, u)
        ));
    }
    check_invariant(&table, &call);

    // Refused teams: the first taken member in team order, and nothing written.
    let fresh = |i: usize| NewUser::new(&format!("n{i}"), &format!("n{i}@corp.io"), "New");
    let cases: Vec<(Vec<NewUser>, AccountError, String)> = vec![
        (
            vec![fresh(0), fresh(1), NewUser::new("n2", "m07@corp.io", "New")],
            AccountError::EmailTaken {
                email: "m07@corp.io".into(),
            },
            "member 2's email m07@corp.io is m07's".to_string(),
        ),
        (
            vec![
                fresh(3),
                NewUser::new("n4", "m11@corp.io", "New"),
                fresh(5),
                NewUser::new("m30", "n6@corp.io", "New"),
            ],
            AccountError::EmailTaken {
                email: "m11@corp.io".into(),
            },
            "member 1's email m11@corp.io is taken, and member 3's username m30 too: the first \
             member in team order is member 1"
                .to_string(),
        ),
        (
            vec![
                fresh(7),
                fresh(8),
                NewUser::new("m20", "m21@corp.io", "New"),
                NewUser::new("n9", "m22@corp.io", "New"),
            ],
            AccountError::UsernameTaken {
                username: "m20".into(),
            },
            "member 2's username m20 and email m21@corp.io are both taken (the username comes \
             first), and member 3's email m22@corp.io too"
                .to_string(),
        ),
    ];
    for (team, want, situation) in cases {
        s.world.advance(Duration::from_secs(1));
        let names: Vec<&str> = team.iter().map(|u| u.username.as_str()).collect();
        let call = format!(
            "register_team([{}]) ({} members; {situation})",
            names.join(", "),
            team.len()
        );
        let before = s.snapshot();
        let from = s.next_seq();
        let result = register_team(&s.client, &team);
        let sent = s.requests_since(from);
        let changed = changes(&before, &s.snapshot());
        if !changed.is_empty() {
            fail(format!(
                "{call} returned {} and wrote:\n{}\nA team is all or nothing: a refused team \
                 writes nothing, and a transaction writes nothing only when one of its actions \
                 refuses. {ONE_TRANSACTION}\nIts requests: {}",
                show_result(&result),
                changed.join("\n"),
                show_requests(&sent)
            ));
        }
        if result.as_ref().err() != Some(&want) {
            fail(format!(
                "{call} returned {}; it should return Err({}): the error of the first member, \
                 in team order, whose username or email is taken.\nIts requests: {}.\n{REASONS} \
                 With two actions per member, a member's two reasons are two of the {} entries, \
                 at the positions its two actions were sent at.",
                show_result(&result),
                show_error(&want),
                show_requests(&sent),
                2 * team.len()
            ));
        }
    }

    // An empty team: Ok, and no request.
    let from = s.next_seq();
    let result = register_team(&s.client, &[]);
    let sent = s.requests_since(from);
    if result.is_err() || !sent.is_empty() {
        fail(format!(
            "register_team([]) returned {} and sent: {}.\nAn empty team is Ok(()) without a \
             request: a TransactWriteItems needs 1 to {MAX_ACTIONS} actions, and DynamoDB \
             refuses one with none (ValidationException).",
            show_result(&result),
            show_requests(&sent)
        ));
    }
}

/// A team of 51: TooLarge { members: 51, max: 50 }, and no request.
fn a_team_too_large_is_refused(seed: u64) {
    let s = Scene::new(seed);
    let size = MAX_TEAM + 1;
    let team: Vec<NewUser> = (0..size)
        .map(|i| NewUser::new(&format!("m{i:02}"), &format!("m{i:02}@corp.io"), "Member"))
        .collect();
    let call = format!("register_team(a team of {size})");
    let from = s.next_seq();
    let result = register_team(&s.client, &team);
    let sent = s.requests_since(from);
    let table = s.snapshot();
    let want = AccountError::TooLarge {
        members: size,
        max: MAX_TEAM,
    };
    if result.as_ref().err() == Some(&want) && sent.is_empty() {
        return;
    }
    let txs = sent
        .iter()
        .filter(|r| r.operation == "TransactWriteItems")
        .count();
    let why = if txs > 1 {
        format!(
            "It sent {txs} TransactWriteItems for one team ({}): each is all-or-nothing, the \
             team is not — the first can commit and a later one be refused (a taken email, a \
             crash), leaving part of the team registered. A team too large for one \
             transaction is refused before anything is sent.",
            show_requests(&sent)
        )
    } else if !table.is_empty() {
        format!(
            "It wrote {} items ({}): a team that does not fit in one transaction cannot be \
             all-or-nothing, so it is refused before anything is sent.",
            table.len(),
            show_requests(&sent)
        )
    } else {
        format!(
            "A team of {size} is {} actions, two per member, and one TransactWriteItems holds \
             at most {MAX_ACTIONS} (DynamoDB refuses more with a ValidationException: \"Member \
             must have length less than or equal to {MAX_ACTIONS}\"), and a team that does not \
             fit is refused before anything is sent: the largest team is {MAX_ACTIONS} / 2 = \
             {MAX_TEAM}.\nIts requests: {}",
            2 * size,
            show_requests(&sent)
        )
    };
    fail(format!(
        "{call} returned {}; it should return Err({}) without a request.\n{why}",
        show_result(&result),
        show_error(&want)
    ));
}

// ---------------------------------------------------------------------------------------
// The scene: a world with the kata's table, and ways to look at it
// ---------------------------------------------------------------------------------------

/// The table, PK → item (the test's own strongly consistent Scan).
type Table = BTreeMap<String, Item>;

struct Scene {
    world: World,
    client: Client,
}

/// One call in a race: the client that made it, what it was, its result, and the span of the
/// request log it ran in.
struct Call {
    client: usize,
    what: String,
    user: NewUser,
    result: Result<(), AccountError>,
    from: u64,
    to: u64,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| {
                fail(format!(
                    "the test could not create its table: {}",
                    engine::Error::from(e)
                ))
            });
        Scene { world, client }
    }

    /// Writes users and their guards the right way (the test's own transaction).
    fn seed_users(&self, users: &[NewUser]) {
        let mut tx = self.client.transact_write_items();
        for user in users {
            let mut u = Item::new();
            u.insert("PK".into(), s(&user_pk(&user.username)));
            for (k, v) in user_attrs(user) {
                u.insert(k.into(), s(v));
            }
            let mut g = Item::new();
            g.insert("PK".into(), s(&email_pk(&user.email)));
            g.insert("username".into(), s(&user.username));
            for item in [u, g] {
                let put = Put::builder()
                    .table_name(TABLE)
                    .set_item(Some(item))
                    .build()
                    .unwrap_or_else(|e| fail(format!("the test's own Put: {e}")));
                tx = tx.transact_items(TransactWriteItem::builder().put(put).build());
            }
        }
        tx.send().unwrap_or_else(|e| {
            fail(format!(
                "the test could not write its users: {}",
                engine::Error::from(e)
            ))
        });
    }

    /// A user named `<base>…` whose item and guard live on different partitions (so a
    /// stopped leader refuses one of its two writes and not the other).
    fn spread_user(&self, base: &str, salt: usize) -> NewUser {
        (0..200)
            .map(|i| {
                let name = format!("{base}{}", i * 2 + salt);
                NewUser::new(&name, &format!("{name}@x.io"), base)
            })
            .find(|u| {
                self.partition_of(&user_pk(&u.username)) != self.partition_of(&email_pk(&u.email))
            })
            .unwrap_or_else(|| fail("the test found no user whose items span two partitions"))
    }

    fn partition_of(&self, pk: &str) -> u32 {
        self.world
            .partition_of(TABLE, &s(pk))
            .unwrap_or_else(|e| fail(format!("the test could not find the partition: {e}")))
    }

    /// Every item of the table, read by the leaders.
    fn snapshot(&self) -> Table {
        let mut table = Table::new();
        let mut start: Option<Item> = None;
        loop {
            let out = self
                .client
                .scan()
                .table_name(TABLE)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .unwrap_or_else(|e| {
                    let e = engine::Error::from(e);
                    fail(format!("the test could not scan the table: {e}"))
                });
            for item in out.items() {
                table.insert(pk_of(item), item.clone());
            }
            match out.last_evaluated_key() {
                Some(key) => start = Some(key.clone()),
                None => break,
            }
        }
        table
    }

    /// The position in the request log of the next request.
    fn next_seq(&self) -> u64 {
        self.world.request_totals().requests
    }

    /// The requests sent since `from`, except the test's own scans.
    fn requests_since(&self, from: u64) -> Vec<RequestRecord> {
        self.world
            .request_log()
            .into_iter()
            .filter(|r| r.seq >= from)
            .collect()
    }
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_string())
}

fn pk_of(item: &Item) -> String {
    text_attr(item, "PK").unwrap_or_default()
}

fn text_attr(item: &Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

fn user_attrs(user: &NewUser) -> [(&'static str, &str); 3] {
    [
        ("username", user.username.as_str()),
        ("email", user.email.as_str()),
        ("name", user.name.as_str()),
    ]
}

/// `USER#ana  email="ana@x.io", name="Ana", username="ana"`: attributes sorted by name.
fn row_of(pk: &str, attrs: &[(&str, &str)]) -> String {
    let mut attrs: Vec<(&str, &str)> = attrs.to_vec();
    attrs.sort();
    let shown: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    format!("{pk}  {}", shown.join(", "))
}

/// An item as one line, every attribute but `PK`, sorted by name.
fn row(item: &Item) -> String {
    let mut names: Vec<&String> = item.keys().filter(|k| *k != "PK").collect();
    names.sort();
    let shown: Vec<String> = names
        .iter()
        .map(|k| match item[*k].as_s() {
            Ok(v) => format!("{k}={v:?}"),
            Err(_) => format!("{k}={}", engine::value::value_to_json(&item[*k])),
        })
        .collect();
    format!("{}  {}", pk_of(item), shown.join(", "))
}

/// An item as one line, only the attributes the README names for its kind.
fn named_row(item: &Item, names: &[&str]) -> String {
    let pk = pk_of(item);
    let names: &[&str] = if pk.starts_with("EMAIL#") {
        &["username"]
    } else {
        names
    };
    let attrs: Vec<(&str, String)> = names
        .iter()
        .map(|n| {
            (
                *n,
                text_attr(item, n).unwrap_or_else(|| "(missing)".to_string()),
            )
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    row_of(&pk, &borrowed)
}

/// What changed between two snapshots, one line per item: `+` added, `-` removed, `~` changed.
fn changes(before: &Table, after: &Table) -> Vec<String> {
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|k| match (before.get(k), after.get(k)) {
            (None, Some(a)) => Some(format!("  + {}", row(a))),
            (Some(b), None) => Some(format!("  - {}", row(b))),
            (Some(b), Some(a)) if a != b => Some(format!("  ~ {}\n      was: {}", row(a), row(b))),
            _ => None,
        })
        .collect()
}

/// `USER#dee without its guard EMAIL#dee@x.io (…)`, or the other way round.
fn half_user(table: &Table, user: &NewUser) -> String {
    let (u, g) = (user_pk(&user.username), email_pk(&user.email));
    match (table.contains_key(&u), table.contains_key(&g)) {
        (true, false) => format!(
            "half a user: {u} without its guard {g} — anyone can now sign up with {}",
            user.email
        ),
        (false, true) => format!(
            "half a user: the guard {g} without its user {u} — {} is held by no one, forever",
            user.email
        ),
        (true, true) => format!("{u} and {g}"),
        (false, false) => format!("neither {u} nor {g}"),
    }
}

/// Fails with the first broken rule of the invariant: every user's email has a guard naming
/// the user; every guard names a user whose email it is.
fn check_invariant(table: &Table, when: &str) {
    let mut broken = Vec::new();
    for item in table.values() {
        let pk = pk_of(item);
        if let Some(name) = pk.strip_prefix("USER#") {
            let email = text_attr(item, "email").unwrap_or_default();
            match table.get(&email_pk(&email)) {
                None => broken.push(format!(
                    "{pk}'s email {email} has no guard (no {}): anyone can sign up with it",
                    email_pk(&email)
                )),
                Some(g) if text_attr(g, "username").as_deref() != Some(name) => {
                    broken.push(format!(
                        "{pk}'s email {email} is held by {} for another user: two users have \
                         the email",
                        row(g)
                    ))
                }
                _ => {}
            }
        } else if let Some(email) = pk.strip_prefix("EMAIL#") {
            let owner = text_attr(item, "username").unwrap_or_default();
            match table.get(&user_pk(&owner)) {
                None => broken.push(format!(
                    "{pk} names {owner}, and there is no {}: {email} is held by no one, forever",
                    user_pk(&owner)
                )),
                Some(u) if text_attr(u, "email").as_deref() != Some(email) => broken.push(format!(
                    "{pk} names {owner}, whose email is {}: {email} is held by no one, forever",
                    text_attr(u, "email").unwrap_or_default()
                )),
                _ => {}
            }
        }
    }
    if !broken.is_empty() {
        let lines: Vec<String> = broken.iter().map(|b| format!("  {b}")).collect();
        fail(format!(
            "{when}, the table breaks the rule \"every user's email has a guard naming the \
             user, every guard names a user whose email it is\":\n{}",
            lines.join("\n")
        ));
    }
}

/// Fails unless `sent` holds exactly one write request, a TransactWriteItems.
fn check_one_transaction(call: &str, sent: &[RequestRecord], what: &str, whole: &str) {
    let writes: Vec<&RequestRecord> = sent.iter().filter(|r| is_write(r)).collect();
    if matches!(writes.as_slice(), [one] if one.operation == "TransactWriteItems") {
        return;
    }
    let shown: Vec<String> = writes.iter().map(|r| show_bare(r)).collect();
    fail(format!(
        "{call} sent {} write request{} ({}). {what} is several items that belong together, \
         and separate requests are each atomic on their own item only: a failed request, a \
         throttle or a crash between them leaves half of {whole} in the table for good. \
         {ONE_TRANSACTION}",
        writes.len(),
        if writes.len() == 1 { "" } else { "s" },
        if shown.is_empty() {
            "none".to_string()
        } else {
            shown.join(", ")
        }
    ));
}

/// Why two sign-ups both won one value, read off the log: what each read before it wrote.
fn race_cause(log: &[RequestRecord], won: &[&Call]) -> String {
    let reads_first = won
        .iter()
        .all(|c| requests_of(log, c).first().is_some_and(|r| !is_write(r)));
    if reads_first {
        "Each sign-up read first, saw the value free, and then wrote: a check in your code and \
         the write after it are two requests, and another sign-up fits between them. A check \
         that is part of the write, its condition, is evaluated by DynamoDB on the partition's \
         leader, atomically with the write."
            .to_string()
    } else {
        "Both writes passed: a Put replaces the item that is there unless a condition of its \
         own refuses — the primary key is the only thing DynamoDB keeps unique, and only a \
         condition on the write checks it."
            .to_string()
    }
}

/// Two successful calls where the second's read came before the first's commit (the second
/// was built on what the first overwrote); empty if there are none.
fn overtaken<'a>(log: &[RequestRecord], calls: &'a [Call]) -> Vec<&'a Call> {
    let spans: Vec<(u64, u64, &Call)> = calls
        .iter()
        .filter(|c| c.result.is_ok())
        .filter_map(|c| {
            let own = requests_of(log, c);
            let read = own.iter().find(|r| !is_write(r))?.seq;
            let commit = own.iter().rfind(|r| is_write(r) && r.succeeded())?.seq;
            Some((read, commit, c))
        })
        .collect();
    for (_, first_commit, first) in &spans {
        for (read, commit, second) in &spans {
            if read < first_commit && first_commit < commit {
                return vec![first, second];
            }
        }
    }
    Vec::new()
}

fn is_write(r: &RequestRecord) -> bool {
    WRITES.contains(&r.operation)
}

/// The requests `call` sent, in order (a client's calls run one after another).
fn requests_of(log: &[RequestRecord], call: &Call) -> Vec<RequestRecord> {
    log.iter()
        .filter(|r| r.client == Some(call.client) && r.seq >= call.from && r.seq < call.to)
        .cloned()
        .collect()
}

/// The call, then its requests, one a line (indented: the wrap leaves them as they are).
fn show_call(log: &[RequestRecord], call: &Call) -> String {
    let mut text = format!(
        "  client {}'s {} → {}:",
        call.client,
        call.what,
        show_result(&call.result)
    );
    let sent = requests_of(log, call);
    if sent.is_empty() {
        text.push_str("\n    (no request)");
    }
    for r in sent {
        text.push_str(&format!("\n    {}", show_request(&r)));
    }
    text
}

/// `client 3's GetItem #12 (strongly consistent)`, `PutItem #14 (ConditionalCheckFailedException)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    match r.consistent_read {
        Some(true) => notes.push("strongly consistent".to_string()),
        Some(false) => notes.push("eventually consistent".to_string()),
        None => {}
    }
    let keys: Vec<String> = r.partitions.iter().map(|(_, p)| p.to_string()).collect();
    if keys.len() > 3 && is_write(r) {
        notes.push(format!("{} partitions", keys.len()));
    } else if !keys.is_empty() && is_write(r) {
        notes.push(format!(
            "partition{} {}",
            if keys.len() == 1 { "" } else { "s" },
            keys.join(", ")
        ));
    }
    notes.push(r.error.unwrap_or("ok").to_string());
    let who = r
        .client
        .map(|c| format!("client {c}'s "))
        .unwrap_or_default();
    format!("{who}{} #{} ({})", r.operation, r.seq, notes.join(", "))
}

/// [`show_request`] without the client.
fn show_bare(r: &RequestRecord) -> String {
    let mut r = r.clone();
    r.client = None;
    show_request(&r)
}

fn show_requests(requests: &[RequestRecord]) -> String {
    if requests.is_empty() {
        return "no request".to_string();
    }
    let shown: Vec<String> = requests.iter().map(show_bare).collect();
    shown.join(", ")
}

fn show_register(user: &NewUser) -> String {
    format!("register({}, {})", user.username, user.email)
}

fn show_error(e: &AccountError) -> String {
    match e {
        AccountError::UsernameTaken { username } => format!("UsernameTaken {{ {username:?} }}"),
        AccountError::EmailTaken { email } => format!("EmailTaken {{ {email:?} }}"),
        AccountError::UserChanged { username } => format!("UserChanged {{ {username:?} }}"),
        AccountError::NoSuchUser { username } => format!("NoSuchUser {{ {username:?} }}"),
        AccountError::TooLarge { members, max } => {
            format!("TooLarge {{ members: {members}, max: {max} }}")
        }
        AccountError::Engine(e) => format!("Engine({e})"),
    }
}

fn show_result(r: &Result<(), AccountError>) -> String {
    match r {
        Ok(()) => "Ok(())".to_string(),
        Err(e) => format!("Err({})", show_error(e)),
    }
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
