//! The session-store kata's test binary: hands the learner's functions to the hidden tests
//! (`../tests`), which are compiled once, without the kata, so that a save rebuilds only the
//! learner's crate and this file. A type mismatch here means a function's signature in
//! `exercises/session-store/src/lib.rs` no longer matches the starter's.

fn main() {
    hidden::main(hidden::Kata {
        login: session_store::login,
        session: session_store::session,
        refresh: session_store::refresh,
        logout: session_store::logout,
        sessions_of: session_store::sessions_of,
    })
}
