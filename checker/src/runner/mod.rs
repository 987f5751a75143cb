//! Checking a kata: compile its hidden tests against the learner's crate, run them under a
//! timeout and an output cap, and turn the event stream into per-test results.
//!
//! ```text
//!   cargo build --message-format=json  ──► compile errors? ──► Verdict::CompileError
//!        │ (the hidden crate's binary)
//!        ▼
//!   run binary (own process group, timeout, capped output)
//!        │ JSON lines: plan / start / result / end  (katas-testkit)
//!        ▼
//!   CheckResult { verdict, tests: [TestResult { name, status, message, expected, actual,
//!                                               seed, points, .. }], output, .. }
//! ```
//!
//! Everything here works on a *workspace root* and a manifest [`Kata`]: the learner's
//! repository for `katas run` and watch mode, or a scratch workspace made by [`scratch`] when
//! someone else's sources (a reference solution, a submission) are checked. The learner's files
//! are never edited to swap a solution in.
//!
//! Design decision: the hidden tests are a plain binary, not a `cargo test` target. A `[[test]]`
//! target would run under `cargo test --workspace` (CI) against starters that fail by design,
//! and libtest's human output cannot carry expected/actual values or blame a crash on a test.

mod build;
mod exec;
mod replay;
pub mod scratch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

pub use build::{cargo_command, Diagnostic};

use crate::manifest::Kata;

/// Output kept per run (learner prints and stderr), beyond which it is cut with a note.
pub const DEFAULT_OUTPUT_CAP: usize = 64 * 1024;

/// How to check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Kill the test process after this long (default: the kata's timeout).
    pub timeout: Option<Duration>,
    /// Bytes of non-event output kept.
    pub output_cap: usize,
    /// Cargo target directory (default: cargo's own choice, i.e. `CARGO_TARGET_DIR` or
    /// `<root>/target`).
    pub target_dir: Option<PathBuf>,
    /// Replaces every seeded test's seed (`KATAS_SEED`).
    pub seed: Option<u64>,
    /// Run only these tests (all when empty).
    pub only_tests: Vec<String>,
    /// Extra environment for the test process.
    pub env: Vec<(String, String)>,
    /// Runs the test binary as `wrapper[0] wrapper[1..] <binary>` (a sandbox such as
    /// `unshare … prlimit … --`); empty runs it directly. Used by `katas grade`.
    pub wrapper: Vec<std::ffi::OsString>,
    /// Stops the build (cargo and every compiler it started) after this long: a submission's
    /// macro or `const` that never finishes compiling must not hang a grader. `None`: no limit.
    pub build_timeout: Option<Duration>,
    /// Runs cargo as `build_wrapper[0] build_wrapper[1..] cargo …` (limits on the build, as
    /// `katas grade` sets); empty runs cargo directly.
    pub build_wrapper: Vec<std::ffi::OsString>,
    /// Save the first failing test's world for `cargo katas view` ([`view_file`]): watch mode
    /// and `katas run` do; graders and `dev check` do not.
    pub save_view: bool,
    /// Rebuild with the compiler commands of the last build when only the learner's sources
    /// changed, without cargo (the `replay` module): watch mode and `katas run` do, in the
    /// learner's own tree; graders and `dev check` (scratch workspaces, build limits) do not.
    pub replay: bool,
    /// The result channel (`katas grade` in a sandbox with namespaces): a named pipe the
    /// runner makes at this path and reads the test kit's events from; the sandbox hands it
    /// to the test as a descriptor only the test kit opens (`KATAS_RESULTS_FD`). Everything
    /// on the test's stdout and stderr is then output, never a result. `None`: events come on
    /// stdout, told from imitations by the run's token.
    pub results_fifo: Option<PathBuf>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            timeout: None,
            output_cap: DEFAULT_OUTPUT_CAP,
            target_dir: None,
            seed: None,
            only_tests: Vec::new(),
            env: Vec::new(),
            wrapper: Vec::new(),
            build_timeout: None,
            build_wrapper: Vec::new(),
            save_view: false,
            replay: false,
            results_fifo: None,
        }
    }
}

/// How one hidden test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// It passed.
    Passed,
    /// It reported a failure.
    Failed,
    /// The process died (crash, abort, exit) while it ran.
    Crashed,
    /// The timeout hit while it ran.
    TimedOut,
    /// It never started (an earlier test took the process down).
    NotRun,
}

/// One hidden test's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestResult {
    /// The test's name (what the manifest's points and hints refer to).
    pub name: String,
    /// How it ended.
    pub status: TestStatus,
    /// The failure message, in DynamoDB terms.
    pub message: Option<String>,
    /// Expected value, rendered as text.
    pub expected: Option<String>,
    /// The learner's value, rendered as text.
    pub actual: Option<String>,
    /// Seed of a seeded test (replays with `--seed`).
    pub seed: Option<u64>,
    /// Where a panic happened.
    pub location: Option<String>,
    /// What the test printed (capped).
    pub output: String,
    /// Points it is worth (from the manifest).
    pub points: u32,
    /// How long it ran, all its seeds together, as the test kit measured it (none for a test
    /// that did not finish).
    pub millis: Option<u64>,
}

impl TestResult {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.status == TestStatus::Passed
    }
    /// Points earned.
    pub fn score(&self) -> u32 {
        if self.passed() {
            self.points
        } else {
            0
        }
    }
}

/// Why a run produced no (complete) results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    /// Every hidden test passed.
    Passed,
    /// At least one hidden test failed (see the tests).
    Failed,
    /// The kata (or the hidden tests against it) did not compile.
    CompileError {
        /// Errors, those located in the learner's folder first.
        errors: Vec<Diagnostic>,
    },
    /// Cargo failed without a compiler error (a broken manifest, a missing dependency).
    BuildFailed {
        /// Cargo's stderr (capped).
        detail: String,
    },
    /// The timeout ended the run.
    TimedOut {
        /// The timeout.
        secs: u64,
        /// The test that was running.
        test: Option<String>,
    },
    /// The process overflowed its stack.
    StackOverflow {
        /// The test that was running.
        test: Option<String>,
    },
    /// The process died some other way (abort, signal, `process::exit`).
    Crashed {
        /// The test that was running.
        test: Option<String>,
        /// What happened, e.g. "killed by signal 11" or "exited with code 0".
        detail: String,
    },
}

/// Everything a check found out.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The kata checked.
    pub kata: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Per-test results, in the hidden tests' order (empty on compile errors).
    pub tests: Vec<TestResult>,
    /// Output not attributed to any test, and stderr (capped).
    pub output: String,
    /// Whether output was cut.
    pub output_truncated: bool,
    /// Compiler warnings located in the learner's folder.
    pub warnings: Vec<Diagnostic>,
    /// Wall time of the build step.
    pub build_time: Duration,
    /// Wall time of the test run.
    pub run_time: Duration,
    /// Whether the build replayed the last build's compiler commands instead of running cargo
    /// (see [`CheckOptions::replay`]).
    pub replayed: bool,
}

impl CheckResult {
    /// Whether the kata passed.
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Passed
    }
    /// Points earned and points possible (possible = sum over the hidden tests that were
    /// planned; 0 when nothing compiled, see [`CheckResult::max_points_known`]).
    pub fn score(&self) -> (u32, u32) {
        let earned = self.tests.iter().map(TestResult::score).sum();
        let max = self.tests.iter().map(|t| t.points).sum();
        (earned, max)
    }
    /// Whether the test list is known (false on compile errors: a grader must then list the
    /// tests itself, e.g. by running the reference once).
    pub fn max_points_known(&self) -> bool {
        !self.tests.is_empty()
    }
    /// The first test that did not pass.
    pub fn first_failure(&self) -> Option<&TestResult> {
        self.tests.iter().find(|t| !t.passed())
    }
}

/// Progress of the build step, for a progress line.
#[derive(Debug, Clone)]
pub enum Progress {
    /// Cargo started compiling a crate (`Compiling engine v0.1.0`), with the number of crates
    /// finished so far.
    Compiling {
        /// Cargo's status line, trimmed.
        line: String,
        /// Artifacts finished so far.
        done: usize,
    },
    /// The build is done; the tests run.
    Running,
}

/// Whether the learner's checks may replay the compiler (the `replay` module):
/// `KATAS_NO_REPLAY` set (to anything) makes every check run cargo.
pub fn replay_wanted() -> bool {
    std::env::var_os(NO_REPLAY_ENV).is_none()
}

/// The environment variable that turns the compiler replay off.
pub const NO_REPLAY_ENV: &str = "KATAS_NO_REPLAY";

/// Where a failing run of `kata` saves its world for `cargo katas view`:
/// `<target dir>/katas-view/<kata>.json` (the test kit writes it: `katas_testkit::view`).
///
/// Decision: in the target directory, next to the build it came from, not in the repository:
/// it is a build product, rewritten by every run and never committed, and `cargo clean`
/// clears it with the rest.
pub fn view_file(root: &Path, kata: &Kata, opts: &CheckOptions) -> PathBuf {
    build::target_dir(root, opts)
        .join("katas-view")
        .join(format!("{}.json", kata.name))
}

/// The test kit's environment variable naming [`view_file`] (`katas_testkit::view`).
const VIEW_FILE_ENV: &str = "KATAS_VIEW_FILE";

/// The files of the learner's crate that a kata cannot be built without, missing at `root`
/// (relative paths).
pub fn missing_sources(root: &Path, kata: &Kata) -> Vec<PathBuf> {
    [
        kata.folder().join("Cargo.toml"),
        kata.src_dir().join("lib.rs"),
    ]
    .into_iter()
    .filter(|f| !root.join(f).is_file())
    .collect()
}

/// What to say when [`missing_sources`] found some: what is missing and the ways back.
pub fn missing_text(kata: &Kata, missing: &[PathBuf]) -> String {
    let files: Vec<String> = missing.iter().map(|f| f.display().to_string()).collect();
    let mut text = format!(
        "{} {} missing, so the kata cannot be built. To restore:\n  git checkout -- {}   \
         (the last committed version)",
        files.join(" and "),
        if files.len() == 1 { "is" } else { "are" },
        files.join(" "),
    );
    if !missing.iter().any(|f| f.ends_with("Cargo.toml")) {
        text.push_str(&format!(
            "\n  cargo katas reset {}   (the starter; replaces {}/)",
            kata.name,
            kata.src_dir().display()
        ));
    }
    text
}

/// Checks `kata` in the workspace at `root`.
pub fn check(
    root: &Path,
    kata: &Kata,
    opts: &CheckOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<CheckResult> {
    check_gated(root, kata, opts, progress, &mut |_| None)
}

/// [`check`] with a gate between build and run: `gate` sees the test binary once it is built
/// and may refuse to run it, with a reason that becomes a [`Verdict::BuildFailed`] (the grader
/// refuses a kata crate whose compilation read files outside its `src/`).
pub fn check_gated(
    root: &Path,
    kata: &Kata,
    opts: &CheckOptions,
    progress: &mut dyn FnMut(Progress),
    gate: &mut dyn FnMut(&Path) -> Option<String>,
) -> Result<CheckResult> {
    let missing = missing_sources(root, kata);
    if !missing.is_empty() {
        return Ok(CheckResult {
            kata: kata.name.clone(),
            verdict: Verdict::BuildFailed {
                detail: missing_text(kata, &missing),
            },
            tests: Vec::new(),
            output: String::new(),
            output_truncated: false,
            warnings: Vec::new(),
            build_time: Duration::ZERO,
            run_time: Duration::ZERO,
            replayed: false,
        });
    }
    let built = build::build(root, kata, opts, progress)?;
    let built = match built.outcome {
        build::Outcome::Exe(exe) => match gate(&exe) {
            Some(detail) => build::Built {
                outcome: build::Outcome::Failed(Verdict::BuildFailed { detail }),
                ..built
            },
            None => build::Built {
                outcome: build::Outcome::Exe(exe),
                ..built
            },
        },
        failed => build::Built {
            outcome: failed,
            ..built
        },
    };
    let exe = match built.outcome {
        build::Outcome::Exe(exe) => exe,
        build::Outcome::Failed(verdict) => {
            return Ok(CheckResult {
                kata: kata.name.clone(),
                verdict,
                tests: Vec::new(),
                output: String::new(),
                output_truncated: false,
                warnings: built.warnings,
                build_time: built.time,
                run_time: Duration::ZERO,
                replayed: built.replayed,
            })
        }
    };
    progress(Progress::Running);
    let timeout = opts.timeout.unwrap_or_else(|| kata.timeout());
    let mut opts = opts.clone();
    if opts.save_view {
        // A passing run leaves no picture behind: the file is the last run's, or none.
        let file = view_file(root, kata, &opts);
        let _ = std::fs::remove_file(&file);
        opts.env
            .push((VIEW_FILE_ENV.into(), file.display().to_string()));
    }
    let mut run = exec::run(root, &exe, &opts, timeout)?;
    for t in &mut run.tests {
        t.points = kata.points_for(&t.name);
    }
    Ok(CheckResult {
        kata: kata.name.clone(),
        verdict: run.verdict,
        tests: run.tests,
        output: run.output,
        output_truncated: run.truncated,
        warnings: built.warnings,
        build_time: built.time,
        run_time: run.time,
        replayed: built.replayed,
    })
}
