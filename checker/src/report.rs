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
use crate::text;

/// Lines of a failing test's own output shown under it.
const OUTPUT_LINES: usize = 20;
/// Lines of a diff shown before cutting (watch mode scrolls and pages them; a diff longer
/// than this says more about the test than about the learner's code).
const DIFF_LINES: usize = 200;

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
    /// Columns to wrap at: the terminal's width; 0 when there is no terminal (lines as they
    /// are: a file or a CI log wraps, or not, by itself).
    pub cols: usize,
}

impl Shown<'_> {
    fn cols(&self) -> usize {
        if self.cols == 0 {
            usize::MAX
        } else {
            self.cols
        }
    }

    /// A test's message as lines: re-flowed to be wrapped at the terminal's width, or as the
    /// test kit sent it when there is no terminal.
    fn message_lines(&self, message: &str) -> Vec<String> {
        if self.cols == 0 {
            message.lines().map(String::from).collect()
        } else {
            text::reflow(message)
        }
    }
}

/// The verdict of a check, ready to print: [`unseen_lines`], [`headline`], [`detail_lines`].
pub fn verdict_lines(kata: &Kata, r: &CheckResult, shown: &Shown) -> Vec<String> {
    let mut out = unseen_lines(shown);
    out.extend(text::wrap(&headline(r), shown.cols(), 2));
    out.extend(detail_lines(kata, r, shown));
    out
}

/// The warning about files grading will not see (none when there are none).
pub fn unseen_lines(shown: &Shown) -> Vec<String> {
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
    text::wrap_all(&out, shown.cols())
}

/// The verdict in one line: passed, failed (how many), or why nothing ran.
pub fn headline(r: &CheckResult) -> String {
    let (earned, max) = r.score();
    let total = r.tests.len();
    let failing = r.tests.iter().filter(|t| !t.passed()).count();
    let cross = "✗".red().bold();
    match &r.verdict {
        Verdict::Passed => format!(
            "{} all {total} hidden tests pass ({earned}/{max} points)",
            "✓".green().bold()
        ),
        Verdict::CompileError { .. } => format!("{cross} your code does not compile"),
        Verdict::BuildFailed { .. } => format!("{cross} cargo could not build the kata"),
        Verdict::TimedOut { secs, test } => format!(
            "{cross} timed out after {secs} s{} — an infinite loop or a deadlock in your code?",
            in_test(test)
        ),
        Verdict::StackOverflow { test } => format!(
            "{cross} stack overflow in your code{} — a recursion that never stops?",
            in_test(test)
        ),
        Verdict::Crashed { test, detail } => {
            format!("{cross} the tests crashed{}: {detail}", in_test(test))
        }
        Verdict::Failed => {
            format!("{cross} {failing} of {total} hidden tests fail ({earned}/{max} points)")
        }
    }
}

/// Everything under the [`headline`]: the first compile error, or the task (untouched
/// starter), or the first failing test; then every test at a glance and the output. Wrapped
/// at `Shown::cols`.
pub fn detail_lines(kata: &Kata, r: &CheckResult, shown: &Shown) -> Vec<String> {
    let mut out = Vec::new();
    match &r.verdict {
        Verdict::CompileError { errors } => {
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
        Verdict::BuildFailed { detail } => out.push(detail.clone()),
        _ => {}
    }
    if let Some(t) = r.first_failure() {
        if !matches!(r.verdict, Verdict::CompileError { .. }) {
            out.push(String::new());
            if shown.untouched_starter && r.verdict == Verdict::Failed {
                out.extend(task_lines(kata, r, shown));
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
    text::wrap_all(&split_lines(out), shown.cols())
}

fn in_test(test: &Option<String>) -> String {
    test.as_ref()
        .map(|t| format!(" in test `{t}`"))
        .unwrap_or_default()
}

/// The untouched starter: what to do, and where to start.
fn task_lines(kata: &Kata, r: &CheckResult, shown: &Shown) -> Vec<String> {
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
            out.extend(shown.message_lines(m).into_iter().map(|l| format!("  {l}")));
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
        // The test kit wraps messages at 100 columns: join its lines back, so they wrap at
        // the terminal's width instead.
        out.extend(shown.message_lines(m).into_iter().map(|l| format!("  {l}")));
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
            let hang = text::width(label) + 1;
            out.extend(text::wrap(&hint_line(label, h), shown.cols(), hang));
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
/// learner's value has. Where a run of lines changed, each expected line is shown with the
/// learner's line for the same key right under it (`sku-1 … → Ok(1)` then `sku-1 … → Ok(2)`),
/// not a block of `-` lines then a block of `+` lines: keyed rows (one per customer, order,
/// call) read as pairs.
pub fn diff_lines(expected: &str, actual: &str) -> Vec<String> {
    let mut out = vec![format!(
        "  {}   {}",
        "- expected".red(),
        "+ your code".green()
    )];
    let del = |t: &str| format!("  {}", format!("- {t}").red());
    let ins = |t: &str| format!("  {}", format!("+ {t}").green());
    let diff = TextDiff::from_lines(expected, actual);
    let mut rows: Vec<String> = Vec::new();
    let mut gone: Vec<&str> = Vec::new();
    let mut came: Vec<&str> = Vec::new();
    let flush = |rows: &mut Vec<String>, gone: &mut Vec<&str>, came: &mut Vec<&str>| {
        for (g, c) in pair_by_key(gone, came) {
            if let Some(g) = g {
                rows.push(del(g));
            }
            if let Some(c) = c {
                rows.push(ins(c));
            }
        }
        gone.clear();
        came.clear();
    };
    for change in diff.iter_all_changes() {
        let text = change.value().trim_end_matches('\n');
        match change.tag() {
            ChangeTag::Delete => gone.push(text),
            ChangeTag::Insert => came.push(text),
            ChangeTag::Equal => {
                flush(&mut rows, &mut gone, &mut came);
                rows.push(format!("    {text}").dimmed().to_string());
            }
        }
    }
    flush(&mut rows, &mut gone, &mut came);
    let cut = rows.len() > DIFF_LINES;
    out.extend(rows.into_iter().take(DIFF_LINES));
    if cut {
        out.push("  … (diff cut)".dimmed().to_string());
    }
    out
}

/// Pairs the lines of one changed run: a removed line with the added line of the same key
/// (the text before its first ` → `, ` = ` or `: `), in the removed lines' order; lines with
/// no partner stand alone, the added ones where their key would come. Lines without a key pair
/// up by position.
fn pair_by_key<'a>(gone: &[&'a str], came: &[&'a str]) -> Vec<(Option<&'a str>, Option<&'a str>)> {
    fn key(line: &str) -> Option<&str> {
        [" → ", " = ", ": ", " -> "]
            .iter()
            .filter_map(|sep| line.find(sep).map(|i| &line[..i]))
            .min_by_key(|k| k.len())
            .map(str::trim)
    }
    let mut used = vec![false; came.len()];
    let mut out = Vec::new();
    let mut next_unkeyed = 0;
    for g in gone {
        let partner = match key(g) {
            Some(k) => (0..came.len()).find(|&i| !used[i] && key(came[i]) == Some(k)),
            None => {
                while next_unkeyed < came.len()
                    && (used[next_unkeyed] || key(came[next_unkeyed]).is_some())
                {
                    next_unkeyed += 1;
                }
                (next_unkeyed < came.len()).then_some(next_unkeyed)
            }
        };
        // Added lines before the partner that nobody claims come first, in their order.
        if let Some(p) = partner {
            for i in 0..p {
                if !used[i]
                    && !gone
                        .iter()
                        .any(|g2| key(g2).is_some() && key(g2) == key(came[i]))
                {
                    used[i] = true;
                    out.push((None, Some(came[i])));
                }
            }
            used[p] = true;
        }
        out.push((Some(*g), partner.map(|p| came[p])));
    }
    for (i, c) in came.iter().enumerate() {
        if !used[i] {
            out.push((None, Some(*c)));
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

/// A hint as one line, `label` in colour: [`text::wrap`] it with a hang of the label's width
/// so later lines line up after the label.
pub fn hint_line(label: &str, hint: &str) -> String {
    format!(
        "{} {}",
        label.cyan().bold(),
        hint.split_whitespace().collect::<Vec<_>>().join(" ")
    )
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
    fn keyed_rows_come_as_pairs_per_key() {
        colored::control::set_override(false);
        let expected = "head\nsku-1 → Ok(1)\nsku-2 → Ok(0)\nsku-3 → Ok(5)\n";
        let actual = "head\nsku-1 → Ok(2)\nsku-2 → Ok(1)\nsku-3 → Ok(6)\n";
        let lines: Vec<String> = diff_lines(expected, actual).into_iter().skip(2).collect();
        assert_eq!(
            lines,
            [
                "  - sku-1 → Ok(1)",
                "  + sku-1 → Ok(2)",
                "  - sku-2 → Ok(0)",
                "  + sku-2 → Ok(1)",
                "  - sku-3 → Ok(5)",
                "  + sku-3 → Ok(6)",
            ]
        );
    }

    #[test]
    fn a_row_only_one_side_has_stands_alone() {
        colored::control::set_override(false);
        let expected = "c1: 3\nc2: 4\n";
        let actual = "c1: 5\nc3: 1\nc2: 9\n";
        let lines: Vec<String> = diff_lines(expected, actual).into_iter().skip(1).collect();
        assert_eq!(
            lines,
            [
                "  - c1: 3",
                "  + c1: 5",
                "  + c3: 1",
                "  - c2: 4",
                "  + c2: 9"
            ]
        );
    }
}
