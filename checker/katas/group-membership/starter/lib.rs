//! # Kata: group membership
//!
//! Users and groups, many to many: every membership one item (an edge) in the group's item
//! collection, and one inverted index that reads the same edges the other way round — a
//! user's groups — and, overloaded, finds a user by email. Task, table and rules in
//! `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::{Client, Error};
use given::{not_written_yet, Membership, Page, Role, User};

// Your table is `given::TABLE` (`groups`: PK, SK) with one GSI, `given::INDEX` (`Inverted`).
// The item layout is in the README; the types and the prefixes (`GROUP#`, `MEMBER#`, `USER#`,
// `EMAIL#`) are the kata's given part: checker/katas/group-membership/given/src/lib.rs.

/// Creates `TABLE`: keys `PK` (string, partition) and `SK` (string, sort), on-demand, and the
/// one global secondary index `INDEX` that inverts them.
pub fn create_table(client: &Client) -> Result<(), Error> {
    // TODO: CreateTable with the inverted GSI (partition key SK, sort key PK).
    let _ = client;
    Err(not_written_yet("create_table"))
}

/// Adds `user_id` to the group with `role`: true if they joined now, false if they were a
/// member already (nothing changed). A group that does not exist is an error.
pub fn join(client: &Client, group_id: &str, user_id: &str, role: Role) -> Result<bool, Error> {
    // TODO: one write request: the edge, and the group's member_count one higher.
    let _ = (client, group_id, user_id, role);
    Err(not_written_yet("join"))
}

/// Removes `user_id` from the group: true if they left now, false if they were not a member
/// (nothing changed).
pub fn leave(client: &Client, group_id: &str, user_id: &str) -> Result<bool, Error> {
    let _ = (client, group_id, user_id);
    Err(not_written_yet("leave"))
}

/// Adds users who are not members of the group yet, all as `Role::Member` (at most
/// `given::MAX_ADD` of them). Whatever happens, `member_count` equals the group's edges.
pub fn add_members(client: &Client, group_id: &str, user_ids: &[String]) -> Result<(), Error> {
    let _ = (client, group_id, user_ids);
    Err(not_written_yet("add_members"))
}

/// One page of the group's members, sorted by user id, at most `limit` (1 to 1,000) of them:
/// the first page for `cursor = None`, then the page after the previous page's `next_cursor`.
pub fn members(
    client: &Client,
    group_id: &str,
    limit: i32,
    cursor: Option<&str>,
) -> Result<Page, Error> {
    let _ = (client, group_id, limit, cursor);
    Err(not_written_yet("members"))
}

/// The groups `user_id` is a member of, with their role in each, sorted by group id.
pub fn groups_of(client: &Client, user_id: &str) -> Result<Vec<Membership>, Error> {
    let _ = (client, user_id);
    Err(not_written_yet("groups_of"))
}

/// The user whose email is `email` (None: no such user).
pub fn user_by_email(client: &Client, email: &str) -> Result<Option<User>, Error> {
    let _ = (client, email);
    Err(not_written_yet("user_by_email"))
}
