//! The readable table: one row per learner, one column per kata (points), the total; then the
//! reasons behind every zero and what isolation was applied.

use colored::Colorize;

use crate::grade::Grades;

pub(super) fn render(g: &Grades, color: bool) -> String {
    let paint = |s: String, f: fn(String) -> colored::ColoredString| {
        if color {
            f(s).to_string()
        } else {
            s
        }
    };
    let mut out = String::new();
    let name_w = g
        .learners
        .iter()
        .map(|l| l.learner.chars().count())
        .max()
        .unwrap_or(0)
        .max("learner".len());
    let widths: Vec<usize> = g.katas.iter().map(|k| k.kata.len().max(7)).collect();
    let mut header = format!("{:<name_w$}", "learner");
    for (k, w) in g.katas.iter().zip(&widths) {
        header.push_str(&format!("  {:>w$}", k.kata));
    }
    header.push_str(&format!("  {:>9}", "total"));
    out.push_str(&paint(header, |s| s.bold()));
    out.push('\n');
    for l in &g.learners {
        let mut row = format!("{:<name_w$}", l.learner);
        for (k, w) in l.katas.iter().zip(&widths) {
            let cell = format!("{:>w$}", format!("{}/{}", k.score, k.max_score));
            let cell = if k.status.zeroes() {
                paint(cell, |s| s.red())
            } else if k.score == k.max_score {
                paint(cell, |s| s.green())
            } else {
                cell
            };
            row.push_str("  ");
            row.push_str(&cell);
        }
        row.push_str(&format!("  {:>9}", format!("{}/{}", l.score, l.max_score)));
        out.push_str(&row);
        out.push('\n');
    }
    let mut notes = Vec::new();
    for k in &g.katas {
        if let Some(w) = &k.warning {
            notes.push(format!("warning: {}: {w}", k.kata));
        }
    }
    for l in &g.learners {
        let who = match &l.name {
            Some(n) => format!("{} ({n})", l.learner),
            None => l.learner.clone(),
        };
        for k in &l.katas {
            if let Some(r) = &k.reason {
                notes.push(format!("{who} / {}: {r}", k.kata));
            } else if k.score < k.max_score {
                let failing: Vec<&str> = k
                    .tests
                    .iter()
                    .filter(|t| t.score < t.max_score)
                    .map(|t| t.name.as_str())
                    .collect();
                notes.push(format!(
                    "{who} / {}: failing {}",
                    k.kata,
                    failing.join(", ")
                ));
            }
        }
        for n in &l.notes {
            notes.push(format!("{who}: {n}"));
        }
    }
    for s in &g.skipped {
        notes.push(format!("not a submission: {}: {}", s.path, s.reason));
    }
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            out.push_str(&n);
            out.push('\n');
        }
    }
    out.push('\n');
    out.push_str(&paint(g.isolation.summary(), |s| s.dimmed()));
    out.push('\n');
    out.push_str(&paint(
        format!(
            "{} submissions × {} katas in {:.1} s ({:.2} s per submission-kata)",
            g.learners.len(),
            g.katas.len(),
            g.elapsed_secs,
            g.secs_per_submission_kata
        ),
        |s| s.dimmed(),
    ));
    out.push('\n');
    out
}
