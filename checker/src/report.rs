//! Turning a [`CheckResult`] into what a learner reads: the verdict, the first failing test
//! with its message, seed and coloured diff, and the other tests at a glance.
//!
//! Design decision: hints are given when asked, never before. A failing test's own hint is
//! shown only once the learner has asked for it ([`Shown::test_hints`]); until then the screen
//! says that one is there and how to ask. And an untouched starter gets the task, not a
//! failure report: every test fails on it by design, and the first test's message already
//! names the function to write first.
//!
//! Everything renders to lines (`Vec<String>`, ANSI colours via `colored`), so `katas run`,
//! watch mode and tests share one renderer; tests switch colours off and assert on text.

use std::collections::BTreeSet;

use colored::Colorize;
use similar::{ChangeTag, TextDiff};

use crate::manifest::Kata;
use crate::runner::{CheckResult, TestResult, TestStatus, Verdict};

/// Lines of a failing test's own output shown under it.
const OUTPUT_LINES: usize = 20;
/// Lines of a diff shown before cutting.
const DIFF_LINES: usize = 60;

/// What the learner has asked to see, and what their sources are.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shown<'a> {
    /// Tests whose own hint the learner asked for (`None`: none yet).
    pub test_hints: Option<&'a BTreeSet<String>>,
    /// The kata's `src/` is still the shipped starter.
    pub untouched_starter: bool,
    /// How to ask for the next hint where the lines are shown (`"press h"`).
    pub ask: &'a str,
    /// Files changed outside the kata's `src/` that grading will not see.
    pub unseen_by_grading: &'a [String],
}

/// The verdict of a check, ready to print.
pub fn verdict_lines(kata: &Kata, r: &CheckResult, shown: &Shown) -> Vec<String> {
    let mut out = Vec::new();
    if !shown.unseen_by_grading.is_empty() {
        out.push(format!(
            "{} grading builds only your src/, with the shipped Cargo.toml, given part and \
             tests; it will not see:",
            "!".yellow().bold()
        ));
        for f in shown.unseen_by_grading {
            out.push(format!("    {f}").yellow().to_string());
        }
        out.push(
            "  (undo with `git checkout -- <file>`; a new file: delete it)"
                .dimmed()
                .to_string(),
        );
        out.push(String::new());
    }

    let (earned, max) = r.score();
    let total = r.tests.len();
    let failing = r.tests.iter().filter(|t| !t.passed()).count();
    match &r.verdict {
        Verdict::Passed => {
            out.push(format!(
                "{} all {total} hidden tests pass ({earned}/{max} points)",
                "✓".green().bold()
            ));
        }
        Verdict::CompileError { errors } => {
            out.push(format!("{} your code does not compile", "✗".red().bold()));
            if let Some(first) = errors.first() {
                if let (Some(file), Some(line)) = (&first.file, first.line) {
                    out.push(format!("  first error at {file}:{line}"));
                }
                out.push(String::new());
                out.push(first.rendered.trim_end().to_string());
                if !first.in_kata {
                    out.push(format!(
                        "{}",
                        "(the error is in the hidden tests: they call your code with the \
                         signatures the README gives; check yours match)"
                            .yellow()
                    ));
                }
            }
            if errors.len() > 1 {
                out.push(
                    format!("… and {} more error(s)", errors.len() - 1)
                        .dimmed()
                        .to_string(),
                );
            }
        }
        Verdict::BuildFailed { detail } => {
            out.push(format!(
                "{} cargo could not build the kata",
                "✗".red().bold()
            ));
            out.push(detail.clone());
        }
        Verdict::TimedOut { secs, test } => {
            out.push(format!(
                "{} timed out after {secs} s{} — an infinite loop or a deadlock in your code?",
                "✗".red().bold(),
                in_test(test)
            ));
        }
        Verdict::StackOverflow { test } => {
            out.push(format!(
                "{} stack overflow in your code{} — a recursion that never stops?",
                "✗".red().bold(),
                in_test(test)
            ));
        }
        Verdict::Crashed { test, detail } => {
            out.push(format!(
                "{} the tests crashed{}: {detail}",
                "✗".red().bold(),
                in_test(test)
            ));
        }
        Verdict::Failed => {
            out.push(format!(
                "{} {failing} of {total} hidden tests fail ({earned}/{max} points)",
                "✗".red().bold()
            ));
        }
    }
    if let Some(t) = r.first_failure() {
        if !matches!(r.verdict, Verdict::CompileError { .. }) {
            out.push(String::new());
            if shown.untouched_starter && r.verdict == Verdict::Failed {
                out.extend(task_lines(kata, r));
            } else {
                out.extend(test_lines(kata, t, shown));
            }
        }
    }
    if r.tests.len() > 1 {
        out.push(String::new());
        for t in &r.tests {
            let mark = match t.status {
                TestStatus::Passed => "✓".green(),
                TestStatus::NotRun => "·".dimmed(),
                _ => "✗".red(),
            };
            let note = match t.status {
                TestStatus::NotRun => " (not run)",
                TestStatus::TimedOut => " (timed out)",
                TestStatus::Crashed => " (crashed)",
                _ => "",
            };
            out.push(format!("  {mark} {}{note}", t.name));
        }
    }
    if !r.output.trim().is_empty() && !r.passed() {
        out.push(String::new());
        out.push("output:".dimmed().to_string());
        out.extend(tail(&r.output, OUTPUT_LINES));
    }
    if !r.warnings.is_empty() && r.passed() {
        out.push(format!(
            "{}",
            format!("({} compiler warning(s) in your code)", r.warnings.len()).yellow()
        ));
    }
    split_lines(out)
}

fn in_test(test: &Option<String>) -> String {
    test.as_ref()
        .map(|t| format!(" in test `{t}`"))
        .unwrap_or_default()
}

/// The untouched starter: what to do, and where to start.
fn task_lines(kata: &Kata, r: &CheckResult) -> Vec<String> {
    let mut out = vec![
        format!(
            "{} your task is in {}",
            "→".cyan().bold(),
            kata.readme().display()
        ),
        "  the starter compiles, and every hidden test fails until you write the code".into(),
        String::new(),
    ];
    if let Some(t) = r.first_failure() {
        out.push(format!(
            "{} the first test, {}, says:",
            "start here:".bold(),
            t.name.bold()
        ));
        if let Some(m) = &t.message {
            out.extend(m.lines().map(|l| format!("  {l}")));
        }
    }
    out.push(String::new());
    out.push(
        format!(
            "edit {} and save: each save re-runs the tests",
            kata.src_dir().join("lib.rs").display()
        )
        .dimmed()
        .to_string(),
    );
    out
}

/// One failing test: name, message, location, seed, diff, its output, and its hint if the
/// learner asked for it.
pub fn test_lines(kata: &Kata, t: &TestResult, shown: &Shown) -> Vec<String> {
    let mut out = vec![format!("{} {}", "failing test:".bold(), t.name.bold())];
    if let Some(m) = &t.message {
        // Multi-line messages keep their indent (the test kit wraps them at 100 columns).
        out.extend(m.lines().map(|l| format!("  {l}")));
    }
    if let Some(loc) = &t.location {
        if loc.starts_with(&*kata.folder().to_string_lossy()) {
            out.push(format!("  at {loc}").dimmed().to_string());
        }
    }
    if let Some(seed) = t.seed {
        out.push(format!(
            "  seed {seed} — replay with `cargo katas run {} --seed {seed}`",
            kata.name
        ));
    }
    if let (Some(e), Some(a)) = (&t.expected, &t.actual) {
        out.push(String::new());
        out.extend(diff_lines(e, a));
    }
    if !t.output.trim().is_empty() {
        out.push(String::new());
        out.push("  its output:".dimmed().to_string());
        out.extend(
            tail(&t.output, OUTPUT_LINES)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    if let Some(h) = kata.test_hints.get(&t.name) {
        out.push(String::new());
        if shown.test_hints.is_some_and(|seen| seen.contains(&t.name)) {
            let label = "hint for this test:";
            push_wrapped(&mut out, &label.cyan().bold().to_string(), label.len(), h);
        } else if !shown.ask.is_empty() {
            out.push(
                format!(
                    "(a hint for this test is there when you want it: {})",
                    shown.ask
                )
                .dimmed()
                .to_string(),
            );
        }
    }
    out
}

/// A line diff of expected against actual: `-` lines only expected has, `+` lines only the
/// learner's value has.
pub fn diff_lines(expected: &str, actual: &str) -> Vec<String> {
    let mut out = vec![format!(
        "  {}   {}",
        "- expected".red(),
        "+ your code".green()
    )];
    let diff = TextDiff::from_lines(expected, actual);
    for change in diff.iter_all_changes() {
        let text = change.value().trim_end_matches('\n');
        out.push(match change.tag() {
            ChangeTag::Delete => format!("  {}", format!("- {text}").red()),
            ChangeTag::Insert => format!("  {}", format!("+ {text}").green()),
            ChangeTag::Equal => format!("    {text}").dimmed().to_string(),
        });
        if out.len() > DIFF_LINES {
            out.push("  … (diff cut)".dimmed().to_string());
            break;
        }
    }
    out
}

fn tail(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let skip = lines.len().saturating_sub(n);
    let mut out = Vec::new();
    if skip > 0 {
        out.push(format!("… ({skip} earlier lines)").dimmed().to_string());
    }
    out.extend(lines[skip..].iter().map(|l| l.to_string()));
    out
}

fn split_lines(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .flat_map(|l| {
            if l.is_empty() {
                vec![String::new()]
            } else {
                l.lines().map(String::from).collect()
            }
        })
        .collect()
}

/// Removes ANSI escape sequences (for tests and for plain output).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_marks_both_sides() {
        colored::control::set_override(false);
        let lines = diff_lines("a\nb\nc\n", "a\nx\nc\n");
        let text = lines.join("\n");
        assert!(text.contains("- b"), "{text}");
        assert!(text.contains("+ x"), "{text}");
        assert!(text.contains("    a"), "{text}");
    }

    #[test]
    fn strip_ansi_removes_colour() {
        assert_eq!(strip_ansi("\u{1b}[31mred\u{1b}[0m ok"), "red ok");
    }
}

/// Columns hints and notes are wrapped at (terminals are at least this wide in practice;
/// failure messages from the hidden tests are wrapped at the same width).
pub const WRAP_WIDTH: usize = 100;

/// Pushes `text` word-wrapped at [`WRAP_WIDTH`], the first line after `label` (shown
/// `label_width` columns wide), later lines indented to line up with the first.
pub fn push_wrapped(out: &mut Vec<String>, label: &str, label_width: usize, text: &str) {
    let indent = " ".repeat(label_width + 1);
    let mut line = format!("{label} ");
    let mut col = label_width + 1;
    let mut empty = true;
    for word in text.split_whitespace() {
        let w = word.chars().count();
        if !empty && col + 1 + w > WRAP_WIDTH {
            out.push(std::mem::replace(&mut line, indent.clone()));
            col = indent.len();
            empty = true;
        }
        if !empty {
            line.push(' ');
            col += 1;
        }
        line.push_str(word);
        col += w;
        empty = false;
    }
    out.push(line);
}

#[cfg(test)]
mod wrap_tests {
    use super::push_wrapped;

    #[test]
    fn hints_wrap_at_word_boundaries_and_line_up() {
        let mut out = Vec::new();
        let text = "first ".repeat(40);
        push_wrapped(&mut out, "hint 1/3:", 9, &text);
        assert!(out.len() > 1);
        assert!(out.iter().all(|l| l.chars().count() <= super::WRAP_WIDTH));
        assert!(out[1].starts_with("          first"), "{:?}", out[1]);
        assert!(out.iter().all(|l| !l.ends_with("fir")));
    }
}
