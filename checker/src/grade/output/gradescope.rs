//! Gradescope's autograder format (`/autograder/results/results.json`): the submission's
//! `score` and `max_score`, and one entry in `tests[]` per hidden test of every kata, named
//! `<kata> / <test>`, with its `score`, `max_score`, `status` (`passed` / `failed`) and
//! `output` (the failure message, or the reason a kata scored zero), `visibility`, `number`
//! and `tags`; at the top, `visibility`, `stdout_visibility`, the output formats and
//! `extra_data`. Gradescope runs the autograder once per submission, so this format takes
//! exactly one (checked before grading, see `GradeOptions::expect_one`).
//!
//! Design decision: a test that failed carries its failure output under the instructor's
//! `--visibility` (default `after_due_date`), a passed test is `visible`. A failure message
//! quotes expected values and the hidden tests' wording; before the deadline a student sees
//! only which tests passed and the points, never that text. The autograder's stdout (the
//! grader's progress log) is `hidden`.

use anyhow::{bail, Result};
use serde_json::{json, Value};

use crate::grade::Grades;
use crate::runner::TestStatus;

pub(super) fn render(g: &Grades) -> Result<String> {
    let visibility = g.visibility.as_str();
    let [l] = g.learners.as_slice() else {
        bail!(
            "--format gradescope grades one submission (Gradescope runs the autograder once \
             per student); {} were given",
            g.learners.len()
        );
    };
    let mut tests: Vec<Value> = Vec::new();
    for (ki, k) in l.katas.iter().enumerate() {
        for (ti, t) in k.tests.iter().enumerate() {
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
                "output_format": "text",
                "visibility": if passed { "visible" } else { visibility },
                "number": format!("{}.{}", ki + 1, ti + 1),
                "tags": [k.kata],
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
        "output_format": "text",
        "test_output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "learner": l.learner,
            "name": l.name,
            "started_at": g.started_at,
            "katas": l.katas.iter().map(|k| json!({
                "kata": k.kata, "status": k.status, "score": k.score, "max_score": k.max_score,
            })).collect::<Vec<_>>(),
            "isolation": g.isolation.layers,
        },
        "tests": tests,
    });
    Ok(serde_json::to_string_pretty(&v)? + "\n")
}
