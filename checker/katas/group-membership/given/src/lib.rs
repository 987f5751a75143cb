//! # The given part of the kata: group membership
//!
//! What the tests and your code share: the table's and the index's names, the item layout's
//! prefixes, and the types your functions take and return. It is not yours to change — the
//! checker and grading always build your `src/lib.rs` against this copy
//! (`checker/katas/group-membership/given/`), so an edit here would be judged at home and lost
//! in grading. Your crate reaches it as `given` (`use given::{...};`).

use engine::Error;

/// The one table your `create_table` makes: partition key `PK` (string), sort key `SK`
/// (string), on-demand. Every item of the kata lives in it (layout in the README).
pub const TABLE: &str = "groups";

/// The one global secondary index of `TABLE`: the inverted index, partition key `SK`, sort key
/// `PK`.
pub const INDEX: &str = "Inverted";

/// `PK` of a group's items: `GROUP#<group_id>` (its own item has `SK` = the same string).
pub const GROUP: &str = "GROUP#";
/// `SK` of a membership edge: `MEMBER#<user_id>` (under `PK = GROUP#<group_id>`).
pub const MEMBER: &str = "MEMBER#";
/// `PK` of a user's profile: `USER#<user_id>`.
pub const USER: &str = "USER#";
/// `SK` of a user's profile: `EMAIL#<email>`.
pub const EMAIL: &str = "EMAIL#";

/// The most members one `add_members` call is given (the tests never pass more).
pub const MAX_ADD: usize = 400;

/// A member's role in a group, stored as the edge's `role` (S): `"member"` or `"admin"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Member,
    Admin,
}

impl Role {
    /// `"member"` or `"admin"`: how the edge stores it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Member => "member",
            Role::Admin => "admin",
        }
    }

    /// The role `as_str` spelled `text`, if any.
    pub fn parse(text: &str) -> Option<Role> {
        [Role::Member, Role::Admin]
            .into_iter()
            .find(|r| r.as_str() == text)
    }
}

/// One member of a group, as `members` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub user_id: String,
    pub role: Role,
}

/// One group of a user, as `groups_of` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub group_id: String,
    pub role: Role,
}

/// A user's profile, as `user_by_email` returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub name: String,
    pub email: String,
}

/// One page of a group's members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub members: Vec<Member>,
    /// Where the next page starts (pass it back as `cursor`); `None`: no page after this one.
    pub next_cursor: Option<String>,
}

/// The error to return when an item the table holds is not shaped as the README's layout says
/// (an attribute missing, or of another type): `bad_item("edge MEMBER#ana has no role")`. The
/// tests never store such an item; this is for the `None` your code must still handle.
pub fn bad_item(what: impl Into<String>) -> Error {
    Error::validation(format!("malformed item: {}", what.into()))
}

/// An error for a group that does not exist, if your code finds out itself (a join's
/// transaction refused by the group item's condition can be returned as it is, too).
pub fn no_such_group(group_id: &str) -> Error {
    Error::validation(format!("no such group: {group_id}"))
}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> Error {
    Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/group-membership/README.md)"
    ))
}
