//! `katas pack`: the learner's submission archive — their kata sources and progress, in a
//! plain `.tar` that `katas grade` reads.
//!
//! ```text
//! ada-lovelace.tar
//! ├── katas-submission.json        {"format": "katas-submission/1", "name": "Ada Lovelace",
//! │                                 "katas": [...], "progress": {passed, hints_seen, ...}}
//! └── exercises/<kata>/src/**      every kata's sources (nothing else)
//! ```
//!
//! Design decision: plain tar, written with the `tar` crate. Sources are a few kilobytes, so
//! compression buys nothing, and tar needs one small crate where zip needs a dozen; Windows
//! (`tar.exe` since Windows 10), macOS and Linux all open it without extra tools. The name
//! comes from `--name` or `git config user.name`; the file is named after it, and the grader
//! uses the file name as the learner's identity.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::json;

use crate::context::Context as Cx;
use crate::grade::submission::META_FILE;

/// Format tag of `katas-submission.json`.
pub const SUBMISSION_FORMAT: &str = "katas-submission/1";

/// What `katas pack` wrote.
#[derive(Debug)]
pub struct Packed {
    /// The archive.
    pub path: PathBuf,
    /// The learner's name in it.
    pub name: String,
    /// Katas included.
    pub katas: usize,
    /// Source files included.
    pub files: usize,
}

/// Writes the submission archive of the repository in `cx`.
pub fn pack(cx: &Cx, out: Option<&Path>, name: Option<&str>) -> Result<Packed> {
    let name = match name {
        Some(n) => n.trim().to_string(),
        None => git_user_name().context(
            "no learner name: pass --name \"Your Name\" (or set `git config user.name`)",
        )?,
    };
    if name.is_empty() {
        bail!("the learner name is empty");
    }
    let path = match out {
        Some(p) => p.to_path_buf(),
        None => cx.root.join(format!("{}.tar", slug(&name))),
    };
    let file = std::fs::File::create(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let mut tar = tar::Builder::new(file);
    tar.mode(tar::HeaderMode::Deterministic);

    let mut files = 0;
    let mut katas = Vec::new();
    for k in &cx.manifest.katas {
        let src = cx.root.join(k.src_dir());
        if !src.is_dir() {
            continue;
        }
        files += add_tree(&mut tar, &src, &k.src_dir())?;
        katas.push(json!({
            "kata": k.name,
            "passed": cx.state.state.passed.contains(&k.name),
        }));
    }
    let meta = json!({
        "format": SUBMISSION_FORMAT,
        "name": name,
        "packed_by": format!("katas {}", env!("CARGO_PKG_VERSION")),
        "katas": katas,
        "progress": cx.state.state,
    });
    let bytes = serde_json::to_vec_pretty(&meta)?;
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, META_FILE, bytes.as_slice())?;
    tar.into_inner()?.sync_all().ok();
    Ok(Packed {
        path,
        name,
        katas: katas.len(),
        files,
    })
}

fn add_tree(tar: &mut tar::Builder<std::fs::File>, dir: &Path, rel: &Path) -> Result<usize> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    let mut n = 0;
    for e in entries {
        let meta = std::fs::symlink_metadata(e.path())?;
        let rel = rel.join(e.file_name());
        if meta.is_dir() && e.file_name() != "target" {
            n += add_tree(tar, &e.path(), &rel)?;
        } else if meta.is_file() {
            // Forward slashes whatever the platform, so the archive reads the same anywhere.
            let name = rel.to_string_lossy().replace('\\', "/");
            tar.append_path_with_name(e.path(), name)?;
            n += 1;
        }
    }
    Ok(n)
}

fn git_user_name() -> Option<String> {
    let out = Command::new("git")
        .args(["config", "user.name"])
        .output()
        .ok()?;
    let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !name.is_empty()).then_some(name)
}

/// A file-name-safe form of a name: `Ada Lovelace` → `ada-lovelace`.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let s = s.trim_end_matches('-').to_string();
    if s.is_empty() {
        "submission".into()
    } else {
        s
    }
}
