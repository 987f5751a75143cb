//! Submissions: find them among the paths given to `katas grade`, and stage the only part of
//! each that is ever used — the kata sources, `exercises/<kata>/src/**` — into a folder the
//! grader owns.
//!
//! A path is one of:
//!
//! ```text
//! alice.tar                      an archive made by `katas pack` (or any tar with the same
//!                                layout, optionally under one top-level folder)
//! alice/                         a learner's repository copy: alice/exercises/<kata>/src/…
//!                                (or one folder deeper, as a downloaded repository unpacks)
//! class/                         a folder of the above: every archive and folder in it
//! ```
//!
//! The learner's identity is the archive's or folder's name (`alice.tar` → `alice`); the name
//! `katas pack` recorded inside an archive is shown next to it.
//!
//! Staging never trusts the submission's file system: symbolic links and special files are
//! skipped, every path component must be a plain name (no `..`, no absolute paths), and sizes
//! are capped. Everything outside the kata sources — Cargo files, build scripts, hidden tests,
//! the manifest — is ignored, so a submission cannot change how it is built or tested.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::manifest::Manifest;

/// The file inside a `katas pack` archive that names the learner.
pub const META_FILE: &str = "katas-submission.json";
/// Largest source file taken from a submission.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Largest total of source files taken from one submission.
pub const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;
/// Most source files taken from one submission.
pub const MAX_FILES: usize = 2000;

/// A submission found on disk, not yet staged.
#[derive(Debug, Clone)]
pub struct Found {
    /// The learner's identity (archive or folder name).
    pub learner: String,
    /// The archive or folder.
    pub path: PathBuf,
}

/// A staged submission.
#[derive(Debug, Clone, Default)]
pub struct Staged {
    /// The name recorded by `katas pack`, if any.
    pub name: Option<String>,
    /// Per kata: the staged `src/` folder (only katas the submission has).
    pub katas: BTreeMap<String, PathBuf>,
    /// What was skipped or refused while staging, for the report.
    pub notes: Vec<String>,
}

/// Finds the submissions among `paths`, with unique learner names.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Found>> {
    let mut found = Vec::new();
    for p in paths {
        if is_archive(p) && p.is_file() {
            found.push(one(p));
        } else if p.is_dir() {
            if find_exercises(p).is_some() {
                found.push(one(p));
            } else {
                let mut children: Vec<PathBuf> = std::fs::read_dir(p)
                    .with_context(|| format!("cannot read {}", p.display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|c| {
                        (is_archive(c) && c.is_file())
                            || (c.is_dir() && find_exercises(c).is_some())
                    })
                    .collect();
                children.sort();
                if children.is_empty() {
                    bail!(
                        "{} is neither a submission (no exercises/ folder) nor a folder of \
                         submissions (.tar archives or repository copies)",
                        p.display()
                    );
                }
                found.extend(children.iter().map(|c| one(c)));
            }
        } else {
            bail!(
                "{} is not a submission: expected a .tar archive or a folder",
                p.display()
            );
        }
    }
    // Two `alice` folders in different classes stay apart.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for f in &mut found {
        let n = seen.entry(f.learner.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            f.learner = format!("{}-{n}", f.learner);
        }
    }
    Ok(found)
}

fn one(p: &Path) -> Found {
    let file = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string());
    let learner = file
        .strip_suffix(".katas.tar")
        .or_else(|| file.strip_suffix(".tar"))
        .unwrap_or(&file)
        .to_string();
    Found {
        learner,
        path: p.to_path_buf(),
    }
}

fn is_archive(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("tar"))
}

/// The folder holding `exercises/`: the submission itself or one level down.
fn find_exercises(dir: &Path) -> Option<PathBuf> {
    if is_real_dir(&dir.join("exercises")) {
        return Some(dir.to_path_buf());
    }
    let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|c| is_real_dir(c) && is_real_dir(&c.join("exercises")))
        .collect();
    subs.sort();
    (subs.len() == 1).then(|| subs.remove(0))
}

fn is_real_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// Copies the kata sources of `found` into `dest/<kata>/` (the folder is emptied first).
pub fn stage(found: &Found, manifest: &Manifest, dest: &Path) -> Result<Staged> {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let mut staged = Staged::default();
    let mut budget = Budget::default();
    if found.path.is_file() {
        stage_archive(&found.path, manifest, dest, &mut staged, &mut budget)?;
    } else {
        let base = find_exercises(&found.path).unwrap_or_else(|| found.path.clone());
        for k in &manifest.katas {
            let src = base.join(k.src_dir());
            if !is_real_dir(&src) {
                continue;
            }
            let to = dest.join(&k.name);
            copy_tree(&src, &to, Path::new(""), &mut staged.notes, &mut budget)?;
            staged.katas.insert(k.name.clone(), to);
        }
        if let Ok(text) = std::fs::read_to_string(base.join(META_FILE)) {
            staged.name = meta_name(&text);
        }
    }
    Ok(staged)
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

impl Budget {
    /// Takes `size` bytes for one file; the refusal reason otherwise.
    fn take(&mut self, size: u64, what: &str) -> Result<(), String> {
        if size > MAX_FILE_BYTES {
            return Err(format!(
                "skipped {what}: {size} bytes (a source file may have {MAX_FILE_BYTES})"
            ));
        }
        if self.files >= MAX_FILES || self.bytes + size > MAX_TOTAL_BYTES {
            return Err(format!(
                "skipped {what}: the submission's sources exceed {MAX_FILES} files or \
                 {MAX_TOTAL_BYTES} bytes"
            ));
        }
        self.files += 1;
        self.bytes += size;
        Ok(())
    }
}

fn copy_tree(
    from: &Path,
    to: &Path,
    rel: &Path,
    notes: &mut Vec<String>,
    budget: &mut Budget,
) -> Result<()> {
    std::fs::create_dir_all(to)?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .with_context(|| format!("cannot read {}", from.display()))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        let shown = rel.join(&name);
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if meta.is_symlink() {
            notes.push(format!(
                "skipped {}: a symbolic link (only regular files are taken)",
                shown.display()
            ));
        } else if meta.is_dir() {
            if name == "target" {
                continue;
            }
            copy_tree(&e.path(), &to.join(&name), &shown, notes, budget)?;
        } else if meta.is_file() {
            match budget.take(meta.len(), &shown.display().to_string()) {
                Ok(()) => {
                    std::fs::copy(e.path(), to.join(&name))
                        .with_context(|| format!("cannot copy {}", e.path().display()))?;
                }
                Err(note) => notes.push(note),
            }
        }
    }
    Ok(())
}

fn stage_archive(
    archive: &Path,
    manifest: &Manifest,
    dest: &Path,
    staged: &mut Staged,
    budget: &mut Budget,
) -> Result<()> {
    let file = std::fs::File::open(archive)
        .with_context(|| format!("cannot open {}", archive.display()))?;
    let mut tar = tar::Archive::new(file);
    let entries = tar
        .entries()
        .with_context(|| format!("{} is not a tar archive", archive.display()))?;
    let srcs: Vec<(String, Vec<String>)> = manifest
        .katas
        .iter()
        .map(|k| {
            (
                k.name.clone(),
                plain_components(&k.src_dir()).unwrap_or_default(),
            )
        })
        .collect();
    for entry in entries {
        let mut entry = entry.with_context(|| format!("{} is damaged", archive.display()))?;
        let raw = entry.path_bytes().into_owned();
        let shown = String::from_utf8_lossy(&raw).into_owned();
        let Some(parts) = plain_components(Path::new(&shown)) else {
            staged
                .notes
                .push(format!("skipped {shown}: not a plain relative path"));
            continue;
        };
        let kind = entry.header().entry_type();
        // The meta file, at the top or under one top-level folder.
        if parts.last().is_some_and(|p| p == META_FILE) && parts.len() <= 2 && kind.is_file() {
            let mut text = String::new();
            let _ = (&mut entry).take(64 * 1024).read_to_string(&mut text);
            staged.name = meta_name(&text);
            continue;
        }
        // Where `exercises/<kata>/src/` starts: at the top or under one folder.
        let hit = srcs.iter().find_map(|(name, src)| {
            (0..=1).find_map(|skip| {
                (parts.len() > skip + src.len() && parts[skip..skip + src.len()] == src[..])
                    .then(|| (name.clone(), parts[skip + src.len()..].to_vec()))
            })
        });
        let Some((kata, rest)) = hit else { continue };
        if kind.is_dir() {
            continue;
        }
        if !kind.is_file() {
            staged.notes.push(format!(
                "skipped {shown}: not a regular file (links are not taken)"
            ));
            continue;
        }
        if let Err(note) = budget.take(entry.header().size().unwrap_or(u64::MAX), &shown) {
            staged.notes.push(note);
            continue;
        }
        let kata_dir = dest.join(&kata);
        let target = rest.iter().fold(kata_dir.clone(), |p, c| p.join(c));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::fs::File::create(&target)
            .with_context(|| format!("cannot write {}", target.display()))?;
        std::io::copy(&mut (&mut entry).take(MAX_FILE_BYTES), &mut out)?;
        staged.katas.insert(kata, kata_dir);
    }
    Ok(())
}

/// The components of a relative path made only of plain names; `None` for `..`, absolute
/// paths and prefixes (a leading `./` is dropped).
fn plain_components(p: &Path) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

fn meta_name(text: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let name = v["name"].as_str()?.trim();
    (!name.is_empty()).then(|| name.chars().take(100).collect())
}
