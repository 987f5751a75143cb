//! Gradescope's autograder format (`/autograder/results/results.json`): the submission's
//! `score` and `max_score`, and one entry in `tests[]` per hidden test of every kata, named
//! `<kata> / <test>`, with its `score`, `max_score`, `status` (`passed` / `failed`) and
//! `output` (the failure message, or the reason a kata scored zero). Gradescope runs the
//! autograder once per submission, so this format takes exactly one.

use anyhow::{bail, Result};
use serde_json::{json, Value};

use crate::grade::Grades;
use crate::runner::TestStatus;

pub(super) fn render(g: &Grades) -> Result<String> {
    let [l] = g.learners.as_slice() else {
        bail!(
            "--format gradescope grades one submission (Gradescope runs the autograder once \
             per student); {} were given",
            g.learners.len()
        );
    };
    let mut tests: Vec<Value> = Vec::new();
    for k in &l.katas {
        for t in &k.tests {
            let passed = t.status == TestStatus::Passed && !k.status.zeroes();
            let output = if k.status.zeroes() {
                k.reason.clone().unwrap_or_default()
            } else {
                super::test_text(t)
            };
            tests.push(json!({
                "name": format!("{} / {}", k.kata, t.name),
                "score": t.score,
                "max_score": t.max_score,
                "status": if passed { "passed" } else { "failed" },
                "output": output,
            }));
        }
    }
    let mut notes: Vec<String> = vec![g.isolation.summary()];
    notes.extend(l.notes.iter().cloned());
    for k in &l.katas {
        let line = match &k.reason {
            Some(r) => format!("{}: {}/{} — {r}", k.kata, k.score, k.max_score),
            None => format!("{}: {}/{}", k.kata, k.score, k.max_score),
        };
        notes.push(line);
    }
    let v = json!({
        "score": l.score,
        "max_score": l.max_score,
        "execution_time": g.elapsed_secs.round() as u64,
        "output": notes.join("\n"),
        "tests": tests,
    });
    Ok(serde_json::to_string_pretty(&v)? + "\n")
}
