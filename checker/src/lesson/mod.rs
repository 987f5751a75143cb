//! `katas lesson [N] [--section S]`: read a lesson in the terminal.
//!
//! The lessons are Markdown files, `lessons/src/NN-name.md`, written for mdBook and GitHub.
//! This module renders them for a terminal: headings in bold colour with a rule under the top
//! two levels, paragraphs wrapped to the window, bulleted and numbered lists with hanging
//! indents, tables as aligned columns (wrapped inside their cells when the window is narrow),
//! code blocks indented behind a bar with light syntax colouring, links followed by their
//! target, and images, which a terminal cannot show, as `[diagram: path]` plus their
//! alt text.
//!
//! [`render`] is pure (Markdown and a width in, styled lines out) so tests can check it;
//! [`show`] finds the lesson, cuts it at a section if asked, and pages the result — through
//! `$PAGER` or `less`, or the built-in pager (`pager.rs`: where `less` is missing, or
//! `KATAS_PAGER=builtin`), which knows where each section starts and opens its quiz on `z`.
//!
//! Design decisions:
//! - Sections are addressed by the anchors GitHub and mdBook give `#` headings (lower case,
//!   punctuation dropped, spaces turned into `-`), so the slug in a lesson link, in the
//!   coverage table and on the command line is the same string.
//! - Styling is plain ANSI SGR codes built here rather than a styling crate: the renderer only
//!   needs a handful of attributes, and plain codes keep `render`'s output easy to strip and
//!   compare in tests.
//! - Rustdoc's hidden lines (`# use …;`, a lone `#`) in Rust blocks are dropped, as mdBook
//!   does: the lessons compile their samples as doctests and hide the scaffolding. A block is
//!   Rust the way rustdoc decides it (`rust`, `rust,ignore`, `no_run`, no info string), and is
//!   labelled plain `rust` — doctest attributes mean nothing to a reader.
//! - Raw HTML is not shown: the lessons use it only for `<a id="…"></a>` anchors that keep old
//!   link targets working, and a terminal has nothing to show for them.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

mod code;
mod pager;
mod render;

use render::{strip_ansi, Renderer};

/// Where the lesson Markdown lives, relative to the repository root.
const LESSON_DIR: &str = "lessons/src";
/// Never wrap prose wider than this, however wide the terminal: long lines are hard to read.
const MAX_WIDTH: usize = 100;
/// Width used when the terminal size is unknown.
const DEFAULT_WIDTH: usize = 80;
/// Narrowest column a table cell is squeezed to before wrapping.
const MIN_CELL: usize = 6;

/// What the terminal shows once the reader quits the lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// The lesson stays on screen (`cargo katas lesson`: the shell prompt comes back under it).
    KeepText,
    /// The screen is as it was (watch mode: its own screen comes back, with no stale lines and
    /// no "press Enter").
    Clear,
}

/// Show a lesson (or, without `lesson`, list them), starting at `section` if given.
pub fn show(root: &Path, lesson: Option<&str>, section: Option<&str>) -> anyhow::Result<()> {
    show_as(root, lesson, section, Leave::KeepText)
}

/// [`show`], leaving the screen as `leave` says.
pub fn show_as(
    root: &Path,
    lesson: Option<&str>,
    section: Option<&str>,
    leave: Leave,
) -> anyhow::Result<()> {
    let lessons = lesson_files(root)?;
    let names: Vec<String> = lessons.iter().map(|(n, _)| n.clone()).collect();
    let Some(query) = lesson else {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Lessons (read one with `cargo katas lesson N`):")?;
        for (name, path) in &lessons {
            let title = std::fs::read_to_string(path)
                .ok()
                .and_then(|md| first_heading(&md))
                .unwrap_or_default();
            writeln!(out, "  {name:<20} {title}")?;
        }
        return Ok(());
    };
    let name = resolve_name(&names, query, "lesson")?;
    let path = &lessons[names.iter().position(|n| *n == name).unwrap_or(0)].1;
    let markdown =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let start = match section {
        Some(slug) => section_offset(&markdown, slug)
            .with_context(|| format!("no section {slug:?} in lesson {name}"))?,
        None => 0,
    };
    let base = root.join(LESSON_DIR);
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.to_path_buf());
    let paged = page_of(
        root,
        &name,
        &markdown,
        start,
        terminal_width(),
        Some((cwd, base)),
    );
    page(root, paged, leave)
}

/// Lesson `name` from byte `start` on (a heading, or 0), rendered for the pager: its lines,
/// and for each heading the line it starts on and the section whose quiz `z` opens there —
/// the heading's own if it or a section under it has questions, else the nearest section
/// above it (`##` and below) that has.
fn page_of(
    root: &Path,
    name: &str,
    markdown: &str,
    start: usize,
    width: usize,
    places: Option<(PathBuf, PathBuf)>,
) -> pager::Page {
    let (lines, heading_lines) = render_full(&markdown[start..], width, places);
    let quiz = crate::quiz::load(&crate::quiz::file_of(root, name)).ok();
    let all = headings(markdown);
    let has_questions = |anchor: &str| {
        quiz.as_ref()
            .is_some_and(|q| crate::quiz::questions_of_section(q, markdown, anchor).is_ok())
    };
    let first = all
        .iter()
        .position(|(_, _, at)| *at >= start)
        .unwrap_or(all.len());
    let sections = heading_lines
        .iter()
        .zip(first..)
        .map(|(&line, i)| {
            // This heading, then the headings it is under, nearest first.
            let mut level = u8::MAX;
            let quiz = all[..=i.min(all.len().saturating_sub(1))]
                .iter()
                .rev()
                .filter(|(l, _, _)| {
                    let above = *l < level;
                    if above {
                        level = *l;
                    }
                    above
                })
                .take_while(|(l, _, _)| *l >= 2)
                .find(|(_, anchor, _)| has_questions(anchor))
                .map(|(_, anchor, _)| anchor.clone());
            pager::Section { line, quiz }
        })
        .collect();
    pager::Page {
        lines,
        lesson: name.to_string(),
        sections,
    }
}

/// Where an image the lesson links as `url` (relative to `lesson_dir`) is, as a path from
/// `cwd`: `../../diagrams/x.svg` in `lessons/src` is `diagrams/x.svg` at the repository root
/// and `../../diagrams/x.svg` in `exercises/<kata>/`. Web addresses stay as they are.
pub fn image_path_from(cwd: &Path, lesson_dir: &Path, url: &str) -> String {
    if url.contains("://") || Path::new(url).is_absolute() {
        return url.to_string();
    }
    let target = normalize(&lesson_dir.join(url));
    let from = normalize(cwd);
    let common = target
        .components()
        .zip(from.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return target.display().to_string();
    }
    let mut out = std::path::PathBuf::new();
    for _ in from.components().skip(common) {
        out.push("..");
    }
    for c in target.components().skip(common) {
        out.push(c);
    }
    out.display().to_string()
}

/// `a/b/../c` → `a/c`, without touching the file system (the file may not exist).
fn normalize(p: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Render Markdown as lines of ANSI-styled text at most `width` columns wide (code blocks
/// excepted, which keep their lines).
pub fn render(markdown: &str, width: usize) -> Vec<String> {
    render_with(markdown, width, None)
}

/// [`render`], showing each image's target as a path from `places.0` (where the reader
/// stands) when the lesson in `places.1` links it relatively ([`image_path_from`]).
pub fn render_with(
    markdown: &str,
    width: usize,
    places: Option<(std::path::PathBuf, std::path::PathBuf)>,
) -> Vec<String> {
    render_full(markdown, width, places).0
}

/// [`render_with`], with the line each heading starts on.
fn render_full(
    markdown: &str,
    width: usize,
    places: Option<(PathBuf, PathBuf)>,
) -> (Vec<String>, Vec<usize>) {
    let mut r = Renderer::new(width.max(20));
    r.image_path = places;
    for event in Parser::new_ext(markdown, markdown_options()) {
        r.event(event);
    }
    r.flush();
    while r.lines.last().is_some_and(|l| l.is_empty()) {
        r.lines.pop();
    }
    (r.lines, r.heading_lines)
}

fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// The lesson files under `root`, sorted, as (name, path): `NN-*.md` in `lessons/src`.
fn lesson_files(root: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let dir = root.join(LESSON_DIR);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let numbered = stem.len() > 3
            && stem.as_bytes()[..2].iter().all(u8::is_ascii_digit)
            && stem.as_bytes()[2] == b'-';
        if numbered && path.extension().is_some_and(|e| e == "md") {
            files.push((stem.to_string(), path.clone()));
        }
    }
    files.sort();
    if files.is_empty() {
        bail!("no lessons found in {}", dir.display());
    }
    Ok(files)
}

/// Resolve "1", "01", "01-foundations" or a unique prefix against `names`. Shared with the
/// quiz command, whose files are named like the lessons.
pub(crate) fn resolve_name(names: &[String], query: &str, what: &str) -> anyhow::Result<String> {
    let q = query.trim().to_lowercase();
    if let Some(exact) = names.iter().find(|n| n.to_lowercase() == q) {
        return Ok(exact.clone());
    }
    if let Ok(n) = q.parse::<u32>() {
        let prefix = format!("{n:02}-");
        if let Some(found) = names.iter().find(|name| name.starts_with(&prefix)) {
            return Ok(found.clone());
        }
    }
    let matches: Vec<&String> = names
        .iter()
        .filter(|n| n.to_lowercase().starts_with(&q) || name_part(n).starts_with(&q))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => bail!(
            "no {what} {query:?}; did you mean {}? (available: {})",
            closest(names, &q).unwrap_or("?"),
            names.join(", ")
        ),
        many => bail!(
            "{what} {query:?} is ambiguous: {}",
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `01-foundations` → `foundations`.
fn name_part(name: &str) -> String {
    name.split_once('-')
        .map_or(name, |(_, rest)| rest)
        .to_lowercase()
}

/// The candidate closest to `query`: smallest edit distance to the whole name, its name part
/// (`foundations`) or its prefix of the query's length (so `capcity` finds `capacity-modes`).
fn closest<'a>(candidates: &'a [String], query: &str) -> Option<&'a str> {
    let n = query.chars().count();
    candidates
        .iter()
        .min_by_key(|c| {
            let lower = c.to_lowercase();
            let prefix: String = lower.chars().take(n).collect();
            let part: String = name_part(c).chars().take(n).collect();
            edit_distance(&lower, query)
                .min(edit_distance(&name_part(c), query))
                .min(edit_distance(&prefix, query))
                .min(edit_distance(&part, query))
        })
        .map(String::as_str)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The anchor GitHub and mdBook give a heading: lower case; letters, digits, `-` and `_`
/// kept; spaces become `-`; everything else (punctuation, emoji) dropped.
pub(crate) fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every heading of `markdown` as (level, anchor, byte offset), anchors made unique the way
/// GitHub does (`x`, `x-1`, `x-2`…).
pub(crate) fn headings(markdown: &str) -> Vec<(u8, String, usize)> {
    let mut out: Vec<(u8, String, usize)> = Vec::new();
    let mut current: Option<(u8, String, usize)> = None;
    for (event, range) in Parser::new_ext(markdown, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                current = Some((level as u8, String::new(), range.start));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, text, _)) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, start)) = current.take() {
                    let base = slug(&text);
                    let mut anchor = base.clone();
                    let mut n = 0;
                    while out.iter().any(|(_, a, _)| *a == anchor) {
                        n += 1;
                        anchor = format!("{base}-{n}");
                    }
                    out.push((level, anchor, start));
                }
            }
            _ => {}
        }
    }
    out
}

fn first_heading(markdown: &str) -> Option<String> {
    let mut inside = false;
    let mut text = String::new();
    for event in Parser::new_ext(markdown, markdown_options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => inside = true,
            Event::Text(t) | Event::Code(t) if inside => text.push_str(&t),
            Event::End(TagEnd::Heading(_)) => return Some(text),
            _ => {}
        }
    }
    None
}

/// Byte offset of the heading whose anchor is `wanted` (a leading `#` is ignored).
fn section_offset(markdown: &str, wanted: &str) -> anyhow::Result<usize> {
    let wanted = wanted.trim().trim_start_matches('#').to_lowercase();
    let all = headings(markdown);
    if let Some((_, _, start)) = all.iter().find(|(_, a, _)| *a == wanted) {
        return Ok(*start);
    }
    // Accept a unique prefix (`--section under-the-hood`).
    let prefixed: Vec<_> = all
        .iter()
        .filter(|(_, a, _)| a.starts_with(&wanted))
        .collect();
    if let [(_, _, start)] = prefixed.as_slice() {
        return Ok(*start);
    }
    let anchors: Vec<String> = all
        .iter()
        .filter(|(level, _, _)| *level == 2)
        .map(|(_, a, _)| a.clone())
        .collect();
    bail!(
        "did you mean {}? (sections: {})",
        closest(&anchors, &wanted).unwrap_or("?"),
        anchors.join(", ")
    )
}

fn terminal_width() -> usize {
    crossterm::terminal::size()
        .map(|(w, _)| usize::from(w))
        .unwrap_or(DEFAULT_WIDTH)
        .clamp(40, MAX_WIDTH)
}

// ---------------------------------------------------------------------------------------------
// Paging
// ---------------------------------------------------------------------------------------------

/// Page a lesson: `$PAGER`, else `less -R`, else the built-in pager (at once with
/// `KATAS_PAGER=builtin`: the one with a key for the quiz); plain printing when stdout is not a
/// terminal (or colour is off via `NO_COLOR`, which also strips the styling).
fn page(root: &Path, paged: pager::Page, leave: Leave) -> anyhow::Result<()> {
    let lines = &paged.lines;
    let stdout = std::io::stdout();
    let color = std::env::var_os("NO_COLOR").is_none();
    let text: String = lines
        .iter()
        .map(|l| {
            let l = if color { l.clone() } else { strip_ansi(l) };
            l + "\n"
        })
        .collect();
    if !stdout.is_terminal() {
        return write_ignoring_broken_pipe(&mut stdout.lock(), &strip_ansi(&text));
    }
    if std::env::var("KATAS_PAGER").is_ok_and(|p| p.trim() == "builtin") {
        return pager::show(root, paged);
    }
    if let Ok(pager) = std::env::var("PAGER") {
        if !pager.trim().is_empty() {
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(&pager);
            if pipe_to(cmd, &text).is_ok() {
                return Ok(());
            }
        }
    }
    let mut less = Command::new("less");
    less.arg("-R");
    if std::env::var_os("LESS").is_none() {
        less.env(
            "LESS",
            match leave {
                // As git does: quit if one screen is enough, keep the text on screen after.
                Leave::KeepText => "FRX",
                // Its own screen, left with q, and the caller's screen back as it was.
                Leave::Clear => "R",
            },
        );
    }
    if pipe_to(less, &text).is_ok() {
        return Ok(());
    }
    pager::show(root, paged).or_else(|_| write_ignoring_broken_pipe(&mut stdout.lock(), &text))
}

fn pipe_to(mut cmd: Command, text: &str) -> anyhow::Result<()> {
    let mut child = cmd.stdin(Stdio::piped()).spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // The reader may quit before reading everything: a broken pipe is not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    child.wait()?;
    Ok(())
}

fn write_ignoring_broken_pipe(out: &mut dyn Write, text: &str) -> anyhow::Result<()> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod path_tests {
    use super::image_path_from;
    use std::path::Path;

    #[test]
    fn a_diagram_path_is_given_from_where_the_reader_stands() {
        let lessons = Path::new("/repo/lessons/src");
        let url = "../../diagrams/01-hot-keys.svg";
        let at = |cwd: &str| image_path_from(Path::new(cwd), lessons, url);
        assert_eq!(at("/repo"), "diagrams/01-hot-keys.svg");
        assert_eq!(
            at("/repo/exercises/single-table"),
            "../../diagrams/01-hot-keys.svg"
        );
        assert_eq!(at("/repo/lessons/src"), url);
        assert_eq!(at("/elsewhere"), "../repo/diagrams/01-hot-keys.svg");
        assert_eq!(
            image_path_from(Path::new("/repo"), lessons, "https://x.invalid/a.svg"),
            "https://x.invalid/a.svg"
        );
    }
}
