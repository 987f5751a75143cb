//! Hidden tests of the `group-membership` kata.
//!
//! Each test lets the learner's `create_table` make the table, stores what it needs in the
//! README's layout (groups `PK = SK = GROUP#<g>` with `member_count`, edges `GROUP#<g>` /
//! `MEMBER#<u>` with `role`, profiles `USER#<u>` / `EMAIL#<email>` with `name`) or through the
//! learner's writes, and judges from the outside: what the functions return, the items the
//! table holds afterwards (the test's own strongly consistent reads), DescribeTable, and the
//! request log.
//!
//! - `one_table_one_inverted_index`: ListTables and DescribeTable: one table, keys PK/SK, one
//!   GSI `Inverted` keyed SK (partition) / PK (sort), projecting `role` and `name`.
//! - `join_and_leave_keep_the_count`: joins and leaves one at a time, twice over and for a
//!   missing group: the return values, the edges and member_count after each, one
//!   TransactWriteItems each.
//! - `racing_joins_keep_the_count`: 4 clients on the engine's seeded schedule join and leave
//!   one group: member_count equals the edges, and the calls that said true account for them.
//! - `a_failed_join_leaves_no_half`: the group's partition loses its leader before or during a
//!   join, a leave or an add_members: member_count still equals the edges.
//! - `a_big_group_fits`: 6,600 members of 64-character ids, 400 a second: no item grows past
//!   400 KB; the members page through, the count is right.
//! - `members_in_pages_read_only_what_they_return`: pages of a group's members, one Query each,
//!   items read = members returned.
//! - `groups_of_is_one_query_of_the_inverted_index`: a user's groups, one Query of `Inverted`
//!   that reads only their edges.
//! - `user_by_email_through_the_same_index`: a profile by email, one Query of the same index.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::types::{KeyType, ProjectionType};
use engine::world::log::RequestRecord;
use engine::world::schedule::yield_now;
use engine::{item, item_size, AttributeValue, Client, Error, Item, World};
use given::{
    Member, Membership, Page, Role, User, EMAIL, GROUP, INDEX, MAX_ADD, MEMBER, TABLE, USER,
};
use katas_testkit::items::item_text;
use katas_testkit::{check_eq_text, fail, run, seeded, test, thousands, Rng};

katas_testkit::learner! {
    /// Creates the table and its inverted index.
    fn create_table(client: &Client) -> Result<(), Error>;
    /// Adds a member: true if they joined now.
    fn join(client: &Client, group_id: &str, user_id: &str, role: Role) -> Result<bool, Error>;
    /// Removes a member: true if they left now.
    fn leave(client: &Client, group_id: &str, user_id: &str) -> Result<bool, Error>;
    /// Adds new members in bulk.
    fn add_members(client: &Client, group_id: &str, user_ids: &[String]) -> Result<(), Error>;
    /// One page of a group's members.
    fn members(client: &Client, group_id: &str, limit: i32, cursor: Option<&str>) -> Result<Page, Error>;
    /// A user's groups.
    fn groups_of(client: &Client, user_id: &str) -> Result<Vec<Membership>, Error>;
    /// A profile by email.
    fn user_by_email(client: &Client, email: &str) -> Result<Option<User>, Error>;
}

/// Racing clients, and the operations each sends.
const CLIENTS: usize = 4;
const OPS: usize = 6;
/// Watchers beside an operation on the fault test's schedule.
const WATCHERS: usize = 15;
/// Requests one operation may send while its partition has no leader before the test stops it.
const RUNAWAY: u64 = 60;
/// The big group: members, and how many a call (a second) the test adds.
const BIG: usize = 6_600;
/// DynamoDB's item size limit, in bytes.
const ITEM_LIMIT: usize = 400 * 1024;
/// Operations that write items.
const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
/// What every explanation of a count out of step with the edges ends with.
const ONE_TRANSACTION: &str = "The edge and member_count are two items: two requests are \
                               each atomic, not together, and the one that got through stays. \
                               Write both in ONE TransactWriteItems — the edge's Put (or \
                               Delete) and the group item's Update — so that either both land \
                               or neither does.";

/// Runs the hidden tests against the learner's functions (called by the kata's glue binary).
pub fn main(kata: Kata) -> ! {
    install(kata);
    run(vec![
        test("one_table_one_inverted_index", one_table_one_inverted_index),
        seeded(
            "join_and_leave_keep_the_count",
            join_and_leave_keep_the_count,
        ),
        seeded("racing_joins_keep_the_count", racing_joins_keep_the_count),
        seeded("a_failed_join_leaves_no_half", a_failed_join_leaves_no_half),
        test("a_big_group_fits", a_big_group_fits),
        seeded(
            "members_in_pages_read_only_what_they_return",
            members_in_pages_read_only_what_they_return,
        ),
        seeded(
            "groups_of_is_one_query_of_the_inverted_index",
            groups_of_is_one_query_of_the_inverted_index,
        ),
        seeded(
            "user_by_email_through_the_same_index",
            user_by_email_through_the_same_index,
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// ListTables and DescribeTable after `create_table`.
fn one_table_one_inverted_index() {
    let s = Scene::new(7);
    let tables = s
        .client
        .list_tables()
        .send()
        .unwrap_or_else(|e| fail(format!("the test could not list the tables: {e}")));
    let names = tables.table_names().to_vec();
    if names != [TABLE.to_string()] {
        fail(format!(
            "create_table created the tables [{}]. Every item of the kata — groups, memberships, \
             profiles — lives in ONE table, {TABLE}: a membership is one edge item in its \
             group's item collection, and the inverted index reads the same edge the other way \
             round. A second table holding the memberships again is a second write per join, \
             and a second place to keep in step.",
            names.join(", ")
        ));
    }
    let table = s
        .client
        .describe_table()
        .table_name(TABLE)
        .send()
        .unwrap_or_else(|e| fail(format!("the test could not describe {TABLE}: {e}")));
    let table = table
        .table()
        .cloned()
        .unwrap_or_else(|| fail("DescribeTable returned no table"));
    let keys = show_keys(table.key_schema());
    if keys != "PK HASH, SK RANGE" {
        fail(format!(
            "DescribeTable shows the table's key schema as [{keys}]: the layout needs partition \
             key PK and sort key SK (both strings)."
        ));
    }
    let indexes = table.global_secondary_indexes();
    let shown: Vec<String> = indexes
        .iter()
        .map(|i| {
            format!(
                "{} [{}]",
                i.index_name().unwrap_or("?"),
                show_keys(i.key_schema())
            )
        })
        .collect();
    let inverted = match indexes {
        [one] if one.index_name() == Some(INDEX) => one,
        _ => fail(format!(
            "DescribeTable shows the global secondary indexes [{}]: the kata's table has exactly \
             one, {INDEX}, and it serves both lookups — a user's groups (SK = MEMBER#<user>) \
             and a profile by email (SK = EMAIL#<email>) — because both are the SK of an item \
             already there.",
            shown.join("; ")
        )),
    };
    let index_keys = show_keys(inverted.key_schema());
    if index_keys != "SK HASH, PK RANGE" {
        let why = if index_keys == "SK HASH" {
            "Its partition key is right, but it has no sort key: a user's edges then share an \
             index partition key with nothing to order them (DynamoDB keeps items under one \
             partition key sorted by the sort key alone), so a user's groups have no defined \
             order. With PK as its sort key the index is the table inverted: each user's edges \
             are one item collection of the index, sorted by group."
        } else {
            "The inverted index swaps the table's keys: its partition key is SK, its sort key \
             PK. Then the edges GROUP#<g> / MEMBER#<u>, read the other way round, list a user's \
             groups — no other attribute, no second copy of the edge."
        };
        fail(format!(
            "DescribeTable shows the index {INDEX} keyed [{index_keys}]. {why}"
        ));
    }
    let projection = inverted.projection();
    let kind = projection.and_then(|p| p.projection_type()).cloned();
    let included: Vec<String> = projection
        .map(|p| p.non_key_attributes().to_vec())
        .unwrap_or_default();
    let missing: Vec<&str> = ["role", "name"]
        .into_iter()
        .filter(|a| match kind {
            Some(ProjectionType::All) => false,
            Some(ProjectionType::Include) => !included.iter().any(|i| i == a),
            _ => true,
        })
        .collect();
    if !missing.is_empty() {
        fail(format!(
            "DescribeTable shows the index {INDEX} projecting {}: it does not hold {}. A Query of \
             a GSI returns only what the index holds — an edge without its role, a profile \
             without its name — and DynamoDB does not fetch the rest from the table. Project \
             them: INCLUDE role and name (or ALL).",
            match kind {
                Some(ProjectionType::Include) => format!("INCLUDE [{}]", included.join(", ")),
                Some(k) => k.as_str().to_string(),
                None => "nothing".to_string(),
            },
            missing.join(" and ")
        ));
    }
}

/// One step of the join-and-leave script: the call, and what it must return.
enum Step {
    Join(&'static str, &'static str, Role, bool),
    Leave(&'static str, &'static str, bool),
}

/// Joins and leaves one at a time, including the ones that change nothing.
fn join_and_leave_keep_the_count(seed: u64) {
    let s = Scene::new(seed);
    s.store_group("rust-guild", "Rust guild", &[]);
    s.store_group("chess", "Chess club", &[("cy", Role::Member)]);
    let script = [
        Step::Join("rust-guild", "ana", Role::Admin, true),
        Step::Join("rust-guild", "bo", Role::Member, true),
        Step::Join("chess", "ana", Role::Member, true),
        Step::Join("rust-guild", "ana", Role::Member, false),
        Step::Leave("rust-guild", "cy", false),
        Step::Leave("rust-guild", "bo", true),
        Step::Leave("rust-guild", "bo", false),
        Step::Join("rust-guild", "bo", Role::Member, true),
        Step::Leave("chess", "cy", true),
    ];
    // The seed decides only where the script starts repeating the last joins from.
    let mut rng = Rng::new(seed);
    let _ = rng.below(2);
    let mut history: Vec<String> = Vec::new();
    for step in &script {
        s.world.advance(Duration::from_secs(1));
        let (group, call, want) = match step {
            Step::Join(g, u, role, want) => {
                (*g, format!("join(\"{g}\", \"{u}\", {role:?})"), *want)
            }
            Step::Leave(g, u, want) => (*g, format!("leave(\"{g}\", \"{u}\")"), *want),
        };
        let before = s.group(group);
        let from = s.next_seq();
        let got = match step {
            Step::Join(g, u, role, _) => learner::join(&s.client, g, u, *role),
            Step::Leave(g, u, _) => learner::leave(&s.client, g, u),
        };
        let sent = s.requests_since(from);
        let after = s.group(group);
        let so_far = if history.is_empty() {
            String::new()
        } else {
            format!(" (after {})", history.join(", "))
        };
        let context = format!(
            "{call}{so_far} returned {}; its requests: {}",
            show_bool(&got),
            show_requests(&sent)
        );
        let got = got.unwrap_or_else(|e| {
            fail(format!(
                "{context}.\nThe group exists: {call} must not fail ({e})."
            ))
        });
        // What the group must look like now.
        let mut want_edges = before.edges.clone();
        if want {
            match step {
                Step::Join(_, u, role, _) => {
                    want_edges.insert(u.to_string(), role.as_str().to_string());
                }
                Step::Leave(_, u, _) => {
                    want_edges.remove(*u);
                }
            }
        }
        if after
            .extra
            .iter()
            .any(|(name, _)| name == "members" || name == "admins")
            || (want && after.edges == before.edges)
        {
            fail(format!(
                "{context}.\nThe group's item collection afterwards:\n{}\n{}",
                after.show(),
                after.member_list_note()
            ));
        }
        if got != want {
            let why = match step {
                Step::Join(..) if want => {
                    "The user was not a member: the join adds them.".to_string()
                }
                Step::Join(..) => format!(
                    "The user was a member already (their edge {MEMBER}… was there): a join \
                     changes nothing and returns false. Put the edge with \
                     attribute_not_exists(SK): a second join then fails that condition, which \
                     cancels the whole transaction{}.",
                    if after.count() != before.count() {
                        format!(
                            " — here the count moved from {} to {} while the edges stayed {}",
                            before.count_text(),
                            after.count_text(),
                            after.edges.len()
                        )
                    } else {
                        String::new()
                    }
                ),
                Step::Leave(..) if want => {
                    "The user was a member: the leave removes them.".to_string()
                }
                Step::Leave(..) => format!(
                    "The user was not a member: a leave changes nothing and returns false. A \
                     DeleteItem of a key that holds no item succeeds, and writes nothing — so \
                     the count's Update beside it still takes 1 off{}. Delete the edge with \
                     attribute_exists(SK): it then fails, and cancels the transaction.",
                    if after.count() != before.count() {
                        format!(
                            " (here member_count went from {} to {} with {} edges)",
                            before.count_text(),
                            after.count_text(),
                            after.edges.len()
                        )
                    } else {
                        String::new()
                    }
                ),
            };
            fail(format!(
                "{context}: it should return {want}.\n{why}\nThe group afterwards:\n{}",
                after.show()
            ));
        }
        if after.edges != want_edges || after.count() != Some(want_edges.len() as i64) {
            fail(format!(
                "{context}.\nThe group before:\n{}\nand after:\n{}\nmember_count must equal the \
                 number of edges ({}), and each edge hold the role it was joined with.",
                before.show(),
                after.show(),
                want_edges.len()
            ));
        }
        check_one_transaction(&context, &sent);
        history.push(call);
    }
    // A group that does not exist.
    let from = s.next_seq();
    let got = learner::join(&s.client, "no-such-group", "ana", Role::Member);
    let sent = s.requests_since(from);
    let after = s.group("no-such-group");
    let context = format!(
        "join(\"no-such-group\", \"ana\", Member), for a group that does not exist, returned {}; \
         its requests: {}",
        show_bool(&got),
        show_requests(&sent)
    );
    if !after.items.is_empty() {
        fail(format!(
            "{context}.\nIt wrote:\n{}\nAn UpdateItem of a key that holds no item creates the \
             item: the count's Update made a group no one created. Condition it on \
             attribute_exists(PK): it then fails, and cancels the whole transaction.",
            after.show()
        ));
    }
    match got {
        Err(_) => {}
        Ok(false) => fail(format!(
            "{context}.\nfalse means \"already a member\", and there is no such group: return \
             an error. A cancelled transaction says which action failed: \
             cancellation_reasons() has one entry per action, in request order, with code() \
             ConditionalCheckFailed on the one whose condition was false — the edge's means \
             already a member, the group item's means no such group."
        )),
        Ok(true) => fail(format!(
            "{context}.\nThe group does not exist: the join must fail, and write nothing."
        )),
    }
}

/// 4 clients on the world's seeded schedule join and leave one group.
fn racing_joins_keep_the_count(seed: u64) {
    let s = Scene::new(seed);
    let group = "book-club";
    s.store_group(group, "Book club", &[("ana", Role::Member)]);
    let users = ["ana", "bo", "cy", "dee"];
    let world = &s.world;
    let raced = panic::catch_unwind(AssertUnwindSafe(|| {
        world.concurrently(seed).run(CLIENTS, |i, client| {
            let mut rng = Rng::new(seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9));
            let mut calls = Vec::new();
            for _ in 0..OPS {
                let user = users[rng.below(users.len() as u64) as usize];
                let joining = rng.below(3) < 2;
                let result = if joining {
                    learner::join(&client, group, user, Role::Member)
                } else {
                    learner::leave(&client, group, user)
                };
                calls.push((i, joining, user, result));
            }
            calls
        })
    }));
    let calls: Vec<(usize, bool, &str, Result<bool, Error>)> = match raced {
        Ok(per_client) => per_client.into_iter().flatten().collect(),
        Err(payload) => fail(format!(
            "your code panicked in one of the racing clients: {}",
            panic_text(&*payload)
        )),
    };
    if let Some((i, joining, user, Err(e))) = calls.iter().find(|c| c.3.is_err()) {
        fail(format!(
            "{CLIENTS} clients joined and left \"{group}\" at once; client {i}'s {}(\"{user}\") \
             failed: {e}",
            if *joining { "join" } else { "leave" }
        ));
    }
    let joined = calls.iter().filter(|c| c.1 && c.3 == Ok(true)).count() as i64;
    let left = calls.iter().filter(|c| !c.1 && c.3 == Ok(true)).count() as i64;
    let after = s.group(group);
    let edges = after.edges.len() as i64;
    let summary = format!(
        "{CLIENTS} clients each sent {OPS} joins and leaves of \"{group}\" (1 member at first, \
         users ana, bo, cy, dee) on the engine's seeded schedule: {joined} joins and {left} \
         leaves returned true. Afterwards the group has {edges} edges and member_count {}",
        after.count_text()
    );
    let by_calls = 1 + joined - left;
    if after.count() == Some(edges) && by_calls == edges {
        return;
    }
    if after.has_member_list() {
        fail(format!(
            "{summary}.\nThe group:\n{}\n{}",
            after.show(),
            after.member_list_note()
        ));
    }
    let log = s.world.request_log();
    // A lost update is blamed only when the edges agree with the calls and the count alone is
    // off, and the log shows the interleaving.
    let lost = if by_calls == edges {
        lost_update(&log)
    } else {
        None
    };
    let why = if after.count() == Some(by_calls) {
        format!(
            "member_count followed the calls that returned true ({by_calls}), the edges did not \
             ({edges}): joins of a member, or leaves of a non-member, returned true and moved \
             the count without changing an edge. Put the edge with attribute_not_exists(SK) and \
             Delete it with attribute_exists(SK): a call with nothing to do then fails that \
             condition, which cancels its whole transaction, and returns false."
        )
    } else if let Some((a_read, b_write, a_write)) = lost {
        format!(
            "In the request log, client {}'s {} came before client {}'s {} changed the group, \
             and client {}'s {} after it: a count computed in code from what client {} read \
             overwrites the other client's change — a lost update. Let DynamoDB do the \
             arithmetic on the item as it is: ADD member_count :one (or SET member_count = \
             member_count + :one), with no read before.",
            a_read.client.unwrap_or(0),
            show_bare(&a_read),
            b_write.client.unwrap_or(0),
            show_bare(&b_write),
            a_write.client.unwrap_or(0),
            show_bare(&a_write),
            a_read.client.unwrap_or(0)
        )
    } else if by_calls == edges {
        format!("member_count must equal the edges. {ONE_TRANSACTION}")
    } else {
        "Each call that returned true changed one edge: 1 + joins − leaves must be the number \
         of edges, and member_count that number too. A join of a member, or a leave of a \
         non-member, returns false and changes nothing (attribute_not_exists(SK) on the edge's \
         Put, attribute_exists(SK) on its Delete)."
            .to_string()
    };
    fail(format!("{summary}.\n{why}\nThe group:\n{}", after.show()));
}

/// The leader of the group's partition stops during a join, a leave or a bulk add.
fn a_failed_join_leaves_no_half(seed: u64) {
    let s = Scene::new(seed);
    let group = "ops";
    s.store_group(
        group,
        "Ops on call",
        &[
            ("ana", Role::Admin),
            ("bo", Role::Member),
            ("cy", Role::Member),
        ],
    );
    let partition = s
        .world
        .partition_of(TABLE, &AttributeValue::S(format!("{GROUP}{group}")))
        .unwrap_or_else(|e| fail(format!("the test could not find the partition: {e}")));
    let bulk = |from: usize| -> Vec<String> {
        (from..from + 150).map(|n| format!("new-{n:04}")).collect()
    };
    enum Op {
        Join(&'static str),
        Leave(&'static str),
        Add(Vec<String>),
    }
    let rounds: Vec<(Op, u64)> = vec![
        (Op::Join("dee"), 1),
        (Op::Join("eve"), 2),
        (Op::Leave("ana"), 1),
        (Op::Leave("bo"), 2),
        (Op::Join("fay"), 0),
        (Op::Add(bulk(0)), 1),
        (Op::Add(bulk(150)), 2),
        (Op::Add(bulk(300)), 3),
    ];
    for (round, (op, k)) in rounds.into_iter().enumerate() {
        s.world.advance(Duration::from_secs(1));
        let before = s.group(group);
        let call = match &op {
            Op::Join(u) => format!("join(\"{group}\", \"{u}\", Member)"),
            Op::Leave(u) => format!("leave(\"{group}\", \"{u}\")"),
            Op::Add(users) => format!(
                "add_members(\"{group}\", [{} … {}], {} users)",
                users[0],
                users[users.len() - 1],
                users.len()
            ),
        };
        let from = s.next_seq();
        let body = || -> Result<bool, Error> {
            match &op {
                Op::Join(u) => learner::join(&s.client, group, u, Role::Member),
                Op::Leave(u) => learner::leave(&s.client, group, u),
                Op::Add(users) => learner::add_members(&s.client, group, users).map(|()| true),
            }
        };
        let outcome = if k == 0 {
            s.world
                .stop_leader(TABLE, partition)
                .unwrap_or_else(|e| fail(format!("the test could not stop a leader: {e}")));
            Ok(body())
        } else {
            stopped_after(&s.world, seed ^ ((round as u64) << 8), k, partition, body)
        };
        let sent = s.requests_since(from);
        s.world.heal_all();
        s.world.advance(Duration::from_secs(5));
        s.world.settle();
        let after = s.group(group);
        let when = if k == 0 {
            format!("the leader of partition {partition} (the group's) had stopped before the call")
        } else {
            let after_request = sent.get(k as usize - 1).map_or_else(
                || format!("its request {k}"),
                |r| format!("its request {k}, {}", show_bare(r)),
            );
            format!(
                "the leader of partition {partition} (the group's) stopped after {after_request} \
                 (a storage node failing: a request there is refused with InternalServerError \
                 until a new leader is elected)"
            )
        };
        let result = match outcome {
            Ok(result) => result,
            Err(runaway) => fail(format!(
                "{call}: {when}. {runaway}\nIts requests: {}",
                show_requests(&sent)
            )),
        };
        let context = format!(
            "{call}: {when}. It returned {}; its requests: {}",
            show_bool(&result),
            show_requests(&sent)
        );
        if after.has_member_list() {
            fail(format!(
                "{context}.\nThe group now:\n{}\n{}",
                after.show(),
                after.member_list_note()
            ));
        }
        if after.count() != Some(after.edges.len() as i64) {
            fail(format!(
                "{context}.\nThe group now has {} edges and member_count {}: they disagree, for \
                 good.\nWhat the call changed:\n{}\n{}",
                after.edges.len(),
                after.count_text(),
                after.changes_from(&before),
                match op {
                    Op::Add(_) => "A bulk add is many edges and one count: write them in \
                                   TransactWriteItems of at most 100 actions — up to 99 edges \
                                   and the count's Update (ADD member_count :n) in each — so \
                                   that every request that lands moves the count with its \
                                   edges, and one that is refused writes neither."
                        .to_string(),
                    _ => ONE_TRANSACTION.to_string(),
                }
            ));
        }
        match (&op, &result) {
            (Op::Add(users), Ok(_)) => {
                let absent = users
                    .iter()
                    .filter(|u| !after.edges.contains_key(*u))
                    .count();
                if absent > 0 {
                    fail(format!(
                        "{context}.\nIt returned Ok, but {absent} of the users have no edge: a \
                         refused request must be returned as an error."
                    ));
                }
            }
            (Op::Join(_) | Op::Leave(_), Ok(true)) if after.edges == before.edges => fail(format!(
                "{context}.\nIt returned true, but the group did not change:\n{}",
                after.show()
            )),
            (Op::Join(_) | Op::Leave(_), Ok(false)) => fail(format!(
                "{context}.\nIt returned false (\"nothing to do\"), but the call had something to \
                 do: the request was refused because the partition had no leader. Return that \
                 error, as the engine reported it."
            )),
            (Op::Join(_) | Op::Leave(_), Err(_)) if after.edges != before.edges => fail(format!(
                "{context}.\nIt failed, yet the group changed:\n{}\n{ONE_TRANSACTION}",
                after.changes_from(&before)
            )),
            _ => {}
        }
    }
}

/// A group of 6,600 members with 64-character ids, added 400 at a time, one call a second.
fn a_big_group_fits() {
    let s = Scene::new(11);
    let group = "all-hands";
    s.store_group(group, "All hands", &[]);
    let mut rng = Rng::new(0x6a11);
    let mut ids: Vec<String> = (0..BIG)
        .map(|_| {
            let words: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
            format!(
                "{:016x}{:016x}{:016x}{:016x}",
                words[0], words[1], words[2], words[3]
            )
        })
        .collect();
    for (call, chunk) in ids.chunks(MAX_ADD).enumerate() {
        let from = s.next_seq();
        if let Err(e) = learner::add_members(&s.client, group, chunk) {
            let sent = s.requests_since(from);
            let refused = sent.iter().find(|r| r.error.is_some());
            let item = s.group_item(group);
            let size = item.as_ref().map_or(0, item_size);
            let biggest = item.as_ref().and_then(|item| {
                item.iter()
                    .map(|(name, value)| (name.clone(), value_size(name, value)))
                    .max_by_key(|(_, size)| *size)
            });
            let anatomy = match (&item, biggest) {
                (Some(_), Some((name, bytes))) if size > ITEM_LIMIT / 2 => format!(
                    "\nThe group's own item ({GROUP}{group} / {GROUP}{group}) is {} bytes now, \
                     {} of them its attribute {name}: the member list in one attribute grows \
                     with every member (64 bytes and more each), and an item is at most 400 KB \
                     ({} bytes) — names and values together — so DynamoDB refuses the write \
                     that would take it past. No single item can hold a big group. Give each \
                     membership its own item, an edge {GROUP}{group} / {MEMBER}<user_id>: a \
                     group then grows by items, without limit.",
                    thousands(size as i64),
                    thousands(bytes as i64),
                    thousands(ITEM_LIMIT as i64)
                ),
                _ => String::new(),
            };
            fail(format!(
                "The test added {} members to \"{group}\", {MAX_ADD} a call, one call a second \
                 (user ids of 64 characters). Call {} (members {} to {}) failed: {e}.\nIts \
                 requests: {}{}{anatomy}",
                thousands(BIG as i64),
                call + 1,
                thousands((call * MAX_ADD + 1) as i64),
                thousands((call * MAX_ADD + chunk.len()) as i64),
                show_requests(&sent),
                refused.map_or(String::new(), |r| format!(" (refused: {})", show_bare(r)))
            ));
        }
        s.world.advance(Duration::from_secs(1));
    }
    s.world.settle();
    let item = s.group_item(group);
    let count = item.as_ref().and_then(|i| number(i, "member_count"));
    if count != Some(BIG as i64) {
        fail(format!(
            "After {} members added to \"{group}\", its member_count is {}.",
            thousands(BIG as i64),
            count.map_or("missing".to_string(), thousands)
        ));
    }
    if let Some((name, bytes)) = item.as_ref().and_then(|item| {
        item.iter()
            .map(|(name, value)| (name.clone(), value_size(name, value)))
            .find(|(_, size)| *size > 10 * 1024)
    }) {
        fail(format!(
            "After {} members, the group's own item has an attribute {name} of {} bytes: a \
             member list in the group's item grows with the group, and an item is at most 400 \
             KB. Give each membership its own item.",
            thousands(BIG as i64),
            thousands(bytes as i64)
        ));
    }
    ids.sort();
    let mut listed: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        let from = s.next_seq();
        let got = learner::members(&s.client, group, 1000, cursor.as_deref()).unwrap_or_else(|e| {
            fail(format!(
                "members(\"{group}\", 1000, ..) page {} failed: {e}",
                page + 1
            ))
        });
        let sent = s.requests_since(from);
        let read: u64 = sent.iter().map(|r| r.items_read).sum();
        if sent.len() != 1 || sent[0].operation != "Query" || read != got.members.len() as u64 {
            fail(format!(
                "Page {} of members(\"{group}\", 1000, ..) of a group of {} members returned {} \
                 members; its requests: {} (items read: {}). A page is one Query of the group's \
                 edges that reads only what it returns.",
                page + 1,
                thousands(BIG as i64),
                got.members.len(),
                show_requests(&sent),
                thousands(read as i64)
            ));
        }
        listed.extend(got.members.into_iter().map(|m| m.user_id));
        cursor = got.next_cursor;
        if cursor.is_none() || page > BIG / 1000 + 1 {
            break;
        }
    }
    if listed != ids {
        fail(format!(
            "members(\"{group}\", 1000, ..), page after page, listed {} members; the group has {} \
             — each once, sorted by user id.",
            thousands(listed.len() as i64),
            thousands(BIG as i64)
        ));
    }
}

/// A group's members, page after page.
fn members_in_pages_read_only_what_they_return(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let design: Vec<(String, Role)> = (0..23)
        .map(|n| {
            let role = if rng.below(5) == 0 {
                Role::Admin
            } else {
                Role::Member
            };
            (
                format!("{}-{n:02}", ["ana", "bo", "cy", "dee"][n % 4]),
                role,
            )
        })
        .collect();
    let refs: Vec<(&str, Role)> = design.iter().map(|(u, r)| (u.as_str(), *r)).collect();
    s.store_group("design", "Design review", &refs);
    s.store_group(
        "ops",
        "Ops",
        &[("ana-00", Role::Member), ("zed", Role::Admin)],
    );
    s.store_user("ana-00", "Ana", "ana@example.com");
    s.world.settle();
    let mut want: Vec<Member> = design
        .iter()
        .map(|(u, r)| Member {
            user_id: u.clone(),
            role: *r,
        })
        .collect();
    want.sort_by(|a, b| a.user_id.cmp(&b.user_id));
    for limit in [5, 23, 30, 1] {
        let mut got_all: Vec<Member> = Vec::new();
        let mut cursor: Option<String> = None;
        for page in 1.. {
            let call = format!(
                "members(\"design\", {limit}, {})",
                cursor
                    .as_ref()
                    .map_or("None".to_string(), |c| format!("Some(\"{c}\")"))
            );
            let from = s.next_seq();
            let got = learner::members(&s.client, "design", limit, cursor.as_deref())
                .unwrap_or_else(|e| fail(format!("{call} failed: {e}")));
            let sent = s.requests_since(from);
            let context = format!(
                "{call}, page {page} of a group of 23 members, returned {} members{}; its \
                 requests: {}",
                got.members.len(),
                got.next_cursor
                    .as_ref()
                    .map_or(" and no cursor".to_string(), |c| format!(
                        " and cursor \"{c}\""
                    )),
                show_requests(&sent)
            );
            check_one_query(&context, &sent, None, got.members.len());
            let start = got_all.len();
            let expect: Vec<Member> = want
                .iter()
                .skip(start)
                .take(limit as usize)
                .cloned()
                .collect();
            if got.members != expect {
                check_eq_text(
                    &show_members(&expect),
                    &show_members(&got.members),
                    format!(
                        "{context}.\nAfter {start} members listed, this page holds the next {} \
                         members, sorted by user id, each with the role its edge holds.{}",
                        expect.len(),
                        if got.members.len() + 1 == expect.len() && page == 1 {
                            " It is one short: the group's own item (SK = GROUP#design, which \
                             sorts before every MEMBER#…) took a place of the Limit. A key \
                             condition begins_with(SK, \"MEMBER#\") reads only the edges."
                        } else {
                            ""
                        }
                    ),
                );
            }
            got_all.extend(got.members);
            cursor = got.next_cursor;
            if cursor.is_none() {
                break;
            }
            if page > 30 {
                fail(format!(
                    "{context}.\nThe pages never end: the cursor does not move on."
                ));
            }
        }
        if got_all.len() != want.len() {
            fail(format!(
                "members(\"design\", {limit}, ..) page after page listed {} members; the group has \
                 23.",
                got_all.len()
            ));
        }
    }
    let from = s.next_seq();
    let got = learner::members(&s.client, "nobody-here", 5, None)
        .unwrap_or_else(|e| fail(format!("members(\"nobody-here\", 5, None) failed: {e}")));
    let sent = s.requests_since(from);
    let context = format!(
        "members(\"nobody-here\", 5, None), of a group that does not exist, returned {} members; \
         its requests: {}",
        got.members.len(),
        show_requests(&sent)
    );
    check_one_query(&context, &sent, None, 0);
    if !got.members.is_empty() || got.next_cursor.is_some() {
        fail(format!(
            "{context}.\nIt has no members, and no page after the first."
        ));
    }
}

/// A user's groups: one Query of the inverted index.
fn groups_of_is_one_query_of_the_inverted_index(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let mut want: Vec<Membership> = Vec::new();
    for g in 0..30 {
        let id = format!("g-{g:02}");
        let mut members: Vec<(String, Role)> = (0..4)
            .map(|m| (format!("user-{g}-{m}"), Role::Member))
            .collect();
        if g % 5 == 1 || rng.below(6) == 0 {
            let role = if rng.below(2) == 0 {
                Role::Admin
            } else {
                Role::Member
            };
            members.push(("ana".to_string(), role));
            want.push(Membership {
                group_id: id.clone(),
                role,
            });
        }
        let refs: Vec<(&str, Role)> = members.iter().map(|(u, r)| (u.as_str(), *r)).collect();
        s.store_group(&id, &format!("Group {g}"), &refs);
    }
    s.store_user("ana", "Ana", "ana@example.com");
    s.store_user("bo", "Bo", "bo@example.com");
    s.world.settle();
    for (user, want) in [("ana", want), ("bo", Vec::new())] {
        let from = s.next_seq();
        let got = learner::groups_of(&s.client, user)
            .unwrap_or_else(|e| fail(format!("groups_of(\"{user}\") failed: {e}")));
        let sent = s.requests_since(from);
        let context = format!(
            "groups_of(\"{user}\"), for a user in {} of the table's 30 groups (150 edges), \
             returned {} groups; its requests: {}",
            want.len(),
            got.len(),
            show_requests(&sent)
        );
        check_one_query(&context, &sent, Some(INDEX), got.len());
        if got != want {
            let projection = s.projection_note();
            check_eq_text(
                &show_memberships(&want),
                &show_memberships(&got),
                format!(
                    "{context}.\nA user's groups are their edges read the other way round: \
                     sorted by group id, each with the role its edge holds.{projection}{}",
                    if sent.iter().any(|r| !r.touches(TABLE)) {
                        format!(
                            " Its requests read other tables than {TABLE}, where the test's \
                             memberships are not: the edges in {TABLE} are the only copy."
                        )
                    } else {
                        String::new()
                    }
                ),
            );
        }
    }
}

/// A profile by email, through the same index.
fn user_by_email_through_the_same_index(seed: u64) {
    let s = Scene::new(seed);
    let mut rng = Rng::new(seed);
    let names = ["Ana", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"];
    let mut users: Vec<User> = Vec::new();
    for (n, name) in names.iter().enumerate() {
        let id = format!("u-{}", 1000 + rng.below(9000) * 10 + n as u64);
        let user = User {
            id: id.clone(),
            name: name.to_string(),
            email: format!("{}@example.com", name.to_lowercase()),
        };
        s.store_user(&user.id, &user.name, &user.email);
        users.push(user);
    }
    s.store_group(
        "book-club",
        "Book club",
        &[
            (users[0].id.as_str(), Role::Admin),
            (users[3].id.as_str(), Role::Member),
        ],
    );
    s.world.settle();
    let pick = rng.below(names.len() as u64) as usize;
    for (email, want) in [
        (users[pick].email.clone(), Some(users[pick].clone())),
        (users[0].email.clone(), Some(users[0].clone())),
        ("nobody@example.com".to_string(), None),
    ] {
        let from = s.next_seq();
        let got = learner::user_by_email(&s.client, &email)
            .unwrap_or_else(|e| fail(format!("user_by_email(\"{email}\") failed: {e}")));
        let sent = s.requests_since(from);
        let context = format!(
            "user_by_email(\"{email}\"), in a table of {} profiles and a group, returned {}; its \
             requests: {}",
            names.len(),
            show_user(&got),
            show_requests(&sent)
        );
        check_one_query(&context, &sent, Some(INDEX), usize::from(got.is_some()));
        if got != want {
            check_eq_text(
                &show_user(&want),
                &show_user(&got),
                format!(
                    "{context}.\nThe profile with that email (PK = USER#<id>, SK = \
                     EMAIL#<email>, name), or None.{}",
                    s.projection_note()
                ),
            );
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

/// A group's item collection, as the test reads it.
struct GroupRows {
    /// Every item of the collection, in sort-key order.
    items: Vec<Item>,
    /// user id → role, from the edges.
    edges: BTreeMap<String, String>,
    /// The group item's attributes beyond PK, SK, name and member_count, sorted.
    extra: Vec<(String, AttributeValue)>,
    /// The group item's member_count.
    member_count: Option<i64>,
}

impl GroupRows {
    fn count(&self) -> Option<i64> {
        self.member_count
    }

    fn count_text(&self) -> String {
        self.member_count
            .map_or("missing".to_string(), |c| c.to_string())
    }

    fn show(&self) -> String {
        if self.items.is_empty() {
            return "  (no item)".to_string();
        }
        self.items
            .iter()
            .map(show_row)
            .map(|r| format!("  {r}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Whether the group's own item holds a member list (a set, list or map, or `members`).
    fn has_member_list(&self) -> bool {
        self.extra.iter().any(|(name, value)| {
            matches!(
                value,
                AttributeValue::Ss(_) | AttributeValue::L(_) | AttributeValue::M(_)
            ) || name == "members"
        })
    }

    /// Why a member list in the group's item is the kata's anti-pattern, if there is one.
    fn member_list_note(&self) -> String {
        let list = self.extra.iter().find(|(name, value)| {
            matches!(
                value,
                AttributeValue::Ss(_) | AttributeValue::L(_) | AttributeValue::M(_)
            ) || name == "members"
        });
        match list {
            Some((name, _)) => format!(
                "The join made no edge item ({MEMBER}<user_id>): the group's own item keeps its \
                 members in the attribute {name}. A member list in one attribute grows with the \
                 group, and an item is at most 400 KB: the test a_big_group_fits shows where \
                 it stops. Each membership is its own item, an edge PK = {GROUP}<group_id>, SK \
                 = {MEMBER}<user_id>, role."
            ),
            None => format!(
                "A membership is one edge item: PK = {GROUP}<group_id>, SK = \
                 {MEMBER}<user_id>, role (\"member\" or \"admin\"); the group's own item \
                 (SK = {GROUP}<group_id>) holds member_count."
            ),
        }
    }

    /// One line per item the call wrote, replaced or deleted.
    fn changes_from(&self, before: &GroupRows) -> String {
        let key = |i: &Item| text(i, "SK").unwrap_or_default().to_string();
        let mut lines = Vec::new();
        let (mut written, mut deleted) = (0usize, 0usize);
        for a in &self.items {
            match before.items.iter().find(|b| key(b) == key(a)) {
                None => {
                    written += 1;
                    if written <= 3 {
                        lines.push(format!("  written: {}", show_row(a)));
                    }
                }
                Some(b) if b != a => lines.push(format!(
                    "  replaced: {}\n       now: {}",
                    show_row(b),
                    show_row(a)
                )),
                _ => {}
            }
        }
        if written > 3 {
            lines.push(format!("  … {} more edges written", written - 3));
        }
        for b in before
            .items
            .iter()
            .filter(|b| !self.items.iter().any(|a| key(a) == key(b)))
        {
            deleted += 1;
            lines.push(format!("  deleted: {}", show_row(b)));
        }
        let _ = deleted;
        if lines.is_empty() {
            "  (nothing)".to_string()
        } else {
            lines.join("\n")
        }
    }
}

impl Scene {
    /// A world, and the learner's table in it.
    fn new(seed: u64) -> Scene {
        let world = World::new(seed);
        let client = world.client();
        if let Err(e) = learner::create_table(&client) {
            fail(format!("create_table failed: {e}"));
        }
        Scene { world, client }
    }

    fn put(&self, item: Item) {
        self.client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .send()
            .unwrap_or_else(|e| {
                fail(format!(
                    "the test could not store its items in {TABLE}: {e}"
                ))
            });
    }

    /// A group with these members, in the README's layout (the test's own writes).
    fn store_group(&self, id: &str, name: &str, members: &[(&str, Role)]) {
        let pk = format!("{GROUP}{id}");
        self.put(
            item! {"PK" => pk.clone(), "SK" => pk.clone(), "name" => name,
            "member_count" => members.len() as u64},
        );
        for (user, role) in members {
            self.put(
                item! {"PK" => pk.clone(), "SK" => format!("{MEMBER}{user}"),
                "role" => role.as_str()},
            );
        }
    }

    /// A user's profile, in the README's layout.
    fn store_user(&self, id: &str, name: &str, email: &str) {
        self.put(
            item! {"PK" => format!("{USER}{id}"), "SK" => format!("{EMAIL}{email}"),
            "name" => name},
        );
    }

    /// The group's own item, as the leader has it.
    fn group_item(&self, id: &str) -> Option<Item> {
        let pk = AttributeValue::S(format!("{GROUP}{id}"));
        self.client
            .get_item()
            .table_name(TABLE)
            .key("PK", pk.clone())
            .key("SK", pk)
            .consistent_read(true)
            .send()
            .unwrap_or_else(|e| fail(format!("the test could not read the group {id}: {e}")))
            .into_item()
    }

    /// The group's item collection, as the leader has it.
    fn group(&self, id: &str) -> GroupRows {
        let items = self
            .client
            .query()
            .table_name(TABLE)
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(format!("{GROUP}{id}")))
            .consistent_read(true)
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<Item>, _>>()
            .unwrap_or_else(|e| fail(format!("the test could not read the group {id}: {e}")));
        let own = format!("{GROUP}{id}");
        let mut edges = BTreeMap::new();
        let mut extra = Vec::new();
        let mut member_count = None;
        for item in &items {
            let sk = text(item, "SK").unwrap_or_default();
            if let Some(user) = sk.strip_prefix(MEMBER) {
                edges.insert(
                    user.to_string(),
                    text(item, "role").unwrap_or("?").to_string(),
                );
            } else if sk == own {
                member_count = number(item, "member_count");
                for (name, value) in engine::value::sorted(item) {
                    if !["PK", "SK", "name", "member_count"].contains(&name.as_str()) {
                        extra.push((name.clone(), value.clone()));
                    }
                }
            }
        }
        GroupRows {
            items,
            edges,
            extra,
            member_count,
        }
    }

    /// What DescribeTable says the index projects, when it lacks `role` or `name`.
    fn projection_note(&self) -> String {
        let Ok(out) = self.client.describe_table().table_name(TABLE).send() else {
            return String::new();
        };
        let Some(table) = out.table() else {
            return String::new();
        };
        let Some(index) = table
            .global_secondary_indexes()
            .iter()
            .find(|i| i.index_name() == Some(INDEX))
        else {
            return format!(" The table has no index {INDEX} (DescribeTable).");
        };
        let projection = index.projection();
        match projection.and_then(|p| p.projection_type()) {
            Some(ProjectionType::All) => String::new(),
            Some(ProjectionType::Include)
                if ["role", "name"].iter().all(|a| {
                    projection.is_some_and(|p| p.non_key_attributes().iter().any(|n| n == a))
                }) =>
            {
                String::new()
            }
            Some(kind) => format!(
                " DescribeTable shows the index {INDEX} projecting {}: a Query of the index \
                 returns only what it holds, so an edge comes back without its role and a \
                 profile without its name. Project role and name (INCLUDE), or ALL.",
                kind.as_str()
            ),
            None => String::new(),
        }
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

fn text<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
    item.get(name)?.as_s().ok().map(String::as_str)
}

fn number(item: &Item, name: &str) -> Option<i64> {
    item.get(name)?.as_n().ok()?.parse().ok()
}

/// The bytes one attribute adds to its item (name and value).
fn value_size(name: &str, value: &AttributeValue) -> usize {
    let mut one = Item::new();
    one.insert(name.to_string(), value.clone());
    item_size(&one)
}

/// `SK = MEMBER#ana: role = admin`, `SK = GROUP#ops: member_count = 3, name = Ops`.
fn show_row(item: &Item) -> String {
    let sk = text(item, "SK").unwrap_or("?");
    let rest: Vec<String> = engine::value::sorted(item)
        .into_iter()
        .filter(|(name, _)| name.as_str() != "PK" && name.as_str() != "SK")
        .map(|(name, value)| format!("{name} = {}", show_value(value)))
        .collect();
    format!("SK = {sk}: {}", rest.join(", "))
}

fn show_value(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Ss(set) if set.len() > 6 => format!("a string set of {} ids", set.len()),
        AttributeValue::Ss(set) => {
            let mut set = set.clone();
            set.sort();
            format!("{{{}}}", set.join(", "))
        }
        other => {
            let mut one = Item::new();
            one.insert("v".to_string(), other.clone());
            item_text(&one)
        }
    }
}

fn show_keys(schema: &[engine::types::KeySchemaElement]) -> String {
    schema
        .iter()
        .map(|k| {
            format!(
                "{} {}",
                k.attribute_name(),
                match k.key_type() {
                    KeyType::Hash => "HASH",
                    KeyType::Range => "RANGE",
                }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_bool(r: &Result<bool, Error>) -> String {
    match r {
        Ok(b) => format!("Ok({b})"),
        Err(e) => format!("Err({e})"),
    }
}

fn show_members(members: &[Member]) -> String {
    if members.is_empty() {
        return "(no member)".to_string();
    }
    members
        .iter()
        .map(|m| format!("{} ({})", m.user_id, m.role.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn show_memberships(groups: &[Membership]) -> String {
    if groups.is_empty() {
        return "(no group)".to_string();
    }
    groups
        .iter()
        .map(|m| format!("{} ({})", m.group_id, m.role.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn show_user(user: &Option<User>) -> String {
    match user {
        Some(u) => format!("Some({} \"{}\" <{}>)", u.id, u.name, u.email),
        None => "None".to_string(),
    }
}

/// `client 2's GetItem #12 (strongly consistent)`, `TransactWriteItems #14 on groups,
/// memberships (TransactionCanceledException)`.
fn show_request(r: &RequestRecord) -> String {
    let mut notes = Vec::new();
    if let Some(index) = &r.index {
        notes.push(format!("index {index}"));
    }
    if r.operation == "Query" || r.operation == "Scan" {
        notes.push(format!("items read: {}", thousands(r.items_read as i64)));
    }
    if r.tables.iter().any(|t| &**t != TABLE) {
        let tables: Vec<&str> = r.tables.iter().map(|t| &**t).collect();
        notes.push(format!("tables {}", tables.join(", ")));
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

/// [`show_request`] without the client.
fn show_bare(r: &RequestRecord) -> String {
    let mut r = r.clone();
    r.client = None;
    show_request(&r)
}

fn show_requests(requests: &[RequestRecord]) -> String {
    match requests.len() {
        0 => "no request".to_string(),
        n if n > 8 => {
            let shown: Vec<String> = requests[..6].iter().map(show_bare).collect();
            format!("{}, … ({} requests in all)", shown.join(", "), n)
        }
        _ => requests
            .iter()
            .map(show_bare)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Fails unless a join or leave sent exactly one write request, a TransactWriteItems on TABLE.
fn check_one_transaction(context: &str, sent: &[RequestRecord]) {
    let writes: Vec<&RequestRecord> = sent
        .iter()
        .filter(|r| WRITES.contains(&r.operation))
        .collect();
    if writes.len() > 1 {
        fail(format!(
            "{context}.\nIt sent {} write requests. {ONE_TRANSACTION} (The test \
             a_failed_join_leaves_no_half stops the partition's leader between them.)",
            writes.len()
        ));
    }
    match writes.first() {
        Some(w)
            if w.operation == "TransactWriteItems" && w.tables.iter().all(|t| &**t == TABLE) => {}
        Some(w) if w.operation == "TransactWriteItems" => fail(format!(
            "{context}.\nIts {} wrote to other tables than {TABLE}: every item of the kata lives \
             in {TABLE}, and a membership is one edge there.",
            show_bare(w)
        )),
        other => fail(format!(
            "{context}.\nA join or a leave changes two items — the edge and the group's \
             member_count — in one TransactWriteItems; its write was {}.",
            other.map_or("missing".to_string(), |w| show_bare(w))
        )),
    }
}

/// Fails unless `sent` is one Query (of `index`, if given) that read only what it returned.
fn check_one_query(context: &str, sent: &[RequestRecord], index: Option<&str>, returned: usize) {
    if let Some(scan) = sent.iter().find(|r| r.operation == "Scan") {
        fail(format!(
            "{context}.\nIts {} read every item of the table — every group, edge and profile — \
             to return {returned}: a Scan reads (and bills) the whole table, whatever its filter \
             keeps. {}",
            show_bare(scan),
            match index {
                Some(_) => format!(
                    "Query the index {INDEX} on its partition key SK: the edges (or the profile) \
                     with that SK are one item collection of the index."
                ),
                None => "A group's members are its item collection: one Query on PK = \
                         GROUP#<group_id>, with begins_with(SK, \"MEMBER#\") and Limit."
                    .to_string(),
            }
        ));
    }
    let queries: Vec<&RequestRecord> = sent.iter().filter(|r| r.operation == "Query").collect();
    if queries.len() != 1 || sent.len() != 1 {
        let per_group = sent.iter().filter(|r| r.operation == "GetItem").count();
        fail(format!(
            "{context}.\nThe answer is one item collection{}: one Query, no other request.{}",
            match index {
                Some(_) => format!(" of the index {INDEX} (the edges' SK is its partition key)"),
                None => " (the group's edges share its partition key)".to_string(),
            },
            if per_group > 2 {
                format!(
                    " Its {per_group} GetItems asked group after group: the table's key starts \
                     with the group, so from the table a user's groups cost a request per \
                     group. The inverted index starts with the user."
                )
            } else {
                String::new()
            }
        ));
    }
    let query = queries[0];
    if index.is_some() && query.index.as_deref() != index {
        fail(format!(
            "{context}.\nIts {} is not a Query of the index {INDEX}: the table's key starts with \
             the group, and only the inverted index has the edge's SK as its partition key.",
            show_bare(query)
        ));
    }
    if query.items_read != returned as u64 {
        fail(format!(
            "{context}.\nIts {} read {} items to return {returned}: a Query pays for every item \
             it reads, returned or not. {}",
            show_bare(query),
            query.items_read,
            if index.is_none() && query.items_read > 30 {
                "It read the whole member list: let the key condition and Limit (the page \
                 size) select the page, and ExclusiveStartKey (from the cursor) start it."
            } else if index.is_none() {
                "The key condition selects what is read: begins_with(SK, \"MEMBER#\") reads \
                 only edges, and Limit stops at the page size."
            } else {
                "The key condition selects what is read."
            }
        ));
    }
}

/// A read by one client, another client's write after it, and the first client's write after
/// that: the interleaving of a lost update, if the log has one.
fn lost_update(log: &[RequestRecord]) -> Option<(RequestRecord, RequestRecord, RequestRecord)> {
    let raced: Vec<&RequestRecord> = log.iter().filter(|r| r.client.is_some()).collect();
    for (i, a_write) in raced.iter().enumerate() {
        if !WRITES.contains(&a_write.operation) || !a_write.succeeded() {
            continue;
        }
        let a = a_write.client;
        let Some(a_read) = raced[..i]
            .iter()
            .rev()
            .take_while(|r| !(r.client == a && WRITES.contains(&r.operation)))
            .find(|r| r.client == a && r.operation == "GetItem")
        else {
            continue;
        };
        if let Some(b_write) = raced[..i].iter().find(|r| {
            r.seq > a_read.seq && r.client != a && WRITES.contains(&r.operation) && r.succeeded()
        }) {
            return Some(((*a_read).clone(), (*b_write).clone(), (*a_write).clone()));
        }
    }
    None
}

/// Runs `body` (one call) as a client on a seeded schedule, beside watchers that stop the
/// partition's leader once it has sent `k` requests (they land; the next is refused). Err if
/// the call went on sending requests to the leaderless partition without end.
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
            .unwrap_or_else(|| fail("the call's result went missing"))),
        Err(payload) if payload.is::<Runaway>() => Err(format!(
            "It sent more than {RUNAWAY} requests to the partition without a leader and was \
             still going: return the InternalServerError as it came — the caller decides \
             whether to retry, and a loop without a bound never returns."
        )),
        Err(payload) => fail(format!(
            "your code panicked during the call: {}",
            panic_text(&*payload)
        )),
    }
}

/// The payload the watchers unwind with when a call never stops.
struct Runaway;

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
