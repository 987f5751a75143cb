//! The failing run's picture: the world a failing test used, saved for `cargo katas view`.
//!
//! When the checker sets [`VIEW_FILE_ENV`] (watch mode and `katas run` do), the harness
//! keeps a handle on each world the running test creates (through the engine's
//! [`engine::world::snapshot::on_new_world`] hook), and when the test fails it writes a
//! [`SavedRun`] — the snapshot of the world that served the most requests, with the test's
//! name, seed and message — to that file as JSON. `cargo katas view <kata>` draws it with the
//! live view's own page.
//!
//! ```text
//!  run(tests) ── install hook ─▶ each seed: forget the worlds kept
//!                                 test body: World::new(seed) ─▶ hook keeps a handle
//!                                 it fails ─▶ the busiest world ─▶ snapshot ─▶ $KATAS_VIEW_FILE
//! ```
//!
//! Decisions:
//! - **Only the first failing test is saved**: it is the one the checker's verdict shows
//!   first, and the page should explain the message the learner is reading.
//! - **The busiest world, not the last one made**: a test may build a second world to
//!   compute what it expected; the learner's code ran in the one with the most requests
//!   (the later on a tie).
//! - **At most [`KEPT_WORLDS`] worlds held** per test, the most recent ones: a test that makes
//!   a world per iteration must not keep them all alive until it ends.
//! - Nothing is written for a crash or a timeout: the process is gone before it could write.

use std::cell::RefCell;

use engine::world::snapshot::{on_new_world, SavedRun, SnapshotOptions, WindowEnd};
use engine::World;

use crate::Failure;

/// Environment variable naming the file a failing run's snapshot is written to.
pub const VIEW_FILE_ENV: &str = "KATAS_VIEW_FILE";

/// Worlds held per test, the most recent.
pub const KEPT_WORLDS: usize = 4;

/// Seconds of per-partition history saved (the page's charts show this many).
pub const SAVED_SECONDS: u64 = 120;

/// Characters of the failure message saved (its start: the page shows it above the tables,
/// the verdict in the terminal has the rest).
pub const SAVED_MESSAGE_CHARS: usize = 400;

fn message_head(message: &str) -> String {
    let mut head: String = message.chars().take(SAVED_MESSAGE_CHARS).collect();
    if head.len() < message.len() {
        head.push('…');
    }
    head
}

/// Requests of the log's tail saved.
pub const SAVED_LOG_TAIL: usize = 40;

thread_local! {
    static WORLDS: RefCell<Vec<World>> = const { RefCell::new(Vec::new()) };
    static SAVED: RefCell<bool> = const { RefCell::new(false) };
}

fn keep(world: &World) {
    // Worlds made on other threads (a learner's worker) are not the test's own.
    let _ = WORLDS.try_with(|w| {
        let mut w = w.borrow_mut();
        if w.len() == KEPT_WORLDS {
            w.remove(0);
        }
        w.push(world.clone());
    });
}

/// Starts keeping worlds, when the checker asked for a snapshot.
pub(crate) fn install() {
    if std::env::var_os(VIEW_FILE_ENV).is_some() {
        on_new_world(keep);
    }
}

/// A test (or one seed of it) starts: the worlds of the one before are let go.
pub(crate) fn forget() {
    WORLDS.with(|w| w.borrow_mut().clear());
}

/// A test failed: save its busiest world, if it is the run's first failure.
pub(crate) fn save(test: &str, seed: Option<u64>, failure: &Failure) {
    let Some(path) = std::env::var_os(VIEW_FILE_ENV) else {
        return;
    };
    if SAVED.with(|s| s.replace(true)) {
        return;
    }
    let world = WORLDS.with(|w| {
        w.borrow()
            .iter()
            .enumerate()
            .max_by_key(|(i, w)| (w.request_totals().requests, *i))
            .map(|(_, w)| w.clone())
    });
    forget();
    let Some(world) = world else { return };
    let saved = SavedRun {
        test: test.to_string(),
        seed,
        message: message_head(&failure.message),
        snapshot: world.snapshot(&SnapshotOptions {
            seconds: SAVED_SECONDS,
            end: WindowEnd::LastThrottle,
            log_tail: SAVED_LOG_TAIL,
        }),
    };
    let Ok(text) = serde_json::to_string(&saved) else {
        return;
    };
    // Written aside, then renamed: a reader never sees half a file.
    let path = std::path::PathBuf::from(path);
    let partial = path.with_extension("json.partial");
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if std::fs::write(&partial, text).is_ok() {
        let _ = std::fs::rename(&partial, &path);
    }
}
