//! Scoring one submission-kata: points per hidden test from the manifest, and zero for the
//! whole kata when it did not build, hung, crashed, flooded its output or forged results —
//! with a reason a learner can act on.

use super::text::{clean, one_line, MAX_MESSAGE, MAX_VALUE};
use super::{GradeOptions, KataGrade, KataInfo, KataStatus, TestGrade};
use crate::runner::{CheckResult, TestStatus, Verdict};

/// Scores one check result against the kata's known tests.
pub(super) fn score(
    info: &KataInfo,
    r: &CheckResult,
    refused: Option<String>,
    opts: &GradeOptions,
) -> KataGrade {
    let output_cap = opts.output_cap;
    let mut tests: Vec<TestGrade> = info
        .tests
        .iter()
        .map(|t| {
            let got = r.tests.iter().find(|x| x.name == t.name);
            let status = got.map_or(TestStatus::NotRun, |x| x.status);
            TestGrade {
                name: t.name.clone(),
                status,
                score: if status == TestStatus::Passed {
                    t.max_score
                } else {
                    0
                },
                max_score: t.max_score,
                message: got.and_then(|x| x.message.as_deref().map(|m| clean(m, MAX_MESSAGE))),
                expected: got.and_then(|x| x.expected.as_deref().map(|v| clean(v, MAX_VALUE))),
                actual: got.and_then(|x| x.actual.as_deref().map(|v| clean(v, MAX_VALUE))),
                seed: got.and_then(|x| x.seed),
                millis: got.and_then(|x| x.millis),
            }
        })
        .collect();
    let (status, reason) = if let Some(why) = refused {
        (KataStatus::Rejected, Some(why))
    } else {
        match &r.verdict {
            Verdict::CompileError { .. } => (
                KataStatus::CompileError,
                Some(verdict_text(&r.verdict, output_cap / 1024)),
            ),
            Verdict::BuildFailed { .. } => (
                KataStatus::BuildFailed,
                Some(verdict_text(&r.verdict, output_cap / 1024)),
            ),
            Verdict::TimedOut { .. } => (
                KataStatus::TimedOut,
                Some(verdict_text(&r.verdict, output_cap / 1024)),
            ),
            Verdict::StackOverflow { .. } => (
                KataStatus::StackOverflow,
                Some(verdict_text(&r.verdict, output_cap / 1024)),
            ),
            Verdict::Crashed { .. } => {
                let mut why = verdict_text(&r.verdict, output_cap / 1024);
                let printed = r
                    .tests
                    .iter()
                    .map(|t| t.output.as_str())
                    .chain([r.output.as_str()]);
                if printed
                    .into_iter()
                    .any(|o| o.contains("memory allocation of"))
                {
                    why.push_str(&format!(
                        " — out of memory (the limit is {} MiB)",
                        opts.memory_mib
                    ));
                }
                (KataStatus::Crashed, Some(why))
            }
            _ if r.output_truncated => (
                KataStatus::OutputFlood,
                Some(format!(
                    "it printed more than {} KiB of output",
                    output_cap / 1024
                )),
            ),
            Verdict::Passed | Verdict::Failed => match forged(info, r) {
                Some(why) => (KataStatus::Tampered, Some(why)),
                None if r.passed() => (KataStatus::Passed, None),
                None => (KataStatus::Failed, None),
            },
        }
    };
    if status.zeroes() {
        for t in &mut tests {
            t.score = 0;
        }
    }
    KataGrade {
        kata: r.kata.clone(),
        score: tests.iter().map(|t| t.score).sum(),
        max_score: info.max_score,
        status,
        reason: reason.map(|r| one_line(&r, MAX_MESSAGE)),
        tests,
        build_secs: r.build_time.as_secs_f64(),
        run_secs: r.run_time.as_secs_f64(),
    }
}

/// A result stream the hidden tests cannot have produced: a test reported twice, a test the
/// reference run did not have, or tests out of order. The learner's code shares the test
/// process's stdout, so it can print event lines; this catches the clumsy forgeries.
fn forged(info: &KataInfo, r: &CheckResult) -> Option<String> {
    if info.tests.is_empty() {
        return None;
    }
    let names: Vec<&str> = r.tests.iter().map(|t| t.name.as_str()).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Some(format!(
                "the test output was tampered with: `{n}` reported twice"
            ));
        }
        if !info.tests.iter().any(|t| t.name == *n) {
            return Some(format!(
                "the test output was tampered with: a result for `{n}`, which is not a hidden test"
            ));
        }
    }
    let expected: Vec<&str> = info
        .tests
        .iter()
        .map(|t| t.name.as_str())
        .filter(|n| names.contains(n))
        .collect();
    (expected != names)
        .then(|| "the test output was tampered with: results out of order".to_string())
}

/// One line for a verdict that zeroes a kata.
pub fn verdict_text(v: &Verdict, cap_kib: usize) -> String {
    let within = |t: &Option<String>| {
        t.as_deref()
            .map(|t| format!(" in test `{t}`"))
            .unwrap_or_default()
    };
    match v {
        Verdict::Passed => "passed".into(),
        Verdict::Failed => "some hidden tests failed".into(),
        Verdict::CompileError { errors } => match errors.first() {
            Some(e) => format!(
                "does not compile: {}{}",
                e.message,
                match (&e.file, e.line) {
                    (Some(f), Some(l)) => format!(" ({f}:{l})"),
                    _ => String::new(),
                }
            ),
            None => "does not compile".into(),
        },
        Verdict::BuildFailed { detail } => format!(
            "the build failed: {}",
            detail.lines().next().unwrap_or("").trim()
        ),
        Verdict::TimedOut { secs, test } => {
            format!(
                "timed out after {secs} s{} (an endless loop?)",
                within(test)
            )
        }
        Verdict::StackOverflow { test } => format!("stack overflow{}", within(test)),
        Verdict::Crashed { test, detail } => {
            let _ = cap_kib;
            format!("crashed{}: {detail}", within(test))
        }
    }
}
