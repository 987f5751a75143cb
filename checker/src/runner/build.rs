//! The build step: `cargo build` of the kata's glue binary (the learner's crate linked with
//! the hidden tests), read as JSON messages.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::Value;

use super::{replay, CheckOptions, Progress, Verdict};
use crate::manifest::Kata;

/// Cargo's stderr kept for a build failure that is not a compiler error.
const DETAIL_CAP: usize = 8 * 1024;

/// One compiler diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// `error` or `warning`.
    pub level: String,
    /// The one-line message.
    pub message: String,
    /// rustc's full rendering (with ANSI colours).
    pub rendered: String,
    /// The primary span's file, relative to the workspace root.
    pub file: Option<String>,
    /// The primary span's line.
    pub line: Option<u64>,
    /// Whether the primary span is in the learner's folder.
    pub in_kata: bool,
}

pub(super) enum Outcome {
    Exe(PathBuf),
    Failed(Verdict),
}

pub(super) struct Built {
    pub outcome: Outcome,
    pub warnings: Vec<Diagnostic>,
    pub time: Duration,
    /// Built by replaying the last build's compiler commands, not by cargo.
    pub replayed: bool,
}

/// The cargo that runs us (`cargo katas` sets `CARGO`), else the one on `PATH`.
pub fn cargo_command() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

pub(super) fn build(
    root: &Path,
    kata: &Kata,
    opts: &CheckOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Built> {
    let started = Instant::now();
    // Replay the compiler commands of the last build when only the learner's sources changed
    // (see `replay`): the learner's own tree, cargo unwrapped, no build limits.
    let replaying = opts.replay && opts.build_wrapper.is_empty() && opts.build_timeout.is_none();
    let target = target_dir(root, opts);
    let inputs_before = replay::inputs(&target, root, kata);
    let stamp = replaying.then(|| replay::stamp(root, &target, inputs_before.as_deref()));
    if let Some(stamp) = stamp {
        progress(Progress::Compiling {
            line: format!("Compiling {} (your crate and the test binary)", kata.name),
            done: 0,
        });
        match replay::replay(&target, root, kata, stamp) {
            Some(replay::Replayed::Exe { exe, warnings }) => {
                trace_build(kata, "replayed", started);
                return Ok(Built {
                    outcome: Outcome::Exe(exe),
                    warnings,
                    time: started.elapsed(),
                    replayed: true,
                });
            }
            Some(replay::Replayed::CompileError { errors, warnings }) => {
                trace_build(kata, "replayed", started);
                return Ok(Built {
                    outcome: Outcome::Failed(Verdict::CompileError { errors }),
                    warnings,
                    time: started.elapsed(),
                    replayed: true,
                });
            }
            None => {}
        }
    }
    let manifest = root.join(kata.glue()).join("Cargo.toml");
    let mut cmd = match opts.build_wrapper.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args)
                .arg(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
            c
        }
        None => cargo_command(),
    };
    cmd.current_dir(root)
        .args(["build", "--bins", "--color", "never"])
        .arg("--message-format=json-diagnostic-rendered-ansi")
        // `-vv` prints each compiler command with its environment: the replay's recipe.
        .args(if replaying { &["-vv"][..] } else { &[] })
        .arg("--manifest-path")
        .arg(&manifest)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = opts
        .target_dir
        .clone()
        .or_else(|| checkout_target_dir(root))
    {
        cmd.env("CARGO_TARGET_DIR", dir);
    }
    #[cfg(unix)]
    if opts.build_timeout.is_some() {
        // Its own process group, so a timeout also ends the compilers cargo started. Only
        // with a timeout: in a terminal, Ctrl-C should keep reaching cargo directly. (On
        // Windows the timeout's `taskkill /T` ends cargo's process tree instead.)
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    }
    let mut child = cmd
        .spawn()
        .context("could not start cargo (is the Rust toolchain installed?)")?;
    let (finished, watchdog) = watch_build(child.id(), opts.build_timeout);
    let stderr = child.stderr.take().context("cargo stderr")?;
    let (tx, rx) = mpsc::channel::<String>();
    let stderr_reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    let kata_folder = kata.folder();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut exe = None;
    let mut done = 0usize;
    let mut stderr_lines: Vec<String> = Vec::new();
    let mut steps = Vec::new();
    let mut packages = Vec::new();
    let mut forward = |rx: &mpsc::Receiver<String>, done: usize, lines: &mut Vec<String>| {
        while let Ok(line) = rx.try_recv() {
            let trimmed = line.trim().to_string();
            if replaying {
                packages.extend(replay::package_dir(&trimmed));
            }
            let verbose_only = ["Running `", "Fresh ", "Dirty ", "["];
            if replaying && verbose_only.iter().any(|p| trimmed.starts_with(p)) {
                // `-vv`'s extra lines (commands, freshness, build scripts' output), not what
                // a failed build's detail should show; the commands are the replay's recipe.
                steps.extend(replay::parse_running(&trimmed));
            } else if trimmed.starts_with("Compiling") {
                progress(Progress::Compiling {
                    line: trimmed,
                    done,
                });
            } else if !trimmed.is_empty() {
                lines.push(line);
            }
        }
    };
    let stdout = child.stdout.take().context("cargo stdout")?;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        forward(&rx, done, &mut stderr_lines);
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match msg["reason"].as_str() {
            Some("compiler-artifact") => {
                done += 1;
                let is_hidden = msg["manifest_path"]
                    .as_str()
                    .is_some_and(|p| same_file(Path::new(p), &manifest));
                if let (true, Some(path)) = (is_hidden, msg["executable"].as_str()) {
                    exe = Some(PathBuf::from(path));
                }
            }
            Some("compiler-message") => {
                if let Some(d) = diagnostic(&msg["message"], &kata_folder) {
                    match d.level.as_str() {
                        "error" => errors.push(d),
                        "warning" if d.in_kata => warnings.push(d),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let status = child.wait().context("waiting for cargo")?;
    let _ = finished.send(());
    let timed_out = watchdog.is_some_and(|w| w.join().unwrap_or(false));
    let _ = stderr_reader.join();
    forward(&rx, done, &mut stderr_lines);
    let time = started.elapsed();
    trace_build(kata, "cargo", started);
    if replaying && !status.success() {
        replay::forget(&target, root, kata);
    }

    let outcome = if timed_out {
        Outcome::Failed(Verdict::BuildFailed {
            detail: format!(
                "the build was stopped after {} s (a macro or `const` that never finishes \
                 compiling?)",
                opts.build_timeout.unwrap_or_default().as_secs()
            ),
        })
    } else if !errors.is_empty() {
        // Errors in the learner's files first, each group in rustc's order: the first error
        // rustc reports is usually the cause of the rest.
        errors.sort_by_key(|d| !d.in_kata);
        Outcome::Failed(Verdict::CompileError { errors })
    } else if let (true, Some(exe)) = (status.success(), exe) {
        if let Some(stamp) = stamp {
            let seen = replay::Seen {
                steps: replay::steps_for(root, kata, &steps),
                inputs: packages,
            };
            replay::record(&target, root, kata, (stamp, inputs_before), seen);
        }
        Outcome::Exe(exe)
    } else {
        let mut detail = stderr_lines.join("\n");
        if detail.trim().is_empty() {
            detail = format!("cargo build failed ({status}) without saying why");
        }
        truncate_at_char(&mut detail, DETAIL_CAP);
        Outcome::Failed(Verdict::BuildFailed { detail })
    };
    Ok(Built {
        outcome,
        warnings,
        time,
        replayed: false,
    })
}

/// A build's line in the trace file (`KATAS_TRACE`): how it was built and how long it took.
fn trace_build(kata: &Kata, how: &str, started: Instant) {
    crate::watch::trace(&format!(
        "build {{now}} {} {how} {:.0} ms",
        kata.name,
        started.elapsed().as_secs_f64() * 1e3
    ));
}

/// The target directory a check of the checkout at `root` builds in: the options' choice,
/// else the checkout's own under a shared one ([`checkout_target_dir`]), else cargo's.
pub(super) fn target_dir(root: &Path, opts: &CheckOptions) -> PathBuf {
    opts.target_dir
        .clone()
        .or_else(|| checkout_target_dir(root))
        .or_else(|| cargo_target_dir(root))
        .unwrap_or_else(|| root.join("target"))
}

/// The target directory this checkout's checks build in, when cargo's own choice is outside
/// the checkout: `<that dir>/katas-checkouts/<hash of the checkout's path>`.
///
/// Design decision: a target directory shared by several checkouts (a global
/// `CARGO_TARGET_DIR` or `build.target-dir`) cannot be trusted with a kata. Cargo hashes a
/// workspace's path packages relative to the workspace root, so two clones' `run-<kata>` are
/// the same artifact, and cargo's freshness check compares file times: a clone whose
/// `src/lib.rs` is older than the other clone's last build is "fresh" and gets the other
/// clone's binary (a reference solution judged as "TODO: not written yet"). A directory per
/// checkout inside the learner's chosen one keeps their choice of disk and never mixes
/// checkouts; the alternative, `<checkout>/target`, would ignore that choice. `None` when cargo
/// builds inside the checkout already (its default `target/`), which is the checkout's own.
fn checkout_target_dir(root: &Path) -> Option<PathBuf> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CHOSEN: OnceLock<Mutex<HashMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut chosen = CHOSEN.get_or_init(Default::default).lock().ok()?;
    chosen
        .entry(root.clone())
        .or_insert_with(|| {
            let cargo_dir = cargo_target_dir(&root)?;
            let cargo_dir = cargo_dir.canonicalize().unwrap_or(cargo_dir);
            if cargo_dir.starts_with(&root) {
                return None;
            }
            let name = format!("{:016x}", fnv1a(root.to_string_lossy().as_bytes()));
            Some(cargo_dir.join("katas-checkouts").join(name))
        })
        .clone()
}

/// The target directory cargo would use at `root` (environment and config files included).
///
/// Design decision: the environment and the config files are read first, and `cargo metadata`
/// (about 0.2 s, which every `katas run` would pay) is asked only when a config file sets a
/// target dir: `CARGO_TARGET_DIR` / `CARGO_BUILD_TARGET_DIR` give it directly, and with no
/// `target-dir` in any `.cargo/config(.toml)` from `root` up or in `$CARGO_HOME`, it is
/// `root/target`.
fn cargo_target_dir(root: &Path) -> Option<PathBuf> {
    for var in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        if let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty()) {
            let dir = PathBuf::from(dir);
            return Some(match dir.is_absolute() {
                true => dir,
                false => std::env::current_dir().ok()?.join(dir),
            });
        }
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let mut configs: Vec<PathBuf> = root
        .ancestors()
        .flat_map(|d| [d.join(".cargo/config.toml"), d.join(".cargo/config")])
        .collect();
    if let Some(home) = cargo_home {
        configs.extend([home.join("config.toml"), home.join("config")]);
    }
    let sets_target_dir = configs
        .iter()
        .any(|c| std::fs::read_to_string(c).is_ok_and(|t| t.contains("target-dir")));
    if !sets_target_dir {
        return Some(root.join("target"));
    }
    cargo_metadata_target_dir(root)
}

/// What `cargo metadata` says the target directory is.
fn cargo_metadata_target_dir(root: &Path) -> Option<PathBuf> {
    let out = cargo_command()
        .current_dir(root)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let meta: Value = serde_json::from_slice(&out.stdout).ok()?;
    meta["target_directory"].as_str().map(PathBuf::from)
}

/// FNV-1a, 64 bits: a name for a checkout's folder that is the same in every run (std's hasher
/// may change between Rust releases).
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Kills cargo's process group once `timeout` passes without a message on the returned
/// sender; the thread's result says whether it did.
fn watch_build(
    pid: u32,
    timeout: Option<Duration>,
) -> (mpsc::Sender<()>, Option<std::thread::JoinHandle<bool>>) {
    let (tx, rx) = mpsc::channel::<()>();
    let handle = timeout.map(|t| {
        std::thread::spawn(move || match rx.recv_timeout(t) {
            Err(mpsc::RecvTimeoutError::Timeout) => {
                super::exec::kill_group(pid);
                true
            }
            _ => false,
        })
    });
    (tx, handle)
}

pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Reads rustc's JSON diagnostic; drops the "aborting due to …" summaries.
pub(super) fn diagnostic(msg: &Value, kata_folder: &Path) -> Option<Diagnostic> {
    let level = msg["level"].as_str()?.to_string();
    let message = msg["message"].as_str()?.to_string();
    if message.starts_with("aborting due to") || message.ends_with("warnings emitted") {
        return None;
    }
    if message.ends_with("warning emitted") {
        return None;
    }
    let spans = msg["spans"].as_array();
    let primary = spans.and_then(|s| {
        s.iter()
            .find(|sp| sp["is_primary"].as_bool() == Some(true))
            .or(s.first())
    });
    let file = primary
        .and_then(|p| p["file_name"].as_str())
        .map(String::from);
    let line = primary.and_then(|p| p["line_start"].as_u64());
    let in_kata = file
        .as_deref()
        .is_some_and(|f| Path::new(f).starts_with(kata_folder));
    Some(Diagnostic {
        level,
        message,
        rendered: msg["rendered"].as_str().unwrap_or_default().to_string(),
        file,
        line,
        in_kata,
    })
}

/// Cuts `s` to at most `cap` bytes on a char boundary; returns whether it cut.
pub(super) fn truncate_at_char(s: &mut String, cap: usize) -> bool {
    if s.len() <= cap {
        return false;
    }
    let mut at = cap;
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    s.truncate(at);
    true
}
