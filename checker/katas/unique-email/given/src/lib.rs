//! # The given part of the kata: unique email
//!
//! What the tests and your code share: the table's name, its key formats, the user your
//! functions register and the error they return. It is not yours to change — the checker and
//! grading always build your `src/lib.rs` against this copy (`checker/katas/unique-email/given/`),
//! so an edit here would be judged at home and lost in grading. Your crate reaches it as
//! `given` (`use given::{...};`).

use std::fmt;

use engine::error::SdkError;
use engine::Error;

/// The table the tests create for you: `accounts`, partition key `PK` (string), no sort key,
/// on-demand. Two kinds of item live in it:
///
/// | item  | `PK`              | other attributes            |
/// |-------|-------------------|-----------------------------|
/// | user  | `USER#<username>` | `username`, `email`, `name` |
/// | guard | `EMAIL#<email>`   | `username` (who holds it)   |
pub const TABLE: &str = "accounts";

/// The partition key of a user's item: `USER#<username>`.
pub fn user_pk(username: &str) -> String {
    format!("USER#{username}")
}

/// The partition key of an email's guard item: `EMAIL#<email>`.
pub fn email_pk(email: &str) -> String {
    format!("EMAIL#{email}")
}

/// A sign-up: what `register` and `register_team` store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewUser {
    pub username: String,
    pub email: String,
    /// The display name.
    pub name: String,
}

impl NewUser {
    pub fn new(username: &str, email: &str, name: &str) -> NewUser {
        NewUser {
            username: username.to_string(),
            email: email.to_string(),
            name: name.to_string(),
        }
    }
}

/// Why a sign-up or an email change wrote nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum AccountError {
    /// Another user already has this username.
    UsernameTaken { username: String },
    /// Another user already holds this email (its guard item exists).
    EmailTaken { email: String },
    /// `change_email`: the user's item no longer has the email it had when it was read (another
    /// change of this user committed in between), so nothing was changed.
    UserChanged { username: String },
    /// `change_email`: there is no user with this username.
    NoSuchUser { username: String },
    /// `register_team`: the team needs more actions than one transaction can hold; nothing was
    /// sent. `max` is the largest team one transaction can register.
    TooLarge { members: usize, max: usize },
    /// The engine refused a request for another reason (returned as it came).
    Engine(Error),
}

impl From<Error> for AccountError {
    fn from(e: Error) -> Self {
        AccountError::Engine(e)
    }
}

/// `?` on a `send()`: any failure of the call is an `Engine` error.
impl<E: Into<Error>, R> From<SdkError<E, R>> for AccountError {
    fn from(e: SdkError<E, R>) -> Self {
        AccountError::Engine(e.into())
    }
}

impl fmt::Display for AccountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccountError::UsernameTaken { username } => {
                write!(f, "the username {username} is taken")
            }
            AccountError::EmailTaken { email } => write!(f, "the email {email} is taken"),
            AccountError::UserChanged { username } => {
                write!(f, "the user {username} changed since it was read")
            }
            AccountError::NoSuchUser { username } => write!(f, "no user {username}"),
            AccountError::TooLarge { members, max } => write!(
                f,
                "a team of {members} is too large for one transaction (at most {max})"
            ),
            AccountError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AccountError {}

/// What the starter's functions return until you write them: an error naming the function.
pub fn not_written_yet(function: &str) -> AccountError {
    AccountError::Engine(Error::validation(format!(
        "TODO: {function} is not written yet (see exercises/unique-email/README.md)"
    )))
}
