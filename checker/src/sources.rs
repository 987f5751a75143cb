//! The learner's sources against what the checker and grading build: is the kata still its
//! starter, and has anything changed that grading will not see?
//!
//! Grading takes only `exercises/<kata>/src/**` from a submission; the kata's `Cargo.toml`,
//! its given part, its hidden tests, the engine and the workspace manifest always come from
//! the instructor's tree. A check at home builds the learner's whole working tree, so a
//! learner who adds a dependency, edits the given part or the engine would see a verdict that
//! grading then contradicts. Rather than build a second, grading-shaped copy on every save
//! (it would double the time to a verdict), the check says at once which such files differ
//! from the repository's commit, read from `git status`; without git (a copy that is not a
//! clone) there is nothing to compare against, and nothing is said.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::manifest::Kata;

/// Whether the kata's `src/` is still exactly its shipped starter.
pub fn is_untouched_starter(root: &Path, kata: &Kata) -> bool {
    tree_difference(&root.join(kata.starter()), &root.join(kata.src_dir())).is_none()
}

/// Files that change what a check builds but that grading takes from the instructor's tree,
/// changed (or added) in the learner's working tree: `"exercises/x/Cargo.toml (modified)"`.
pub fn unseen_by_grading(root: &Path, kata: &Kata) -> Vec<String> {
    let folder = kata.folder();
    let mut paths: Vec<PathBuf> = vec![
        folder.clone(),
        kata.dir(),
        PathBuf::from("Cargo.toml"),
        PathBuf::from("engine"),
        PathBuf::from("checker/testkit"),
    ];
    paths.retain(|p| root.join(p).exists());
    let out = Command::new("git")
        .current_dir(root)
        // `--short` with relative paths: paths relative to `root` even when the curriculum is
        // a folder inside a larger repository.
        .args([
            "-c",
            "color.status=false",
            "-c",
            "status.relativePaths=true",
        ])
        .args(["status", "--short", "--untracked-files=all", "--"])
        .args(&paths)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(out) = out else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
    let src = kata.src_dir();
    let harmless = [folder.join("README.md"), folder.join("target")];
    let mut changed = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let (code, path) = (line.get(..2).unwrap_or(""), line.get(3..).unwrap_or(""));
        // A rename reads `old -> new`: the new path is what is there now.
        let path = path.rsplit(" -> ").next().unwrap_or(path).trim_matches('"');
        let p = Path::new(path);
        if p.starts_with(&src) || harmless.iter().any(|h| p.starts_with(h)) {
            continue;
        }
        if p.starts_with(kata.starter()) || p.starts_with(kata.dir().join("solutions")) {
            continue; // not built by a check
        }
        let what = match code.trim() {
            "??" => "added",
            "D" => "deleted",
            _ => "modified",
        };
        changed.push(format!("{path} ({what})"));
    }
    changed
}

/// The first difference between two directory trees, if any (`None`: same files, same bytes).
pub fn tree_difference(a: &Path, b: &Path) -> Option<String> {
    let fa = files(a);
    let fb = files(b);
    for f in &fa {
        if !fb.contains(f) {
            return Some(format!("{} has no {}", b.display(), f.display()));
        }
    }
    for f in &fb {
        if !fa.contains(f) {
            return Some(format!("{} has no {}", a.display(), f.display()));
        }
    }
    for f in &fa {
        if std::fs::read(a.join(f)).ok() != std::fs::read(b.join(f)).ok() {
            return Some(format!("{} differs", f.display()));
        }
    }
    None
}

fn files(dir: &Path) -> BTreeSet<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(rel) = p.strip_prefix(base) {
                out.insert(rel.to_path_buf());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// Restores a kata's `src/` from its pristine starter copy (what `cargo katas reset` and watch
/// mode's `x` do).
pub fn reset_kata(root: &Path, kata: &Kata) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let starter = root.join(kata.starter());
    if !starter.is_dir() {
        anyhow::bail!(
            "the starter of `{}` is missing ({})",
            kata.name,
            starter.display()
        );
    }
    let src = root.join(kata.src_dir());
    let _ = std::fs::remove_dir_all(&src);
    crate::runner::scratch::copy_dir(&starter, &src, &|_| true)
        .with_context(|| format!("cannot restore {}", src.display()))
}
