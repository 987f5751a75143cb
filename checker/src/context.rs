//! What a command runs with: the repository found from the current folder, the curriculum
//! loaded, the learner's progress read, and the kata the command was started in.
//!
//! ```text
//!  main → commands ──► cli      (what clap parsed)
//!            │    └──► context  (this: root, manifest, state, check options)
//!            ▼
//!   watch, pack, runner, report, state, …   (each takes the pieces it needs)
//! ```
//!
//! Design decision: its own module, not part of `cli`, so that dependencies point one way:
//! `commands` reads `cli` and `context`; `pack` needs a context but no arguments; and `cli`
//! (the parse layer) and `context` know nothing of the commands.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::manifest::Manifest;
use crate::root::find_root;
use crate::runner::CheckOptions;
use crate::state::StateFile;

/// Everything a command needs, resolved.
#[derive(Debug)]
pub struct Context {
    /// Repository root.
    pub root: PathBuf,
    /// The curriculum.
    pub manifest: Manifest,
    /// The learner's progress.
    pub state: StateFile,
    /// Options for checks.
    pub check: CheckOptions,
    /// The kata whose folder the command was started in (`exercises/<kata>/…`), if any.
    pub here: Option<String>,
}

impl Context {
    /// Finds the repository from the current directory and loads manifest and state.
    pub fn discover() -> Result<Context> {
        let cwd = std::env::current_dir()?;
        let root = find_root(&cwd)?;
        let manifest = Manifest::load(&root)?;
        let state = StateFile::load(&root, &manifest);
        let here = kata_at(&root, &manifest, &cwd);
        Ok(Context {
            root,
            manifest,
            state,
            check: CheckOptions::default(),
            here,
        })
    }

    /// The named kata, else the one whose folder the command runs in, else the current one.
    pub fn kata_or_current(&self, name: Option<&str>) -> Result<&crate::manifest::Kata> {
        let name = name
            .or(self.here.as_deref())
            .or(self.state.state.current.as_deref());
        match name {
            Some(n) => self.manifest.kata(n),
            None => anyhow::bail!("the curriculum has no katas yet"),
        }
    }
}

/// The kata whose folder holds `dir` (`<root>/exercises/<kata>` or anything under it).
pub fn kata_at(root: &Path, manifest: &Manifest, dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    manifest
        .katas
        .iter()
        .find(|k| dir.starts_with(root.join(k.folder())))
        .map(|k| k.name.clone())
}
