//! Hidden tests of the `document-versions` kata.
//!
//! Each test builds a fresh world with the kata's table (`docs`, `PK` + `SK`, on-demand; a
//! document is `PK = DOC#<id>` with `v0` the latest and `v0001` … its history) and judges the
//! learner's four functions from the outside: what they return, the item collection the table
//! holds afterwards (read by the test with its own strongly consistent Query), and the
//! requests the request log saw.
//!
//! - `saves_versions_in_turn`: 12 saves, one at a time: the versions returned, one
//!   TransactWriteItems per save, the history newest first as `history` reads it (unpadded
//!   sort keys show here: `v10` sorts before `v2`), `latest`, and the exact layout.
//! - `a_stale_save_is_a_conflict`: saves expecting an old, a missing (0) and a future version
//!   of a document at version 3, and one of a document that does not exist: `Conflict` with
//!   the version the document is at, nothing written.
//! - `racing_editors_lose_no_update`: 4 editors on the engine's seeded schedule
//!   (`World::concurrently`) save one new document 4 times each, reading `v0` and retrying
//!   on a conflict: no saved version replaced, each version handed out once, `v0` the newest.
//! - `a_failed_save_leaves_no_half`: the leader of the document's partition stops before a
//!   save or after its 1st, 2nd or 3rd request (watchers on the schedule do it, as in
//!   `stream-read-model`): `v0` and the history must still agree, and a failed save is
//!   `Engine(InternalServerError)`, not a conflict.
//! - `errors_are_not_conflicts`: a body over 400 KB is refused by DynamoDB: `Engine`.
//! - `reads_the_latest_and_any_version`: with every replica lagging 60 s, `latest` must be
//!   the newest (strongly consistent); `version(doc, n)` one GetItem of the padded key.
//! - `history_newest_first_reads_only_what_it_returns`: `history(doc, limit)` for several
//!   limits: newest first, no `v0`, one Query whose items read equal the versions returned.
//!
//! Each failure is explained from the request log (which request, by which editor, with what
//! outcome) and the item collection (which item says what).

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::world::schedule::yield_now;
use engine::{item, AttributeValue, Client, Error, Item, World};
use given::{SaveError, Version, LATEST, TABLE};
use katas_testkit::{check_eq_text, fail, run, seeded};

katas_testkit::learner! {
    /// Saves `body` by `author` as version `expected + 1`, only if the latest is `expected`.
    fn save(client: &Client, doc_id: &str, expected: u64, author: &str, body: &str) -> Result<u64, SaveError>;
    /// The latest version (None: no such document).
    fn latest(client: &Client, doc_id: &str) -> Result<Option<Version>, Error>;
    /// The newest `limit` versions, newest first, without `v0`.
    fn history(client: &Client, doc_id: &str, limit: i32) -> Result<Vec<Version>, Error>;
    /// One version (None: never saved).
    fn version(client: &Client, doc_id: &str, version: u64) -> Result<Option<Version>, Error>;
}

/// Racing editors, and the saves each makes.
const EDITORS: usize = 4;
const SAVES: usize = 4;
/// Attempts an editor of the race makes at one save before it gives up (the test's loop).
const ATTEMPTS: usize = 8;
/// Watchers beside a save on the schedule: after each of its requests, one of them is drawn
/// before the save goes on with probability WATCHERS / (WATCHERS + 1).
const WATCHERS: usize = 15;
/// Requests one save may send while its partition has no leader before the test stops it.
const RUNAWAY: u64 = 40;
/// How late every replica of the partition receives writes in the latest-read test.
const LAG: Duration = Duration::from_secs(60);
/// Operations that write items, and those that read them.
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
const READS: [&str; 5] = [
    "GetItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "TransactGetItems",
];
/// What every explanation of a lost update ends with.
const GUARD: &str = "A write can carry a condition, which DynamoDB evaluates on the item as \
                     it is when the write lands — not as the editor read it — and in a \
                     transaction one false condition cancels every action.";
/// What every explanation of a half-written save ends with.
const ONE_TRANSACTION: &str = "Each request is atomic on its own item; two requests are not \
                               atomic together, and the one that got through stays. Only a \
                               transaction writes two items all or nothing.";

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("saves_versions_in_turn", saves_versions_in_turn),
        seeded("a_stale_save_is_a_conflict", a_stale_save_is_a_conflict),
        seeded(
            "racing_editors_lose_no_update",
            racing_editors_lose_no_update,
        ),
        seeded("a_failed_save_leaves_no_half", a_failed_save_leaves_no_half),
        seeded("errors_are_not_conflicts", errors_are_not_conflicts),
        seeded(
            "reads_the_latest_and_any_version",
            reads_the_latest_and_any_version,
        ),
        seeded(
            "history_newest_first_reads_only_what_it_returns",
            history_newest_first_reads_only_what_it_returns,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Who saves the test documents, in turn.
const AUTHORS: [&str; 4] = ["ana", "bo", "chen", "dee"];

fn script(n: u64) -> Vec<Version> {
    (1..=n)
        .map(|v| Version {
            version: v,
            body: format!(
                "draft {v}: {}",
                ["intro", "goals", "design", "risks"][v as usize % 4]
            ),
            author: AUTHORS[(v as usize - 1) % AUTHORS.len()].to_string(),
        })
        .collect()
}

/// One editor at a time creates a document and saves it 11 more times.
fn saves_versions_in_turn(seed: u64) {
    let s = Scene::new(seed);
    let doc = "design-7";
    let want = script(12);
    for v in &want {
        s.world.advance(Duration::from_secs(1));
        let expected = v.version - 1;
        let call = format!(
            "save(\"{doc}\", expected {expected}, \"{}\", \"{}\")",
            v.author, v.body
        );
        let from = s.next_seq();
        let result = learner::save(&s.client, doc, expected, &v.author, &v.body);
        let sent = s.requests_since(from);
        let context = format!(
            "{call}, with no one else editing, returned {}; its requests: {}",
            show_save(&result),
            show_requests(&sent)
        );
        match &result {
            Ok(n) if *n == v.version => {}
            Ok(n) => fail(format!(
                "{context}.\nIt saved version {}: a save stores version expected + 1 and \
                 returns it, not {n}",
                v.version
            )),
            Err(e) => {
                let new_doc = if expected == 0 && matches!(e, SaveError::Conflict { .. }) {
                    " The document did not exist: there is no v0, and a missing item has no \
                     version, so a condition such as version = :expected is false on it and \
                     the transaction is cancelled. A condition can also ask whether the item \
                     exists at all."
                } else {
                    ""
                };
                fail(format!(
                    "{context}.\nThe document was at version {expected} (0: it did not exist), \
                     as the save expected: it must succeed.{new_doc}\nThe document now:\n{}",
                    show_rows(&s.collection(doc))
                ))
            }
        }
        let writes: Vec<&RequestRecord> = sent.iter().filter(|r| is_write(r)).collect();
        if writes.len() > 1 {
            fail(format!(
                "{context}.\nOne save sent {} write requests. {ONE_TRANSACTION} (The test \
                 a_failed_save_leaves_no_half stops the partition's leader between them.)",
                writes.len()
            ));
        }
        if writes.first().map(|w| w.operation) != Some("TransactWriteItems") {
            fail(format!(
                "{context}.\nA save writes two items — v0 and the new history item — and only a \
                 transaction writes both or neither; this one's write was {}.",
                writes
                    .first()
                    .map_or("missing".to_string(), |w| show_bare(w))
            ));
        }
    }
    s.world.settle();

    // The history as the learner reads it: unpadded sort keys show here.
    let rows = s.collection(doc);
    let newest_first: Vec<Version> = want.iter().rev().cloned().collect();
    let got = learner::history(&s.client, doc, 12)
        .unwrap_or_else(|e| fail(format!("history(\"{doc}\", 12) failed: {e}")));
    if got != newest_first {
        let unpadded: Vec<&Row> = rows
            .iter()
            .filter(|r| r.sk != LATEST && r.sk.len() != 5)
            .collect();
        let why = if got == want {
            "These are oldest first: a Query returns items in ascending sort-key order unless \
             told otherwise."
                .to_string()
        } else if unpadded.is_empty() {
            "history returns the newest versions first, each as it was saved.".to_string()
        } else {
            let sks: Vec<&str> = rows.iter().map(|r| r.sk.as_str()).collect();
            format!(
                "The history items' sort keys, in the order DynamoDB keeps them: {}. Sort keys \
                 compare as strings, byte by byte, so v10 sorts after v1 and before v2: a Query \
                 newest first returns the versions in that order, reversed: string order is \
                 number order only for numbers of one width.",
                sks.join(", ")
            )
        };
        check_eq_text(
            &show_versions(&newest_first),
            &show_versions(&got),
            format!(
                "after 12 saves of \"{doc}\", one a second, history(\"{doc}\", 12) should be \
                 versions 12 … 1. {why}"
            ),
        );
    }
    let newest = learner::latest(&s.client, doc)
        .unwrap_or_else(|e| fail(format!("latest(\"{doc}\") failed: {e}")));
    check_eq_text(
        &show_version_opt(&Some(want[11].clone())),
        &show_version_opt(&newest),
        format!("after 12 saves of \"{doc}\", latest(\"{doc}\") is version 12"),
    );
    check_eq_text(
        &show_rows(&expected_rows(&want)),
        &show_rows(&rows),
        format!(
            "after 12 saves, the item collection PK = DOC#{doc} (the test's strongly consistent \
             Query): v0 holds the latest version (12), and each version has its history item \
             v0001 … v0012, with version, author and body as saved"
        ),
    );
}

/// Saves built on a version the document is not at: an old one, none, a future one.
fn a_stale_save_is_a_conflict(seed: u64) {
    let s = Scene::new(seed);
    let doc = "spec";
    let saved = script(3);
    s.store(doc, &saved);
    let cases: [(u64, &str); 3] = [
        (
            2,
            "an editor who opened version 2, while chen saved version 3 since",
        ),
        (
            0,
            "an editor who thinks the document is new (expected 0: create it)",
        ),
        (
            7,
            "an editor's client that sends a version the document never reached (7)",
        ),
    ];
    for (expected, who) in cases {
        s.world.advance(Duration::from_secs(1));
        let body = format!("mallory's text, built on version {expected}");
        check_conflict(&s, doc, expected, &body, 3, who);
    }
    check_conflict(
        &s,
        "never-saved",
        2,
        "text for a document no one created",
        0,
        "an editor who expects version 2 of a document that does not exist",
    );
}

/// One save of `doc` expecting `expected` while the document is at `current`: a conflict.
fn check_conflict(s: &Scene, doc: &str, expected: u64, body: &str, current: u64, who: &str) {
    let before = s.collection(doc);
    let from = s.next_seq();
    let result = learner::save(&s.client, doc, expected, "mallory", body);
    let sent = s.requests_since(from);
    let after = s.collection(doc);
    let at = if current == 0 {
        "a document that does not exist".to_string()
    } else {
        format!("a document at version {current}")
    };
    let context = format!(
        "save(\"{doc}\", expected {expected}, \"mallory\", ..) — {who} — on {at} returned {}; \
         its requests: {}",
        show_save(&result),
        show_requests(&sent)
    );
    let changed = changes(&before, &after);
    match &result {
        Ok(n) => {
            let v0 = after.iter().find(|r| r.sk == LATEST);
            let story = if current > 0 && expected < current {
                format!(
                    "It overwrote version {current}, saved after this editor opened version \
                     {expected}: a lost update."
                )
            } else if current > 0 && expected == 0 {
                format!(
                    "It recreated the document at version {n} over its {current} versions: a \
                     lost update."
                )
            } else if current > 0 {
                format!(
                    "v0 now says version {} while the history stops at version {current}: \
                     versions {} to {} were never saved. The history item's \
                     attribute_not_exists(SK) guards only the number {n}; only a condition on \
                     v0 says the document is still at the version expected.",
                    v0.and_then(|r| r.version).unwrap_or(0),
                    current + 1,
                    n.saturating_sub(1)
                )
            } else {
                format!(
                    "The document did not exist, yet the save made it version {n}, with no \
                     versions before it."
                )
            };
            fail(format!(
                "{context}.\nThe document was not at version {expected}, so the save must be \
                 refused with Conflict {{ current: {current} }} and write nothing. {story}\n\
                 What the save changed:\n{changed}\n{GUARD}"
            ));
        }
        Err(SaveError::Engine(e)) => fail(format!(
            "{context}.\nThe transaction was cancelled because a condition failed \
             (TransactionCanceledException, reasons {}): that is a conflict — return \
             SaveError::Conflict {{ current: {current} }}, not Engine({}).",
            cancellation_codes(e),
            e.code().unwrap_or("an error")
        )),
        Err(SaveError::Conflict { current: got }) if *got != current => fail(format!(
            "{context}.\nA conflict reports the version the document is at now: {current}, \
             not {got}. That version is on v0 now: a cancelled transaction can hand back \
             the item a condition failed on, and v0 can be read again — a document that does \
             not exist is at 0."
        )),
        Err(SaveError::Conflict { .. }) => {}
    }
    if !changed.is_empty() {
        fail(format!(
            "{context}.\nA refused save writes nothing, yet the item collection changed:\n\
             {changed}\n{ONE_TRANSACTION}"
        ));
    }
}

/// One attempt of a racing editor: what it expected, what save returned, and the span of the
/// request log the save ran in.
struct Attempt {
    editor: usize,
    save: usize,
    expected: u64,
    body: String,
    result: Result<u64, SaveError>,
    from: u64,
    to: u64,
}

/// 4 editors on the world's seeded schedule save one new document, 4 times each.
fn racing_editors_lose_no_update(seed: u64) {
    let s = Scene::new(seed);
    let doc = "roadmap";
    let world = &s.world;
    let raced = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(seed).run(EDITORS, |i, client| {
            let mut attempts = Vec::new();
            for j in 0..SAVES {
                for k in 0..ATTEMPTS {
                    let expected = read_v0(&client, doc).and_then(|r| r.version).unwrap_or(0);
                    let body = format!("editor {i} save {j} attempt {k}");
                    let from = world.request_totals().requests;
                    let result =
                        learner::save(&client, doc, expected, &format!("editor {i}"), &body);
                    let to = world.request_totals().requests;
                    let done = !matches!(result, Err(SaveError::Conflict { .. }));
                    attempts.push(Attempt {
                        editor: i,
                        save: j,
                        expected,
                        body,
                        result,
                        from,
                        to,
                    });
                    if done {
                        break;
                    }
                }
            }
            attempts
        })
    }));
    let attempts: Vec<Attempt> = match raced {
        Ok(per_editor) => per_editor.into_iter().flatten().collect(),
        Err(payload) => fail(format!(
            "your code panicked in one of the racing editors: {}",
            panic_text(&*payload)
        )),
    };
    let log = s.world.request_log();
    let rows = s.collection(doc);
    let oks: Vec<&Attempt> = attempts.iter().filter(|a| a.result.is_ok()).collect();
    let summary = format!(
        "{EDITORS} editors each saved the new document \"{doc}\" {SAVES} times at once (each \
         save: a strongly consistent read of v0, then save(expected = its version), again \
         after a conflict): {} saves returned Ok, {} Conflict",
        oks.len(),
        attempts.len() - oks.len()
    );
    if let Some((a, e)) = attempts.iter().find_map(|a| match &a.result {
        Err(SaveError::Engine(e)) => Some((a, e)),
        _ => None,
    }) {
        fail(format!(
            "{summary}.\nEditor {}'s save (expected {}) failed: {e}\n{}",
            a.editor,
            a.expected,
            show_attempt(&log, a)
        ));
    }
    // The headline: a save that returned Ok(n) whose version n is not what it saved.
    for a in &oks {
        let Ok(n) = a.result else { continue };
        let row = rows.iter().find(|r| r.sk == history_sk(n));
        if row.is_some_and(|r| r.body.as_deref() == Some(a.body.as_str())) {
            continue;
        }
        let rival = oks.iter().find(|b| b.from > a.from && b.result == Ok(n));
        let how = match rival {
            Some(b) => format!(
                "Editor {}'s later save also expected {} and also returned Ok({n}):\n{}\nIt \
                 replaced version {n} — its history item and v0 — although v0 was no longer at \
                 version {} when its transaction ran: a lost update.",
                b.editor,
                b.expected,
                show_attempt(&log, b),
                b.expected
            ),
            None => "A later save replaced it.".to_string(),
        };
        fail(format!(
            "{summary}.\nEditor {}'s save (expected {}, body \"{}\") returned Ok({n}):\n{}\nBut \
             version {n} in the history is now {}.\n{how}\n{GUARD}",
            a.editor,
            a.expected,
            a.body,
            show_attempt(&log, a),
            row.map_or("missing".to_string(), show_row)
        ));
    }
    if let Some(problem) = disagreement(&rows) {
        fail(format!(
            "{summary}.\nThe document afterwards: {problem}\n{}",
            show_rows(&rows)
        ));
    }
    let last = rows
        .iter()
        .find(|r| r.sk == LATEST)
        .and_then(|r| r.version)
        .unwrap_or(0);
    for a in attempts.iter().filter(|a| a.result.is_err()) {
        let Err(SaveError::Conflict { current }) = a.result else {
            continue;
        };
        if current <= a.expected || current > last {
            let half_saves = log.iter().any(|r| {
                r.client.is_some()
                    && r.succeeded()
                    && ["PutItem", "UpdateItem"].contains(&r.operation)
            });
            let note = if current == a.expected && half_saves {
                format!(
                    "\nIf v0 really was at version {} then, the save collided with a history \
                     item another editor's save had written before its v0: saves sent as \
                     separate PutItem and UpdateItem requests are seen half done by everyone \
                     else. {ONE_TRANSACTION}",
                    a.expected
                )
            } else {
                String::new()
            };
            fail(format!(
                "{summary}.\nEditor {}'s save (expected {}) returned Conflict {{ current: \
                 {current} }}:\n{}\nA conflict means another editor saved after version {}: \
                 the version the document is at is above it (and at most {last}, the last \
                 version saved). That version is on v0: a cancelled transaction can hand \
                 back the item a condition failed on.{note}",
                a.editor,
                a.expected,
                show_attempt(&log, a),
                a.expected
            ));
        }
        if let Some(row) = rows
            .iter()
            .find(|r| r.body.as_deref() == Some(a.body.as_str()))
        {
            fail(format!(
                "{summary}.\nEditor {}'s save (expected {}) returned Conflict, yet its body is \
                 in the document, {}:\n{}\nConflict means nothing of the save was written. \
                 {ONE_TRANSACTION}",
                a.editor,
                a.expected,
                show_row(row),
                show_attempt(&log, a)
            ));
        }
    }
    let mut versions: Vec<u64> = oks.iter().filter_map(|a| a.result.clone().ok()).collect();
    versions.sort_unstable();
    check_eq_text(
        &format!(
            "versions returned: {:?}\nv0: version {}",
            (1..=oks.len() as u64).collect::<Vec<_>>(),
            oks.len()
        ),
        &format!("versions returned: {versions:?}\nv0: version {last}"),
        format!(
            "{summary}.\nEach save moves the document one version on, and returns the version it \
             saved: the saves' versions, sorted, are 1, 2, … once each, and the last is v0's"
        ),
    );
}

/// The leader of the document's partition stops during a save, at a different point each
/// round; the document must never be half saved.
fn a_failed_save_leaves_no_half(seed: u64) {
    let s = Scene::new(seed);
    let doc = "incident-log";
    s.store(doc, &script(2));
    let partition = s.partition_of(doc);
    let mut at = 2;
    for (round, k) in [0u64, 1, 2, 1, 3, 1].into_iter().enumerate() {
        s.world.advance(Duration::from_secs(1));
        let before = s.collection(doc);
        let author = AUTHORS[round % AUTHORS.len()];
        let body = format!("update {round}: status page posted");
        let from = s.next_seq();
        let outcome = if k == 0 {
            s.world
                .stop_leader(TABLE, partition)
                .unwrap_or_else(|e| fail(format!("the test could not stop a leader: {e}")));
            Ok(learner::save(&s.client, doc, at, author, &body))
        } else {
            stopped_after(&s.world, seed ^ ((round as u64) << 8), k, partition, || {
                learner::save(&s.client, doc, at, author, &body)
            })
        };
        let sent = s.requests_since(from);
        s.world.heal_all();
        s.world.advance(Duration::from_secs(5));
        s.world.settle();
        let after = s.collection(doc);
        let when = if k == 0 {
            format!("the leader of partition {partition} had stopped before the save")
        } else {
            let after_request = sent.get(k as usize - 1).map_or_else(
                || format!("its request {k}"),
                |r| format!("its request {k}, {}", show_bare(r)),
            );
            format!(
                "the leader of partition {partition} stopped after {after_request} (a storage \
                 node failing mid-save: a request there is refused with InternalServerError \
                 until a new leader is elected)"
            )
        };
        let call = format!("save(\"{doc}\", expected {at}, \"{author}\", \"{body}\")");
        let result = match outcome {
            Ok(result) => result,
            Err(runaway) => fail(format!(
                "{call}: {when}. {runaway}\nIts requests: {}",
                show_requests(&sent)
            )),
        };
        let context = format!(
            "{call}: {when}. It returned {}; its requests: {}",
            show_save(&result),
            show_requests(&sent)
        );
        if let Some(problem) = disagreement(&after) {
            fail(format!(
                "{context}.\nThe document is half saved — {problem}\nWhat the save changed:\n{}\n\
                 {ONE_TRANSACTION}",
                changes(&before, &after)
            ));
        }
        match &result {
            Ok(n) => {
                let v0 = after.iter().find(|r| r.sk == LATEST);
                if v0.and_then(|r| r.version) != Some(*n)
                    || v0.and_then(|r| r.body.as_deref()) != Some(body.as_str())
                {
                    fail(format!(
                        "{context}.\nIt returned Ok({n}), but the document is:\n{}",
                        show_rows(&after)
                    ));
                }
                at = *n;
            }
            Err(SaveError::Conflict { current }) => fail(format!(
                "{context}.\nNo other editor saved: the save failed because the partition had \
                 no leader ({}), not because a condition failed. That is \
                 SaveError::Engine(e), not Conflict {{ current: {current} }}: the editor must \
                 not be told someone else saved.",
                sent.iter()
                    .find_map(|r| r.error)
                    .unwrap_or("InternalServerError")
            )),
            Err(SaveError::Engine(e)) => {
                if e.code() != Some("InternalServerError") {
                    fail(format!(
                        "{context}.\nThe partition had no leader, so DynamoDB refused the \
                         request with InternalServerError; return that error as \
                         SaveError::Engine(e), as the engine reported it (not {}).",
                        e.code().unwrap_or("another error")
                    ));
                }
                let changed = changes(&before, &after);
                if !changed.is_empty() {
                    fail(format!(
                        "{context}.\nIt failed, yet the document changed:\n{changed}\n\
                         {ONE_TRANSACTION}"
                    ));
                }
            }
        }
    }
}

/// A body that makes the items larger than DynamoDB's 400 KB.
fn errors_are_not_conflicts(seed: u64) {
    let s = Scene::new(seed);
    let doc = "attachments";
    s.store(doc, &script(1));
    s.world.advance(Duration::from_secs(1));
    // First a save DynamoDB accepts: a save that always fails is no proof of anything here.
    let first = learner::save(&s.client, doc, 1, "bo", "see the attached log");
    if first != Ok(2) {
        fail(format!(
            "save(\"{doc}\", expected 1, \"bo\", \"see the attached log\") on a document at \
             version 1, with no one else editing, returned {}: it must save version 2 (before \
             this test tries a body that is too large)",
            show_save(&first)
        ));
    }
    s.world.advance(Duration::from_secs(1));
    let before = s.collection(doc);
    let huge = "x".repeat(410 * 1024);
    let from = s.next_seq();
    let result = learner::save(&s.client, doc, 2, "bo", &huge);
    let sent = s.requests_since(from);
    let refused = sent
        .iter()
        .filter(|r| is_write(r))
        .find_map(|r| r.error)
        .unwrap_or("an error");
    let context = format!(
        "save(\"{doc}\", expected 2, \"bo\", 410 KB of text) on a document at version 2: the \
         items would be larger than DynamoDB's 400 KB, so the write is refused ({refused}). \
         The save returned {}; its requests: {}",
        show_save(&result),
        show_requests(&sent)
    );
    match &result {
        Err(SaveError::Engine(e)) if e.code() == Some("ValidationException") => {}
        Err(SaveError::Engine(e)) => fail(format!(
            "{context}.\nReturn the engine's error as it reported it: SaveError::Engine with \
             the ValidationException, not {}.",
            e.code().unwrap_or("another error")
        )),
        Err(SaveError::Conflict { current }) => fail(format!(
            "{context}.\nNo other editor saved, and the document is at the version expected: \
             the request was refused as invalid, not for a failed condition. Return it as \
             SaveError::Engine(e); Conflict {{ current: {current} }} would tell the editor \
             that someone else saved. Only a TransactionCanceledException whose reasons \
             include ConditionalCheckFailed is a conflict."
        )),
        Ok(n) => fail(format!(
            "{context}.\nIt returned Ok({n}), but DynamoDB refused the write — was the error \
             dropped?"
        )),
    }
    let changed = changes(&before, &s.collection(doc));
    if !changed.is_empty() {
        fail(format!(
            "{context}.\nA refused save writes nothing, yet the document changed:\n{changed}"
        ));
    }
}

/// The latest, strongly consistent, while every replica lags; any version by one GetItem.
fn reads_the_latest_and_any_version(seed: u64) {
    let s = Scene::new(seed);
    let doc = "design-7";
    let all = script(18);
    s.store(doc, &all[..12]);
    s.store("design-8", &script(3));
    s.world.settle();
    let partition = s.partition_of(doc);
    for az in Az::ALL {
        s.world
            .lag_replica(TABLE, partition, az, LAG)
            .unwrap_or_else(|e| fail(format!("the test could not make replicas lag: {e}")));
    }
    let mut eventual_latest: Option<RequestRecord> = None;
    for v in &all[12..] {
        s.world.advance(Duration::from_secs(1));
        let saved_from = s.next_seq();
        s.store_one(doc, v);
        let saved = s.requests_since(saved_from);
        let from = s.next_seq();
        let got = learner::latest(&s.client, doc);
        let sent = s.requests_since(from);
        let call = format!(
            "latest(\"{doc}\") right after another editor saved version {} ({}), while every \
             replica of partition {partition} receives writes {} s late",
            v.version,
            show_requests(&saved),
            LAG.as_secs()
        );
        let got = got.unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
        check_one_get(&call, &sent);
        if sent[0].consistent_read != Some(true) {
            eventual_latest.get_or_insert(sent[0].clone());
        }
        if got.as_ref() != Some(v) {
            let why = match sent.first() {
                Some(r) if r.consistent_read == Some(false) => format!(
                    " Its {} #{} was eventually consistent: a replica that had not received \
                     the save answered it, and the editor opened a version that is already gone \
                     — their next save would be refused for nothing. A strongly consistent read \
                     is answered by the leader, which has every acknowledged write.",
                    r.operation, r.seq
                ),
                _ => String::new(),
            };
            check_eq_text(
                &show_version_opt(&Some(v.clone())),
                &show_version_opt(&got),
                format!("{call}, returned another version.{why}"),
            );
        }
    }
    if let Some(r) = eventual_latest {
        fail(format!(
            "latest(\"{doc}\") sent {}: it returned the newest version here, but only because \
             the replica that answered had the last save. The version latest shows is the \
             expected of the editor's next save, and an eventually consistent read may be \
             answered by a replica that has not received the last save: it would show a \
             version already gone.",
            show_bare(&r)
        ));
    }
    s.world.heal_all();
    s.world.settle();
    let mut cases: Vec<(&str, u64, Option<Version>)> = [1u64, 7, 10, 12, 18]
        .into_iter()
        .map(|n| (doc, n, Some(all[n as usize - 1].clone())))
        .collect();
    cases.push((doc, 19, None));
    cases.push(("design-8", 3, Some(script(3)[2].clone())));
    cases.push(("no-such-doc", 1, None));
    for (d, n, want) in cases {
        let call = format!("version(\"{d}\", {n})");
        let from = s.next_seq();
        let got = learner::version(&s.client, d, n)
            .unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
        let sent = s.requests_since(from);
        check_one_get(&call, &sent);
        if got != want {
            let why = if want.is_some() && got.is_none() {
                format!(
                    " Its GetItem found no item: the history item of version {n} is SK = \
                     {} — the version in 4 digits.",
                    history_sk(n)
                )
            } else {
                String::new()
            };
            check_eq_text(
                &show_version_opt(&want),
                &show_version_opt(&got),
                format!("{call}: one GetItem of that version's history item.{why}"),
            );
        }
    }
    let from = s.next_seq();
    let got = learner::latest(&s.client, "no-such-doc")
        .unwrap_or_else(|e| fail(format!("latest(\"no-such-doc\") failed: {e}")));
    check_one_get("latest(\"no-such-doc\")", &s.requests_since(from));
    check_eq_text(
        "None",
        &show_version_opt(&got),
        "latest(\"no-such-doc\"): a document that does not exist has no latest version",
    );
}

/// `history(doc, limit)` for several limits: newest first, no v0, items read = returned.
fn history_newest_first_reads_only_what_it_returns(seed: u64) {
    let s = Scene::new(seed);
    let doc = "design-7";
    let all = script(12);
    s.store(doc, &all);
    s.store("design-8", &script(3));
    s.world.settle();
    let cases: [(&str, i32, usize); 5] = [
        (doc, 5, 5),
        (doc, 1, 1),
        (doc, 12, 12),
        (doc, 20, 12),
        ("no-such-doc", 5, 0),
    ];
    for (d, limit, count) in cases {
        let want: Vec<Version> = if d == doc {
            all.iter().rev().take(count).cloned().collect()
        } else {
            Vec::new()
        };
        let call = format!("history(\"{d}\", {limit})");
        let situation = if d == doc {
            "on a document of 12 versions (v0 and v0001 … v0012, 13 items)".to_string()
        } else {
            "on a document that does not exist".to_string()
        };
        let from = s.next_seq();
        let got = learner::history(&s.client, d, limit)
            .unwrap_or_else(|e| fail(format!("{call} {situation} failed: {e}")));
        let sent = s.requests_since(from);
        let context = format!(
            "{call} {situation} returned {} version(s); its requests: {}",
            got.len(),
            show_requests(&sent)
        );
        if let Some(scan) = sent.iter().find(|r| r.operation == "Scan") {
            fail(format!(
                "{context}.\nIts {} read {} items: a Scan reads every item of the table, every \
                 document's, to return one document's history. The history is one item \
                 collection, sorted by SK: one Query can read just the part a page needs.",
                show_bare(scan),
                scan.items_read
            ));
        }
        let queries: Vec<&RequestRecord> = sent.iter().filter(|r| r.operation == "Query").collect();
        if queries.len() != 1 || sent.len() != 1 {
            fail(format!(
                "{context}.\nA page of history is one Query, no other request."
            ));
        }
        let query = queries[0];
        if got != want {
            let latest_copy = got.len() == want.len() + 1
                && got.last() == all.last()
                && got[..want.len()] == want[..];
            let oldest_first = got.len() == want.len()
                && !want.is_empty()
                && got.iter().zip(all.iter()).all(|(g, a)| g == a);
            let why = if latest_copy {
                "Its last version is v0 — the latest a second time. v0 sorts before v0001 \
                 (\"v0\" is a prefix of \"v0001\"), so newest first it is the collection's \
                 last item: when the key condition lets v0 in, a page that reaches the first \
                 version ends with it."
            } else if oldest_first {
                "These are the oldest versions, oldest first: a Query returns items in \
                 ascending sort-key order unless told otherwise."
            } else {
                "history returns the newest `limit` versions, newest first, without v0."
            };
            check_eq_text(
                &show_versions(&want),
                &show_versions(&got),
                format!("{context}. {why}"),
            );
        }
        if query.items_read != got.len() as u64 {
            let why = if d == doc && query.items_read == 13 {
                "It read the whole item collection, v0 and all 12 versions, for one page: \
                 every page would pay for every version the document ever had. A Query can \
                 read newest first and stop at its Limit: the key condition and Limit decide \
                 what is read."
                    .to_string()
            } else if d == doc && query.items_read as usize > count {
                "Items dropped in your code are still read and paid for — v0 (a whole copy of \
                 the latest body) when the page reaches the first version, or one version too \
                 many. Limit counts the items read, and the key condition decides which are \
                 read."
                    .to_string()
            } else {
                "A Query pays for every item it reads, returned or not.".to_string()
            };
            fail(format!(
                "{context}.\nIts {} read {} item(s) for {} returned. {why}",
                show_bare(query),
                query.items_read,
                got.len()
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The scene, and helpers
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

/// One item of a document's collection, as the test reads it.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    sk: String,
    version: Option<u64>,
    author: Option<String>,
    body: Option<String>,
    /// Attribute names beyond the layout's, sorted.
    extra: Vec<String>,
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
            .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
            .key_schema(KeySchemaElement::new("SK", KeyType::Range))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        Scene { world, client }
    }

    /// Stores `versions` of `doc` as the README lays them out: one history item each, and
    /// `v0` a copy of the last.
    fn store(&self, doc: &str, versions: &[Version]) {
        for v in versions {
            self.store_one(doc, v);
        }
    }

    /// One more version of `doc`: its history item, then `v0` (the test's own writes).
    fn store_one(&self, doc: &str, v: &Version) {
        for sk in [history_sk(v.version), LATEST.to_string()] {
            self.client
                .put_item()
                .table_name(TABLE)
                .set_item(Some(item! {
                    "PK" => format!("DOC#{doc}"),
                    "SK" => sk,
                    "version" => v.version,
                    "author" => v.author.clone(),
                    "body" => v.body.clone(),
                }))
                .send()
                .unwrap_or_else(|e| fail(format!("the test could not store {doc}: {e}")));
        }
    }

    /// The document's item collection, as the leader has it, in sort-key order.
    fn collection(&self, doc: &str) -> Vec<Row> {
        let pages = self
            .client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(format!("DOC#{doc}")))
            .consistent_read(true)
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<Item>, _>>()
            .unwrap_or_else(|e| fail(format!("the test could not read {doc}: {e}")));
        pages.iter().map(row_of).collect()
    }

    fn partition_of(&self, doc: &str) -> u32 {
        self.world
            .partition_of(TABLE, &AttributeValue::S(format!("DOC#{doc}")))
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

fn row_of(item: &Item) -> Row {
    let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
    let mut extra: Vec<String> = item
        .keys()
        .filter(|k| !["PK", "SK", "version", "author", "body"].contains(&k.as_str()))
        .cloned()
        .collect();
    extra.sort();
    Row {
        sk: text("SK").unwrap_or_default(),
        version: item
            .get("version")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok()),
        author: text("author"),
        body: text("body"),
        extra,
    }
}

/// The strongly consistent read of `v0` a racing editor makes before each save.
fn read_v0(client: &Client, doc: &str) -> Option<Row> {
    let out = client
        .get_item()
        .table_name(TABLE)
        .key("PK", AttributeValue::S(format!("DOC#{doc}")))
        .key("SK", AttributeValue::S(LATEST.into()))
        .consistent_read(true)
        .send()
        .unwrap_or_else(|e| fail(format!("the test's editor could not read v0: {e}")));
    out.item().map(row_of)
}

fn history_sk(version: u64) -> String {
    format!("v{version:04}")
}

/// The collection the README's layout gives `versions`: `v0` (a copy of the last), then each.
fn expected_rows(versions: &[Version]) -> Vec<Row> {
    let row = |sk: String, v: &Version| Row {
        sk,
        version: Some(v.version),
        author: Some(v.author.clone()),
        body: Some(v.body.clone()),
        extra: Vec::new(),
    };
    let mut rows: Vec<Row> = versions
        .last()
        .map(|v| row(LATEST.into(), v))
        .into_iter()
        .collect();
    rows.extend(versions.iter().map(|v| row(history_sk(v.version), v)));
    rows
}

/// What is wrong with a document's collection, if anything: v0 must be exactly its newest
/// history item, and the history versions 1 … n, each under its padded key.
fn disagreement(rows: &[Row]) -> Option<String> {
    let v0 = rows.iter().find(|r| r.sk == LATEST);
    let history: Vec<&Row> = rows.iter().filter(|r| r.sk != LATEST).collect();
    if let Some(r) = history
        .iter()
        .find(|r| r.version.map(history_sk).as_deref() != Some(r.sk.as_str()))
    {
        return Some(format!(
            "the history item {} is not under its key {}.",
            show_row(r),
            r.version
                .map_or("v<version, 4 digits>".to_string(), history_sk)
        ));
    }
    let mut versions: Vec<u64> = history.iter().filter_map(|r| r.version).collect();
    versions.sort_unstable();
    let newest = history.iter().max_by_key(|r| r.version);
    match (v0, newest) {
        (None, None) => None,
        (None, Some(h)) => Some(format!(
            "the history has {}, but there is no v0: the document has no latest version.",
            show_row(h)
        )),
        (Some(v0), None) => Some(format!(
            "v0 says {}, but the history has no version at all.",
            show_row(v0)
        )),
        (Some(v0), Some(h)) => {
            if versions != (1..=versions.len() as u64).collect::<Vec<_>>() {
                return Some(format!(
                    "the history's versions are {versions:?}: not 1 … n without a gap."
                ));
            }
            let same = v0.version == h.version && v0.author == h.author && v0.body == h.body;
            (!same).then(|| {
                format!(
                    "v0 and the history disagree: v0 says {}, while the newest history item, \
                     {}, is {}.",
                    show_content(v0),
                    h.sk,
                    show_content(h)
                )
            })
        }
    }
}

/// What changed between two reads of a collection, one line per item; empty if nothing.
fn changes(before: &[Row], after: &[Row]) -> String {
    let mut lines = Vec::new();
    for a in after {
        match before.iter().find(|b| b.sk == a.sk) {
            None => lines.push(format!("  written: {}", show_row(a))),
            Some(b) if b != a => lines.push(format!(
                "  replaced: {}\n       now: {}",
                show_row(b),
                show_row(a)
            )),
            _ => {}
        }
    }
    for b in before
        .iter()
        .filter(|b| !after.iter().any(|a| a.sk == b.sk))
    {
        lines.push(format!("  deleted: {}", show_row(b)));
    }
    lines.join("\n")
}

/// Runs `body` (one save) as a client on a seeded schedule, beside watchers that stop the
/// partition's leader once it has sent `k` requests (they land; the next is refused). Err if
/// the save went on sending requests to the leaderless partition without end.
fn stopped_after<T: Send>(
    world: &World,
    seed: u64,
    k: u64,
    partition: u32,
    body: impl FnOnce() -> T + Send,
) -> Result<T, String> {
    type Body<'a, T> = Box<dyn FnOnce(Client) -> Option<T> + Send + 'a>;
    let start = world.request_totals().requests;
    let (done, stopped) = (AtomicBool::new(false), AtomicBool::new(false));
    let (done, stopped) = (&done, &stopped);
    let mut bodies: Vec<Body<'_, T>> = vec![Box::new(move |_: Client| {
        let result = body();
        done.store(true, Ordering::SeqCst);
        Some(result)
    })];
    for _ in 0..WATCHERS {
        bodies.push(Box::new(move |_: Client| loop {
            if done.load(Ordering::SeqCst) {
                return None;
            }
            let sent = world.request_totals().requests - start;
            if sent >= k && !stopped.swap(true, Ordering::SeqCst) {
                world
                    .stop_leader(TABLE, partition)
                    .unwrap_or_else(|e| fail(format!("the test could not stop a leader: {e}")));
            }
            if sent > RUNAWAY {
                panic::resume_unwind(Box::new(Runaway));
            }
            yield_now();
        }));
    }
    match panic::catch_unwind(AssertUnwindSafe(|| world.run_concurrently(seed, bodies))) {
        Ok(results) => Ok(results
            .into_iter()
            .next()
            .flatten()
            .unwrap_or_else(|| fail("the save's result went missing"))),
        Err(payload) if payload.is::<Runaway>() => Err(format!(
            "It sent more than {RUNAWAY} requests to the partition without a leader and was \
             still going: an InternalServerError is returned as SaveError::Engine(e) — the \
             caller decides whether to retry, and a loop without a bound never returns."
        )),
        Err(payload) => fail(format!(
            "your code panicked during the save: {}",
            panic_text(&*payload)
        )),
    }
}

/// The payload the watchers unwind with when a save never stops.
struct Runaway;

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Fails unless `sent` is exactly one GetItem (and, for `latest`, a strongly consistent one
/// is checked by the caller through what it returned).
fn check_one_get(call: &str, sent: &[RequestRecord]) {
    if sent.len() != 1 || sent[0].operation != "GetItem" {
        let scan = sent.iter().find(|r| r.operation == "Scan");
        fail(format!(
            "{call} sent {}: one version is one item, and its whole key is known (PK = \
             DOC#<id>, SK = v0 or v<version, 4 digits>): one GetItem.{}",
            show_requests(sent),
            scan.map_or(String::new(), |r| format!(
                " Its {} read {} items of every document in the table.",
                show_bare(r),
                r.items_read
            ))
        ));
    }
}

fn cancellation_codes(e: &Error) -> String {
    let Error::TransactionCanceledException(cancelled) = e else {
        return "none".to_string();
    };
    let codes: Vec<&str> = cancelled
        .cancellation_reasons()
        .iter()
        .map(|r| r.code().unwrap_or("?"))
        .collect();
    if codes.is_empty() {
        "none".to_string()
    } else {
        format!("[{}]", codes.join(", "))
    }
}

fn is_write(r: &RequestRecord) -> bool {
    WRITES.contains(&r.operation)
}

fn is_read(r: &RequestRecord) -> bool {
    READS.contains(&r.operation)
}

/// `editor 3's GetItem #12 (strongly consistent)`, `TransactWriteItems #14 (TransactionCanceledException)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    if is_read(r) {
        match r.consistent_read {
            Some(true) => notes.push("strongly consistent".to_string()),
            Some(false) => notes.push("eventually consistent".to_string()),
            None => {}
        }
    }
    if let Some(error) = r.error {
        notes.push(error.to_string());
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    let who = r
        .client
        .map(|c| format!("editor {c}'s "))
        .unwrap_or_default();
    format!("{who}{} #{}{notes}", r.operation, r.seq)
}

/// [`show_request`] without the editor.
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

/// One attempt of the race, then its save's requests, one a line (indented: the wrap leaves
/// them as they are).
fn show_attempt(log: &[RequestRecord], a: &Attempt) -> String {
    let mut text = format!(
        "  editor {}'s save {} (expected {}) → {}:",
        a.editor,
        a.save,
        a.expected,
        show_save(&a.result)
    );
    let sent: Vec<&RequestRecord> = log
        .iter()
        .filter(|r| r.seq >= a.from && r.seq < a.to && r.client == Some(a.editor))
        .collect();
    if sent.is_empty() {
        text.push_str("\n    (no request)");
    }
    for r in sent {
        text.push_str(&format!("\n    {}", show_request(r)));
    }
    text
}

fn show_save(r: &Result<u64, SaveError>) -> String {
    match r {
        Ok(v) => format!("Ok({v})"),
        Err(SaveError::Conflict { current }) => format!("Err(Conflict {{ current: {current} }})"),
        Err(SaveError::Engine(e)) => format!("Err(Engine({e}))"),
    }
}

/// `"draft 3: design"`, shortened in the middle past 60 characters.
fn show_text(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() > 60 {
        let head: String = chars[..25].iter().collect();
        let tail: String = chars[chars.len() - 25..].iter().collect();
        format!("\"{head}…{tail}\" ({} characters)", chars.len())
    } else {
        format!("\"{text}\"")
    }
}

/// `v0003: version 3 by chen, "draft 3: design"`.
fn show_row(r: &Row) -> String {
    format!("{}: {}", r.sk, show_content(r))
}

/// `version 3 by chen, "draft 3: design"`.
fn show_content(r: &Row) -> String {
    let version = r
        .version
        .map_or("no number version".to_string(), |v| format!("version {v}"));
    let author = r.author.as_deref().unwrap_or("no string author");
    let body = r
        .body
        .as_deref()
        .map_or("no string body".to_string(), show_text);
    let extra = if r.extra.is_empty() {
        String::new()
    } else {
        format!(" (also: {})", r.extra.join(", "))
    };
    format!("{version} by {author}, {body}{extra}")
}

fn show_rows(rows: &[Row]) -> String {
    if rows.is_empty() {
        return "  (no item)".to_string();
    }
    let shown: Vec<String> = rows.iter().map(|r| format!("  {}", show_row(r))).collect();
    shown.join("\n")
}

fn show_version(v: &Version) -> String {
    format!(
        "version {} by {}, {}",
        v.version,
        v.author,
        show_text(&v.body)
    )
}

fn show_version_opt(v: &Option<Version>) -> String {
    v.as_ref()
        .map_or("None".to_string(), |v| format!("Some({})", show_version(v)))
}

fn show_versions(vs: &[Version]) -> String {
    if vs.is_empty() {
        return "(no version)".to_string();
    }
    let shown: Vec<String> = vs.iter().map(show_version).collect();
    shown.join("\n")
}
