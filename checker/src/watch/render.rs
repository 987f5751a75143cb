//! The watch-mode screen, rendered from [`App`] state to lines.

use colored::Colorize;

use super::{App, Screen};
use crate::report;

/// The key line at the bottom of the kata screen.
const KEYS: &str = "h hint · l list · n next · r re-run · x reset · o lesson · ? help · q quit";

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
    ("?", "this help"),
    ("q", "quit (progress is saved)"),
];

const SPINNER: &[char] = &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

pub(super) fn render(app: &App, width: usize) -> Vec<String> {
    let mut out = header(app, width);
    match app.screen {
        Screen::Kata => kata_screen(app, &mut out),
        Screen::List => list_screen(app, &mut out),
        Screen::Help => {
            out.push("keys (single keypress):".bold().to_string());
            for (k, what) in HELP {
                out.push(format!("  {}  {what}", k.cyan().bold()));
            }
            out.push(String::new());
            out.push("press any key to go back".dimmed().to_string());
        }
        Screen::Finished => {
            out.push(
                "🎉 every kata passes — re-checked just now. You have finished DynamoDB Katas!"
                    .green()
                    .bold()
                    .to_string(),
            );
            out.push(String::new());
            out.push(
                "`cargo katas list` shows them all; `cargo katas quiz` tests what you learned."
                    .into(),
            );
            out.push(String::new());
            out.push("q quit".dimmed().to_string());
        }
    }
    if let Some(m) = &app.message {
        out.push(String::new());
        out.push(m.yellow().to_string());
    }
    out
}

fn header(app: &App, width: usize) -> Vec<String> {
    let total = app.manifest.katas.len();
    let done = app.state.state.passed.len();
    let bar_width = width.saturating_sub(40).clamp(10, 50);
    let filled = (bar_width * done).checked_div(total).unwrap_or(0);
    let bar = format!(
        "[{}{}]",
        "#".repeat(filled).green(),
        "-".repeat(bar_width - filled).dimmed()
    );
    vec![
        format!("{}  {bar} {done}/{total} katas", "DynamoDB Katas".bold()),
        String::new(),
    ]
}

fn kata_screen(app: &App, out: &mut Vec<String>) {
    let k = app.kata();
    let pos = app.manifest.index_of(&k.name).unwrap_or(0) + 1;
    out.push(format!(
        "{} {} — {} ({})",
        format!("{pos}.").dimmed(),
        k.name.bold(),
        k.title,
        k.track.label()
    ));
    out.push(format!(
        "  task:   {}    edit: {}/",
        k.readme().display(),
        k.src_dir().display()
    ));
    out.push(format!("  lesson: {} (press o)", k.lesson));
    out.push(String::new());

    if let Some(running) = &app.checking {
        let spin = SPINNER[(app.ticks as usize) % SPINNER.len()];
        let what = if running == "*" {
            "re-checking every kata before the finish".to_string()
        } else {
            format!("checking {running}")
        };
        let queued = if app.pending {
            " (another check queued)"
        } else {
            ""
        };
        out.push(format!("{spin} {what}…{queued}").cyan().to_string());
        if let Some(p) = &app.progress {
            out.push(format!("  {p}").dimmed().to_string());
        }
        out.push(String::new());
    }
    match &app.last {
        Some(Ok(result)) => {
            let shown = report::Shown {
                test_hints: app.state.state.test_hints_seen.get(&k.name),
                untouched_starter: app.untouched_starter,
                ask: "press h",
                unseen_by_grading: &app.unseen_by_grading,
            };
            out.extend(report::verdict_lines(k, result, &shown));
            if result.passed() {
                out.push(String::new());
                out.push(
                    "press n for the next kata (or keep improving this one)"
                        .green()
                        .to_string(),
                );
            }
        }
        Some(Err(e)) => out.push(format!("{} could not check: {e}", "✗".red())),
        None if app.checking.is_none() => out.push("press r to check".dimmed().to_string()),
        None => {}
    }

    let seen = app
        .state
        .state
        .hints_seen
        .get(&k.name)
        .copied()
        .unwrap_or(0) as usize;
    if seen > 0 {
        out.push(String::new());
        for (i, hint) in k.hints.iter().take(seen).enumerate() {
            let label = format!("hint {}/{}:", i + 1, k.hints.len());
            let width = label.chars().count();
            crate::report::push_wrapped(out, &label.cyan().bold().to_string(), width, hint);
        }
    }
    out.push(String::new());
    let mode = if app.manual {
        " · manual mode: press r after saving"
    } else {
        ""
    };
    out.push(format!("{KEYS}{mode}").dimmed().to_string());
}

fn list_screen(app: &App, out: &mut Vec<String>) {
    out.push(
        "every kata (↑/↓ or j/k, Enter to switch, any other key to go back):"
            .bold()
            .to_string(),
    );
    let current = app.state.state.current.as_deref().unwrap_or_default();
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
}
