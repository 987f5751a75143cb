//! The run step: the hidden-test binary in its own process group, under a timeout, with its
//! output capped, its JSON-lines events parsed into per-test results.

use std::io::{BufRead, BufReader, Read, Write as _};
#[cfg(unix)]
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::Value;

use super::{CheckOptions, TestResult, TestStatus, Verdict};

/// Longest line kept from the test process; longer lines are cut.
const MAX_LINE: usize = 64 * 1024;
/// What the runner adds where it cut output.
pub const CUT_NOTE: &str = "… (output cut: your code printed more than the checker keeps)";

pub(super) struct Run {
    pub verdict: Verdict,
    pub tests: Vec<TestResult>,
    pub output: String,
    pub truncated: bool,
    pub time: Duration,
}

/// Output collected so far, shared by the reader threads.
#[derive(Default)]
struct Collector {
    plan: Vec<String>,
    results: Vec<TestResult>,
    current: Option<(String, Option<u64>, String)>,
    ended: bool,
    loose: String,
    kept: usize,
    cap: usize,
    truncated: bool,
    /// The run's secret: only events carrying it are results (see [`run_token`]).
    token: String,
}

impl Collector {
    fn keep(&mut self, text: &str, into_test: bool) {
        if self.kept >= self.cap {
            self.truncated = true;
            return;
        }
        let mut piece = text.to_string();
        if super::build::truncate_at_char(&mut piece, self.cap - self.kept) {
            self.truncated = true;
        }
        self.kept += piece.len();
        match (&mut self.current, into_test) {
            (Some((_, _, out)), true) => out.push_str(&piece),
            _ => self.loose.push_str(&piece),
        }
    }

    fn stdout_line(&mut self, line: &str) {
        let ev = line
            .starts_with('{')
            .then(|| serde_json::from_str::<Value>(line).ok())
            .flatten()
            .filter(|v| v["event"].is_string())
            // An event without this run's token was printed by the code under test, not by
            // the test kit: it is output, not a result.
            .filter(|v| v["token"].as_str() == Some(self.token.as_str()));
        if let Some(ev) = ev {
            self.event(&ev);
        } else {
            self.keep(line, true);
            self.keep("\n", true);
        }
    }

    fn event(&mut self, ev: &Value) {
        let text = |k: &str| ev[k].as_str().map(String::from);
        match ev["event"].as_str() {
            Some("plan") => {
                self.plan = ev["tests"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|t| t.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
            }
            Some("start") => {
                self.current = Some((
                    text("test").unwrap_or_default(),
                    ev["seed"].as_u64(),
                    String::new(),
                ));
            }
            Some("result") => {
                let (_, _, output) = self.current.take().unwrap_or_default();
                let passed = ev["passed"].as_bool() == Some(true);
                self.results.push(TestResult {
                    name: text("test").unwrap_or_default(),
                    status: if passed {
                        TestStatus::Passed
                    } else {
                        TestStatus::Failed
                    },
                    message: text("message"),
                    expected: text("expected"),
                    actual: text("actual"),
                    seed: ev["seed"].as_u64(),
                    location: text("location"),
                    output,
                    points: 0,
                    millis: ev["millis"].as_u64(),
                });
            }
            Some("end") => self.ended = true,
            _ => {}
        }
    }
}

/// Tells the test kit to read the run's token from its standard input.
const TOKEN_ENV: &str = "KATAS_TOKEN_ON_STDIN";

/// A fresh unpredictable token for one run. The hidden tests' events must carry it: a
/// submission that prints a well-formed but fake result stream (and exits) does not know it,
/// so its lines count as output, not results. (Randomness here is the checker's, not the
/// engine's: std's `RandomState` is seeded from the operating system.)
fn run_token() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let word = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.write_u32(std::process::id());
        h.finish()
    };
    format!("{:016x}{:016x}", word(), word())
}

pub(super) fn run(root: &Path, exe: &Path, opts: &CheckOptions, timeout: Duration) -> Result<Run> {
    let started = Instant::now();
    let mut cmd = match opts.wrapper.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.current_dir(root)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .env(TOKEN_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so a timeout kills whatever the learner's code spawned too
    // (elsewhere `taskkill /T` ends the process tree, see `kill_group`).
    #[cfg(unix)]
    cmd.process_group(0);
    if let Some(seed) = opts.seed {
        cmd.env(katas_seed_env(), seed.to_string());
    }
    if !opts.only_tests.is_empty() {
        cmd.env("KATAS_TEST", opts.only_tests.join(","));
    }
    cmd.envs(opts.env.iter().map(|(k, v)| (k, v)));
    if let Some(fifo) = &opts.results_fifo {
        make_fifo(fifo)?;
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("could not start {}", exe.display()))?;
    let pid = child.id();
    let token = run_token();
    if let Some(mut stdin) = child.stdin.take() {
        // The test kit reads the token before any test runs; then stdin is closed.
        let _ = writeln!(stdin, "{token}");
    }
    let collector = Arc::new(Mutex::new(Collector {
        cap: opts.output_cap,
        token,
        ..Collector::default()
    }));

    let stdout = child.stdout.take().context("test stdout")?;
    let c = Arc::clone(&collector);
    let channel = opts.results_fifo.is_some();
    let out_thread = std::thread::spawn(move || {
        read_lines(stdout, |line| {
            let mut c = c.lock().unwrap();
            if channel {
                // With a result channel, stdout is the code under test's: output only.
                c.keep(line, true);
                c.keep("\n", true);
            } else {
                c.stdout_line(line);
            }
        });
    });
    let results_thread = opts.results_fifo.clone().map(|fifo| {
        let c = Arc::clone(&collector);
        std::thread::spawn(move || {
            // Blocks until the sandbox opens the pipe for the test (or the runner does, below,
            // when the test never got that far); ends when every writer is gone.
            if let Ok(f) = std::fs::File::open(&fifo) {
                read_lines(f, |line| c.lock().unwrap().stdout_line(line));
            }
        })
    });
    let stderr = child.stderr.take().context("test stderr")?;
    let stderr_text = Arc::new(Mutex::new(String::new()));
    let (c, e) = (Arc::clone(&collector), Arc::clone(&stderr_text));
    let err_thread = std::thread::spawn(move || {
        read_lines(stderr, |line| {
            let mut e = e.lock().unwrap();
            if e.len() < 16 * 1024 {
                e.push_str(line);
                e.push('\n');
            }
            let mut c = c.lock().unwrap();
            c.keep(line, true);
            c.keep("\n", true);
        });
    });

    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let (status, timed_out) = match rx.recv_timeout(timeout) {
        Ok(status) => (status.context("waiting for the hidden tests")?, false),
        Err(_) => {
            kill_group(pid);
            let status = rx
                .recv()
                .context("the hidden tests' waiter thread died")?
                .context("waiting for the hidden tests")?;
            (status, true)
        }
    };
    let _ = out_thread.join();
    let _ = err_thread.join();
    if let (Some(thread), Some(fifo)) = (results_thread, &opts.results_fifo) {
        // A reader still waiting in `open` (the sandbox died before it opened the pipe) is
        // released by a writer that comes and goes; read-write never blocks on a FIFO.
        drop(
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(fifo),
        );
        let _ = thread.join();
        let _ = std::fs::remove_file(fifo);
    }
    let time = started.elapsed();

    let mut c = std::mem::take(&mut *collector.lock().unwrap());
    let stderr_text = std::mem::take(&mut *stderr_text.lock().unwrap());
    let running = c.current.as_ref().map(|(name, ..)| name.clone());
    let verdict = if timed_out {
        Some(Verdict::TimedOut {
            secs: timeout.as_secs().max(1),
            test: running.clone(),
        })
    } else if stderr_text.contains("has overflowed its stack") {
        Some(Verdict::StackOverflow {
            test: running.clone(),
        })
    } else if !c.ended {
        Some(Verdict::Crashed {
            test: running.clone(),
            detail: describe(status, !opts.wrapper.is_empty()),
        })
    } else {
        None
    };
    // The test that was running when the process died gets the blame; later ones never ran.
    if let Some((name, seed, output)) = c.current.take() {
        let status = match verdict {
            Some(Verdict::TimedOut { .. }) => TestStatus::TimedOut,
            _ => TestStatus::Crashed,
        };
        c.results.push(TestResult {
            name,
            status,
            message: None,
            expected: None,
            actual: None,
            seed,
            location: None,
            output,
            points: 0,
            millis: None,
        });
    }
    for name in &c.plan {
        if !c.results.iter().any(|r| &r.name == name) {
            c.results.push(not_run(name));
        }
    }
    let all_passed = !c.results.is_empty() && c.results.iter().all(TestResult::passed);
    let verdict = verdict.unwrap_or(if all_passed {
        Verdict::Passed
    } else if c.results.is_empty() {
        Verdict::Crashed {
            test: None,
            detail: "the hidden tests reported no results".into(),
        }
    } else {
        Verdict::Failed
    });
    let mut output = c.loose;
    if c.truncated {
        output.push_str(CUT_NOTE);
        output.push('\n');
    }
    Ok(Run {
        verdict,
        tests: c.results,
        output,
        truncated: c.truncated,
        time,
    })
}

/// Makes the result channel's named pipe, writable by the sandbox's user (`nobody` when the
/// grader runs as root). A command, not a system call: std has no `mkfifo` and the crate
/// forbids `unsafe`.
fn make_fifo(path: &Path) -> Result<()> {
    let _ = std::fs::remove_file(path);
    let status = Command::new("mkfifo")
        .args(["-m", "666"])
        .arg(path)
        .status()
        .context("could not run mkfifo for the result channel")?;
    anyhow::ensure!(status.success(), "mkfifo {} failed", path.display());
    Ok(())
}

fn katas_seed_env() -> &'static str {
    "KATAS_SEED"
}

fn not_run(name: &str) -> TestResult {
    TestResult {
        name: name.to_string(),
        status: TestStatus::NotRun,
        message: None,
        expected: None,
        actual: None,
        seed: None,
        location: None,
        output: String::new(),
        points: 0,
        millis: None,
    }
}

/// What ended the process. Behind a wrapper (a sandbox shell), a signal arrives as exit code
/// 128 + signal, the shell convention.
fn describe(status: ExitStatus, wrapped: bool) -> String {
    #[cfg(unix)]
    let signal = status.signal();
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    let (code, signal) = match (status.code(), signal) {
        (Some(c), None) if wrapped && c > 128 && c < 128 + 65 => (None, Some(c - 128)),
        other => other,
    };
    match (code, signal) {
        (_, Some(6)) => "it aborted (signal 6, SIGABRT)".into(),
        (_, Some(9)) => "it was killed (signal 9, SIGKILL — out of memory?)".into(),
        (_, Some(11)) => "it crashed with a segmentation fault (signal 11)".into(),
        (_, Some(24)) => "it used up its CPU time limit (signal 24, SIGXCPU)".into(),
        (_, Some(25)) => "it wrote a file larger than the limit (signal 25, SIGXFSZ)".into(),
        (_, Some(sig)) => format!("it was killed by signal {sig}"),
        (Some(code), _) => format!("the test process exited with code {code} before the tests finished (does your code call `std::process::exit`?)"),
        _ => "it ended unexpectedly".into(),
    }
}

/// Kills the whole process group (the test binary and anything it spawned).
///
/// Design decision: a command, not a system call: std has no group kill and the crate forbids
/// `unsafe` (libc). On Unix `kill -KILL -- -PGID` (the child leads its own group); on Windows,
/// which has no process groups of this kind, `taskkill /F /T` ends the process and its tree.
pub(super) fn kill_group(pid: u32) {
    #[cfg(unix)]
    let mut cmd = {
        let mut c = Command::new("kill");
        c.args(["-KILL", "--", &format!("-{pid}")]);
        c
    };
    #[cfg(not(unix))]
    let mut cmd = {
        let mut c = Command::new("taskkill");
        c.args(["/F", "/T", "/PID", &pid.to_string()]);
        c
    };
    let _ = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status();
}

/// Reads `r` line by line, cutting lines longer than [`MAX_LINE`] and never holding more than
/// one line in memory.
fn read_lines(r: impl Read, mut f: impl FnMut(&str)) {
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let mut limited = (&mut r).take(MAX_LINE as u64);
        match limited.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if buf.last() != Some(&b'\n') && buf.len() >= MAX_LINE {
            // Skip the rest of an over-long line.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut r).take(MAX_LINE as u64).read_until(b'\n', &mut rest) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if rest.last() == Some(&b'\n') => break,
                    Ok(_) => {}
                }
            }
        }
        while buf.last() == Some(&b'\n') || buf.last() == Some(&b'\r') {
            buf.pop();
        }
        f(&String::from_utf8_lossy(&buf));
    }
}
