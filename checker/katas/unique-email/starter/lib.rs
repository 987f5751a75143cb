//! # Kata: unique email
//!
//! A sign-up service where no two users may share an email: a user item and an `EMAIL#` guard
//! item, written together in one transaction — task, table and rules in `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::Client;
use given::{not_written_yet, AccountError, NewUser};

// The table the tests create for you: `given::TABLE` (`accounts`, partition key `PK`,
// on-demand). A user is `PK = USER#<username>` (`given::user_pk`) with `username`, `email` and
// `name`; its email's guard is `PK = EMAIL#<email>` (`given::email_pk`) with `username`. The
// types are in the kata's given part: checker/katas/unique-email/given/src/lib.rs.

/// Registers `user`: its item and its email's guard in one TransactWriteItems, both
/// create-only. `UsernameTaken` / `EmailTaken` (read from the cancellation reasons) when taken.
pub fn register(client: &Client, user: &NewUser) -> Result<(), AccountError> {
    // TODO: one TransactWriteItems, two Puts with attribute_not_exists(PK).
    let _ = (client, user);
    Err(not_written_yet("register"))
}

/// Moves `username` to `new_email`: deletes the old guard, creates the new one and updates the
/// user (conditioned on the email read), in one TransactWriteItems.
pub fn change_email(client: &Client, username: &str, new_email: &str) -> Result<(), AccountError> {
    // TODO: a strongly consistent GetItem of the user, then one TransactWriteItems.
    let _ = (client, username, new_email);
    Err(not_written_yet("change_email"))
}

/// Registers every member of `team`, or none, in one TransactWriteItems; `TooLarge` (without a
/// request) when the team needs more actions than one transaction can hold.
pub fn register_team(client: &Client, team: &[NewUser]) -> Result<(), AccountError> {
    // TODO: check the size, then one TransactWriteItems with two Puts per member.
    let _ = (client, team);
    Err(not_written_yet("register_team"))
}
