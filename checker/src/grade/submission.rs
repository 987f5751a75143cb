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

use super::text;
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
    /// The learner's identity (archive or folder name, cleaned, unique in the run).
    pub learner: String,
    /// The archive or folder.
    pub path: PathBuf,
}

/// Something in a class folder that was not taken as a learner, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    /// The file or folder.
    pub path: String,
    /// Why it is not a submission.
    pub reason: String,
}

/// What [`discover`] found: the learners, and what it passed over.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// One entry per learner, in the order given (a class folder's entries sorted).
    pub found: Vec<Found>,
    /// Entries of class folders that are not submissions.
    pub skipped: Vec<Skipped>,
}

/// A staged submission.
#[derive(Debug, Clone, Default)]
pub struct Staged {
    /// The name recorded by `katas pack`, if any (cleaned).
    pub name: Option<String>,
    /// Per kata: the staged `src/` folder (only katas the submission has).
    pub katas: BTreeMap<String, PathBuf>,
    /// What was skipped or refused while staging, for the report (collapsed by kind).
    pub notes: Vec<String>,
}

/// Finds the submissions among `paths`, with unique learner names.
///
/// A folder is a *class* when it holds archives or more than one repository copy; otherwise a
/// folder with `exercises/` (itself or one level down) is one learner. Inside a class, an
/// entry that is neither an archive nor a repository copy, or cannot be read, is skipped and
/// listed with the reason; a path given on the command line that is neither is an error.
pub fn discover(paths: &[PathBuf]) -> Result<Discovery> {
    let mut d = Discovery::default();
    for p in paths {
        if p.is_file() {
            if !is_archive(p) {
                bail!(
                    "{} is not a submission: expected a .tar archive or a folder",
                    p.display()
                );
            }
            d.found.push(one(p));
        } else if p.is_dir() {
            if is_real_dir(&p.join("exercises")) {
                d.found.push(one(p));
                continue;
            }
            let entries =
                std::fs::read_dir(p).with_context(|| format!("cannot read {}", p.display()))?;
            let mut children: Vec<PathBuf> = Vec::new();
            for e in entries {
                match e {
                    Ok(e) => children.push(e.path()),
                    Err(e) => d.skipped.push(Skipped {
                        path: text::one_line(&p.display().to_string(), 4 * text::MAX_NAME),
                        reason: format!("an entry could not be read: {e}"),
                    }),
                }
            }
            children.sort();
            let archives: Vec<&PathBuf> = children
                .iter()
                .filter(|c| is_archive(c) && c.is_file())
                .collect();
            let repos: Vec<&PathBuf> = children
                .iter()
                .filter(|c| is_real_dir(c) && find_exercises(c).is_some())
                .collect();
            if archives.is_empty() && repos.len() == 1 && find_exercises(p).is_some() {
                // A downloaded repository: alice/katas-main/exercises/…
                d.found.push(one(p));
                continue;
            }
            if archives.is_empty() && repos.is_empty() {
                bail!(
                    "{} is neither a submission (no exercises/ folder) nor a folder of \
                     submissions (.tar archives or repository copies)",
                    p.display()
                );
            }
            for c in &children {
                let name = c.file_name().map(|n| n.to_string_lossy().into_owned());
                if archives.contains(&c) || repos.contains(&c) {
                    d.found.push(one(c));
                } else if name.as_deref().is_some_and(|n| n.starts_with('.')) {
                    // Hidden files (.git, .DS_Store) are not worth a line.
                } else {
                    d.skipped.push(Skipped {
                        path: text::one_line(&c.display().to_string(), 4 * text::MAX_NAME),
                        reason: why_not(c),
                    });
                }
            }
        } else {
            bail!(
                "{} is not a submission: expected a .tar archive or a folder",
                p.display()
            );
        }
    }
    unique_names(&mut d.found);
    Ok(d)
}

fn why_not(c: &Path) -> String {
    match std::fs::symlink_metadata(c) {
        Err(e) => format!("cannot be read: {e}"),
        Ok(m) if m.is_symlink() => "a symbolic link (submissions are taken as they are, \
                                    not through links)"
            .into(),
        Ok(m) if m.is_dir() => match std::fs::read_dir(c) {
            Err(e) => format!("a folder that cannot be read: {e}"),
            Ok(_) => "a folder without exercises/ (not a repository copy)".into(),
        },
        Ok(_) => "not a .tar archive".into(),
    }
}

/// Learner names unique across every source: a repeated name gets the first free `-N` that
/// is neither taken nor another submission's own name (`alice/`, `alice.tar` and
/// `alice-2.tar` become `alice`, `alice-3` and `alice-2`).
fn unique_names(found: &mut [Found]) {
    let own: std::collections::BTreeSet<String> = found.iter().map(|f| f.learner.clone()).collect();
    let mut taken = std::collections::BTreeSet::new();
    for f in found.iter_mut() {
        if taken.insert(f.learner.clone()) {
            continue;
        }
        let base = f.learner.clone();
        let name = (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|c| !taken.contains(c) && !own.contains(c))
            .expect("an unbounded range has a free name");
        taken.insert(name.clone());
        f.learner = name;
    }
}

fn one(p: &Path) -> Found {
    let file = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string());
    let learner = file
        .strip_suffix(".katas.tar")
        .or_else(|| file.strip_suffix(".tar"))
        .unwrap_or(&file);
    let learner = text::one_line(learner, text::MAX_NAME).trim().to_string();
    Found {
        learner: if learner.is_empty() {
            "submission".into()
        } else {
            learner
        },
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

/// Staging notes, collapsed by kind: `1,998 files over the submission's cap …: a.rs, b.rs, …`
/// rather than one line per file (a tar of 100,000 files must not make a 14 MB report).
#[derive(Default)]
struct Notes {
    kinds: BTreeMap<Kind, (usize, Vec<String>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    NotPlain,
    Link,
    NotRegular,
    TooBig,
    OverCap,
    Unreadable,
}

/// Examples named per kind of note.
const NOTE_EXAMPLES: usize = 3;

impl Notes {
    fn add(&mut self, kind: Kind, what: &str) {
        let (n, ex) = self.kinds.entry(kind).or_default();
        *n += 1;
        if ex.len() < NOTE_EXAMPLES {
            ex.push(text::one_line(what, text::MAX_NAME));
        }
    }

    fn lines(&self) -> Vec<String> {
        self.kinds
            .iter()
            .map(|(kind, (n, ex))| {
                let what = match kind {
                    Kind::NotPlain => "entries skipped: not a plain relative path (`..` or absolute)",
                    Kind::Link => "symbolic links skipped (only regular files are taken)",
                    Kind::NotRegular => "entries skipped: not regular files (links, devices)",
                    Kind::TooBig => "files skipped: over 1 MiB, the most a source file may have",
                    Kind::OverCap => "files skipped: over the cap of 2,000 files or 16 MiB of sources per submission",
                    Kind::Unreadable => "files or folders skipped: they could not be read",
                };
                let more = if *n > ex.len() { ", …" } else { "" };
                format!("{} {what}: {}{more}", thousands(*n), ex.join(", "))
            })
            .collect()
    }
}

/// `1998` → `1,998`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Copies the kata sources of `found` into `dest/<kata>/` (the folder is emptied first). An
/// error (a damaged archive, a file that cannot be copied) leaves nothing staged: the caller
/// gives that learner `error` with the reason and goes on with the class.
pub fn stage(found: &Found, manifest: &Manifest, dest: &Path) -> Result<Staged> {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let mut staged = Staged::default();
    let mut notes = Notes::default();
    let mut budget = Budget::default();
    let result = if found.path.is_file() {
        stage_archive(
            &found.path,
            manifest,
            dest,
            &mut staged,
            &mut notes,
            &mut budget,
        )
    } else {
        stage_folder(
            &found.path,
            manifest,
            dest,
            &mut staged,
            &mut notes,
            &mut budget,
        )
    };
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(dest);
        return Err(e);
    }
    staged.notes = notes.lines();
    Ok(staged)
}

fn stage_folder(
    path: &Path,
    manifest: &Manifest,
    dest: &Path,
    staged: &mut Staged,
    notes: &mut Notes,
    budget: &mut Budget,
) -> Result<()> {
    let base = find_exercises(path).unwrap_or_else(|| path.to_path_buf());
    for k in &manifest.katas {
        let src = base.join(k.src_dir());
        if !is_real_dir(&src) {
            continue;
        }
        let to = dest.join(&k.name);
        copy_tree(&src, &to, &k.src_dir(), notes, budget)?;
        staged.katas.insert(k.name.clone(), to);
    }
    if let Ok(text) = std::fs::read_to_string(base.join(META_FILE)) {
        staged.name = meta_name(&text);
    }
    Ok(())
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

impl Budget {
    /// Takes `size` bytes for one file; the kind of refusal otherwise.
    fn take(&mut self, size: u64) -> Result<(), Kind> {
        if size > MAX_FILE_BYTES {
            return Err(Kind::TooBig);
        }
        if self.files >= MAX_FILES || self.bytes + size > MAX_TOTAL_BYTES {
            return Err(Kind::OverCap);
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
    notes: &mut Notes,
    budget: &mut Budget,
) -> Result<()> {
    std::fs::create_dir_all(to)?;
    let mut entries: Vec<_> = match std::fs::read_dir(from) {
        Ok(rd) => rd.filter_map(Result::ok).collect(),
        Err(_) => {
            notes.add(Kind::Unreadable, &rel.display().to_string());
            return Ok(());
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        let shown = rel.join(&name).display().to_string();
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            notes.add(Kind::Unreadable, &shown);
            continue;
        };
        if meta.is_symlink() {
            notes.add(Kind::Link, &shown);
        } else if meta.is_dir() {
            if name == "target" {
                continue;
            }
            copy_tree(&e.path(), &to.join(&name), &rel.join(&name), notes, budget)?;
        } else if meta.is_file() {
            match budget.take(meta.len()) {
                Ok(()) => {
                    if std::fs::copy(e.path(), to.join(&name)).is_err() {
                        notes.add(Kind::Unreadable, &shown);
                    }
                }
                Err(kind) => notes.add(kind, &shown),
            }
        } else {
            notes.add(Kind::NotRegular, &shown);
        }
    }
    Ok(())
}

fn stage_archive(
    archive: &Path,
    manifest: &Manifest,
    dest: &Path,
    staged: &mut Staged,
    notes: &mut Notes,
    budget: &mut Budget,
) -> Result<()> {
    let file = std::fs::File::open(archive).context("cannot open the archive")?;
    let mut tar = tar::Archive::new(file);
    let entries = tar.entries().context("not a tar archive")?;
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
    for (seen, entry) in entries.enumerate() {
        let mut entry = entry.map_err(|e| {
            anyhow::anyhow!(
                "the archive is damaged after {} entries (truncated, or not a tar): {}",
                thousands(seen),
                text::one_line(&e.to_string(), text::MAX_NAME)
            )
        })?;
        let raw = entry.path_bytes().into_owned();
        let shown = String::from_utf8_lossy(&raw).into_owned();
        let Some(parts) = plain_components(Path::new(&shown)) else {
            notes.add(Kind::NotPlain, &shown);
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
            notes.add(Kind::NotRegular, &shown);
            continue;
        }
        if let Err(k) = budget.take(entry.header().size().unwrap_or(u64::MAX)) {
            notes.add(k, &shown);
            continue;
        }
        let kata_dir = dest.join(&kata);
        let target = rest.iter().fold(kata_dir.clone(), |p, c| p.join(c));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::fs::File::create(&target)
            .with_context(|| format!("cannot write {}", target.display()))?;
        std::io::copy(&mut (&mut entry).take(MAX_FILE_BYTES), &mut out).map_err(|e| {
            anyhow::anyhow!(
                "the archive is damaged in {} (truncated?): {e}",
                text::one_line(&shown, text::MAX_NAME)
            )
        })?;
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

fn meta_name(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let name = v["name"].as_str()?.trim();
    let name = text::one_line(name, text::MAX_NAME).trim().to_string();
    (!name.is_empty()).then_some(name)
}
