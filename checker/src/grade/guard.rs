//! Guards around a submission's build: the scratch kata crate is hardened before it is
//! compiled, its sources are scanned, and rustc's dep-info shows what the compilation read.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::manifest::Kata;

/// Makes the scratch kata crate safe to compile: no build script, no auto-discovered extra
/// targets, `unsafe` forbidden (a lint level the sources cannot lower).
pub(super) fn harden(ws: &Path, kata: &Kata) -> Result<()> {
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
/// anything else; and environment variables it read (`env!`, `option_env!`) that cargo did
/// not set for it. Sound whatever macro tricks spell the path or the name.
pub(super) fn outside_reads(
    target: &Path,
    ws: &Path,
    kata: &Kata,
    src_dir: &Path,
) -> Option<String> {
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
        if let Some(var) = line.strip_prefix("# env-dep:") {
            let name = var.split_once('=').map_or(var, |(n, _)| n);
            if !CARGO_SETS.iter().any(|p| name.starts_with(p)) {
                // The build runs with the grader's environment: `option_env!` would carry
                // its values (tokens, paths) into the binary and out in a failure message.
                return Some(format!(
                    "its compilation read the environment variable {} (env! or \
                     option_env!); a graded kata may read only what cargo sets for it \
                     (CARGO_PKG_*, CARGO_CRATE_NAME, CARGO_MANIFEST_DIR)",
                    super::text::one_line(name, super::text::MAX_NAME)
                ));
            }
            continue;
        }
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

/// The variables cargo sets for the crate it compiles (prefixes): the only ones a kata's
/// `env!` may read. `CARGO_` alone would let through the grader's own (a registry token).
const CARGO_SETS: [&str; 5] = [
    "CARGO_PKG_",
    "CARGO_CRATE_NAME",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_PRIMARY_PACKAGE",
];

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
pub(super) fn scan_sources(src: &Path) -> Option<String> {
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
