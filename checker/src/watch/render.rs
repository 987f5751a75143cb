//! The watch-mode screen, rendered from [`App`] state to lines that fit the terminal.
//!
//! ```text
//!   DynamoDB Katas  [####------] 1/4 katas      ┐
//!   2. conditional-stock — … (Build it)          │ top: always shown
//!   ⠹ checking conditional-stock… (12 built)     │ (spinner while a check runs,
//!   ✗ 1 of 4 hidden tests fail (3/6 points)      ┘  the verdict line under it)
//!     task: exercises/…/README.md …              ┐
//!   failing test: …                              │ body: clipped to the rows left,
//!   - sku-1 → Ok(1)                              │ scrolled with j/k and PgUp/PgDn;
//!   + sku-1 → Ok(2)                              ┘ v opens all of it in the pager
//!   lines 1–9 of 72 · j/k PgUp/PgDn scroll · v …  ┐ bottom: always shown
//!   h hint · l list · n next · … · q quit        ┘
//! ```
//!
//! Design decision: the screen is exactly the terminal's height, never more. The alternate
//! screen has no scrollback, so a line written past the bottom pushes the top out of reach:
//! a 72-line verdict used to hide the title, the progress bar, the verdict line and the
//! spinner. Every line is wrapped to the terminal's width first ([`crate::text`]), so the
//! row count is the real one.

use colored::Colorize;

use super::{App, Screen};
use crate::report;
use crate::text;

/// The keys of the kata screen, in the key bar.
const KEYS: &[&str] = &[
    "h hint",
    "l list",
    "n next",
    "r re-run",
    "x reset",
    "o lesson",
    "e edit",
    "v whole verdict",
    "w see inside",
    "? help",
    "q quit",
];

const HELP: &[(&str, &str)] = &[
    (
        "h",
        "show the next hint level (a nudge, the concept, nearly the answer)",
    ),
    ("l", "list every kata; ↑/↓ (or j/k) and Enter to switch"),
    ("n", "go to the next unsolved kata (once this one passes)"),
    ("r", "check again now"),
    ("x", "reset this kata to its starter (asks first)"),
    ("o", "read the lesson section this kata practises"),
    (
        "e",
        "open the kata's src/lib.rs with your editor (--edit-cmd or KATAS_EDIT_CMD)",
    ),
    (
        "j/k",
        "scroll the verdict a line (↓/↑ too); PgDn/PgUp (or space) a page",
    ),
    (
        "v",
        "open the whole verdict in your pager ($PAGER, else less)",
    ),
    (
        "w",
        "see inside the failing run in your browser: partitions, throttles, replicas, log",
    ),
    ("?", "this help"),
    ("q", "quit (progress is saved)"),
];

const SPINNER: &[char] = &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// A screen in three parts: `top` and `bottom` always shown, `body` clipped between them.
pub(super) struct Layout {
    pub top: Vec<String>,
    pub body: Vec<String>,
    pub bottom: Vec<String>,
    /// A body row that must be in view (the list's cursor).
    pub keep_in_view: Option<usize>,
}

/// The screen's parts, every line wrapped at `width`.
pub(super) fn layout(app: &App, width: usize) -> Layout {
    let mut top = header(app, width);
    let mut body = Vec::new();
    let mut bottom = Vec::new();
    let mut keep_in_view = None;
    let mut keys: Vec<&str> = vec!["q quit"];
    match app.screen {
        Screen::Kata => {
            kata_screen(app, width, &mut top, &mut body);
            keys = KEYS.to_vec();
        }
        Screen::List => {
            top.push(
                "every kata (↑/↓ or j/k, Enter to switch, any other key to go back):"
                    .bold()
                    .to_string(),
            );
            for (i, row) in list_rows(app).iter().enumerate() {
                if i == app.list_cursor {
                    keep_in_view = Some(body.len());
                }
                body.extend(text::wrap(row, width, 5));
            }
            keys = vec!["↑/↓ j/k move", "Enter switch", "q quit"];
        }
        Screen::Help => {
            top.push("keys (single keypress):".bold().to_string());
            for (k, what) in HELP {
                body.extend(text::wrap(
                    &format!("  {}  {what}", k.cyan().bold()),
                    width,
                    k.chars().count() + 2,
                ));
            }
            keys = vec!["any key back", "q quit"];
        }
        Screen::Finished => {
            body.push(
                "🎉 every kata passes — re-checked just now. You have finished DynamoDB Katas!"
                    .green()
                    .bold()
                    .to_string(),
            );
            body.push(String::new());
            body.push(
                "`cargo katas list` shows them all; `cargo katas quiz` tests what you learned."
                    .into(),
            );
        }
    }
    if let Some(m) = &app.message {
        bottom.push(String::new());
        bottom.extend(m.lines().map(|l| l.yellow().to_string()));
    }
    let mut keys: Vec<String> = keys.into_iter().map(String::from).collect();
    if app.screen == Screen::Kata && app.manual {
        keys.push("manual mode: press r after saving".into());
    }
    bottom.extend(
        key_bar(&keys, width)
            .into_iter()
            .map(|l| l.dimmed().to_string()),
    );
    Layout {
        top: text::wrap_all(&top, width),
        body: text::wrap_all(&body, width),
        bottom: text::wrap_all(&bottom, width),
        keep_in_view,
    }
}

/// Rows of the body shown at this size (at least 0).
pub(super) fn body_rows(l: &Layout, height: usize) -> usize {
    let fixed = l.top.len() + l.bottom.len();
    let rows = height.saturating_sub(fixed);
    if l.body.len() > rows {
        // The "lines a–b of n" line takes a row of its own.
        rows.saturating_sub(1)
    } else {
        rows
    }
}

/// The first body row shown, given the learner's scroll position.
pub(super) fn first_row(l: &Layout, height: usize, scroll: usize) -> usize {
    let rows = body_rows(l, height);
    let most = l.body.len().saturating_sub(rows);
    match l.keep_in_view {
        Some(row) if rows > 0 => row.saturating_sub(rows - 1).min(most),
        _ => scroll.min(most),
    }
}

/// The screen: at most `height` lines of at most `width` columns.
pub(super) fn render(app: &App, width: usize, height: usize) -> Vec<String> {
    let l = layout(app, width);
    let rows = body_rows(&l, height);
    let first = first_row(&l, height, app.scroll);
    let mut out = l.top.clone();
    out.extend(l.body.iter().skip(first).take(rows).cloned());
    if l.body.len() > rows {
        let last = (first + rows).min(l.body.len());
        let at = format!("lines {}–{last} of {}", first + 1, l.body.len());
        let more = [
            format!("{at} · j/k PgUp/PgDn scroll · v whole verdict in the pager"),
            format!("{at} · j/k PgUp/PgDn · v all"),
            at,
        ]
        .into_iter()
        .find(|m| text::width(m) <= width)
        .unwrap_or_default();
        out.push(more.cyan().to_string());
    }
    // A terminal too short even for the fixed parts: the key bar stays, the top is cut.
    out.truncate(height.saturating_sub(l.bottom.len()));
    out.extend(l.bottom);
    let over = out.len().saturating_sub(height);
    out.drain(..over);
    out
}

/// Everything the screen holds, unclipped (for the pager).
pub(super) fn whole(app: &App, width: usize) -> Vec<String> {
    let l = layout(app, width);
    let mut out = l.top;
    out.extend(l.body);
    out
}

fn header(app: &App, width: usize) -> Vec<String> {
    let total = app.manifest.katas.len();
    let done = app.state.state.passed.len();
    let label = format!(" {done}/{total} katas");
    let title = "DynamoDB Katas";
    // Title, two spaces, the bar in brackets, the count: the bar takes what is left, 5..50.
    let room = width.saturating_sub(title.len() + 2 + 2 + label.len());
    let bar_width = room.clamp(5, 50);
    let filled = (bar_width * done).checked_div(total).unwrap_or(0);
    let bar = format!(
        "[{}{}]",
        "#".repeat(filled).green(),
        "-".repeat(bar_width - filled).dimmed()
    );
    vec![format!("{}  {bar}{label}", title.bold()), String::new()]
}

fn kata_screen(app: &App, width: usize, top: &mut Vec<String>, body: &mut Vec<String>) {
    let k = app.kata();
    let pos = app.manifest.index_of(&k.name).unwrap_or(0) + 1;
    top.push(format!(
        "{} {} — {} ({})",
        format!("{pos}.").dimmed(),
        k.name.bold(),
        k.title,
        k.track.label()
    ));

    if let Some(running) = &app.checking {
        let spin = SPINNER[(app.ticks as usize) % SPINNER.len()];
        let what = if running == "*" && app.rederiving {
            "re-checking every kata to rebuild your progress".to_string()
        } else if running == "*" {
            "re-checking every kata before the finish".to_string()
        } else {
            format!("checking {running}")
        };
        let queued = if app.pending {
            " (another check queued)"
        } else {
            ""
        };
        let progress = app
            .progress
            .as_deref()
            .map(|p| format!(" · {p}"))
            .unwrap_or_default();
        // One row: the progress is cut rather than pushing the verdict down.
        let line = format!("{spin} {what}…{queued}{progress}");
        let line = text::wrap(&line, width, 0).swap_remove(0);
        top.push(line.cyan().to_string());
    }
    let shown = report::Shown {
        test_hints: app.state.state.test_hints_seen.get(&k.name),
        untouched_starter: app.untouched_starter,
        ask: "press h",
        unseen_by_grading: &app.unseen_by_grading,
        cols: width,
    };
    match &app.last {
        Some(Ok(result)) => top.push(report::headline(result)),
        Some(Err(e)) => top.push(format!("{} could not check: {e}", "✗".red())),
        None if app.checking.is_none() => top.push("press r to check".dimmed().to_string()),
        // The first check of a session can be a long build: something to do meanwhile.
        None => top.push(
            format!("read {} while this builds", k.readme().display())
                .dimmed()
                .to_string(),
        ),
    }
    top.push(String::new());

    body.push(format!("task:   {}", k.readme().display()));
    let lib = k.src_dir().join("lib.rs");
    let lib_shown = lib.display().to_string();
    body.push(format!(
        "edit:   {}",
        text::link(&lib_shown, &app.root.join(&lib))
    ));
    body.push(format!("lesson: {} (press o)", k.lesson));
    if let Some(Ok(result)) = &app.last {
        let details = report::detail_lines(k, result, &shown);
        let unseen = report::unseen_lines(&shown);
        if !unseen.is_empty() || !details.is_empty() {
            body.push(String::new());
        }
        body.extend(unseen);
        body.extend(details.into_iter().skip_while(String::is_empty));
        if result.passed() {
            body.push(String::new());
            body.push(
                "press n for the next kata (or keep improving this one)"
                    .green()
                    .to_string(),
            );
            body.push(format!(
                "compare with the reference: `cargo katas solution {}`",
                k.name
            ));
        }
    }

    let seen = app
        .state
        .state
        .hints_seen
        .get(&k.name)
        .copied()
        .unwrap_or(0) as usize;
    if seen > 0 {
        body.push(String::new());
        for (i, hint) in k.hints.iter().take(seen).enumerate() {
            let label = format!("hint {}/{}:", i + 1, k.hints.len());
            let hang = label.chars().count() + 1;
            body.extend(text::wrap(&report::hint_line(&label, hint), width, hang));
        }
    }
}

/// The key bar: the keys joined with ` · `, broken between keys at the width.
fn key_bar(keys: &[String], width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for k in keys {
        let sep = if line.is_empty() { "" } else { " · " };
        if !line.is_empty() && text::width(&line) + sep.len() + text::width(k) > width {
            out.push(std::mem::take(&mut line));
            line.push_str(k);
        } else {
            line.push_str(sep);
            line.push_str(k);
        }
    }
    out.push(line);
    out
}

fn list_rows(app: &App) -> Vec<String> {
    let current = app.state.state.current.as_deref().unwrap_or_default();
    let mut out = Vec::new();
    for (i, k) in app.manifest.katas.iter().enumerate() {
        let done = if app.state.state.passed.contains(&k.name) {
            "✓".green()
        } else {
            "·".dimmed()
        };
        let cursor = if i == app.list_cursor { ">" } else { " " };
        let here = if k.name == current { " (current)" } else { "" };
        let line = format!(
            "{cursor} {done} {:>2}. {:<24} {:<9} {}{here}",
            i + 1,
            k.name,
            k.track.label(),
            k.title
        );
        out.push(if i == app.list_cursor {
            line.bold().to_string()
        } else {
            line
        });
    }
    out
}
