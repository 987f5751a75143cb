//! Hidden tests of the `optimistic-locking` kata.
//!
//! Each test builds a fresh world with the kata's table (`wiki`, partition key `page`,
//! on-demand; a page is `body` and `version`) and judges the learner's `edit` from the
//! outside: what it returned, the page the table holds afterwards (read by the test with
//! strongly consistent GetItems), the bodies its `change` was called with, and the requests
//! the request log saw. Every change the tests pass appends one line, so a lost update is a
//! missing line.
//!
//! - `saves_edits_in_turn`: one edit a second, no one racing: exact versions and bodies, one
//!   write per edit, reads strongly consistent, a new page created at version 1.
//! - `a_lost_race_is_retried_on_a_fresh_read`: inside the edit's first `change` (after its
//!   read, before its write) another editor saves the page — the first round creates it. Every
//!   replica of the page's partition receives writes 60 s late. The edit must lose its first
//!   write, and win its second on the page as the other editor left it.
//! - `editors_race_and_no_edit_is_lost`: 5 clients on the engine's seeded schedule
//!   (`World::concurrently`) edit one new page 6 times each: no saved line lost or doubled,
//!   each version handed out once, no failed write without a save by another editor after the
//!   read it was built on, an edit that gave up sent exactly `MAX_ATTEMPTS` writes.
//! - `gives_up_after_max_attempts`: every `change` is followed by another editor's save:
//!   `Conflict { attempts: MAX_ATTEMPTS }` after exactly `MAX_ATTEMPTS` writes.
//! - `other_errors_are_not_conflicts`: a change that makes the item larger than 400 KB is a
//!   ValidationException, returned at once as `Engine`, not retried as a conflict.
//!
//! Each failure is explained from the request log: which request, by which client, in which
//! order, with what outcome — and, for a write that failed, what its call had read before it.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::world::faults::Az;
use engine::world::log::RequestRecord;
use engine::{AttributeValue, Client, Error, World};
use given::{EditError, MAX_ATTEMPTS, TABLE};
use katas_testkit::{check_eq_text, fail, run, seeded};
use learner::edit;

/// Concurrent clients in the race test, and the edits each makes.
const CLIENTS: usize = 5;
const EDITS: usize = 6;
/// Rounds of the lost-race test.
const ROUNDS: u64 = 12;
/// How late every replica of the page's partition receives writes in the lost-race test.
const LAG: Duration = Duration::from_secs(60);
/// Operations that read items.
const READS: [&str; 5] = [
    "GetItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "TransactGetItems",
];
/// Operations that write items.
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
const CONDITION_FAILED: &str = "ConditionalCheckFailedException";
/// What every lost-race explanation ends with.
const FRESH_READ: &str = "A ConditionalCheckFailedException means another editor saved: the \
                          text computed before is built on a page that is gone, and only the \
                          page as it is now, with change called again on its body, holds their \
                          save.";

katas_testkit::learner! {
    /// Saves `change(body)` as the page's next version; returns the version saved.
    fn edit(client: &Client, page: &str, change: &dyn Fn(&str) -> String) -> Result<u64, EditError>;
}

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        seeded("saves_edits_in_turn", saves_edits_in_turn),
        seeded(
            "a_lost_race_is_retried_on_a_fresh_read",
            a_lost_race_is_retried_on_a_fresh_read,
        ),
        seeded(
            "editors_race_and_no_edit_is_lost",
            editors_race_and_no_edit_is_lost,
        ),
        seeded("gives_up_after_max_attempts", gives_up_after_max_attempts),
        seeded(
            "other_errors_are_not_conflicts",
            other_errors_are_not_conflicts,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// One editor at a time, one edit a second: a new page, edits of it, a second page.
fn saves_edits_in_turn(seed: u64) {
    let s = Scene::new(seed);
    let script: [(&str, &str); 6] = [
        ("home", "Welcome to the team wiki."),
        ("home", "On call this week: Ana."),
        ("runbook", "1. Page the owner."),
        ("home", "Lunch is at noon."),
        ("runbook", "2. Check the dashboard."),
        ("home", "On call next week: Bo."),
    ];
    let (mut want, mut got) = (String::new(), String::new());
    for (page, line) in script {
        s.world.advance(Duration::from_secs(1));
        let before = s.page_in_table(page);
        let shown = format!("edit(\"{page}\", append \"{line}\")");
        let context = format!("{shown} on {}", show_page(&before));
        let changes = Changes::default();
        let from = s.next_seq();
        let result = edit(&s.client, page, &|body| changes.append(body, line));
        let sent = s.requests_since(from);
        let after = s.page_in_table(page);
        let (body, version) = before.clone().unwrap_or_default();
        if let Err(EditError::Engine(e)) = &result {
            fail(format!(
                "{context} failed: {e}\nIts requests: {}",
                show_requests(&sent)
            ));
        }
        let existed = |_: u64| before.is_some();
        let others = |_: u64, _: u64| Vec::new();
        if let Some(why) = first_wasted_write(&sent, &others, &existed) {
            fail(format!(
                "{context} returned {}, and no one else was editing, yet a write failed its \
                 condition: {why}",
                show_result(&result)
            ));
        }
        check_reads_strong(&context, &sent);
        let writes = writes_in(&sent);
        if writes != 1 {
            fail(format!(
                "{context} sent {writes} writes ({}): with no one else editing, one edit is one \
                 write",
                show_requests(&sent)
            ));
        }
        let calls = changes.calls.borrow().clone();
        if calls.len() != 1 || calls[0] != body {
            fail(format!(
                "{context}: change must be called once, on the page's body as the edit read it \
                 ({}). It was called {} time(s){}",
                show_body(&body),
                calls.len(),
                calls
                    .first()
                    .map(|b| format!(", first on {}", show_body(b)))
                    .unwrap_or_default()
            ));
        }
        if let (Ok(v), Some((_, stored))) = (&result, &after) {
            if *v != *stored {
                fail(format!(
                    "{context} returned Ok({v}), but the page in the table is at version \
                     {stored}{}. Every save stores the version read + 1 (a new page: 1): \
                     otherwise two editors who read the same version both pass a condition on \
                     that version, and the second replaces the first's text.",
                    if *stored == version && version > 0 {
                        ", the version it was at before the edit — the write did not move the \
                         version"
                    } else {
                        ""
                    }
                ));
            }
        }
        want.push_str(&format!("{shown} → Ok({})\n", version + 1));
        got.push_str(&format!("{shown} → {}\n", show_result(&result)));
    }
    for (page, lines) in [("home", vec![0, 1, 3, 5]), ("runbook", vec![2, 4])] {
        let body: String = lines
            .iter()
            .map(|&i| format!("{}\n", script[i].1))
            .collect();
        want.push_str(&format!(
            "table: {}\n",
            show_page(&Some((body, lines.len() as u64)))
        ));
        got.push_str(&format!("table: {}\n", show_page(&s.page_in_table(page))));
    }
    check_eq_text(
        &want,
        &got,
        "each edit, in order, and the pages afterwards: edit returns the version it saved (a \
         new page is saved at version 1, each save one more), and the body is every line, in \
         order",
    );
}

/// Inside the edit's first `change` — after its read, before its write — another editor
/// saves the page; every replica of the page's partition receives writes 60 s late.
fn a_lost_race_is_retried_on_a_fresh_read(seed: u64) {
    let s = Scene::new(seed);
    let page = "standup";
    let partition = s.partition_of(page);
    for az in Az::ALL {
        s.world
            .lag_replica(TABLE, partition, az, LAG)
            .unwrap_or_else(|e| fail(format!("the test could not make replicas lag: {e}")));
    }
    let lag_note = format!(
        "In this test every replica of partition {partition} receives writes {} s late, so an \
         eventually consistent read (GetItem without ConsistentRead) is often answered by a \
         replica that has not seen the latest save.",
        LAG.as_secs()
    );
    for round in 1..=ROUNDS {
        s.world.advance(Duration::from_secs(1));
        let before = s.page_in_table(page);
        let (body, version) = before.clone().unwrap_or_default();
        let mine = format!("standup note {round}");
        let theirs = format!("rival note {round}");
        let rival: RefCell<Option<Rival>> = RefCell::new(None);
        let changes = Changes::default();
        let from = s.next_seq();
        let result = edit(&s.client, page, &|b| {
            if rival.borrow().is_none() {
                *rival.borrow_mut() = Some(s.rival_save(page, &theirs));
            }
            changes.append(b, &mine)
        });
        let all = s.requests_since(from);
        let after = s.page_in_table(page);
        let Some(rival) = rival.into_inner() else {
            fail(format!(
                "round {round}: edit(\"{page}\", append \"{mine}\") returned {} without calling \
                 change: it must apply change to the page it read and save the result",
                show_result(&result)
            ));
        };
        let own: Vec<RequestRecord> = all
            .iter()
            .filter(|r| !rival.seqs.contains(&r.seq))
            .cloned()
            .collect();
        let calls = changes.calls.borrow().clone();
        let context = format!(
            "round {round}: edit(\"{page}\", append \"{mine}\") read {}; right after, before \
             its write, another editor saved the page (their {}, version {}). The edit \
             returned {}; its requests: {}",
            show_page(&before),
            s.show_seq(rival.write_seq),
            rival.version,
            show_result(&result),
            show_requests(&own)
        );
        if let Err(EditError::Engine(e)) = &result {
            fail(format!("{context}.\nIt failed: {e}"));
        }
        let (stored_body, stored_version) = after.clone().unwrap_or_default();
        let rival_body = format!("{body}{theirs}\n");
        // The headline: the other editor's line must have survived.
        if !stored_body.contains(&format!("{theirs}\n")) {
            let first_write = own.iter().find(|r| is_write(r));
            let read_after = own.iter().find(|r| {
                is_read(r) && r.seq > rival.write_seq && first_write.is_some_and(|w| r.seq < w.seq)
            });
            let cause = match first_write {
                Some(w) if w.succeeded() && read_after.is_some() => format!(
                    "its write, {}, was guarded by what its read after the other editor's save, \
                     {}, showed — so its condition passed — but the text it saved came from \
                     change called on the body of its first read, before that save (change was \
                     called {} time(s), first on {}): the text and the version that guarded it \
                     came from different reads.",
                    show_request(w),
                    show_request(read_after.unwrap_or(w)),
                    calls.len(),
                    show_body(calls.first().map_or("", String::as_str))
                ),
                Some(w) if w.succeeded() => {
                    let guard = if before.is_none() {
                        "The page had no item when the edit read it; the other editor created \
                         it in between, and the edit's write replaced theirs: nothing in that \
                         write required the page to still be missing."
                            .to_string()
                    } else {
                        format!(
                            "Its write passed although the page had moved from version \
                             {version} to {} after the edit's read: nothing in the write \
                             required the page to still be at the version it read.",
                            rival.version
                        )
                    };
                    format!(
                        "its first write, {}, succeeded: last writer wins. {guard}",
                        show_request(w)
                    )
                }
                _ if calls.len() < writes_in(&own) => format!(
                    "its first write failed its condition, as it should, but change was called \
                     {} time(s) for {} writes: the retry saved text computed from the page as \
                     it was before the other editor's save. {FRESH_READ}",
                    calls.len(),
                    writes_in(&own)
                ),
                _ => format!(
                    "the write that succeeded was built on text without the other editor's \
                     line. {FRESH_READ}"
                ),
            };
            fail(format!(
                "{context}.\nThe other editor's line is gone from the page — a lost update: \
                 {cause}\nThe page now: {}",
                show_page(&after)
            ));
        }
        if let Err(EditError::Conflict { attempts }) = &result {
            let existed = |seq: u64| before.is_some() || seq > rival.write_seq;
            let others = |a: u64, b: u64| {
                if a < rival.write_seq && rival.write_seq < b {
                    vec![rival.write_seq]
                } else {
                    Vec::new()
                }
            };
            let why = first_wasted_write(&own, &others, &existed)
                .map(|w| {
                    let lag = if w.contains("eventually consistent") {
                        format!("\n{lag_note}")
                    } else {
                        String::new()
                    };
                    format!(" After the first failure, {w}{lag}")
                })
                .unwrap_or_default();
            fail(format!(
                "{context}.\nIt gave up (Conflict {{ attempts: {attempts} }}) although only \
                 one other editor saved, once: its second attempt should have won.{why}"
            ));
        }
        let existed = |seq: u64| before.is_some() || seq > rival.write_seq;
        let others = |a: u64, b: u64| {
            if a < rival.write_seq && rival.write_seq < b {
                vec![rival.write_seq]
            } else {
                Vec::new()
            }
        };
        if let Some(why) = first_wasted_write(&own, &others, &existed) {
            fail(format!(
                "{context}.\nOne lost race is one failed write, yet {why}\n{lag_note}"
            ));
        }
        let want_body = format!("{rival_body}{mine}\n");
        check_eq_text(
            &format!("{}\nversion {}", want_body, version + 2),
            &format!("{}\nversion {}", stored_body, stored_version),
            format!(
                "{context}.\nThe page afterwards: the other editor's line, then the edit's line \
                 once, at version {} (theirs {}, then the edit's)",
                version + 2,
                rival.version
            ),
        );
        if calls.len() != 2 || calls[1] != rival_body {
            fail(format!(
                "{context}.\nchange must be called once per attempt, on the body that attempt \
                 writes from: first on {}, then on the page as the other editor left it, {}. \
                 It was called {} time(s){}.\n{FRESH_READ}",
                show_body(&body),
                show_body(&rival_body),
                calls.len(),
                calls
                    .get(1)
                    .map(|b| format!(", the second time on {}", show_body(b)))
                    .unwrap_or_default()
            ));
        }
        check_eq_text(
            &format!("Ok({})", version + 2),
            &show_result(&result),
            format!("{context}.\nedit returns the version it saved"),
        );
    }
}

/// 5 clients on the world's seeded schedule edit one new page, 6 times each.
fn editors_race_and_no_edit_is_lost(seed: u64) {
    let s = Scene::new(seed);
    let page = "roadmap";
    let world = &s.world;
    let raced = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(seed).run(CLIENTS, |i, client| {
            (0..EDITS)
                .map(|j| {
                    let line = format!("client {i} edit {j}");
                    let changes = Changes::default();
                    let from = world.request_totals().requests;
                    let result = edit(&client, page, &|body| changes.append(body, &line));
                    let to = world.request_totals().requests;
                    Call {
                        client: i,
                        line,
                        result,
                        from,
                        to,
                        inputs: changes.calls.into_inner(),
                    }
                })
                .collect::<Vec<_>>()
        })
    }));
    let calls: Vec<Call> = match raced {
        Ok(per_client) => per_client.into_iter().flatten().collect(),
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            fail(format!(
                "your code panicked in one of the concurrent clients: {text}"
            ))
        }
    };
    let log = s.world.request_log();
    let round = format!(
        "{CLIENTS} editors each made {EDITS} edits of the new page \"{page}\" at the same time"
    );
    if let Some((call, e)) = calls.iter().find_map(|c| match &c.result {
        Err(EditError::Engine(e)) => Some((c, e)),
        _ => None,
    }) {
        fail(format!(
            "{round}, and client {}'s edit (append \"{}\") failed: {e}\n{}",
            call.client,
            call.line,
            show_call(&log, call)
        ));
    }
    let (body, version) = s.page_in_table(page).unwrap_or_default();
    let lines: Vec<&str> = body.lines().collect();
    let saved: Vec<&Call> = calls.iter().filter(|c| c.result.is_ok()).collect();
    let summary = format!(
        "{round}: {} edits returned Ok, {} Conflict; the page is at version {version} with {} \
         line(s)",
        saved.len(),
        calls.len() - saved.len(),
        lines.len()
    );
    // The headline: a saved line that is not in the page.
    if let Some(lost) = saved.iter().find(|c| !lines.contains(&c.line.as_str())) {
        fail(format!(
            "{summary}.\nClient {}'s edit (append \"{}\") returned {}, but its line is not in \
             the page — a lost update.\n{}\n{}",
            lost.client,
            lost.line,
            show_result(&lost.result),
            show_call(&log, lost),
            who_replaced(&log, &calls, lost)
        ));
    }
    if let Some(twice) = calls
        .iter()
        .find(|c| lines.iter().filter(|l| **l == c.line).count() > 1)
    {
        fail(format!(
            "{summary}.\nClient {}'s line \"{}\" is in the page {} times: an edit's text must \
             be saved once.\n{}",
            twice.client,
            twice.line,
            lines.iter().filter(|l| **l == twice.line).count(),
            show_call(&log, twice)
        ));
    }
    if let Some(gave_up) = calls
        .iter()
        .find(|c| c.result.is_err() && lines.contains(&c.line.as_str()))
    {
        fail(format!(
            "{summary}.\nClient {}'s edit returned {}, yet its line is in the page: Conflict \
             means nothing of the edit was saved.\n{}",
            gave_up.client,
            show_result(&gave_up.result),
            show_call(&log, gave_up)
        ));
    }
    // No wasted write: a failed write is explained by another editor's save after its basis.
    for call in &calls {
        let own = requests_of(&log, call);
        let others = |a: u64, b: u64| {
            log.iter()
                .filter(|r| r.seq > a && r.seq < b && r.client != Some(call.client))
                .filter(|r| is_write(r) && r.succeeded())
                .map(|r| r.seq)
                .collect::<Vec<_>>()
        };
        let existed = |seq: u64| {
            log.iter()
                .any(|r| r.seq < seq && is_write(r) && r.succeeded())
        };
        if let Some(why) = first_wasted_write(&own, &others, &existed) {
            fail(format!(
                "{summary}.\nClient {}'s edit (append \"{}\") returned {}: {why}\n{}",
                call.client,
                call.line,
                show_result(&call.result),
                show_call(&log, call)
            ));
        }
    }
    let mut versions: Vec<u64> = saved.iter().filter_map(|c| c.result.clone().ok()).collect();
    versions.sort_unstable();
    check_eq_text(
        &format!(
            "versions returned: {:?}\npage: version {}",
            (1..=saved.len() as u64).collect::<Vec<_>>(),
            saved.len()
        ),
        &format!("versions returned: {versions:?}\npage: version {version}"),
        format!(
            "{summary}.\nEach save moves the page one version on, and the version it returns is \
             the one it saved: the saved edits' versions, sorted, are 1, 2, … once each, and the \
             last is the page's"
        ),
    );
    if let Some(short) = calls
        .iter()
        .find(|c| c.result.is_err() && writes_in(&requests_of(&log, c)) != MAX_ATTEMPTS as usize)
    {
        fail(format!(
            "{summary}.\nClient {}'s edit gave up ({}) after {} write(s): an edit gives up only \
             after MAX_ATTEMPTS = {MAX_ATTEMPTS} writes that all lost the race.\n{}",
            short.client,
            show_result(&short.result),
            writes_in(&requests_of(&log, short)),
            show_call(&log, short)
        ));
    }
    if let Some(call) = calls
        .iter()
        .find(|c| c.inputs.len() != writes_in(&requests_of(&log, c)))
    {
        fail(format!(
            "{summary}.\nClient {}'s edit called change {} time(s) for {} write(s): once per \
             attempt, on the body that attempt writes from.\n{}",
            call.client,
            call.inputs.len(),
            writes_in(&requests_of(&log, call)),
            show_call(&log, call)
        ));
    }
}

/// Another editor saves the page right after every `change`: every attempt loses.
fn gives_up_after_max_attempts(seed: u64) {
    let s = Scene::new(seed);
    let page = "incidents";
    for n in 1..=3 {
        s.rival_save(page, &format!("incident {n}"));
    }
    s.world.advance(Duration::from_secs(1));
    let before = s.page_in_table(page);
    let limit = MAX_ATTEMPTS as usize + 3;
    let changes = Changes::default();
    let rivals = RefCell::new(Vec::new());
    let from = s.next_seq();
    let result = edit(&s.client, page, &|b| {
        let calls = changes.calls.borrow().len();
        if calls >= limit {
            fail(format!(
                "edit(\"{page}\", ..) on a page another editor saves after every read has \
                 called change {} times and sent {} writes, and it is still trying: the retry \
                 loop has no bound. Each failed write still costs its WCU, and the editor \
                 waits for ever. The README's bound is MAX_ATTEMPTS = {MAX_ATTEMPTS} writes, \
                 then a Conflict.",
                calls + 1,
                writes_in(&s.requests_since(from)) - rivals.borrow().len()
            ));
        }
        rivals
            .borrow_mut()
            .push(s.rival_save(page, &format!("incident {}", 4 + calls)));
        changes.append(b, "my update")
    });
    let all = s.requests_since(from);
    let rivals = rivals.into_inner();
    let own: Vec<RequestRecord> = all
        .iter()
        .filter(|r| !rivals.iter().any(|rv| rv.seqs.contains(&r.seq)))
        .cloned()
        .collect();
    let context = format!(
        "edit(\"{page}\", append \"my update\") on {}, another editor saving the page after \
         each of the edit's reads, returned {}; its requests: {}",
        show_page(&before),
        show_result(&result),
        show_requests(&own)
    );
    let writes = writes_in(&own);
    let failed = own
        .iter()
        .filter(|r| is_write(r) && r.error == Some(CONDITION_FAILED))
        .count();
    if let Err(EditError::Engine(e)) = &result {
        fail(format!("{context}.\nIt failed: {e}"));
    }
    if writes != MAX_ATTEMPTS as usize || failed != writes {
        fail(format!(
            "{context}.\nIt sent {writes} write(s), {failed} of them refused with \
             {CONDITION_FAILED}: an edit sends at most MAX_ATTEMPTS = {MAX_ATTEMPTS} writes \
             (the first attempt and {} retries), and here each of them loses the race.",
            MAX_ATTEMPTS - 1
        ));
    }
    check_eq_text(
        &format!("Err(Conflict {{ attempts: {MAX_ATTEMPTS} }})"),
        &show_result(&result),
        format!(
            "{context}.\nWhen every one of its MAX_ATTEMPTS writes lost the race, edit returns \
             EditError::Conflict {{ attempts: MAX_ATTEMPTS }}"
        ),
    );
    let (body, _) = s.page_in_table(page).unwrap_or_default();
    if body.contains("my update") {
        fail(format!(
            "{context}.\nYet the edit's line is in the page: Conflict means nothing of it was \
             saved.\nThe page now: {}",
            show_page(&s.page_in_table(page))
        ));
    }
}

/// A change whose text makes the item larger than 400 KB: DynamoDB refuses the write.
fn other_errors_are_not_conflicts(seed: u64) {
    let s = Scene::new(seed);
    let page = "attachments";
    s.rival_save(page, "see the attached log");
    s.world.advance(Duration::from_secs(1));
    let before = s.page_in_table(page);
    let changes = Changes::default();
    let huge = "x".repeat(410 * 1024);
    let from = s.next_seq();
    let result = edit(&s.client, page, &|b| changes.append(b, &huge));
    let sent = s.requests_since(from);
    let calls = changes.calls.borrow().len();
    let context = format!(
        "edit(\"{page}\", append 410 KB of text) on {}: the item would be larger than \
         DynamoDB's 400 KB, so the write is refused with a ValidationException. The edit \
         returned {}; its requests: {}",
        show_page(&before),
        show_result(&result),
        show_requests(&sent)
    );
    match &result {
        Err(EditError::Engine(e)) if e.code() == Some("ValidationException") => {}
        Err(EditError::Conflict { .. }) => fail(format!(
            "{context}.\nNo other editor saved anything: each write failed with \
             {}, not {CONDITION_FAILED}. Only a failed condition means another editor saved \
             first; retrying a request DynamoDB refused as invalid cannot make it valid, and \
             any other error is the caller's to see, as the README's EditError::Engine.",
            sent.iter()
                .find_map(|r| r.error.filter(|_| is_write(r)))
                .unwrap_or("another error")
        )),
        _ => fail(format!(
            "{context}.\nedit must return the engine's ValidationException as \
             EditError::Engine: it is not a conflict"
        )),
    }
    let writes = writes_in(&sent);
    if writes != 1 || calls != 1 {
        fail(format!(
            "{context}.\nIt sent {writes} write(s) and called change {calls} time(s): a \
             ValidationException is not a lost race, and a retry sends the same invalid item \
             again."
        ));
    }
    check_eq_text(
        &show_page(&before),
        &show_page(&s.page_in_table(page)),
        format!("{context}.\nThe page afterwards: a refused write changes nothing"),
    );
}

// ---------------------------------------------------------------------------------------
// The scene, and helpers
// ---------------------------------------------------------------------------------------

struct Scene {
    world: World,
    client: Client,
}

/// Another editor's save, made by the test: its requests, and the write and version.
struct Rival {
    seqs: Vec<u64>,
    write_seq: u64,
    version: u64,
}

/// The bodies a `change` was called with, and what it returns: the body plus one line.
#[derive(Default)]
struct Changes {
    calls: RefCell<Vec<String>>,
}

impl Changes {
    fn append(&self, body: &str, line: &str) -> String {
        self.calls.borrow_mut().push(body.to_string());
        format!("{body}{line}\n")
    }
}

impl Scene {
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        client
            .create_table()
            .table_name(TABLE)
            .attribute_definitions(AttributeDefinition::new("page", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("page", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not create its table: {e}")));
        Scene { world, client }
    }

    /// The page as the leader has it (the test's own strongly consistent read).
    fn page_in_table(&self, page: &str) -> Option<(String, u64)> {
        let out = self
            .client
            .get_item()
            .table_name(TABLE)
            .key("page", AttributeValue::S(page.into()))
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not read the page: {e}")));
        let item = out.item()?;
        let body = item.get("body").and_then(|v| v.as_s().ok()).cloned();
        let version = item
            .get("version")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok());
        Some((body.unwrap_or_default(), version.unwrap_or(0)))
    }

    /// Another editor appends `line` to the page, correctly: a strong read, then a write
    /// conditional on the version read.
    fn rival_save(&self, page: &str, line: &str) -> Rival {
        let from = self.next_seq();
        let (body, version) = self.page_in_table(page).unwrap_or_default();
        let next = version + 1;
        let write = self
            .client
            .update_item()
            .table_name(TABLE)
            .key("page", AttributeValue::S(page.into()))
            .update_expression("SET body = :body, version = :next")
            .expression_attribute_values(":body", AttributeValue::S(format!("{body}{line}\n")))
            .expression_attribute_values(":next", AttributeValue::N(next.to_string()));
        let write = if version == 0 {
            write.condition_expression("attribute_not_exists(page)")
        } else {
            write
                .condition_expression("version = :read")
                .expression_attribute_values(":read", AttributeValue::N(version.to_string()))
        };
        if let Err(e) = write.send().map_err(Error::from) {
            fail(format!(
                "the test's other editor could not save the page: {e}"
            ));
        }
        let to = self.next_seq();
        Rival {
            seqs: (from..to).collect(),
            write_seq: to - 1,
            version: next,
        }
    }

    fn partition_of(&self, page: &str) -> u32 {
        self.world
            .partition_of(TABLE, &AttributeValue::S(page.into()))
            .unwrap_or_else(|e| fail(format!("the test could not find the partition: {e}")))
    }

    /// One request of the log, by position, shown.
    fn show_seq(&self, seq: u64) -> String {
        self.world
            .request_log()
            .iter()
            .find(|r| r.seq == seq)
            .map_or(format!("request #{seq}"), show_request)
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

/// One edit in the race: the client that made it, its line, what it returned, the span of the
/// request log it ran in, and the bodies it called `change` with.
struct Call {
    client: usize,
    line: String,
    result: Result<u64, EditError>,
    from: u64,
    to: u64,
    /// The bodies its `change` was called with, in order.
    inputs: Vec<String>,
}

/// The requests `call` sent, in order (a client's calls run one after another).
fn requests_of(log: &[RequestRecord], call: &Call) -> Vec<RequestRecord> {
    let start = log.partition_point(|r| r.seq < call.from);
    let end = log.partition_point(|r| r.seq < call.to).max(start);
    log[start..end]
        .iter()
        .filter(|r| r.client == Some(call.client))
        .cloned()
        .collect()
}

fn is_write(r: &RequestRecord) -> bool {
    WRITES.contains(&r.operation)
}

fn is_read(r: &RequestRecord) -> bool {
    READS.contains(&r.operation)
}

fn writes_in(requests: &[RequestRecord]) -> usize {
    requests.iter().filter(|r| is_write(r)).count()
}

/// Fails when a read the edit sent was eventually consistent (the README's rule).
fn check_reads_strong(context: &str, sent: &[RequestRecord]) {
    if let Some(read) = sent.iter().find(|r| r.consistent_read == Some(false)) {
        fail(format!(
            "{context}: its {} was eventually consistent. Every read a write is built on must be \
             strongly consistent: an eventually consistent read may be answered by a replica the latest save has not reached yet, and a write built on it \
             fails its condition for nothing — a wasted write on the page's partition.",
            show_request(read)
        ));
    }
}

/// The first write of `own` (one call's requests, in order) that failed its condition
/// although no other editor saved after what it was built on, explained; `None` if every
/// failed write lost a real race. `others(a, b)` lists other editors' successful writes
/// strictly between positions `a` and `b`; `existed(seq)` says whether the page had an item
/// when request `seq` ran.
fn first_wasted_write(
    own: &[RequestRecord],
    others: &dyn Fn(u64, u64) -> Vec<u64>,
    existed: &dyn Fn(u64) -> bool,
) -> Option<String> {
    for (i, w) in own.iter().enumerate() {
        if !is_write(w) || w.error != Some(CONDITION_FAILED) {
            continue;
        }
        let basis = own[..i].last();
        let from = basis.map_or(0, |b| b.seq);
        if !others(from, w.seq).is_empty() {
            continue;
        }
        let Some(basis) = basis else {
            return Some(format!(
                "its {} failed its condition, and it had read nothing before it.",
                show_bare(w)
            ));
        };
        return Some(if is_read(basis) && basis.consistent_read == Some(false) {
            format!(
                "its {} failed its condition although no other editor saved the page after its \
                 read, {}. That read was eventually consistent: a replica that had not yet \
                 received the latest save answered it, so the write was built on a version the \
                 page had already left — a wasted write, and an attempt spent. A strongly \
                 consistent read is answered by the leader, which every save has reached.",
                show_bare(w),
                show_bare(basis)
            )
        } else if is_read(basis) {
            let new_page = if existed(basis.seq) {
                "The page existed, and the read returned its version: the condition did not \
                 hold for the version the read returned."
            } else {
                "The page had no item when it was read, and a missing item has no `version`: \
                 any comparison with a missing attribute is false, so a new page could never \
                 be saved. A condition can also require that there be no item yet."
            };
            format!(
                "its {} failed its condition although no other editor saved the page after its \
                 strongly consistent read, {}: the condition is false on the page as the read \
                 showed it. {new_page}",
                show_bare(w),
                show_bare(basis)
            )
        } else {
            format!(
                "its {} failed its condition although no other editor saved the page after its \
                 previous write, {}, which had failed too: it wrote again without reading, on \
                 the version that had just lost. A failed condition is not a transient error \
                 that a resend cures. {FRESH_READ}",
                show_bare(w),
                show_bare(basis)
            )
        });
    }
    None
}

/// Who replaced a saved edit's line, read off the log and the bodies each edit's `change`
/// was called with: the first later save by an edit that never saw the line (every change
/// only appends, so its text lacks the line), and what that save was built on.
fn who_replaced(log: &[RequestRecord], calls: &[Call], lost: &Call) -> String {
    let own = requests_of(log, lost);
    let Some(saved) = own.iter().rev().find(|r| is_write(r) && r.succeeded()) else {
        return "It returned Ok without a successful write.".to_string();
    };
    let line = format!("{}\n", lost.line);
    let call_of = |r: &RequestRecord| {
        calls
            .iter()
            .find(|c| Some(c.client) == r.client && c.from <= r.seq && r.seq < c.to)
    };
    let replaced = log
        .iter()
        .filter(|r| r.seq > saved.seq && is_write(r) && r.succeeded())
        .filter_map(|r| call_of(r).map(|c| (r, c)))
        .find(|(_, c)| c.inputs.iter().all(|b| !b.contains(&line)));
    let Some((next, by)) = replaced else {
        return format!(
            "Its save, {}, was replaced by a later save built on text without its line.",
            show_bare(saved)
        );
    };
    let theirs = requests_of(log, by);
    let basis = theirs.iter().rev().find(|r| r.seq < next.seq);
    let writes = writes_in(&theirs);
    let head = format!(
        "Its save, {}, was replaced by {} (edit append \"{}\"), which saved text built on a \
         body without that line:\n{}",
        show_bare(saved),
        show_request(next),
        by.line,
        show_call(log, by)
    );
    match basis {
        _ if by.inputs.len() < writes => {
            let how = match basis {
                Some(b) if is_write(b) => format!(
                    "its {} followed its failed {} without a read in between",
                    show_bare(next),
                    show_bare(b)
                ),
                _ => "it read again, but did not call change again".to_string(),
            };
            format!(
                "{head}\nThat edit called change {} time(s) for {writes} writes: {how}, and \
                 saved text computed from the page as it was before {} landed. {FRESH_READ}",
                by.inputs.len(),
                show_request(saved)
            )
        }
        Some(b) if b.seq < saved.seq => {
            let page_was_new = !log
                .iter()
                .any(|r| r.seq < b.seq && is_write(r) && r.succeeded());
            let guard = if page_was_new {
                "When that edit read, the page had no item yet, and nothing in its first save \
                 required the page to still be missing: it replaced the page someone else had \
                 created meanwhile."
            } else {
                "A write built on an old read fails instead of replacing newer text only when \
                 it requires the page to still be at the version it read, and every save moves \
                 the version on."
            };
            format!(
                "{head}\nThat save was built on {}, which came before {} — yet it \
                 succeeded: last writer wins. {guard}",
                show_request(b),
                show_request(saved)
            )
        }
        _ => format!("{head}\n{FRESH_READ}"),
    }
}

/// `client 3's GetItem #12 (strongly consistent)`, `UpdateItem #14 (ConditionalCheckFailedException)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
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
    let who = r
        .client
        .map(|c| format!("client {c}'s "))
        .unwrap_or_default();
    format!("{who}{} #{}{notes}", r.operation, r.seq)
}

/// [`show_request`] without the client: `UpdateItem #14 (ConditionalCheckFailedException)`.
fn show_bare(r: &RequestRecord) -> String {
    let mut r = r.clone();
    r.client = None;
    show_request(&r)
}

fn show_requests(requests: &[RequestRecord]) -> String {
    if requests.is_empty() {
        return "no request".to_string();
    }
    let shown: Vec<String> = requests.iter().map(show_request).collect();
    shown.join(", ")
}

/// The call, then its requests, one a line (indented: the wrap leaves them as they are).
fn show_call(log: &[RequestRecord], call: &Call) -> String {
    let mut text = format!(
        "  client {}'s edit (append \"{}\") → {}:",
        call.client,
        call.line,
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

fn show_result(r: &Result<u64, EditError>) -> String {
    match r {
        Ok(v) => format!("Ok({v})"),
        Err(EditError::Conflict { attempts }) => {
            format!("Err(Conflict {{ attempts: {attempts} }})")
        }
        Err(EditError::Engine(e)) => format!("Err(Engine({e}))"),
    }
}

/// `"a\nb\n"` → `"a⏎b⏎"`, shortened in the middle past 120 characters.
fn show_body(body: &str) -> String {
    let shown = body.replace('\n', "⏎");
    let chars: Vec<char> = shown.chars().collect();
    if chars.len() > 120 {
        let head: String = chars[..50].iter().collect();
        let tail: String = chars[chars.len() - 50..].iter().collect();
        format!("\"{head}…{tail}\" ({} characters)", chars.len())
    } else {
        format!("\"{shown}\"")
    }
}

fn show_page(page: &Option<(String, u64)>) -> String {
    match page {
        None => "no page (no item)".to_string(),
        Some((body, version)) => format!("version {version}, body {}", show_body(body)),
    }
}
