//! JUnit XML, as CI dashboards read it: one `<testsuite>` per learner and kata (with `id`,
//! `package` = the learner, `timestamp`, `hostname`, `tests`, `failures`, `errors`,
//! `skipped`, `time`), one `<testcase>` per hidden test. A failed test is a `<failure>`; a
//! kata that scored zero for another reason (did not compile, timed out, crashed…) makes each
//! of its tests an `<error>` carrying that reason; a kata missing from the submission makes
//! them `<skipped>`. The suite's `<system-out>` says how the kata ended.
//!
//! A `<testcase>`'s `time` is the test's own run time as the test kit measured it (all its
//! seeds); a test that did not finish (a timeout, a crash) gets its kata's test-run time
//! divided evenly over its tests. The suite's own `time` is the kata's build and run.

use std::fmt::Write;

use crate::grade::{Grades, KataStatus};
use crate::runner::TestStatus;

pub(super) fn render(g: &Grades) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    let mut suites = String::new();
    let mut id = 0usize;
    for l in &g.learners {
        for k in &l.katas {
            let missing = k.status == KataStatus::Missing;
            let zero = k.status.zeroes() && !missing;
            let n = k.tests.len();
            let f = if k.status.zeroes() {
                0
            } else {
                k.tests
                    .iter()
                    .filter(|t| t.status != TestStatus::Passed)
                    .count()
            };
            let e = if zero { n } else { 0 };
            let s = if missing { n } else { 0 };
            tests += n;
            failures += f;
            errors += e;
            skipped += s;
            let _ = writeln!(
                suites,
                "  <testsuite name=\"{}\" id=\"{id}\" package=\"{}\" timestamp=\"{}\" hostname=\"{}\" tests=\"{n}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{s}\" time=\"{:.3}\">",
                esc(&format!("{} / {}", l.learner, k.kata)),
                esc(&l.learner),
                esc(g.started_at.trim_end_matches('Z')),
                esc(&g.hostname),
                k.build_secs + k.run_secs
            );
            id += 1;
            let _ = writeln!(
                suites,
                "    <properties><property name=\"score\" value=\"{}\"/><property name=\"max_score\" value=\"{}\"/><property name=\"status\" value=\"{}\"/></properties>",
                k.score,
                k.max_score,
                status_name(k.status)
            );
            let per_test = if n == 0 { 0.0 } else { k.run_secs / n as f64 };
            for t in &k.tests {
                let _ = write!(
                    suites,
                    "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                    esc(&format!("{}.{}", l.learner, k.kata)),
                    esc(&t.name),
                    t.millis.map_or(per_test, |ms| ms as f64 / 1000.0)
                );
                if missing {
                    let reason = k.reason.as_deref().unwrap_or("missing");
                    let _ = writeln!(
                        suites,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        esc(reason)
                    );
                } else if zero {
                    let reason = k.reason.as_deref().unwrap_or("scored zero");
                    let _ = writeln!(
                        suites,
                        ">\n      <error message=\"{}\" type=\"{}\"/>\n    </testcase>",
                        esc(reason),
                        status_name(k.status)
                    );
                } else if t.status == TestStatus::Passed {
                    suites.push_str("/>\n");
                } else {
                    let msg = t
                        .message
                        .clone()
                        .unwrap_or_else(|| format!("{:?}", t.status));
                    let _ = writeln!(
                        suites,
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                        esc(&msg),
                        esc(&format!("{:?}", t.status).to_lowercase()),
                        esc(&super::test_text(t))
                    );
                }
            }
            let said = match &k.reason {
                Some(r) => format!(
                    "{}: {}/{} — {r}",
                    status_name(k.status),
                    k.score,
                    k.max_score
                ),
                None => format!("{}: {}/{}", status_name(k.status), k.score, k.max_score),
            };
            let _ = writeln!(suites, "    <system-out>{}</system-out>", esc(&said));
            suites.push_str("  </testsuite>\n");
        }
    }
    let _ = writeln!(
        out,
        "<testsuites name=\"katas grade\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        g.elapsed_secs
    );
    out.push_str(&suites);
    out.push_str("</testsuites>\n");
    out
}

fn status_name(s: KataStatus) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// XML attribute and text escaping; control characters other than tab and newline are
/// dropped (XML 1.0 cannot carry them; the report's texts are already cleaned, this is the
/// format's own guarantee).
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}
