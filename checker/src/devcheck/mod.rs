//! `katas dev check`: the authoring gate. Proves every kata of the curriculum teaches:
//!
//! ```text
//! layout     the manifest matches the folders: exercises/<kata>, checker/katas/<kata>/ (given,
//!            tests, run, starter/ identical to the shipped src/), the solutions it lists;
//!            no stray kata folders
//! content    three hint levels; per-test hints, points and must_fail name real tests; the
//!            README links an existing lesson section (lessons/src/<stem>.md#anchor)
//! behaviour  the starter compiles and fails; the reference and every alternative pass;
//!            every known-wrong solution compiles and fails each test its must_fail names
//! hygiene    solutions are rustfmt-clean and clippy-clean (-D warnings)
//! speed      the hidden tests of each kata run within 1 s on a warm build (a warning:
//!            CI machines vary)
//! ```
//!
//! Every problem is a [`Finding`]: which kata, which file, which check, what was expected and
//! what was found. Any error makes the exit code non-zero.
//!
//! Solutions are checked in scratch workspaces (one per kata, reused for its starter,
//! reference, alternatives and wrong solutions so the engine builds once), never by editing
//! the exercise folders.

mod behaviour;
mod layout;
pub mod new;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use colored::Colorize;
use serde::Serialize;

use crate::manifest::Manifest;

/// Longest warm run of a kata's hidden tests before a warning.
pub const MAX_RUN: Duration = Duration::from_secs(1);

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct DevOptions {
    /// Only these katas (all when empty; the stray-folder check needs all).
    pub katas: Vec<String>,
    /// Target dir of the scratch builds (default `<target>/katas-dev/build`, where `<target>`
    /// is `$CARGO_TARGET_DIR` or `<root>/target`).
    pub target_dir: Option<PathBuf>,
    /// Where the scratch workspaces go (default `<target>/katas-dev/scratch`).
    pub scratch_dir: Option<PathBuf>,
    /// Katas checked at once (default: the machine's cores, at most 4; `KATAS_DEV_JOBS`
    /// overrides). Each extra job builds in a target dir of its own (`<target>-<n>`): builds
    /// sharing one would wait for each other's lock.
    pub jobs: Option<usize>,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Fails the gate.
    Error,
    /// Reported; does not fail the gate.
    Warning,
}

/// One problem.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The kata (none for curriculum-wide checks).
    pub kata: Option<String>,
    /// The file or folder at fault, relative to the root.
    pub file: Option<String>,
    /// The check that failed (`starter-fails`, `lesson-link` …).
    pub check: &'static str,
    /// What the check expected.
    pub expected: String,
    /// What it found.
    pub found: String,
}

/// Hidden-test timing of one kata (reference solution, warm build).
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// Kata.
    pub kata: String,
    /// Wall time of the hidden tests, seconds.
    pub run_secs: f64,
    /// Wall time of the (warm) build before it, seconds.
    pub build_secs: f64,
}

/// Everything `katas dev check` found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DevReport {
    /// Katas checked.
    pub katas: Vec<String>,
    /// Problems, in the order found.
    pub findings: Vec<Finding>,
    /// Per-kata hidden-test times.
    pub timings: Vec<Timing>,
}

impl DevReport {
    /// Number of errors.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// Number of warnings.
    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
    }

    /// Whether a finding of `check` exists for `kata`.
    pub fn has(&self, kata: &str, check: &str) -> bool {
        self.findings
            .iter()
            .any(|f| f.check == check && f.kata.as_deref() == Some(kata))
    }

    /// The report as text (coloured when `color`).
    pub fn render(&self, color: bool) -> String {
        let c = |s: String, f: fn(String) -> colored::ColoredString| {
            if color {
                f(s).to_string()
            } else {
                s
            }
        };
        let mut out = String::new();
        for f in &self.findings {
            let mark = match f.severity {
                Severity::Error => c("✗ error".into(), |s| s.red().bold()),
                Severity::Warning => c("! warning".into(), |s| s.yellow().bold()),
            };
            let _ = writeln!(
                out,
                "{mark} [{}] {}{}",
                f.check,
                f.kata.as_deref().unwrap_or("curriculum"),
                f.file
                    .as_deref()
                    .map(|p| format!(" — {p}"))
                    .unwrap_or_default()
            );
            let _ = writeln!(out, "    expected: {}", indent(&f.expected));
            let _ = writeln!(out, "    found:    {}", indent(&f.found));
        }
        if !self.timings.is_empty() {
            let _ = writeln!(
                out,
                "\nhidden-test times (reference solution, warm build; target ≤ {} s):",
                MAX_RUN.as_secs()
            );
            let w = self.timings.iter().map(|t| t.kata.len()).max().unwrap_or(0);
            for t in &self.timings {
                let flag = if t.run_secs > MAX_RUN.as_secs_f64() {
                    c("  over".into(), |s| s.yellow())
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "  {:<w$}  {:>6.2} s  (build {:.1} s){flag}",
                    t.kata, t.run_secs, t.build_secs
                );
            }
        }
        let summary = format!(
            "\nkatas dev check: {}, {}, {}",
            plural(self.katas.len(), "kata"),
            plural(self.errors(), "error"),
            plural(self.warnings(), "warning")
        );
        out.push_str(&if self.errors() == 0 {
            c(summary, |s| s.green().bold())
        } else {
            c(summary, |s| s.red().bold())
        });
        out.push('\n');
        out
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn indent(s: &str) -> String {
    s.trim_end().replace('\n', "\n              ")
}

/// Runs every check on the curriculum at `root`; `log` gets a line per step.
pub fn check(
    root: &Path,
    manifest: &Manifest,
    opts: &DevOptions,
    log: &mut dyn FnMut(&str),
) -> Result<DevReport> {
    let katas: Vec<&crate::manifest::Kata> = if opts.katas.is_empty() {
        manifest.katas.iter().collect()
    } else {
        opts.katas
            .iter()
            .map(|n| manifest.kata(n))
            .collect::<Result<_>>()?
    };
    let mut report = DevReport {
        katas: katas.iter().map(|k| k.name.clone()).collect(),
        ..DevReport::default()
    };
    if opts.katas.is_empty() {
        layout::stray_folders(root, manifest, &mut report);
    }
    // Next to the repository's other builds: `$CARGO_TARGET_DIR/katas-dev` or
    // `<root>/target/katas-dev`.
    let dev = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("katas-dev");
    let target = opts.target_dir.clone().unwrap_or_else(|| dev.join("build"));
    let scratch = opts
        .scratch_dir
        .clone()
        .unwrap_or_else(|| dev.join("scratch"));
    let jobs = opts
        .jobs
        .or_else(|| std::env::var("KATAS_DEV_JOBS").ok()?.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
        .clamp(1, katas.len().max(1));
    if jobs == 1 {
        for k in katas {
            check_one(root, k, &target, &scratch, &mut report, log)?;
        }
        return Ok(report);
    }

    // Several katas at once, each job on its own target dir; the reports are put together in
    // curriculum order, so the result reads the same whatever finished first.
    enum Msg {
        Log(String),
        Done(usize, Result<DevReport>),
    }
    let queue = std::sync::Mutex::new(katas.iter().copied().enumerate());
    let mut parts: Vec<Option<Result<DevReport>>> = katas.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Msg>();
        for job in 0..jobs {
            let tx = tx.clone();
            let queue = &queue;
            let target = if job == 0 {
                target.clone()
            } else {
                let mut name = target.file_name().unwrap_or_default().to_os_string();
                name.push(format!("-{job}"));
                target.with_file_name(name)
            };
            let scratch = &scratch;
            scope.spawn(move || loop {
                let Some((i, k)) = queue.lock().unwrap_or_else(|e| e.into_inner()).next() else {
                    break;
                };
                let mut part = DevReport::default();
                let mut log = |line: &str| {
                    let _ = tx.send(Msg::Log(line.to_string()));
                };
                let result = check_one(root, k, &target, scratch, &mut part, &mut log);
                let _ = tx.send(Msg::Done(i, result.map(|()| part)));
            });
        }
        drop(tx);
        for msg in rx {
            match msg {
                Msg::Log(line) => log(&line),
                Msg::Done(i, part) => parts[i] = Some(part),
            }
        }
    });
    for part in parts {
        let part = part.expect("every kata was checked")?;
        report.findings.extend(part.findings);
        report.timings.extend(part.timings);
    }
    Ok(report)
}

/// Layout, then behaviour (when the layout allows) of one kata.
fn check_one(
    root: &Path,
    k: &crate::manifest::Kata,
    target: &Path,
    scratch: &Path,
    report: &mut DevReport,
    log: &mut dyn FnMut(&str),
) -> Result<()> {
    log(&format!("{}: layout and content", k.name));
    if layout::check_kata(root, k, report) {
        behaviour::check_kata(root, k, target, scratch, report, log)?;
    } else {
        log(&format!(
            "{}: skipping the build checks until its layout is fixed",
            k.name
        ));
    }
    Ok(())
}

impl DevReport {
    fn error(
        &mut self,
        kata: Option<&str>,
        file: Option<&Path>,
        check: &'static str,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) {
        self.push(Severity::Error, kata, file, check, expected, found);
    }

    fn warn(
        &mut self,
        kata: Option<&str>,
        file: Option<&Path>,
        check: &'static str,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) {
        self.push(Severity::Warning, kata, file, check, expected, found);
    }

    fn push(
        &mut self,
        severity: Severity,
        kata: Option<&str>,
        file: Option<&Path>,
        check: &'static str,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) {
        self.findings.push(Finding {
            severity,
            kata: kata.map(String::from),
            file: file.map(|p| p.display().to_string()),
            check,
            expected: expected.into(),
            found: found.into(),
        });
    }
}
