//! # Kata: Global tables: counters and profiles across Regions
//!
//! The site's table is replicated to three Regions, and every Region takes writes: count
//! visits so that none is lost, and keep each user's profile in their home Region so that
//! no change is lost and a user always reads what they saved. Task, table and rules in
//! `README.md`.
//!
//! Run `cargo katas` (watch mode) and save this file to check it.

use engine::Error;
use given::{not_written_yet, Profile, Replicas, User};

/// Counts one visit to `page`, made by the application servers in Region `here`.
pub fn count_visit(replicas: &Replicas, here: &str, page: &str) -> Result<(), Error> {
    let _ = (replicas, here, page);
    Err(not_written_yet("count_visit"))
}

/// The visits to `page` from every Region, as the replica in `here` has them.
pub fn visits(replicas: &Replicas, here: &str, page: &str) -> Result<u64, Error> {
    let _ = (replicas, here, page);
    Err(not_written_yet("visits"))
}

/// Applies `change` to `user`'s profile (the fields that are `Some`), for a request served
/// in Region `here`.
pub fn update_profile(
    replicas: &Replicas,
    here: &str,
    user: &User,
    change: &Profile,
) -> Result<(), Error> {
    let _ = (replicas, here, user, change);
    Err(not_written_yet("update_profile"))
}

/// `user`'s own profile, for a request served in Region `here`: what they last saved
/// (`None` if they never saved one).
pub fn load_profile(
    replicas: &Replicas,
    here: &str,
    user: &User,
) -> Result<Option<Profile>, Error> {
    let _ = (replicas, here, user);
    Err(not_written_yet("load_profile"))
}
