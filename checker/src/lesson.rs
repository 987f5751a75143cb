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
//! [`show`] finds the lesson, cuts it at a section if asked, and pages the result.
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
use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use unicode_width::UnicodeWidthStr;

/// Where the lesson Markdown lives, relative to the repository root.
const LESSON_DIR: &str = "lessons/src";
/// Never wrap prose wider than this, however wide the terminal: long lines are hard to read.
const MAX_WIDTH: usize = 100;
/// Width used when the terminal size is unknown.
const DEFAULT_WIDTH: usize = 80;
/// Narrowest column a table cell is squeezed to before wrapping.
const MIN_CELL: usize = 6;

const PAGER_HELP: &str = "space/f: next page  b: previous  j/k: line  g/G: top/end  q: quit";

/// Show a lesson (or, without `lesson`, list them), starting at `section` if given.
pub fn show(root: &Path, lesson: Option<&str>, section: Option<&str>) -> anyhow::Result<()> {
    let lessons = lesson_files(root)?;
    let names: Vec<String> = lessons.iter().map(|(n, _)| n.clone()).collect();
    let Some(query) = lesson else {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Lessons (read one with `katas lesson N`):")?;
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
    let text = match section {
        Some(slug) => {
            let start = section_offset(&markdown, slug)
                .with_context(|| format!("no section {slug:?} in lesson {name}"))?;
            &markdown[start..]
        }
        None => &markdown[..],
    };
    page(&render(text, terminal_width()))
}

/// Render Markdown as lines of ANSI-styled text at most `width` columns wide (code blocks
/// excepted, which keep their lines).
pub fn render(markdown: &str, width: usize) -> Vec<String> {
    let mut r = Renderer::new(width.max(20));
    for event in Parser::new_ext(markdown, markdown_options()) {
        r.event(event);
    }
    r.flush();
    while r.lines.last().is_some_and(|l| l.is_empty()) {
        r.lines.pop();
    }
    r.lines
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

/// Page `lines`: `$PAGER`, else `less -R`, else a built-in pager; plain printing when stdout is
/// not a terminal (or colour is off via `NO_COLOR`, which also strips the styling).
fn page(lines: &[String]) -> anyhow::Result<()> {
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
        // As git does: quit if one screen is enough, keep the text on screen after quitting.
        less.env("LESS", "FRX");
    }
    if pipe_to(less, &text).is_ok() {
        return Ok(());
    }
    builtin_pager(lines).or_else(|_| write_ignoring_broken_pipe(&mut stdout.lock(), &text))
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

/// Restores the terminal however the pager loop ends.
struct RawScreen;

impl RawScreen {
    fn enter() -> anyhow::Result<Self> {
        crossterm::terminal::enable_raw_mode()?;
        let guard = RawScreen;
        crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::cursor::Hide
        )?;
        Ok(guard)
    }
}

impl Drop for RawScreen {
    fn drop(&mut self) {
        let _ = crossterm::execute!(
            std::io::stdout(),
            crossterm::cursor::Show,
            crossterm::terminal::LeaveAlternateScreen
        );
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

fn builtin_pager(lines: &[String]) -> anyhow::Result<()> {
    use crossterm::event::{read, Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
    use crossterm::{cursor::MoveTo, queue, terminal::Clear, terminal::ClearType};

    let _screen = RawScreen::enter()?;
    let mut top = 0usize;
    loop {
        let (_, rows) = crossterm::terminal::size()?;
        let body = usize::from(rows).saturating_sub(1).max(1);
        let last_top = lines.len().saturating_sub(body);
        top = top.min(last_top);
        let mut out = std::io::stdout().lock();
        queue!(out, Clear(ClearType::All), MoveTo(0, 0))?;
        for line in lines.iter().skip(top).take(body) {
            write!(out, "{line}\r\n")?;
        }
        queue!(out, MoveTo(0, rows.saturating_sub(1)))?;
        let end = (top + body).min(lines.len());
        write!(
            out,
            "\x1b[7m lines {}-{end} of {}  {PAGER_HELP} \x1b[0m",
            top + 1,
            lines.len()
        )?;
        out.flush()?;
        drop(out);
        let TermEvent::Key(key) = read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => return Ok(()),
            KeyCode::Char(' ') | KeyCode::Char('f') | KeyCode::PageDown => {
                if top >= last_top {
                    return Ok(());
                }
                top += body.saturating_sub(1).max(1);
            }
            KeyCode::Char('b') | KeyCode::PageUp => {
                top = top.saturating_sub(body.saturating_sub(1).max(1))
            }
            KeyCode::Char('j') | KeyCode::Down | KeyCode::Enter => top += 1,
            KeyCode::Char('k') | KeyCode::Up => top = top.saturating_sub(1),
            KeyCode::Char('g') | KeyCode::Home => top = 0,
            KeyCode::Char('G') | KeyCode::End => top = last_top,
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Styling
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Style {
    bold: bool,
    italic: bool,
    underline: bool,
    strike: bool,
    dim: bool,
    /// ANSI foreground colour code (31–37, 90–97).
    fg: Option<u8>,
}

const GREEN: u8 = 32;
const YELLOW: u8 = 33;
const BLUE: u8 = 34;
const MAGENTA: u8 = 35;
const CYAN: u8 = 36;

impl Style {
    fn fg(self, color: u8) -> Self {
        Style {
            fg: Some(color),
            ..self
        }
    }
    fn paint(self, text: &str) -> String {
        if self == Style::default() || text.is_empty() {
            return text.to_string();
        }
        let mut codes: Vec<String> = Vec::new();
        for (on, code) in [
            (self.bold, "1"),
            (self.dim, "2"),
            (self.italic, "3"),
            (self.underline, "4"),
            (self.strike, "9"),
        ] {
            if on {
                codes.push(code.to_string());
            }
        }
        if let Some(c) = self.fg {
            codes.push(c.to_string());
        }
        format!("\x1b[{}m{text}\x1b[0m", codes.join(";"))
    }
}

fn dim() -> Style {
    Style {
        dim: true,
        ..Style::default()
    }
}

/// Remove ANSI SGR sequences.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn display_width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

// ---------------------------------------------------------------------------------------------
// Inline text and wrapping
// ---------------------------------------------------------------------------------------------

/// Inline content of a paragraph, heading, list item or table cell.
#[derive(Debug, Clone)]
enum Piece {
    Text(String, Style),
    Break,
}

/// A word: runs of styled text with no whitespace between them.
type Word = Vec<(String, Style)>;

fn word_width(w: &Word) -> usize {
    w.iter().map(|(t, _)| display_width(t)).sum()
}

/// Split pieces into lines of words (a `Break` starts a new line).
fn words(pieces: &[Piece]) -> Vec<Vec<Word>> {
    let mut lines = vec![Vec::new()];
    let mut word: Word = Vec::new();
    fn end_word(lines: &mut [Vec<Word>], word: &mut Word) {
        if !word.is_empty() {
            if let Some(line) = lines.last_mut() {
                line.push(std::mem::take(word));
            }
        }
    }
    for piece in pieces {
        match piece {
            Piece::Break => {
                end_word(&mut lines, &mut word);
                lines.push(Vec::new());
            }
            Piece::Text(text, style) => {
                let mut run = String::new();
                for c in text.chars() {
                    if c.is_whitespace() {
                        if !run.is_empty() {
                            word.push((std::mem::take(&mut run), *style));
                        }
                        end_word(&mut lines, &mut word);
                    } else {
                        run.push(c);
                    }
                }
                if !run.is_empty() {
                    word.push((run, *style));
                }
            }
        }
    }
    end_word(&mut lines, &mut word);
    lines
}

/// A line being built: styled runs, adjacent runs of one style merged.
#[derive(Debug, Default)]
struct LineBuf {
    runs: Vec<(String, Style)>,
    width: usize,
}

impl LineBuf {
    fn push(&mut self, text: &str, style: Style) {
        match self.runs.last_mut() {
            Some((t, s)) if *s == style => t.push_str(text),
            _ => self.runs.push((text.to_string(), style)),
        }
        self.width += display_width(text);
    }

    /// A space between words takes the style around it when both sides agree (so an
    /// underlined link stays underlined across its words).
    fn space_before(&mut self, next: Style) {
        let style = match self.runs.last() {
            Some((_, s)) if *s == next => next,
            _ => Style::default(),
        };
        self.push(" ", style);
    }

    fn take(&mut self) -> (String, usize) {
        let line = self.runs.iter().map(|(t, s)| s.paint(t)).collect();
        let width = self.width;
        *self = LineBuf::default();
        (line, width)
    }
}

/// Greedy word wrap to `width` columns; returns (styled line, display width).
fn wrap(pieces: &[Piece], width: usize) -> Vec<(String, usize)> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line_words in words(pieces) {
        let mut line = LineBuf::default();
        for word in line_words {
            let w = word_width(&word);
            let first_style = word.first().map(|(_, s)| *s).unwrap_or_default();
            if line.width > 0 && line.width + 1 + w <= width {
                line.space_before(first_style);
            } else if line.width > 0 {
                out.push(line.take());
            }
            if w <= width {
                for (text, style) in &word {
                    line.push(text, *style);
                }
                continue;
            }
            // A word longer than the line: cut it into line-sized chunks.
            for (text, style) in word {
                for c in text.chars() {
                    let mut buf = [0; 4];
                    let c = c.encode_utf8(&mut buf);
                    if line.width > 0 && line.width + display_width(c) > width {
                        out.push(line.take());
                    }
                    line.push(c, style);
                }
            }
        }
        out.push(line.take());
    }
    out
}

fn plain_text(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t, _) => t.as_str(),
            Piece::Break => " ",
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The renderer
// ---------------------------------------------------------------------------------------------

/// A line prefix owned by an enclosing block: a list marker (first line) and its hanging
/// indent (following lines), or a block-quote bar.
#[derive(Debug)]
struct Prefix {
    first: String,
    rest: String,
    used: bool,
}

#[derive(Debug, Default)]
struct TableState {
    align: Vec<Alignment>,
    rows: Vec<Vec<Vec<Piece>>>,
    row: Vec<Vec<Piece>>,
}

#[derive(Debug)]
struct Renderer {
    width: usize,
    lines: Vec<String>,
    prefixes: Vec<Prefix>,
    inline: Vec<Piece>,
    styles: Vec<Style>,
    lists: Vec<Option<u64>>,
    links: Vec<String>,
    /// Inside an image: (target, alt text so far).
    image: Option<(String, String)>,
    /// Inside a code block: (language, text so far).
    code: Option<(String, String)>,
    table: Option<TableState>,
    heading: Option<HeadingLevel>,
    /// The current list item has not produced a block yet (no gap before its first one).
    item_fresh: bool,
}

impl Renderer {
    fn new(width: usize) -> Self {
        Renderer {
            width,
            lines: Vec::new(),
            prefixes: Vec::new(),
            inline: Vec::new(),
            styles: vec![Style::default()],
            lists: Vec::new(),
            links: Vec::new(),
            image: None,
            code: None,
            table: None,
            heading: None,
            item_fresh: false,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, f: impl FnOnce(Style) -> Style) {
        let next = f(self.style());
        self.styles.push(next);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, text: &str, style: Style) {
        self.inline.push(Piece::Text(text.to_string(), style));
    }

    fn prefix_width(&self) -> usize {
        self.prefixes.iter().map(|p| display_width(&p.rest)).sum()
    }

    fn available(&self) -> usize {
        self.width.saturating_sub(self.prefix_width()).max(10)
    }

    fn take_prefix(&mut self) -> String {
        let mut s = String::new();
        for p in &mut self.prefixes {
            if p.used {
                s.push_str(&p.rest);
            } else {
                s.push_str(&p.first);
                p.used = true;
            }
        }
        s
    }

    fn emit(&mut self, content: &str) {
        let prefix = self.take_prefix();
        let line = format!("{prefix}{content}");
        self.lines.push(line.trim_end().to_string());
    }

    fn blank(&mut self) {
        if self.lines.last().is_some_and(|l| !l.is_empty()) {
            self.lines.push(String::new());
        }
    }

    /// Separate a new block from the previous one, except as the first block of a list item.
    fn block_gap(&mut self) {
        if self.item_fresh {
            self.item_fresh = false;
        } else {
            self.blank();
        }
    }

    /// Wrap and emit pending inline content.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let pieces = std::mem::take(&mut self.inline);
        if plain_text(&pieces).trim().is_empty() {
            return;
        }
        for (line, _) in wrap(&pieces, self.available()) {
            self.emit(&line);
        }
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some((_, text)) = self.code.as_mut() {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => self.end_code(),
                _ => {}
            }
            return;
        }
        if let Some((_, alt)) = self.image.as_mut() {
            match event {
                Event::Text(t) | Event::Code(t) => alt.push_str(&t),
                Event::End(TagEnd::Image) => self.end_image(),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t, self.style()),
            Event::Code(t) => self.text(&t, self.style().fg(YELLOW)),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t, self.style()),
            Event::SoftBreak => self.text(" ", self.style()),
            Event::HardBreak => self.inline.push(Piece::Break),
            Event::Rule => {
                self.flush();
                self.block_gap();
                let rule = "─".repeat(self.available());
                self.emit(&dim().paint(&rule));
            }
            Event::TaskListMarker(done) => {
                self.text(if done { "[x] " } else { "[ ] " }, self.style());
            }
            Event::FootnoteReference(label) => {
                self.text(&format!("[^{label}]"), self.style().fg(BLUE));
            }
            Event::Html(html) | Event::InlineHtml(html) => self.html(&html),
        }
    }

    fn html(&mut self, html: &str) {
        let t = html.trim();
        if t.starts_with("<!--") {
            return;
        }
        if t.eq_ignore_ascii_case("<br>") || t.eq_ignore_ascii_case("<br/>") {
            self.inline.push(Piece::Break);
        }
        // Other HTML tags carry no text worth showing in a terminal.
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                self.flush();
                self.block_gap();
            }
            Tag::Heading { level, .. } => {
                self.flush();
                self.item_fresh = false;
                self.blank();
                self.heading = Some(level);
                let color = match level {
                    HeadingLevel::H1 => MAGENTA,
                    HeadingLevel::H2 => CYAN,
                    _ => GREEN,
                };
                self.push_style(|s| Style {
                    bold: true,
                    ..s.fg(color)
                });
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.block_gap();
                let bar = dim().paint("│ ");
                self.prefixes.push(Prefix {
                    first: bar.clone(),
                    rest: bar,
                    used: false,
                });
                self.push_style(|s| Style { italic: true, ..s });
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                self.block_gap();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(first) => {
                self.flush();
                if self.lists.is_empty() {
                    self.block_gap();
                }
                self.item_fresh = false;
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => format!("{} ", ["•", "◦", "▪"][(depth.max(1) - 1) % 3]),
                };
                let rest = " ".repeat(display_width(&marker));
                let first = Style::default().fg(BLUE).paint(&marker);
                self.prefixes.push(Prefix {
                    first,
                    rest,
                    used: false,
                });
                self.item_fresh = true;
            }
            Tag::Table(align) => {
                self.flush();
                self.block_gap();
                self.table = Some(TableState {
                    align,
                    ..TableState::default()
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.row.clear();
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.push_style(|s| Style { italic: true, ..s }),
            Tag::Strong => self.push_style(|s| Style { bold: true, ..s }),
            Tag::Strikethrough => self.push_style(|s| Style { strike: true, ..s }),
            Tag::Link { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(|s| Style {
                    underline: true,
                    ..s.fg(BLUE)
                });
            }
            Tag::Image { dest_url, .. } => self.image = Some((dest_url.to_string(), String::new())),
            Tag::FootnoteDefinition(label) => {
                self.flush();
                self.block_gap();
                self.text(&format!("[^{label}]: "), self.style().fg(BLUE));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::FootnoteDefinition => self.flush(),
            TagEnd::Heading(level) => {
                let pieces = std::mem::take(&mut self.inline);
                let style = self.style();
                self.pop_style();
                self.heading = None;
                let mut widest = 0;
                for (line, w) in wrap(&pieces, self.available()) {
                    widest = widest.max(w);
                    self.emit(&line);
                }
                let rule = match level {
                    HeadingLevel::H1 => Some("═"),
                    HeadingLevel::H2 => Some("─"),
                    _ => None,
                };
                if let Some(r) = rule {
                    self.emit(
                        &Style {
                            bold: false,
                            ..style
                        }
                        .paint(&r.repeat(widest)),
                    );
                }
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.prefixes.pop();
                self.pop_style();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => {
                self.flush();
                if let Some(p) = self.prefixes.last() {
                    if !p.used {
                        self.emit("");
                    }
                }
                self.prefixes.pop();
                self.item_fresh = false;
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(t) = self.table.as_mut() {
                    t.row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.end_table(t);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                let url = self.links.pop().unwrap_or_default();
                let shown = plain_text(&self.inline);
                if !url.is_empty() && !shown.trim_end().ends_with(url.as_str()) {
                    self.text(&format!(" ({url})"), dim());
                }
            }
            _ => {}
        }
    }

    fn end_image(&mut self) {
        let Some((url, alt)) = self.image.take() else {
            return;
        };
        self.text(
            &format!("[diagram: {url}]"),
            Style {
                bold: true,
                ..Style::default().fg(MAGENTA)
            },
        );
        if !alt.trim().is_empty() {
            self.text(
                &format!(" {}", alt.trim()),
                Style {
                    italic: true,
                    ..dim()
                },
            );
        }
    }

    fn end_code(&mut self) {
        let Some((info, text)) = self.code.take() else {
            return;
        };
        let lang = code_language(&info);
        let bar = dim().paint("│ ");
        if !lang.is_empty() {
            let label = format!("{}{}", " ".repeat(2), dim().paint(&lang));
            self.emit(&label);
        }
        for line in text.trim_end_matches('\n').lines() {
            if matches!(lang.as_str(), "rust" | "rs") && is_rustdoc_hidden(line) {
                continue;
            }
            let line =
                if matches!(lang.as_str(), "rust" | "rs") && line.trim_start().starts_with("##") {
                    line.replacen("##", "#", 1)
                } else {
                    line.to_string()
                };
            let code = highlight(&lang, &line.replace('\t', "    "));
            self.emit(&format!("  {bar}{code}"));
        }
        self.blank();
    }

    fn end_table(&mut self, t: TableState) {
        let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let natural: Vec<usize> = (0..cols)
            .map(|c| {
                t.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|cell| {
                        wrap(cell, usize::MAX)
                            .iter()
                            .map(|(_, w)| *w)
                            .max()
                            .unwrap_or(0)
                    })
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let sep = " │ ";
        let avail = self.available().saturating_sub(3 * (cols - 1));
        let widths = fit_columns(&natural, avail);
        for (i, row) in t.rows.iter().enumerate() {
            let cells: Vec<Vec<(String, usize)>> = (0..cols)
                .map(|c| {
                    row.get(c)
                        .map_or_else(|| vec![(String::new(), 0)], |cell| wrap(cell, widths[c]))
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for l in 0..height {
                let parts: Vec<String> = (0..cols)
                    .map(|c| {
                        let (text, w) = cells[c].get(l).cloned().unwrap_or_default();
                        let text = if i == 0 {
                            Style {
                                bold: true,
                                ..Style::default()
                            }
                            .paint(&strip_ansi(&text))
                        } else {
                            text
                        };
                        pad(
                            &text,
                            w,
                            widths[c],
                            t.align.get(c).copied().unwrap_or(Alignment::None),
                        )
                    })
                    .collect();
                self.emit(&parts.join(&dim().paint(sep)));
            }
            if i == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.emit(&dim().paint(&rule.join("─┼─")));
            }
        }
        self.blank();
    }
}

/// Column widths that fit `avail`: columns wider than a common cap are shrunk to it (never
/// below [`MIN_CELL`]), narrow columns keep their natural width.
fn fit_columns(natural: &[usize], avail: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= avail {
        return natural.to_vec();
    }
    let mut cap = natural.iter().copied().max().unwrap_or(1);
    while cap > MIN_CELL && natural.iter().map(|w| (*w).min(cap)).sum::<usize>() > avail {
        cap -= 1;
    }
    natural.iter().map(|w| (*w).min(cap)).collect()
}

fn pad(text: &str, width: usize, target: usize, align: Alignment) -> String {
    let space = target.saturating_sub(width);
    let (left, right) = match align {
        Alignment::Right => (space, 0),
        Alignment::Center => (space / 2, space - space / 2),
        Alignment::Left | Alignment::None => (0, space),
    };
    format!("{}{text}{}", " ".repeat(left), " ".repeat(right))
}

/// Rustdoc's code block attributes: a block whose info string holds only these (or nothing)
/// is Rust to rustdoc, so the lessons' doctests compile it.
const DOCTEST_ATTRIBUTES: &[&str] = &[
    "ignore",
    "no_run",
    "should_panic",
    "compile_fail",
    "test_harness",
    "standalone_crate",
];

/// The language of a code block from its info string, the way rustdoc reads it: `rust`,
/// `rust,ignore`, `no_run` or an empty info string are all Rust (shown as `rust`, hidden
/// lines dropped); otherwise the first word (`text`, `sh`…), lower-cased.
fn code_language(info: &str) -> String {
    let words: Vec<String> = info
        .split([',', ' ', '\t'])
        .map(|w| w.trim().to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let doctest_attribute = |w: &String| {
        DOCTEST_ATTRIBUTES.contains(&w.as_str())
            || w.starts_with("ignore-")
            || w.starts_with("edition")
    };
    if words.iter().any(|w| w == "rust") || words.iter().all(doctest_attribute) {
        return "rust".to_string();
    }
    words.into_iter().next().unwrap_or_default()
}

fn is_rustdoc_hidden(line: &str) -> bool {
    let t = line.trim_start();
    t == "#" || (t.starts_with("# ") || t.starts_with("#\t")) && !t.starts_with("##")
}

const RUST_KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "function",
    "var",
    "new",
    "import",
    "from",
    "export",
    "class",
    "null",
    "undefined",
    "this",
    "try",
    "catch",
    "throw",
];

/// Light, line-by-line syntax colouring: comments, strings, numbers, keywords, macros and
/// type names. Good enough for short lesson samples; no attempt at a full lexer.
fn highlight(lang: &str, line: &str) -> String {
    let (line_comment, keywords): (&str, &[&str]) = match lang {
        "rust" | "rs" | "js" | "javascript" | "ts" | "typescript" | "java" | "go" | "c" => {
            ("//", RUST_KEYWORDS)
        }
        "sh" | "bash" | "shell" | "console" | "toml" | "yaml" | "yml" | "python" | "py" => {
            ("#", &[])
        }
        _ => return line.to_string(),
    };
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let comment = Style {
        italic: true,
        ..dim()
    };
    while i < chars.len() {
        let rest: String = chars[i..].iter().collect();
        if rest.starts_with(line_comment)
            && (line_comment != "#" || i == 0 || chars[i - 1].is_whitespace())
        {
            out.push_str(&comment.paint(&rest));
            break;
        }
        let c = chars[i];
        if c == '"' || (c == '\'' && lang != "rust" && lang != "rs") {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.push_str(
                &Style::default()
                    .fg(GREEN)
                    .paint(&chars[i..end].iter().collect::<String>()),
            );
            i = end;
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let style = if c.is_ascii_digit() {
                Style::default().fg(MAGENTA)
            } else if keywords.contains(&word.as_str()) {
                Style {
                    bold: true,
                    ..Style::default().fg(BLUE)
                }
            } else if chars.get(j) == Some(&'!') && !keywords.is_empty() {
                Style::default().fg(CYAN)
            } else if c.is_uppercase() && !keywords.is_empty() {
                Style::default().fg(YELLOW)
            } else {
                Style::default()
            };
            out.push_str(&style.paint(&word));
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}
