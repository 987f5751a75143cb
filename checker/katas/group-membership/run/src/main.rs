//! The group-membership kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/group-membership/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        create_table: group_membership::create_table,
        join: group_membership::join,
        leave: group_membership::leave,
        add_members: group_membership::add_members,
        members: group_membership::members,
        groups_of: group_membership::groups_of,
        user_by_email: group_membership::user_by_email,
    })
}
