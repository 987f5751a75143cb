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
//! Design decision: one scratch folder and one target dir per *job slot*, reused by the
//! submissions that slot grades one after another (the folder is wiped in between), rather
//! than one per submission. Cargo keys build units by the package's path, so a fixed path
//! keeps the target dir from growing by a test binary per submission, and the engine, the
//! test kit and registry crates are built once per slot. Slots do not share a target dir
//! because cargo locks it for the whole build, which would serialise the jobs.

pub mod isolate;
pub mod output;
pub mod submission;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::manifest::{Kata, Manifest};
use crate::runner::{self, scratch, CheckOptions, CheckResult, TestStatus, Verdict};
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
}

/// Grades the submissions; `log` gets one progress line per graded submission-kata.
pub fn grade(
    root: &Path,
    manifest: &Manifest,
    opts: &GradeOptions,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Grades> {
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
    let found = submission::discover(&opts.paths)?;
    if found.is_empty() {
        bail!("no submissions found");
    }
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
    let isolation = Isolation::probe(&work, &probe_limits, opts.sandbox);
    log(&isolation.summary());

    // Stage every submission (cheap, sequential: it is file copying).
    let mut staged = Vec::new();
    for (i, f) in found.iter().enumerate() {
        let dest = work.join("staged").join(format!("{i:04}"));
        let s = submission::stage(f, manifest, &dest)
            .with_context(|| format!("cannot read the submission {}", f.path.display()))?;
        staged.push(s);
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
            let (grader, katas, infos, next, done, items, results, found, staged) = (
                &grader, &katas, &infos, &next, &done, &items, &results, &found, &staged,
            );
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(l, k)) = items.get(i) else { break };
                let kata = katas[k];
                let g = grader.submission(slot, kata, &infos[k], staged[l].katas.get(&kata.name));
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                log(&format!(
                    "[{n}/{}] {} {}: {}/{} {}",
                    items.len(),
                    found[l].learner,
                    kata.name,
                    g.score,
                    g.max_score,
                    g.reason.as_deref().unwrap_or("")
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
            || "the repository's checker/hidden".to_string(),
            |h| h.display().to_string(),
        ),
        isolation,
        katas: infos,
        learners,
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
        harden(&ws, kata)?;
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
            wrapper: self.isolation.wrapper(&ws, &limits),
            build_timeout: Some(BUILD_TIMEOUT),
            ..CheckOptions::default()
        };
        let src_dir = ws.join(kata.src_dir());
        let mut refused = None;
        let result = runner::check_gated(&ws, kata, &opts, &mut |_| {}, &mut |_exe| {
            refused = outside_reads(&target, &ws, kata, &src_dir);
            refused.clone()
        })?;
        Ok((result, refused))
    }

    fn submission(
        &self,
        slot: usize,
        kata: &Kata,
        info: &KataInfo,
        source: Option<&PathBuf>,
    ) -> KataGrade {
        let blank = |status: KataStatus, reason: String| KataGrade {
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
                })
                .collect(),
            build_secs: 0.0,
            run_secs: 0.0,
        };
        let Some(source) = source else {
            return blank(
                KataStatus::Missing,
                format!("the submission has no {}", kata.src_dir().display()),
            );
        };
        if let Some(why) = scan_sources(source) {
            return blank(KataStatus::Rejected, why);
        }
        let (r, refused) = match self.run(slot, kata, source) {
            Ok(x) => x,
            Err(e) => return blank(KataStatus::Error, format!("the grader failed: {e:#}")),
        };
        score(kata, info, &r, refused, self.opts.output_cap)
    }
}

/// Scores one check result against the kata's known tests.
fn score(
    kata: &Kata,
    info: &KataInfo,
    r: &CheckResult,
    refused: Option<String>,
    output_cap: usize,
) -> KataGrade {
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
                message: got.and_then(|x| x.message.clone()),
                expected: got.and_then(|x| x.expected.clone()),
                actual: got.and_then(|x| x.actual.clone()),
                seed: got.and_then(|x| x.seed),
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
            Verdict::Crashed { .. } => (
                KataStatus::Crashed,
                Some(verdict_text(&r.verdict, output_cap / 1024)),
            ),
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
    let _ = kata;
    KataGrade {
        kata: r.kata.clone(),
        score: tests.iter().map(|t| t.score).sum(),
        max_score: info.max_score,
        status,
        reason,
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

/// Makes the scratch kata crate safe to compile: no build script, no auto-discovered extra
/// targets, `unsafe` forbidden (a lint level the sources cannot lower).
fn harden(ws: &Path, kata: &Kata) -> Result<()> {
    let manifest = ws.join(kata.folder()).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)?;
    let mut doc: toml::Table = toml::from_str(&text)?;
    if let Some(pkg) = doc.get_mut("package").and_then(|p| p.as_table_mut()) {
        pkg.insert("build".into(), false.into());
        for auto in ["autobins", "autoexamples", "autotests", "autobenches"] {
            pkg.insert(auto.into(), false.into());
        }
    }
    let inherits = doc
        .get("lints")
        .and_then(|l| l.get("workspace"))
        .and_then(toml::Value::as_bool)
        == Some(true);
    if inherits {
        let root_manifest = ws.join("Cargo.toml");
        let text = std::fs::read_to_string(&root_manifest)?;
        let mut root: toml::Table = toml::from_str(&text)?;
        let rust = table_at(&mut root, &["workspace", "lints", "rust"]);
        rust.insert("unsafe_code".into(), "forbid".into());
        std::fs::write(&root_manifest, toml::to_string(&root)?)?;
    } else {
        let rust = table_at(&mut doc, &["lints", "rust"]);
        rust.insert("unsafe_code".into(), "forbid".into());
    }
    std::fs::write(&manifest, toml::to_string(&doc)?)?;
    Ok(())
}

fn table_at<'a>(t: &'a mut toml::Table, path: &[&str]) -> &'a mut toml::Table {
    let mut cur = t;
    for key in path {
        let entry = cur
            .entry((*key).to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        cur = entry.as_table_mut().expect("just made a table");
    }
    cur
}

/// Files the kata crate's compilation read (rustc's dep-info) that lie outside its `src/`:
/// `include!`, `include_str!`, `include_bytes!` or `#[path]` reaching for the hidden tests or
/// anything else. Sound whatever macro tricks spell the path.
fn outside_reads(target: &Path, ws: &Path, kata: &Kata, src_dir: &Path) -> Option<String> {
    let crate_name = lib_name(ws, kata);
    // rustc's own dep-info for the kata crate: deps/<crate>-<hash>.d, the newest one (the
    // slot's path keeps the hash stable, so there is normally just one).
    let deps = target.join("debug").join("deps");
    let prefix = format!("{crate_name}-");
    let newest = std::fs::read_dir(&deps).ok().and_then(|rd| {
        rd.filter_map(Result::ok)
            .filter(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(&prefix) && n.ends_with(".d")
            })
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .max()
            .map(|(_, p)| p)
    });
    let Some(text) = newest.and_then(|p| std::fs::read_to_string(p).ok()) else {
        return Some(format!(
            "the grader could not verify which files the build read (no dep-info for \
             {crate_name} in {})",
            deps.display()
        ));
    };
    let src_dir = src_dir
        .canonicalize()
        .unwrap_or_else(|_| src_dir.to_path_buf());
    for line in text.lines() {
        let Some((_, deps)) = line.split_once(": ") else {
            continue;
        };
        for dep in split_dep_paths(deps) {
            let p = PathBuf::from(&dep);
            let p = if p.is_relative() { ws.join(p) } else { p };
            let p = p.canonicalize().unwrap_or(p);
            if !p.starts_with(&src_dir) {
                let shown = p.strip_prefix(ws).unwrap_or(&p).display().to_string();
                return Some(format!(
                    "its compilation read {shown}, outside {} (include!, include_str!, \
                     include_bytes! or #[path] may only name files in src/)",
                    kata.src_dir().display()
                ));
            }
        }
    }
    None
}

fn lib_name(ws: &Path, kata: &Kata) -> String {
    let text =
        std::fs::read_to_string(ws.join(kata.folder()).join("Cargo.toml")).unwrap_or_default();
    let doc: toml::Table = toml::from_str(&text).unwrap_or_default();
    doc.get("lib")
        .and_then(|l| l.get("name"))
        .and_then(toml::Value::as_str)
        .or_else(|| {
            doc.get("package")
                .and_then(|p| p.get("name"))
                .and_then(toml::Value::as_str)
        })
        .unwrap_or(&kata.name)
        .replace('-', "_")
}

/// Make's dep-file path list: space-separated, `\ ` for a space in a path.
fn split_dep_paths(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                cur.push(' ');
                chars.next();
            }
            ' ' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Refuses sources that spawn processes, with a reason a learner can act on. The sandbox
/// would stop the programs anyway; this makes the verdict clear instead of a confusing
/// failure. (A determined submission can spell it past this check; the sandbox is the
/// guarantee.)
fn scan_sources(src: &Path) -> Option<String> {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let spawns = code.contains("Command::new")
            || code.contains("process::Command")
            || (code.contains("std::process") && code.contains("Command"));
        if spawns {
            let rel = f.strip_prefix(src).unwrap_or(&f);
            return Some(format!(
                "src/{} starts other programs (std::process::Command), which a graded kata \
                 may not",
                rel.display()
            ));
        }
    }
    None
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
