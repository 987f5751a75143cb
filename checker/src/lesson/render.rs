//! Markdown → styled terminal lines: headings, emphasis, lists, block quotes, tables as
//! aligned columns, code blocks (highlighted, rustdoc's hidden lines dropped), links and images.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Tag, TagEnd};

use super::code::{code_language, highlight, is_rustdoc_hidden};
use super::MIN_CELL;
pub(super) use crate::text::strip_ansi;
use crate::text::width as display_width;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Style {
    pub(super) bold: bool,
    pub(super) italic: bool,
    pub(super) underline: bool,
    pub(super) strike: bool,
    pub(super) dim: bool,
    /// ANSI foreground colour code (31–37, 90–97).
    pub(super) fg: Option<u8>,
}

pub(super) const GREEN: u8 = 32;
pub(super) const YELLOW: u8 = 33;
pub(super) const BLUE: u8 = 34;
pub(super) const MAGENTA: u8 = 35;
pub(super) const CYAN: u8 = 36;

impl Style {
    pub(super) fn fg(self, color: u8) -> Self {
        Style {
            fg: Some(color),
            ..self
        }
    }
    pub(super) fn paint(self, text: &str) -> String {
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

pub(super) fn dim() -> Style {
    Style {
        dim: true,
        ..Style::default()
    }
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
pub(super) struct Renderer {
    width: usize,
    pub(super) lines: Vec<String>,
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
    /// The line each heading starts on, in document order (the pager's sections).
    pub(super) heading_lines: Vec<usize>,
    /// The current list item has not produced a block yet (no gap before its first one).
    item_fresh: bool,
    /// Turns an image's target (relative to the lesson's folder) into the path shown, one the
    /// reader can open from where they stand; `None` shows it as written.
    /// (where the reader stands, the lesson's folder).
    pub(super) image_path: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

impl Renderer {
    pub(super) fn new(width: usize) -> Self {
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
            heading_lines: Vec::new(),
            item_fresh: false,
            image_path: None,
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
    pub(super) fn flush(&mut self) {
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

    pub(super) fn event(&mut self, event: Event<'_>) {
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
                self.heading_lines.push(self.lines.len());
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
        let url = match &self.image_path {
            Some((cwd, lesson_dir)) => super::image_path_from(cwd, lesson_dir, &url),
            None => url,
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
