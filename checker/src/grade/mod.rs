//! `katas grade`: score a class's submissions against the instructor's hidden tests.
//!
//! ```text
//! paths ──► submission::discover ──► stage (only exercises/<kata>/src/**)
//!                                          │
//!   isolate::probe (what can be applied)   ▼
//!   reference run per kata ──► the test list and points (also warms every job slot)
//!                                          │
//!   job slots (--jobs N), each with its own scratch workspace and target dir:
//!     scratch::prepare ─► harden (build = false, forbid(unsafe_code)) ─► scan
//!       ─► runner::check_gated (build timeout; dep-info gate; sandboxed run)
//!       ─► score: points per test from the manifest; zero for a kata that
//!          did not build, hung, crashed, flooded its output or forged results
//!                                          │
//!                                          ▼
//!                     Grades ──► output::{table, json, csv, junit, gradescope}
//! ```
//!
//! Trust, layer by layer (each stops one thing; the table of what remains is in
//! [`isolate`]'s essay): only `src/**` is taken from a submission; the kata crate is built
//! with `forbid(unsafe_code)`, no build script, and a dep-info gate that refuses files read
//! outside `src/` and environment variables cargo did not set (`guard`); the run sees its own
//! root, no `/proc`, no network, no programs, capped disk, memory, CPU and processes; results
//! come on a channel the code under test cannot reach, each event stamped with the run's
//! token; and the verdict cross-checks the stream against the reference run's test list
//! (`score::forged`). What no layer stops is code that breaks memory safety through a compiler
//! soundness hole while sharing the judge's process.
//!
//! Design decision: one scratch folder and one target dir per *job slot*, reused by the
//! submissions that slot grades one after another (the folder is wiped in between), rather
//! than one per submission. Cargo keys build units by the package's path, so a fixed path
//! keeps the target dir from growing by a test binary per submission, and the engine, the
//! test kit and registry crates are built once per slot. Slots do not share a target dir
//! because cargo locks it for the whole build, which would serialise the jobs.

mod guard;
pub mod isolate;
pub mod output;
mod score;
pub mod submission;
pub mod text;

pub use score::verdict_text;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::manifest::{Kata, Manifest};
use crate::runner::{self, scratch, CheckOptions, CheckResult, TestStatus};
use isolate::{Isolation, Limits};

/// Version tag of the JSON report (`"schema"`).
pub const SCHEMA: &str = "katas-grade/1";
/// Output a submission's test run may print before its kata scores zero.
pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;
/// Longest build of one submission-kata.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(300);

/// What `katas grade` was asked to do.
#[derive(Debug, Clone)]
pub struct GradeOptions {
    /// Submissions: archives, folders, folders of them.
    pub paths: Vec<PathBuf>,
    /// A folder of hidden-test crates (`<dir>/<kata>/`) replacing the repository's.
    pub hidden: Option<PathBuf>,
    /// Parallel job slots.
    pub jobs: usize,
    /// Per-kata timeout (default: the manifest's).
    pub timeout: Option<Duration>,
    /// Output cap per kata run, bytes.
    pub output_cap: usize,
    /// Address-space limit per run, MiB.
    pub memory_mib: u64,
    /// Apply the OS sandbox where possible.
    pub sandbox: bool,
    /// Where slots, staged sources and target dirs live (default `<root>/target/katas-grade`).
    pub work: Option<PathBuf>,
    /// Grade only these katas (all when empty).
    pub katas: Vec<String>,
    /// Grade even where a test run cannot have its own pid namespace (`--no-sandbox`, or a
    /// machine without user namespaces): a submission's processes can then outlive its run.
    pub accept_weak_isolation: bool,
    /// Refuse before grading unless exactly one submission is found (Gradescope's format).
    pub expect_one: bool,
    /// Gradescope: who sees a test's failure output, and when.
    pub visibility: output::Visibility,
}

impl Default for GradeOptions {
    fn default() -> Self {
        GradeOptions {
            paths: Vec::new(),
            hidden: None,
            jobs: 2,
            timeout: None,
            output_cap: DEFAULT_OUTPUT_CAP,
            memory_mib: isolate::DEFAULT_MEMORY_MIB,
            sandbox: true,
            work: None,
            katas: Vec::new(),
            accept_weak_isolation: false,
            expect_one: false,
            visibility: output::Visibility::AfterDueDate,
        }
    }
}

/// The whole report (the JSON output; see the README's schema).
#[derive(Debug, Clone, Serialize)]
pub struct Grades {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// Where the hidden tests came from.
    pub hidden: String,
    /// What isolation was applied.
    pub isolation: Isolation,
    /// The katas graded, with their tests and points.
    pub katas: Vec<KataInfo>,
    /// One entry per submission.
    pub learners: Vec<LearnerGrade>,
    /// What in the class folders was not taken as a submission, and why.
    pub skipped: Vec<submission::Skipped>,
    /// When grading started (RFC 3339, UTC).
    pub started_at: String,
    /// The machine that graded.
    pub hostname: String,
    /// Gradescope's visibility of failure output (not part of the JSON report).
    #[serde(skip)]
    pub visibility: output::Visibility,
    /// Points possible per learner.
    pub max_score: u32,
    /// Wall time of the whole run, seconds.
    pub elapsed_secs: f64,
    /// Learners × katas graded.
    pub submission_katas: usize,
    /// `elapsed_secs / submission_katas` (reference runs included).
    pub secs_per_submission_kata: f64,
}

/// A kata as graded.
#[derive(Debug, Clone, Serialize)]
pub struct KataInfo {
    /// Kata name.
    pub kata: String,
    /// Its title.
    pub title: String,
    /// Points possible.
    pub max_score: u32,
    /// Every hidden test with its points.
    pub tests: Vec<TestInfo>,
    /// A problem with the grading setup of this kata (the reference did not pass), if any.
    pub warning: Option<String>,
}

/// A hidden test and its points.
#[derive(Debug, Clone, Serialize)]
pub struct TestInfo {
    /// Test name.
    pub name: String,
    /// Points.
    pub max_score: u32,
}

/// One learner's grades.
#[derive(Debug, Clone, Serialize)]
pub struct LearnerGrade {
    /// Identity: the archive's or folder's name.
    pub learner: String,
    /// The name `katas pack` recorded, if any.
    pub name: Option<String>,
    /// The archive or folder graded.
    pub source: String,
    /// Points earned.
    pub score: u32,
    /// Points possible.
    pub max_score: u32,
    /// Per kata, in curriculum order.
    pub katas: Vec<KataGrade>,
    /// What was skipped while taking the sources.
    pub notes: Vec<String>,
}

/// How a kata of a submission ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KataStatus {
    /// Every test passed.
    Passed,
    /// Some tests failed; the rest score.
    Failed,
    /// The submission has no sources for it.
    Missing,
    /// It did not compile.
    CompileError,
    /// The build failed otherwise (or was stopped).
    BuildFailed,
    /// Refused before running (it read files outside its src/, spawns processes).
    Rejected,
    /// The run hit the timeout.
    TimedOut,
    /// Stack overflow.
    StackOverflow,
    /// The process died (abort, exit, signal, a limit).
    Crashed,
    /// It printed more than the output cap.
    OutputFlood,
    /// The event stream was forged or mangled.
    Tampered,
    /// The grader could not grade it (a problem of the grader's machine).
    Error,
}

impl KataStatus {
    /// Whether the kata scores zero whatever its tests said.
    pub fn zeroes(self) -> bool {
        !matches!(self, KataStatus::Passed | KataStatus::Failed)
    }
}

/// One kata of one submission.
#[derive(Debug, Clone, Serialize)]
pub struct KataGrade {
    /// Kata name.
    pub kata: String,
    /// Points earned.
    pub score: u32,
    /// Points possible.
    pub max_score: u32,
    /// How it ended.
    pub status: KataStatus,
    /// Why it scored zero (or what else a grader should know).
    pub reason: Option<String>,
    /// Per hidden test.
    pub tests: Vec<TestGrade>,
    /// Build wall time, seconds.
    pub build_secs: f64,
    /// Test run wall time, seconds.
    pub run_secs: f64,
}

/// One hidden test of one submission.
#[derive(Debug, Clone, Serialize)]
pub struct TestGrade {
    /// Test name.
    pub name: String,
    /// `passed`, `failed`, `crashed`, `timed_out` or `not_run`.
    pub status: TestStatus,
    /// Points earned.
    pub score: u32,
    /// Points possible.
    pub max_score: u32,
    /// The failure message.
    pub message: Option<String>,
    /// Expected value.
    pub expected: Option<String>,
    /// The learner's value.
    pub actual: Option<String>,
    /// Seed of a seeded test.
    pub seed: Option<u64>,
    /// Its run time as the test kit measured it (JUnit's per-test `time`; not in the JSON
    /// formats, whose shape stays as it was).
    #[serde(skip)]
    pub millis: Option<u64>,
}

/// Grades the submissions; `log` gets one progress line per graded submission-kata.
pub fn grade(
    root: &Path,
    manifest: &Manifest,
    opts: &GradeOptions,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Grades> {
    if cfg!(not(unix)) {
        bail!(isolate::NOT_UNIX);
    }
    let started = Instant::now();
    let katas: Vec<&Kata> = if opts.katas.is_empty() {
        manifest.katas.iter().collect()
    } else {
        opts.katas
            .iter()
            .map(|n| manifest.kata(n))
            .collect::<Result<_>>()?
    };
    if katas.is_empty() {
        bail!("the curriculum has no katas to grade");
    }
    let discovery = submission::discover(&opts.paths)?;
    let found = discovery.found;
    if found.is_empty() {
        bail!("no submissions found");
    }
    if opts.expect_one && found.len() != 1 {
        bail!(
            "--format gradescope grades one submission (Gradescope runs the autograder once \
             per student); {} were found: {}",
            found.len(),
            found
                .iter()
                .map(|f| f.learner.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let started_at = text::utc_now();
    let work = opts
        .work
        .clone()
        .unwrap_or_else(|| root.join("target/katas-grade"));
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let work = work.canonicalize()?;
    if let Some(h) = &opts.hidden {
        if !h.is_dir() {
            bail!("--hidden {}: not a folder", h.display());
        }
    }
    let max_timeout = katas
        .iter()
        .map(|k| opts.timeout.unwrap_or_else(|| k.timeout()))
        .max()
        .unwrap_or_default();
    let mut probe_limits = Limits::for_timeout(max_timeout);
    probe_limits.memory_mib = opts.memory_mib;
    let mut isolation = Isolation::probe(&work, &probe_limits, opts.sandbox);
    if !isolation.pid_namespace() && opts.accept_weak_isolation {
        isolation.accept_weak();
    }
    log(&isolation.summary());
    if !isolation.pid_namespace() && !opts.accept_weak_isolation {
        bail!(
            "{}; without a pid namespace a submission's processes can outlive its run and \
             rewrite what the grader wrote, and without a mount namespace it can read the \
             hidden tests and other learners' sources. Grade on Linux with user namespaces \
             (unshare), or pass {WEAK_FLAG} to accept the weaker isolation (the report says so)",
            if opts.sandbox {
                "this machine gives a test run no namespaces of its own"
            } else {
                "--no-sandbox turns the OS sandbox off"
            }
        );
    }

    // Stage every submission (cheap, sequential: it is file copying). One that cannot be
    // read gives its learner `error` on every kata; the class goes on.
    let mut staged = Vec::new();
    let mut stage_errors: Vec<Option<String>> = Vec::new();
    for (i, f) in found.iter().enumerate() {
        let dest = work.join("staged").join(format!("{i:04}"));
        match submission::stage(f, manifest, &dest) {
            Ok(s) => {
                staged.push(s);
                stage_errors.push(None);
            }
            Err(e) => {
                let why = text::one_line(
                    &format!("the submission could not be read: {e:#}"),
                    text::MAX_MESSAGE,
                );
                log(&format!("{}: {why}", f.learner));
                staged.push(submission::Staged::default());
                stage_errors.push(Some(why));
            }
        }
    }

    let jobs = opts.jobs.max(1);
    let grader = Grader {
        root,
        work: &work,
        opts,
        isolation: &isolation,
    };
    // Reference runs: the test list and points of every kata, and a warm-up of every slot.
    let infos: Vec<Mutex<Option<KataInfo>>> = katas.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for slot in 0..jobs.min(katas.len()) {
            let (grader, katas, infos, next) = (&grader, &katas, &infos, &next);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(k) = katas.get(i) else { break };
                let info = grader.reference(slot, k);
                log(&format!("reference {}: {} points", k.name, info.max_score));
                *infos[i].lock().unwrap() = Some(info);
            });
        }
    });
    // A slot that graded no reference still needs its cold build; it happens on its first
    // submission, which is fine.
    let infos: Vec<KataInfo> = infos
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap()
                .expect("every kata has a reference run")
        })
        .collect();

    let items: Vec<(usize, usize)> = (0..found.len())
        .flat_map(|l| (0..katas.len()).map(move |k| (l, k)))
        .collect();
    let results: Vec<Mutex<Option<KataGrade>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for slot in 0..jobs.min(items.len()) {
            let (grader, katas, infos, next, done, items, results, found, staged, stage_errors) = (
                &grader,
                &katas,
                &infos,
                &next,
                &done,
                &items,
                &results,
                &found,
                &staged,
                &stage_errors,
            );
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(l, k)) = items.get(i) else { break };
                let kata = katas[k];
                let g = match &stage_errors[l] {
                    Some(why) => blank(kata, &infos[k], KataStatus::Error, why.clone()),
                    None => grade_guarded(|| {
                        grader.submission(slot, kata, &infos[k], staged[l].katas.get(&kata.name))
                    })
                    .unwrap_or_else(|why| blank(kata, &infos[k], KataStatus::Error, why)),
                };
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                log(&format!(
                    "[{n}/{}] {} {}: {}/{} {}",
                    items.len(),
                    found[l].learner,
                    kata.name,
                    g.score,
                    g.max_score,
                    text::one_line(g.reason.as_deref().unwrap_or(""), 200)
                ));
                *results[i].lock().unwrap() = Some(g);
            });
        }
    });
    let mut results = results
        .into_iter()
        .map(|m| m.into_inner().unwrap().expect("every item was graded"));
    let max_score: u32 = infos.iter().map(|i| i.max_score).sum();
    let learners = found
        .iter()
        .zip(staged)
        .map(|(f, st)| {
            let katas: Vec<KataGrade> = (0..katas.len()).filter_map(|_| results.next()).collect();
            LearnerGrade {
                learner: f.learner.clone(),
                name: st.name,
                source: f.path.display().to_string(),
                score: katas.iter().map(|k| k.score).sum(),
                max_score,
                katas,
                notes: st.notes,
            }
        })
        .collect::<Vec<_>>();
    let elapsed = started.elapsed().as_secs_f64();
    let n = learners.len() * infos.len();
    Ok(Grades {
        schema: SCHEMA,
        hidden: opts.hidden.as_ref().map_or_else(
            || "the repository's checker/katas/<kata>/tests".to_string(),
            |h| h.display().to_string(),
        ),
        isolation,
        katas: infos,
        learners,
        skipped: discovery.skipped,
        started_at,
        hostname: hostname(),
        visibility: opts.visibility,
        max_score,
        elapsed_secs: elapsed,
        submission_katas: n,
        secs_per_submission_kata: if n == 0 { 0.0 } else { elapsed / n as f64 },
    })
}

struct Grader<'a> {
    root: &'a Path,
    work: &'a Path,
    opts: &'a GradeOptions,
    isolation: &'a Isolation,
}

impl Grader<'_> {
    fn slot_dirs(&self, slot: usize) -> (PathBuf, PathBuf) {
        let base = self.work.join(format!("slot-{slot}"));
        (base.join("ws"), base.join("target"))
    }

    fn hidden_for(&self, kata: &Kata) -> (Option<PathBuf>, Option<String>) {
        match &self.opts.hidden {
            None => (None, None),
            Some(dir) => {
                let d = dir.join(&kata.name);
                if d.join("Cargo.toml").is_file() {
                    (Some(d), None)
                } else {
                    (
                        None,
                        Some(format!(
                            "{} has no {}/; the repository's hidden tests were used",
                            dir.display(),
                            kata.name
                        )),
                    )
                }
            }
        }
    }

    /// Runs the reference solution (or, without one, the starter) to learn the test list.
    fn reference(&self, slot: usize, kata: &Kata) -> KataInfo {
        let reference = self.root.join(kata.reference());
        let source = if reference.exists() {
            reference
        } else {
            self.root.join(kata.starter())
        };
        let (tests, warning) = match self.run(slot, kata, &source) {
            Ok((r, _)) => {
                let warning = (!r.passed()).then(|| {
                    format!(
                        "the reference solution does not pass these hidden tests under the \
                         grader's isolation ({}); grades of this kata are suspect",
                        verdict_text(&r.verdict, self.output_cap_kib())
                    )
                });
                let tests = r
                    .tests
                    .iter()
                    .map(|t| TestInfo {
                        name: t.name.clone(),
                        max_score: kata.points_for(&t.name),
                    })
                    .collect();
                (tests, warning)
            }
            Err(e) => (
                Vec::new(),
                Some(format!("the reference solution could not be run: {e:#}")),
            ),
        };
        let (_, hidden_note) = self.hidden_for(kata);
        KataInfo {
            kata: kata.name.clone(),
            title: kata.title.clone(),
            max_score: tests.iter().map(|t: &TestInfo| t.max_score).sum(),
            tests,
            warning: match (warning, hidden_note) {
                (Some(a), Some(b)) => Some(format!("{a}; {b}")),
                (a, b) => a.or(b),
            },
        }
    }

    fn output_cap_kib(&self) -> usize {
        self.opts.output_cap / 1024
    }

    /// Lays out the slot's scratch workspace with `source` and checks it in the sandbox.
    /// Also returns the gate's refusal, if it refused.
    fn run(
        &self,
        slot: usize,
        kata: &Kata,
        source: &Path,
    ) -> Result<(CheckResult, Option<String>)> {
        let (ws, target) = self.slot_dirs(slot);
        let _ = std::fs::remove_dir_all(&ws);
        let (hidden, _) = self.hidden_for(kata);
        scratch::prepare(self.root, kata, source, hidden.as_deref(), &ws)?;
        guard::harden(&ws, kata)?;
        let tmp = ws.join("tmp");
        std::fs::create_dir_all(&tmp)?;
        isolate::make_world_writable(&tmp);
        let timeout = self.opts.timeout.unwrap_or_else(|| kata.timeout());
        let mut limits = Limits::for_timeout(timeout);
        limits.memory_mib = self.opts.memory_mib;
        let opts = CheckOptions {
            timeout: Some(timeout),
            output_cap: self.opts.output_cap,
            target_dir: Some(target.clone()),
            env: vec![("TMPDIR".into(), tmp.to_string_lossy().into_owned())],
            wrapper: self.isolation.wrapper(&tmp, &limits),
            build_timeout: Some(BUILD_TIMEOUT),
            build_wrapper: isolate::build_wrapper(),
            results_fifo: self.isolation.results_fifo(&tmp),
            ..CheckOptions::default()
        };
        let src_dir = ws.join(kata.src_dir());
        let mut refused = None;
        let result = runner::check_gated(&ws, kata, &opts, &mut |_| {}, &mut |exe| {
            refused = guard::outside_reads(&target, &ws, kata, &src_dir);
            if refused.is_none() {
                if let Err(e) = self.isolation.provide_libraries(exe) {
                    refused = Some(format!(
                        "the grader could not lay out the sandbox for the test binary: {e:#}"
                    ));
                }
            }
            refused.clone()
        });
        // Whatever the run left in its scratch folder goes (in a sandbox it wrote to a tmpfs
        // that is gone already).
        let _ = std::fs::remove_dir_all(&tmp);
        let result = result?;
        Ok((result, refused))
    }

    fn submission(
        &self,
        slot: usize,
        kata: &Kata,
        info: &KataInfo,
        source: Option<&PathBuf>,
    ) -> KataGrade {
        let blank = |status, reason| blank(kata, info, status, reason);
        let Some(source) = source else {
            return blank(
                KataStatus::Missing,
                format!("the submission has no {}", kata.src_dir().display()),
            );
        };
        if let Some(why) = guard::scan_sources(source) {
            return blank(KataStatus::Rejected, why);
        }
        let (r, refused) = match self.run(slot, kata, source) {
            Ok(x) => x,
            Err(e) => {
                return blank(
                    KataStatus::Error,
                    text::one_line(&format!("the grader failed: {e:#}"), text::MAX_MESSAGE),
                )
            }
        };
        score::score(info, &r, refused, self.opts)
    }
}

/// The flag that accepts grading without a pid namespace.
pub const WEAK_FLAG: &str = "--accept-weak-isolation";

/// Runs one job; a panic in the grader (a bug, a full disk) becomes that learner's `error`
/// with the reason instead of ending the class.
fn grade_guarded(job: impl FnOnce() -> KataGrade) -> Result<KataGrade, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).map_err(|p| {
        let what = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .unwrap_or_else(|| "a panic".into());
        text::one_line(
            &format!("the grader failed on this submission: {what}"),
            text::MAX_MESSAGE,
        )
    })
}

/// A kata that scored zero before any test ran: every test `not_run`.
fn blank(kata: &Kata, info: &KataInfo, status: KataStatus, reason: String) -> KataGrade {
    KataGrade {
        kata: kata.name.clone(),
        score: 0,
        max_score: info.max_score,
        status,
        reason: Some(reason),
        tests: info
            .tests
            .iter()
            .map(|t| TestGrade {
                name: t.name.clone(),
                status: TestStatus::NotRun,
                score: 0,
                max_score: t.max_score,
                message: None,
                expected: None,
                actual: None,
                seed: None,
                millis: None,
            })
            .collect(),
        build_secs: 0.0,
        run_secs: 0.0,
    }
}

/// This machine's name, for the JUnit report.
fn hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|h| text::one_line(h.trim(), text::MAX_NAME))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}
