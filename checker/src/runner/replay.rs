//! Replaying the compiler: after a save, rebuild the learner's crate and the glue binary with
//! the two `rustc` commands cargo ran last time, without cargo.
//!
//! A check after a one-line edit compiles two small crates (the learner's, then the glue that
//! links it with the hidden tests) and links one binary. Measured on the 2-core machine this
//! project is developed on, cargo's own work around those two compilations — loading the
//! workspace's hundred manifests, resolving, checking the freshness of every dependency's
//! sources — costs a large share of the build: after a one-line edit, `cargo build` of kata and
//! glue took 0.51 s where the same two `rustc` commands run directly took 0.30–0.43 s (load
//! 0.3–1), and a whole `katas run` 0.65 s through cargo against 0.51 s replayed (load 6–10, the
//! README's edit-to-verdict table). A check should be much faster than rustlings'; cargo's
//! bookkeeping is the part a check can drop.
//!
//! How: every check in the learner's own tree (watch mode, `katas run`) runs cargo with `-vv`,
//! which prints each compiler command with the environment cargo gave it. When the build
//! succeeds, the commands for the kata crate and the glue are kept in a *recipe*
//! (`<target dir>/katas-replay/<kata>.json`) with a stamp of every file that could change what
//! those commands produce. The next check replays the recipe instead of running cargo if, and
//! only if, nothing but the learner's sources changed:
//!
//! ```text
//!   stamp = FNV over (path, length, modification time) of every file in the checkout except
//!           .git, target dirs, lessons/book, the progress file and exercises/*/src
//!         + the compiler's own file, Cargo's config files outside the checkout
//!         + the environment variables that steer cargo and rustc (RUST*, CARGO_BUILD_*, …)
//! ```
//!
//! Any difference — an edited manifest, a pulled engine, new hidden tests, a toolchain update,
//! `RUSTFLAGS` — sends the check through cargo, which records a new recipe. The stamp is taken
//! *before* cargo starts, so a file saved during a build makes the next stamp differ (cargo again),
//! never a recipe that claims a tree it did not build.
//!
//! Decisions written here:
//! - Learner sources are the only input a replay rebuilds. Other katas' `src/` are left out of the
//!   stamp: they are not inputs of this kata's build, and a learner edits them all the time.
//! - A replay that fails for any reason other than a compile error in the learner's folder (a
//!   missing library, a glue that no longer matches the learner's signatures, the compiler not
//!   starting) is thrown away and the check runs cargo: cargo's answer is the one to show.
//! - The replay holds cargo's own lock on the build directory (`<target>/debug/.cargo-lock`), so
//!   it never writes the same files as a `cargo build` in another terminal at the same time.
//! - The test binary is the compiler's output in `deps/`, not cargo's copy one level up: cargo
//!   hard-links that copy after a build, and a replayed link writes a new file in `deps/` only.
//! - Cargo notices afterwards that the learner's source is newer than its own record and rebuilds
//!   the two crates once on its next run: slower once, never stale.
//! - Unix only: cargo quotes the commands it prints for a POSIX shell there; elsewhere every check
//!   runs cargo.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::build::{diagnostic, Diagnostic};
use crate::manifest::Kata;

/// Bumped when the recipe's meaning changes: an old file is then ignored.
const VERSION: u32 = 1;

/// One compiler command as cargo ran it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Step {
    /// The variables cargo set for it (`CARGO_PKG_NAME=…`, `CARGO_MANIFEST_DIR=…`).
    pub env: Vec<(String, String)>,
    /// The compiler (or the wrapper cargo was told to use).
    pub program: String,
    pub args: Vec<String>,
}

impl Step {
    /// The value of `--flag value` in the arguments.
    fn arg(&self, flag: &str) -> Option<&str> {
        self.args
            .windows(2)
            .find(|w| w[0] == flag)
            .map(|w| w[1].as_str())
    }

    /// The value of `-C key=value` in the arguments.
    fn codegen(&self, key: &str) -> Option<&str> {
        self.args
            .windows(2)
            .filter(|w| w[0] == "-C")
            .find_map(|w| w[1].strip_prefix(key)?.strip_prefix('='))
    }

    fn manifest_dir(&self) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == "CARGO_MANIFEST_DIR")
            .map(|(_, v)| v.as_str())
    }

    /// The file the compiler writes: `<out-dir>/<crate-name><extra-filename>` for a binary.
    fn binary(&self) -> Option<PathBuf> {
        let dir = self.arg("--out-dir")?;
        let name = self.arg("--crate-name")?;
        let extra = self.codegen("extra-filename").unwrap_or("");
        Some(Path::new(dir).join(format!("{name}{extra}{}", std::env::consts::EXE_SUFFIX)))
    }

    /// The `--extern name=path` libraries it reads.
    fn externs(&self) -> impl Iterator<Item = &str> {
        self.args
            .windows(2)
            .filter(|w| w[0] == "--extern")
            .filter_map(|w| w[1].split_once('=').map(|(_, p)| p))
    }
}

/// What a replay needs, kept next to the build.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Recipe {
    version: u32,
    kata: String,
    /// The checkout the commands ran in (cargo runs the compiler in the workspace root).
    root: PathBuf,
    stamp: u64,
    /// The folders of the build's path packages (engine, test kit, the kata's crates): what
    /// the stamp walks. Taken from cargo's `Compiling`/`Fresh` lines.
    inputs: Vec<PathBuf>,
    /// The learner's crate, then the glue binary.
    kata_step: Step,
    glue_step: Step,
}

/// Where the recipe of `kata` lives.
pub(super) fn recipe_file(target_dir: &Path, root: &Path, kata: &Kata) -> PathBuf {
    // Named by the checkout too: checks of several checkouts may share one target dir (the
    // checker's own tests do), and each keeps its own recipe.
    let checkout = super::build::fnv1a(root.to_string_lossy().as_bytes());
    target_dir
        .join("katas-replay")
        .join(format!("{}-{checkout:016x}.json", kata.name))
}

/// Splits one of cargo's `Running `…`` lines (from `-vv`) into a [`Step`].
pub(super) fn parse_running(line: &str) -> Option<Step> {
    let cmd = line.trim().strip_prefix("Running `")?.strip_suffix('`')?;
    let words = shell_words(cmd)?;
    let mut env = Vec::new();
    let mut rest = words.into_iter().peekable();
    while let Some(w) = rest.peek() {
        match w.split_once('=') {
            Some((k, v))
                if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                env.push((k.to_string(), v.to_string()));
                rest.next();
            }
            _ => break,
        }
    }
    let program = rest.next()?;
    Some(Step {
        env,
        program,
        args: rest.collect(),
    })
}

/// POSIX-shell word splitting for what cargo prints: single quotes, backslash escapes.
fn shell_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// Of the commands cargo printed, the kata crate's and the glue's (by their manifest dirs).
pub(super) fn steps_for(root: &Path, kata: &Kata, steps: &[Step]) -> (Option<Step>, Option<Step>) {
    let is = |s: &Step, dir: PathBuf| {
        s.manifest_dir()
            .is_some_and(|d| super::build::same_file(Path::new(d), &dir))
    };
    let kata_step = steps
        .iter()
        .find(|s| is(s, root.join(kata.folder())))
        .cloned();
    let glue_step = steps
        .iter()
        .find(|s| is(s, root.join(kata.glue())))
        .cloned();
    (kata_step, glue_step)
}

/// The folder of a path package in one of cargo's status lines (`Compiling engine v0.1.0
/// (/repo/engine)`, `Fresh …`); registry and git packages have none.
pub(super) fn package_dir(line: &str) -> Option<PathBuf> {
    let rest = line
        .strip_prefix("Compiling ")
        .or_else(|| line.strip_prefix("Fresh "))?;
    let (_, dir) = rest.strip_suffix(')')?.rsplit_once(" (")?;
    Path::new(dir).is_absolute().then(|| PathBuf::from(dir))
}

/// The folders the last recipe's stamp walked, if there is a recipe.
pub(super) fn inputs(target_dir: &Path, root: &Path, kata: &Kata) -> Option<Vec<PathBuf>> {
    load(&recipe_file(target_dir, root, kata)).map(|r| r.inputs)
}

/// What a successful build left for the recipe.
pub(super) struct Seen {
    /// The kata crate's and the glue's commands, when cargo ran them.
    pub steps: (Option<Step>, Option<Step>),
    /// The path packages the build took part in.
    pub inputs: Vec<PathBuf>,
}

/// Keeps the recipe of a build that succeeded. A step cargo did not run (it found that crate
/// fresh, so its command is unchanged) comes from the previous recipe; without one, no recipe.
///
/// `stamp_before` was taken before cargo started over `inputs_before`; it is the recipe's stamp
/// when the build's packages are the same folders. Otherwise (the first build, or a changed
/// dependency graph) the stamp is taken now, over the new folders: a file outside the learner's
/// sources saved during that one build would go unnoticed until the next change of the stamp —
/// accepted, the window is one build wide and the learner's own files are never in it.
pub(super) fn record(
    target_dir: &Path,
    root: &Path,
    kata: &Kata,
    (stamp_before, inputs_before): (u64, Option<Vec<PathBuf>>),
    seen: Seen,
) {
    let file = recipe_file(target_dir, root, kata);
    let old = load(&file).filter(|r| r.root == root);
    let (kata_step, glue_step) = seen.steps;
    let kata_step = kata_step.or_else(|| old.as_ref().map(|r| r.kata_step.clone()));
    let glue_step = glue_step.or_else(|| old.as_ref().map(|r| r.glue_step.clone()));
    let (Some(kata_step), Some(glue_step)) = (kata_step, glue_step) else {
        let _ = std::fs::remove_file(&file);
        return;
    };
    let mut inputs = seen.inputs;
    inputs.sort();
    inputs.dedup();
    let stamp = match inputs_before {
        Some(before) if before == inputs => stamp_before,
        _ => stamp(root, target_dir, Some(&inputs)),
    };
    let recipe = Recipe {
        version: VERSION,
        kata: kata.name.clone(),
        root: root.to_path_buf(),
        stamp,
        inputs,
        kata_step,
        glue_step,
    };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(text) = serde_json::to_string(&recipe) {
        // Written aside and renamed, so a reader never sees half a recipe.
        let tmp = file.with_extension("json.tmp");
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, &file);
        }
    }
}

/// Forgets the recipe (a failed build: the next check goes through cargo).
pub(super) fn forget(target_dir: &Path, root: &Path, kata: &Kata) {
    let _ = std::fs::remove_file(recipe_file(target_dir, root, kata));
}

fn load(file: &Path) -> Option<Recipe> {
    let text = std::fs::read_to_string(file).ok()?;
    serde_json::from_str::<Recipe>(&text)
        .ok()
        .filter(|r| r.version == VERSION)
}

/// What a replay came to.
pub(super) enum Replayed {
    /// Both commands succeeded: the test binary.
    Exe {
        exe: PathBuf,
        warnings: Vec<Diagnostic>,
    },
    /// The learner's code does not compile (errors in their folder).
    CompileError {
        errors: Vec<Diagnostic>,
        warnings: Vec<Diagnostic>,
    },
}

/// Replays the recipe of `kata` when the checkout's stamp still matches it; `None` means "run
/// cargo" (no recipe, something else changed, or the replay failed in a way cargo should judge).
pub(super) fn replay(target_dir: &Path, root: &Path, kata: &Kata, stamp: u64) -> Option<Replayed> {
    if !cfg!(unix) {
        return None;
    }
    let recipe = load(&recipe_file(target_dir, root, kata))?;
    if recipe.kata != kata.name || recipe.root != root || recipe.stamp != stamp {
        return None;
    }
    let exe = recipe.glue_step.binary()?;
    let inputs_exist = recipe
        .kata_step
        .externs()
        .chain(recipe.glue_step.externs())
        .all(|p| Path::new(p).exists());
    if !inputs_exist {
        return None;
    }
    // Cargo's lock on the build directory: `<target>/<profile>/.cargo-lock`, the parent of
    // the compiler's `--out-dir` (`…/deps`).
    let lock_path = Path::new(recipe.glue_step.arg("--out-dir")?)
        .parent()?
        .join(".cargo-lock");
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .ok()?;
    lock.lock().ok()?;

    let kata_folder = kata.folder();
    let mut warnings = Vec::new();
    for step in [&recipe.kata_step, &recipe.glue_step] {
        let (ok, diags) = run_step(root, step, &kata_folder)?;
        let (errors, step_warnings): (Vec<_>, Vec<_>) =
            diags.into_iter().partition(|d| d.level == "error");
        warnings.extend(step_warnings.into_iter().filter(|d| d.in_kata));
        if !ok || !errors.is_empty() {
            // Only the learner's own compile errors are the replay's to report.
            let mut errors = errors;
            if errors.iter().any(|d| d.in_kata) {
                errors.sort_by_key(|d| !d.in_kata);
                return Some(Replayed::CompileError { errors, warnings });
            }
            return None;
        }
    }
    exe.exists().then_some(Replayed::Exe { exe, warnings })
}

/// Runs one compiler command; its success and its diagnostics (rustc's JSON on stderr).
fn run_step(root: &Path, step: &Step, kata_folder: &Path) -> Option<(bool, Vec<Diagnostic>)> {
    let mut child = Command::new(&step.program)
        .args(&step.args)
        .envs(step.env.iter().map(|(k, v)| (k, v)))
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stderr = String::new();
    child.stderr.take()?.read_to_string(&mut stderr).ok()?;
    let status = child.wait().ok()?;
    let diags = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["$message_type"].as_str() == Some("diagnostic"))
        .filter_map(|m| diagnostic(&m, kata_folder))
        .collect();
    Some((status.success(), diags))
}

/// The stamp of everything but the learner's sources that a replay relies on (see the module's
/// essay): the files directly in the checkout's root (manifest, lock file) and its `.cargo/`,
/// then every file under `inputs` (the build's path packages), or under the whole checkout
/// when there is no recipe yet. `target_dir` is left out when it sits inside the checkout.
pub(super) fn stamp(root: &Path, target_dir: &Path, inputs: Option<&[PathBuf]>) -> u64 {
    let started = Instant::now();
    let mut h = Fnv::new();
    match inputs {
        None => walk(root, root, target_dir, &mut h, true),
        Some(dirs) => {
            walk(root, root, target_dir, &mut h, false);
            walk(root, &root.join(".cargo"), target_dir, &mut h, true);
            for dir in dirs {
                h.bytes(dir.to_string_lossy().as_bytes());
                walk(root, dir, target_dir, &mut h, true);
            }
        }
    }
    // Cargo's config files outside the checkout and the toolchain's compiler.
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cargo")));
    let mut outside: Vec<PathBuf> = root
        .ancestors()
        .skip(1)
        .flat_map(|d| [d.join(".cargo/config.toml"), d.join(".cargo/config")])
        .collect();
    if let Some(home) = cargo_home {
        outside.extend([home.join("config.toml"), home.join("config")]);
    }
    for f in &outside {
        h.file(f, f);
    }
    let mut vars: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| steers_the_build(k))
        .collect();
    vars.sort();
    for (k, v) in vars {
        h.bytes(k.as_bytes());
        h.bytes(v.as_bytes());
    }
    crate::watch::trace(&format!(
        "stamp {{now}} {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    ));
    h.0
}

/// Environment variables that change what cargo or rustc builds.
fn steers_the_build(name: &str) -> bool {
    name.starts_with("RUST")
        || [
            "CARGO_BUILD_",
            "CARGO_PROFILE_",
            "CARGO_TARGET_",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_INCREMENTAL",
            "CARGO_HOME",
            "CARGO_NET_OFFLINE",
        ]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Feeds `h` the files under `dir` (and below, if `deep`), in name order.
fn walk(root: &Path, dir: &Path, target_dir: &Path, h: &mut Fnv, deep: bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path);
        if left_out(rel) || path == target_dir {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if deep {
                walk(root, &path, target_dir, h, true);
            }
        } else {
            h.meta(rel, &meta);
        }
    }
}

/// Paths (relative to the checkout) that are not inputs of a kata's build.
fn left_out(rel: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
    let name = parts.last().and_then(|n| n.to_str()).unwrap_or("");
    match parts.as_slice() {
        [first] if *first == ".git" || *first == "target" => true,
        [first, second] if *first == "lessons" && *second == "book" => true,
        [first, _, third, ..] if *first == "exercises" && *third == "src" => true,
        _ => name == "target" || name.starts_with(crate::state::STATE_FILE),
    }
}

/// FNV-1a, 64 bits, fed paths, sizes and times.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so that ("ab", "c") and ("a", "bc") differ.
        self.0 = (self.0 ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }

    fn meta(&mut self, rel: &Path, meta: &std::fs::Metadata) {
        self.bytes(rel.to_string_lossy().as_bytes());
        self.bytes(&meta.len().to_le_bytes());
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .unwrap_or_default();
        self.bytes(&modified.as_nanos().to_le_bytes());
    }

    /// A file outside the checkout: its metadata if it exists, a marker if not.
    fn file(&mut self, name: &Path, path: &Path) {
        match std::fs::metadata(path) {
            Ok(meta) => self.meta(name, &meta),
            Err(_) => self.bytes(b"absent"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_cargo_prints() {
        let line = "     Running `CARGO=/x/cargo CARGO_PKG_AUTHORS='' \
                    CARGO_PKG_DESCRIPTION='A kata: it'\\''s yours' LD_LIBRARY_PATH='/t/deps:/lib' \
                    /tc/bin/rustc --crate-name run_k --edition=2021 run/src/main.rs \
                    --check-cfg 'cfg(docsrs,test)' -C metadata=ab -C extra-filename=-9f \
                    --out-dir /t/debug/deps --extern k=/t/debug/deps/libk-1.rlib`";
        let step = parse_running(line).unwrap();
        assert_eq!(
            step.env,
            vec![
                ("CARGO".into(), "/x/cargo".into()),
                ("CARGO_PKG_AUTHORS".into(), "".into()),
                ("CARGO_PKG_DESCRIPTION".into(), "A kata: it's yours".into()),
                ("LD_LIBRARY_PATH".into(), "/t/deps:/lib".into()),
            ]
        );
        assert_eq!(step.program, "/tc/bin/rustc");
        assert_eq!(step.args[4], "--check-cfg");
        assert_eq!(step.args[5], "cfg(docsrs,test)");
        assert_eq!(
            step.binary(),
            Some(PathBuf::from(format!(
                "/t/debug/deps/run_k-9f{}",
                std::env::consts::EXE_SUFFIX
            )))
        );
        assert_eq!(
            step.externs().collect::<Vec<_>>(),
            ["/t/debug/deps/libk-1.rlib"]
        );
        assert!(parse_running("   Compiling k v0.1.0").is_none());
        assert_eq!(
            package_dir("Compiling dynamodb-katas-engine v0.1.0 (/repo/engine)"),
            Some(PathBuf::from("/repo/engine"))
        );
        assert_eq!(
            package_dir("Fresh k v0.1.0 (/repo/exercises/k)"),
            Some("/repo/exercises/k".into())
        );
        assert_eq!(package_dir("Fresh serde v1.0.228"), None);
        assert!(parse_running("Running `rustc 'unterminated`").is_none());
    }

    #[test]
    fn learner_sources_and_build_output_are_not_in_the_stamp() {
        // As the walk meets them: a folder left out is not entered.
        for out in [
            "exercises/first-steps/src",
            "target",
            ".git",
            "lessons/book",
            ".katas-state.json",
            ".katas-state.json.bak",
            "checker/tests/fixtures/mini/target",
        ] {
            assert!(left_out(Path::new(out)), "{out}");
        }
        for kept in [
            "exercises/first-steps/Cargo.toml",
            "checker/katas/first-steps/tests/src/lib.rs",
            "engine/src/lib.rs",
            "Cargo.lock",
        ] {
            assert!(!left_out(Path::new(kept)), "{kept}");
        }
    }

    #[test]
    fn a_change_outside_the_learners_sources_changes_the_stamp() {
        let dir = std::env::temp_dir().join(format!("katas-replay-stamp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("exercises/k/src")).unwrap();
        std::fs::create_dir_all(dir.join("engine/src")).unwrap();
        std::fs::write(dir.join("exercises/k/src/lib.rs"), "a").unwrap();
        std::fs::write(dir.join("engine/src/lib.rs"), "a").unwrap();
        let target = dir.join("target");
        let inputs = [dir.join("engine"), dir.join("exercises/k")];
        for inputs in [None, Some(&inputs[..])] {
            let before = stamp(&dir, &target, inputs);
            std::fs::write(dir.join("exercises/k/src/lib.rs"), "bb").unwrap();
            assert_eq!(
                stamp(&dir, &target, inputs),
                before,
                "the learner's edit is the replay's"
            );
            std::fs::write(dir.join("engine/src/lib.rs"), "bbb").unwrap();
            assert_ne!(
                stamp(&dir, &target, inputs),
                before,
                "an engine edit goes through cargo"
            );
            std::fs::write(dir.join("Cargo.lock"), "x").unwrap();
            let before = stamp(&dir, &target, inputs);
            std::fs::write(dir.join("Cargo.lock"), "yy").unwrap();
            assert_ne!(
                stamp(&dir, &target, inputs),
                before,
                "so does a new lock file"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
