//! The checks that need no build: folders, starters, solutions on disk, hints, lesson links.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use super::DevReport;
use crate::manifest::{Kata, Manifest};

/// Where lessons live, relative to the root.
pub const LESSONS_DIR: &str = "lessons/src";
/// Hint levels every kata has: a nudge, the concept, nearly the answer.
pub const HINT_LEVELS: usize = 3;

/// Folders under the kata parents that no kata of the manifest owns.
pub(super) fn stray_folders(root: &Path, manifest: &Manifest, report: &mut DevReport) {
    let mut owned: BTreeSet<PathBuf> = BTreeSet::new();
    for k in &manifest.katas {
        owned.insert(k.folder());
        owned.insert(k.dir());
    }
    for parent in ["exercises", crate::manifest::KATAS_DIR] {
        let Ok(rd) = std::fs::read_dir(root.join(parent)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| Path::new(parent).join(e.file_name()))
            .collect();
        dirs.sort();
        for d in dirs {
            if !owned.contains(&d) {
                report.error(
                    None,
                    Some(&d),
                    "stray-folder",
                    "every folder under exercises/ and checker/katas/ belongs to a kata of \
                     checker/curriculum.toml",
                    format!(
                        "{} belongs to no kata (add it to the manifest or remove it)",
                        d.display()
                    ),
                );
            }
        }
    }
}

/// Every solution path the manifest names for `k` (reference first).
pub(super) fn solution_paths(k: &Kata) -> Vec<PathBuf> {
    let mut v = vec![k.reference()];
    v.extend(k.alternatives.iter().map(|a| a.path.clone()));
    v.extend(k.wrong.iter().map(|w| w.path.clone()));
    v
}

/// Layout and content checks of one kata; false when the build checks cannot run.
pub(super) fn check_kata(root: &Path, k: &Kata, report: &mut DevReport) -> bool {
    let name = Some(k.name.as_str());
    let mut buildable = true;
    for (path, what) in [
        (k.folder().join("Cargo.toml"), "the kata crate's Cargo.toml"),
        (
            k.src_dir(),
            "the kata crate's src/ (the starter the learner edits)",
        ),
        (k.given().join("Cargo.toml"), "the given part's crate"),
        (k.hidden().join("Cargo.toml"), "the hidden-test crate"),
        (k.glue().join("Cargo.toml"), "the glue binary's crate"),
        (k.starter(), "the pristine starter (for `katas reset`)"),
    ] {
        if !root.join(&path).exists() {
            report.error(
                name,
                Some(&path),
                "layout",
                format!("{what} at {}", path.display()),
                "missing",
            );
            buildable = false;
        }
    }
    if !root.join(k.readme()).is_file() {
        report.error(
            name,
            Some(&k.readme()),
            "readme",
            "a README.md stating the task and linking its lesson section",
            "missing",
        );
    }
    if buildable {
        if let Some(diff) =
            crate::sources::tree_difference(&root.join(k.starter()), &root.join(k.src_dir()))
        {
            report.error(
                name,
                Some(&k.starter()),
                "starter-copy",
                format!(
                    "{} identical to {} (the starter `katas reset` restores is the one shipped)",
                    k.starter().display(),
                    k.src_dir().display()
                ),
                diff,
            );
        }
    }
    for p in solution_paths(k) {
        if !root.join(&p).exists() {
            report.error(
                name,
                Some(&p),
                "solution-exists",
                "every solution the manifest lists exists",
                "missing",
            );
            if p == k.reference() {
                buildable = false;
            }
        }
    }
    if k.wrong.is_empty() {
        report.error(
            name,
            None,
            "known-wrong",
            "at least one known-wrong solution (the anti-pattern the kata teaches)",
            "none listed in [[katas.wrong]]",
        );
    }
    for w in &k.wrong {
        if w.must_fail.is_empty() {
            report.error(
                name,
                Some(&w.path),
                "must-fail",
                "a known-wrong solution names the hidden tests that must reject it",
                "must_fail is empty",
            );
        }
    }
    let real_hints = k.hints.iter().filter(|h| !h.trim().is_empty()).count();
    if k.hints.len() != HINT_LEVELS || real_hints != HINT_LEVELS {
        report.error(
            name,
            Some(&k.file()),
            "hints",
            format!("{HINT_LEVELS} hint levels: a nudge, the concept, nearly the answer"),
            format!(
                "{} hint{}{}",
                k.hints.len(),
                if k.hints.len() == 1 { "" } else { "s" },
                if real_hints < k.hints.len() {
                    format!(" ({} empty)", k.hints.len() - real_hints)
                } else {
                    String::new()
                }
            ),
        );
    }
    lesson_links(root, k, report);
    buildable
}

/// First difference between two file trees, as text.
/// The manifest's `lesson` and the README's links into lessons/ point at real sections.
fn lesson_links(root: &Path, k: &Kata, report: &mut DevReport) {
    let name = Some(k.name.as_str());
    let (stem, section) = k.lesson_parts();
    let lesson_file = Path::new(LESSONS_DIR).join(format!("{stem}.md"));
    let manifest_path = &k.file();
    match (std::fs::read_to_string(root.join(&lesson_file)), section) {
        (Err(_), _) => report.error(
            name,
            Some(manifest_path),
            "lesson",
            format!("lesson = \"{}\" names an existing lesson", k.lesson),
            format!("{} does not exist", lesson_file.display()),
        ),
        (Ok(_), None) => report.error(
            name,
            Some(manifest_path),
            "lesson",
            "lesson = \"<stem>#<section anchor>\"",
            format!("\"{}\" has no #section", k.lesson),
        ),
        (Ok(text), Some(anchor)) => {
            if !has_anchor(&text, anchor) {
                report.error(
                    name,
                    Some(manifest_path),
                    "lesson",
                    format!("a section #{anchor} in {}", lesson_file.display()),
                    format!("no such heading; sections: {}", anchors(&text).join(", ")),
                );
            }
        }
    }

    let readme = k.readme();
    let Ok(text) = std::fs::read_to_string(root.join(&readme)) else {
        return;
    };
    let links: Vec<String> = markdown_links(&text)
        .into_iter()
        .filter(|l| l.contains("lessons/"))
        .collect();
    if links.is_empty() {
        report.error(
            name,
            Some(&readme),
            "lesson-link",
            format!(
                "a link to the kata's lesson section, e.g. [..](../../{}#{})",
                lesson_file.display(),
                section.unwrap_or("section")
            ),
            "no link into lessons/",
        );
        return;
    }
    let readme_dir = readme.parent().unwrap_or(Path::new("")).to_path_buf();
    for link in links {
        let (path, anchor) = match link.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (link.as_str(), None),
        };
        let Some(target) = normalize(&readme_dir.join(path)) else {
            report.error(
                name,
                Some(&readme),
                "lesson-link",
                "a link that stays inside the repository",
                link.clone(),
            );
            continue;
        };
        let Ok(lesson) = std::fs::read_to_string(root.join(&target)) else {
            report.error(
                name,
                Some(&readme),
                "lesson-link",
                format!("({link}) points at an existing lesson file"),
                format!("{} does not exist", target.display()),
            );
            continue;
        };
        match anchor {
            None => report.error(
                name,
                Some(&readme),
                "lesson-link",
                format!("({link}) points at a section (#anchor)"),
                "a link to the whole lesson",
            ),
            Some(a) if !has_anchor(&lesson, a) => report.error(
                name,
                Some(&readme),
                "lesson-link",
                format!("a section #{a} in {}", target.display()),
                format!("no such heading; sections: {}", anchors(&lesson).join(", ")),
            ),
            Some(_) => {}
        }
    }
}

fn has_anchor(markdown: &str, anchor: &str) -> bool {
    let anchor = anchor.trim().trim_start_matches('#').to_lowercase();
    crate::lesson::headings(markdown)
        .iter()
        .any(|(_, a, _)| *a == anchor)
}

fn anchors(markdown: &str) -> Vec<String> {
    crate::lesson::headings(markdown)
        .into_iter()
        .filter(|(level, _, _)| *level <= 2)
        .map(|(_, a, _)| format!("#{a}"))
        .collect()
}

/// Link targets of inline Markdown links (`[text](target)`), titles dropped.
fn markdown_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            let target = target.trim_matches(|c| c == '<' || c == '>');
            if !target.is_empty() && !target.contains("://") {
                out.push(target.to_string());
            }
            rest = &rest[end..];
        }
    }
    out
}

/// `a/b/../c` → `a/c`; `None` when it climbs above the root.
fn normalize(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_and_normalizes_paths() {
        let md = "See [the lesson](../../lessons/src/01-x.md#hot-keys \"t\") and [web](https://x).";
        assert_eq!(
            markdown_links(md),
            vec!["../../lessons/src/01-x.md#hot-keys"]
        );
        assert_eq!(
            normalize(Path::new("exercises/k/../../lessons/src/a.md")),
            Some(PathBuf::from("lessons/src/a.md"))
        );
        assert_eq!(normalize(Path::new("exercises/../../x")), None);
    }
}
