//! The checks that build and run: starter, reference, alternatives, known-wrong solutions,
//! rustfmt and clippy, per-kata hidden-test time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Result;

use super::{layout, DevReport, Timing, MAX_RUN};
use crate::manifest::Kata;
use crate::runner::{self, scratch, CheckOptions, CheckResult, TestStatus, Verdict};

/// Lines of tool output kept in a finding.
const KEEP_LINES: usize = 12;

pub(super) fn check_kata(
    root: &Path,
    k: &Kata,
    target: &Path,
    scratch: &Path,
    report: &mut DevReport,
    log: &mut dyn FnMut(&str),
) -> Result<()> {
    let name = Some(k.name.as_str());
    let ws = scratch.join(&k.name);
    let opts = CheckOptions {
        target_dir: Some(target.to_path_buf()),
        ..CheckOptions::default()
    };
    let run = |source: &Path| -> Result<CheckResult> {
        let _ = std::fs::remove_dir_all(&ws);
        scratch::prepare(root, k, source, None, &ws)?;
        runner::check(&ws, k, &opts, &mut |_| {})
    };

    // The starter: compiles, fails.
    log(&format!("{}: starter", k.name));
    let starter = run(&root.join(k.starter()))?;
    let mut plan: Vec<String> = starter.tests.iter().map(|t| t.name.clone()).collect();
    match &starter.verdict {
        Verdict::CompileError { .. } | Verdict::BuildFailed { .. } => report.error(
            name,
            Some(&k.starter()),
            "starter-compiles",
            "the starter compiles (the learner starts from red tests, not compiler errors)",
            crate::grade::verdict_text(&starter.verdict, 0),
        ),
        Verdict::Passed => report.error(
            name,
            Some(&k.starter()),
            "starter-fails",
            "the starter fails its hidden tests",
            format!("all {} hidden tests pass", starter.tests.len()),
        ),
        _ => {}
    }

    // The reference: passes; its time is the kata's time.
    log(&format!("{}: reference", k.name));
    let reference = run(&root.join(k.reference()))?;
    if plan.is_empty() {
        plan = reference.tests.iter().map(|t| t.name.clone()).collect();
    }
    if !reference.passed() {
        report.error(
            name,
            Some(&k.reference()),
            "reference-passes",
            "the reference solution passes every hidden test",
            describe_failure(&reference),
        );
    }
    if reference.max_points_known() {
        report.timings.push(Timing {
            kata: k.name.clone(),
            run_secs: reference.run_time.as_secs_f64(),
            build_secs: reference.build_time.as_secs_f64(),
        });
        if reference.run_time > MAX_RUN {
            report.warn(
                name,
                Some(&k.hidden()),
                "speed",
                format!(
                    "the hidden tests run within {} s on a warm build",
                    MAX_RUN.as_secs()
                ),
                format!("{:.2} s", reference.run_time.as_secs_f64()),
            );
        }
    }
    clippy(root, k, &k.reference(), &ws, &opts, report, log)?;

    for alt in &k.alternatives {
        log(&format!("{}: alternative {}", k.name, alt.path.display()));
        let r = run(&root.join(&alt.path))?;
        if !r.passed() {
            report.error(
                name,
                Some(&alt.path),
                "alternative-passes",
                "every alternative correct solution passes (the tests check behaviour, not \
                 the reference's internals)",
                describe_failure(&r),
            );
        }
        clippy(root, k, &alt.path, &ws, &opts, report, log)?;
    }

    for w in &k.wrong {
        log(&format!("{}: known-wrong {}", k.name, w.path.display()));
        let r = run(&root.join(&w.path))?;
        match &r.verdict {
            Verdict::CompileError { .. } | Verdict::BuildFailed { .. } => report.error(
                name,
                Some(&w.path),
                "wrong-compiles",
                "a known-wrong solution compiles and is rejected by a failing test (not by \
                 the compiler)",
                crate::grade::verdict_text(&r.verdict, 0),
            ),
            Verdict::Passed => report.error(
                name,
                Some(&w.path),
                "wrong-fails",
                format!(
                    "the hidden tests reject it ({})",
                    if w.why.is_empty() {
                        "known wrong"
                    } else {
                        &w.why
                    }
                ),
                format!("all {} hidden tests pass", r.tests.len()),
            ),
            _ => {
                for t in &w.must_fail {
                    match r.tests.iter().find(|x| &x.name == t) {
                        None => report.error(
                            name,
                            Some(&k.file()),
                            "must-fail",
                            format!("must_fail names a hidden test of {}", k.name),
                            format!("no test `{t}` (tests: {})", plan.join(", ")),
                        ),
                        Some(x) if x.status == TestStatus::Passed => report.error(
                            name,
                            Some(&w.path),
                            "wrong-fails",
                            format!("test `{t}` fails on it"),
                            format!("`{t}` passes"),
                        ),
                        Some(x) if x.status != TestStatus::Failed => report.warn(
                            name,
                            Some(&w.path),
                            "wrong-fails",
                            format!("test `{t}` fails with a message that teaches"),
                            format!("`{t}` ended {:?} ({})", x.status, describe_failure(&r)),
                        ),
                        Some(_) => {}
                    }
                }
            }
        }
        clippy(root, k, &w.path, &ws, &opts, report, log)?;
    }

    // Names in the manifest that no hidden test has.
    if !plan.is_empty() {
        let manifest_path = &k.file();
        for (table, names) in [
            ("test_hints", k.test_hints.keys().collect::<Vec<_>>()),
            ("test_points", k.test_points.keys().collect::<Vec<_>>()),
        ] {
            for n in names {
                if !plan.contains(n) {
                    report.error(
                        name,
                        Some(manifest_path),
                        "test-names",
                        format!("[katas.{table}] names hidden tests of {}", k.name),
                        format!("no test `{n}` (tests: {})", plan.join(", ")),
                    );
                }
            }
        }
    }

    log(&format!("{}: rustfmt", k.name));
    for p in layout::solution_paths(k) {
        rustfmt(root, k, &p, report);
    }
    let _ = std::fs::remove_dir_all(&ws);
    Ok(())
}

/// First failing test, or the verdict.
fn describe_failure(r: &CheckResult) -> String {
    match (&r.verdict, r.first_failure()) {
        (Verdict::Failed, Some(t)) => {
            let failing = r.tests.iter().filter(|t| !t.passed()).count();
            format!(
                "{failing} of {} tests fail; first `{}`: {}",
                r.tests.len(),
                t.name,
                t.message.as_deref().unwrap_or("(no message)")
            )
        }
        (v, _) => crate::grade::verdict_text(v, 0),
    }
}

/// `cargo clippy -p <kata> -- -D warnings` on the scratch workspace, which holds `solution`.
fn clippy(
    root: &Path,
    k: &Kata,
    solution: &Path,
    ws: &Path,
    opts: &CheckOptions,
    report: &mut DevReport,
    log: &mut dyn FnMut(&str),
) -> Result<()> {
    log(&format!("{}: clippy {}", k.name, solution.display()));
    // The scratch workspace still holds `solution`: clippy runs right after its check.
    let _ = root;
    let mut cmd = crate::runner::cargo_command();
    cmd.current_dir(ws)
        .args([
            "clippy",
            "--quiet",
            "--color",
            "never",
            "--message-format",
            "short",
        ])
        .arg("--manifest-path")
        .arg(ws.join("Cargo.toml"))
        .args(["-p", &package_name(ws, k)])
        .args(["--", "-D", "warnings"])
        .stdin(Stdio::null());
    if let Some(t) = &opts.target_dir {
        cmd.env("CARGO_TARGET_DIR", t);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("error: could not compile"))
            .take(KEEP_LINES)
            .collect();
        report.error(
            Some(&k.name),
            Some(solution),
            "clippy",
            "clippy-clean with -D warnings",
            lines.join("\n"),
        );
    }
    Ok(())
}

fn package_name(ws: &Path, k: &Kata) -> String {
    let text = std::fs::read_to_string(ws.join(k.folder()).join("Cargo.toml")).unwrap_or_default();
    toml::from_str::<toml::Table>(&text)
        .ok()
        .and_then(|d| {
            d.get("package")
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str().map(String::from))
        })
        .unwrap_or_else(|| k.name.clone())
}

/// `rustfmt --check --edition 2021` on every `.rs` file of a solution.
fn rustfmt(root: &Path, k: &Kata, solution: &Path, report: &mut DevReport) {
    let full = root.join(solution);
    let files: Vec<PathBuf> = if full.is_dir() {
        let mut v = Vec::new();
        collect_rs(&full, &mut v);
        v
    } else if full.is_file() {
        vec![full]
    } else {
        return;
    };
    for f in files {
        let out = Command::new("rustfmt")
            .args(["--check", "--edition", "2021"])
            .arg(&f)
            .stdin(Stdio::null())
            .output();
        let rel = f.strip_prefix(root).unwrap_or(&f).to_path_buf();
        match out {
            Err(e) => {
                report.warn(
                    Some(&k.name),
                    Some(&rel),
                    "rustfmt",
                    "rustfmt on PATH",
                    format!("could not run rustfmt: {e}"),
                );
                return;
            }
            Ok(o) if !o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout);
                let lines: Vec<&str> = text.lines().take(KEEP_LINES).collect();
                report.error(
                    Some(&k.name),
                    Some(&rel),
                    "rustfmt",
                    "rustfmt-clean (rustfmt --check --edition 2021)",
                    format!("would reformat:\n{}", lines.join("\n")),
                );
            }
            Ok(_) => {}
        }
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
