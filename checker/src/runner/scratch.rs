//! Scratch workspaces: check someone else's sources (a reference solution, an alternative, a
//! known-wrong solution, a learner's submission) without touching the learner's files.
//!
//! ```text
//! <scratch>/Cargo.toml                   the repo's [workspace], members = [kata, given,
//!                                        tests, run], [workspace.dependencies] made absolute
//! <scratch>/Cargo.lock                   the repo's lock file (same versions, works offline)
//! <scratch>/exercises/<kata>/            the kata crate from the repo, src/ from the source
//! <scratch>/checker/katas/<kata>/given/  the given part from the repo
//! <scratch>/checker/katas/<kata>/tests/  the hidden tests from the repo (or another dir)
//! <scratch>/checker/katas/<kata>/run/    the glue binary from the repo
//! ```
//!
//! Only `src/` comes from the source: manifests, the given part and tests always come from the
//! repo, so a submission cannot change its own tests or the types they compare. The engine and
//! the test kit are used in place (absolute paths), so many scratch workspaces sharing one
//! target directory build them once. Convention this relies on: the kata's crates take
//! `engine` and `katas-testkit` with `.workspace = true` and reach each other by relative
//! paths, which the scratch workspace keeps by mirroring the repo's layout.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::manifest::Kata;

/// Lays out a scratch workspace in `dest` (created or refreshed) whose kata sources come from
/// `source` (a `.rs` file, which becomes `src/lib.rs`, or a directory, which becomes `src/`).
/// `hidden_override` replaces the repo's hidden-test crate (e.g. an instructor's private set).
/// Returns `dest`, ready for [`super::check`].
///
/// Design decision: the given part and the repo's hidden tests are used in place (absolute
/// path dependencies), not copied. They never change between submissions, so every scratch
/// workspace sharing a target directory builds them once; a copy would look newer to cargo
/// each time and be rebuilt for every submission. A private test set is copied in, since its
/// manifest's relative path to the given part only holds inside the repo's layout.
pub fn prepare(
    root: &Path,
    kata: &Kata,
    source: &Path,
    hidden_override: Option<&Path>,
    dest: &Path,
) -> Result<PathBuf> {
    std::fs::create_dir_all(dest).with_context(|| format!("cannot create {}", dest.display()))?;
    let root = &root
        .canonicalize()
        .with_context(|| format!("cannot read {}", root.display()))?;
    let folder = kata.folder();
    let hidden = kata.hidden();
    let glue = kata.glue();
    let given_abs = root.join(kata.given());
    let mut members: Vec<&Path> = vec![&folder, &glue];
    if hidden_override.is_some() {
        members.push(&hidden);
    }
    std::fs::write(dest.join("Cargo.toml"), workspace_manifest(root, &members)?)?;
    if root.join("Cargo.lock").exists() {
        std::fs::copy(root.join("Cargo.lock"), dest.join("Cargo.lock"))?;
    }

    let kata_dest = dest.join(&folder);
    let _ = std::fs::remove_dir_all(&kata_dest);
    copy_dir(&root.join(&folder), &kata_dest, &|p| {
        p.file_name() != Some("src".as_ref()) && p.file_name() != Some("target".as_ref())
    })?;
    let src_dest = kata_dest.join("src");
    if source.is_dir() {
        copy_dir(source, &src_dest, &|_| true)?;
    } else if source.is_file() {
        std::fs::create_dir_all(&src_dest)?;
        std::fs::copy(source, src_dest.join("lib.rs"))
            .with_context(|| format!("cannot copy {}", source.display()))?;
    } else {
        bail!("solution source {} does not exist", source.display());
    }

    let not_target = |p: &Path| p.file_name() != Some("target".as_ref());
    let hidden_abs = match hidden_override {
        Some(dir) => {
            let to = dest.join(&hidden);
            let _ = std::fs::remove_dir_all(&to);
            copy_dir(dir, &to, &not_target)?;
            patch_manifest(&to.join("Cargo.toml"), |doc| {
                set_dependency_path(doc, "given", &given_abs);
            })?;
            to
        }
        None => root.join(&hidden),
    };
    let glue_dest = dest.join(&glue);
    let _ = std::fs::remove_dir_all(&glue_dest);
    copy_dir(&root.join(&glue), &glue_dest, &not_target)?;

    let tag = scratch_tag(dest);
    patch_manifest(&kata_dest.join("Cargo.toml"), |doc| {
        if let Some(pkg) = doc.get_mut("package").and_then(|p| p.as_table_mut()) {
            pkg.insert("version".into(), format!("0.0.0-scratch.{tag}").into());
        }
        set_dependency_path(doc, "given", &given_abs);
    })?;
    // The glue's binary is uplifted to `<target>/debug/<name>`: a name per scratch dir, so
    // parallel checks sharing a target dir never overwrite each other's binary.
    patch_manifest(&glue_dest.join("Cargo.toml"), |doc| {
        set_dependency_path(doc, "hidden", &hidden_abs);
        let Some(pkg) = doc.get_mut("package").and_then(|p| p.as_table_mut()) else {
            return;
        };
        let name = pkg.get("name").and_then(|n| n.as_str()).unwrap_or("run");
        let name = format!("{name}-{tag}");
        pkg.insert("name".into(), name.clone().into());
        if let Some(bins) = doc.get_mut("bin").and_then(|b| b.as_array_mut()) {
            for bin in bins.iter_mut().filter_map(|b| b.as_table_mut()) {
                bin.insert("name".into(), name.clone().into());
            }
        }
    })?;
    Ok(dest.to_path_buf())
}

/// Points dependency `name` of a manifest (if it has one) at `path`.
fn set_dependency_path(doc: &mut toml::Table, name: &str, path: &Path) {
    if let Some(dep) = doc
        .get_mut("dependencies")
        .and_then(|d| d.get_mut(name))
        .and_then(|d| d.as_table_mut())
    {
        dep.insert(
            "path".into(),
            toml::Value::String(path.to_string_lossy().into_owned()),
        );
    }
}

/// Cargo hashes workspace members by their path *relative to the workspace root*, so every
/// scratch workspace (and the learner's own) would share build units in a shared target dir:
/// a stale or foreign build could be taken as fresh, and parallel checks would overwrite one
/// uplifted test binary. A per-scratch-dir version of the kata crate and name of the glue
/// crate keep their units and binaries apart while the engine, test kit, given part, hidden
/// tests (unless overridden: their sources then differ, and so do their units) and registry
/// crates stay shared.
fn scratch_tag(dest: &Path) -> String {
    let h = dest
        .to_string_lossy()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

fn patch_manifest(manifest: &Path, edit: impl FnOnce(&mut toml::Table)) -> Result<()> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let mut doc: toml::Table = toml::from_str(&text)?;
    edit(&mut doc);
    std::fs::write(manifest, toml::to_string(&doc)?)?;
    Ok(())
}

/// The repo's root manifest with `members` replaced and dependency paths made absolute.
fn workspace_manifest(root: &Path, members: &[&Path]) -> Result<String> {
    let path = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut doc: toml::Table = toml::from_str(&text)?;
    let ws = doc
        .get_mut("workspace")
        .and_then(|w| w.as_table_mut())
        .context("the root Cargo.toml has no [workspace]")?;
    ws.insert(
        "members".into(),
        toml::Value::Array(
            members
                .iter()
                .map(|m| toml::Value::String(m.to_string_lossy().into_owned()))
                .collect(),
        ),
    );
    ws.remove("default-members");
    ws.remove("exclude");
    if let Some(deps) = ws.get_mut("dependencies").and_then(|d| d.as_table_mut()) {
        for (_, dep) in deps.iter_mut() {
            if let Some(p) = dep.get_mut("path") {
                if let Some(rel) = p.as_str() {
                    *p = toml::Value::String(root.join(rel).to_string_lossy().into_owned());
                }
            }
        }
    }
    Ok(format!(
        "# Scratch workspace made by `katas`; do not edit.\n{}",
        toml::to_string(&doc)?
    ))
}

/// Copies a directory tree, skipping entries `keep` rejects (symlinks are followed).
pub fn copy_dir(from: &Path, to: &Path, keep: &dyn Fn(&Path) -> bool) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let path = entry.path();
        if !keep(&path) {
            continue;
        }
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target, keep)?;
        } else {
            std::fs::copy(&path, &target)
                .with_context(|| format!("cannot copy {}", path.display()))?;
        }
    }
    Ok(())
}
