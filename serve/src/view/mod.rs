//! # The live view: the world's inside, in a browser
//!
//! `GET /_katas/` draws one HTML page of what no DynamoDB emulator shows: every table with its
//! partitions (hash ranges, items, bytes), each partition's consumed and throttled capacity
//! per second over the last [`WINDOW_S`] seconds, its three replicas by AZ with the leader and
//! the lag, the secondary indexes with their partitions, lag and backfill, the stream's shards
//! with their lineage, and the tail of the request log. Faults are buttons: each is a form
//! posted to `/_katas/fault` ([`faults`]).
//!
//! ```text
//!  browser ── GET /_katas/ ──▶ server: clock catches up ─▶ page::draw(world) ─▶ HTML + SVG
//!     │  every REFRESH_MS: fetch the page again, swap <main> (scroll and typing kept)
//!     └─ POST /_katas/fault?op=fail_az&az=az-b ─▶ faults::apply ─▶ 303 back to /_katas/
//! ```
//!
//! Everything on the page comes from one [`Snapshot`] (`World::snapshot`, the engine's
//! inspection API): reading it is not a request, so a page that refreshes every second leaves
//! the request log as the learner's own requests made it. The same drawing serves a kata's
//! failing run: its hidden test saved the snapshot of its world as JSON (`katas_testkit::view`),
//! and `katas-serve view FILE` ([`saved`]) draws that file with [`draw`], read-only — no fault
//! buttons, no refresh — with the failed test named at the top.
//!
//! ```text
//!  live:   World ──snapshot(window ends now)──────────▶ draw(snapshot, Header::Live)
//!  saved:  FILE ──SavedRun (window ends at the last throttle)──▶ draw(snapshot, Header::Saved)
//! ```
//!
//! Decisions:
//! - **Charts drawn on the server as inline SVG**, not a charting library. The charts are
//!   one small line-and-band picture per partition ([`chart`]); a library (Chart.js, uPlot)
//!   would have to be vendored into the crate — nothing may be fetched at run time — and fed
//!   JSON by a second route, for less than a hundred lines of SVG. Inline SVG also makes the
//!   page testable as text: a test reads "THROTTLED" and the lag without a browser.
//! - **A few lines of script refresh it**, not `<meta http-equiv=refresh>`. A meta refresh
//!   reloads the whole document: the page flickers, the scroll position may jump, and a lag
//!   half-typed into a fault form is lost every second. The script fetches the page, swaps
//!   its `<main>` and skips a round while a form field has focus. Without script the page
//!   still works: it is complete HTML, and the forms post without it.
//! - **Fault forms are refused across origins.** A browser lets any web page post a form to
//!   `127.0.0.1:8000`; a fault posted by another site's page is refused (403) by its
//!   `Origin` or `Sec-Fetch-Site` header, so only this page's buttons (and `curl`) break
//!   things.
//!
//! A global secondary index gets the table's treatment: its own partitions, replicas and
//! per-second charts (it has capacity of its own, and a hot index key throttles the table's
//! writes). A world with more than one Region gets a Regions section (`regions.rs`): which
//! Regions are up, and per global table its replicas, the writes on their way between them
//! and the conflicts last writer wins settled.
//!
//! Left out for now: a stream shard's sequence-number range, and fault buttons for Regions
//! (`fail_region` and `lag_replication` are there in the engine; the server has one Region,
//! since an SDK client names its Region only in its signature, which is not read).

pub mod chart;
pub mod faults;
mod page;
mod regions;
pub mod saved;

use engine::world::snapshot::{Snapshot, SnapshotOptions, WindowEnd};
use engine::World;

pub use page::{draw, Header};

/// The running world's picture: the last [`WINDOW_S`] seconds up to now.
pub fn live_snapshot(world: &World) -> Snapshot {
    world.snapshot(&SnapshotOptions {
        seconds: WINDOW_S,
        end: WindowEnd::Now,
        log_tail: LOG_TAIL,
    })
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Seconds of history each chart shows.
pub const WINDOW_S: u64 = 120;

/// Requests of the log's tail shown.
pub const LOG_TAIL: usize = 40;

/// How often the page fetches itself again (ms). A second matches the metrics' resolution.
pub const REFRESH_MS: u64 = 1000;
