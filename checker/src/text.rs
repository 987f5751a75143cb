//! Terminal text: display width, ANSI escapes, and wrapping to the terminal's width.
//!
//! Every screen the checker draws goes through here, so a 60-column terminal gets lines of at
//! most 60 columns everywhere (verdicts, hints, the key bar), broken between words.
//!
//! ```text
//!   "  the handler applied record 7 twice: a new_image with the same event id…"   (100 cols)
//!        │ reflow: lines the test kit broke at 100 columns join back into a paragraph
//!        ▼
//!   "  the handler applied record 7 twice: a"      wrap: at the width, between words,
//!   "  new_image with the same event id…"          continuation lines keep the indent
//! ```
//!
//! Design decision: wrapping keeps colours. A line coloured as a whole (`\e[31m- x\e[0m`)
//! that breaks in two ends the first part with a reset and opens the second with the escapes
//! still in force, so neither half bleeds colour into the key bar or loses its own.
//!
//! Who else wraps, and why they stay apart:
//! - the test kit (`katas_testkit::wrap`) pre-wraps failure messages at [`PREWRAP_WIDTH`]
//!   columns for a reader of raw test output. It cannot use this module: the hidden tests link
//!   the test kit, not the checker, and linking the checker would put clap, crossterm and notify
//!   into every kata's build. [`reflow`] joins what it broke, so its width never shows here.
//! - the lesson renderer (`lesson::render`) wraps styled runs *before* they are painted, with
//!   prefixes owned by the enclosing blocks (list markers, quote bars, table cells); it
//!   measures with [`width`] and strips with [`strip_ansi`], so widths agree with every other
//!   screen.
//!
//! Left out on purpose: hyphenation, and any escape other than CSI sequences (`ESC [ … letter`)
//! and OSC 8 links (`ESC ] … ESC \`), which are all the checker writes.

use unicode_width::UnicodeWidthChar;

/// Columns the test kit pre-wraps failure messages at (`katas_testkit::WRAP_WIDTH`): a line it
/// broke there is the start of a paragraph that [`reflow`] joins back.
pub const PREWRAP_WIDTH: usize = 100;

/// Removes ANSI escape sequences (CSI such as colours, and OSC such as links).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for piece in pieces(s) {
        if let Piece::Char(c) = piece {
            out.push(c);
        }
    }
    out
}

/// `label` as a link to the file at `path` (OSC 8) where the terminal is known to show such
/// links ([`links_supported`]); elsewhere `label` alone, since a terminal that does not know
/// OSC 8 may print it.
pub fn link(label: &str, path: &std::path::Path) -> String {
    if !links_supported() {
        return label.to_string();
    }
    let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    format!(
        "\u{1b}]8;;file://{}\u{1b}\\{label}\u{1b}]8;;\u{1b}\\",
        abs.display()
    )
}

/// Whether the terminal shows OSC 8 links: `KATAS_LINKS=1` or `0` decides; otherwise the
/// terminals that say who they are and show links (iTerm2, WezTerm, VS Code, Windows
/// Terminal, kitty, GNOME Terminal and other VTE ≥ 0.50).
pub fn links_supported() -> bool {
    let var = |k: &str| std::env::var(k).ok();
    if let Some(v) = var("KATAS_LINKS") {
        return v == "1";
    }
    matches!(
        var("TERM_PROGRAM").as_deref(),
        Some("iTerm.app" | "WezTerm" | "vscode")
    ) || var("WT_SESSION").is_some()
        || var("KITTY_WINDOW_ID").is_some()
        || var("VTE_VERSION")
            .and_then(|v| v.parse::<u32>().ok())
            .is_some_and(|v| v >= 5000)
}

/// Columns `s` takes on a terminal (escapes take none; wide characters take two).
pub fn width(s: &str) -> usize {
    pieces(s)
        .map(|p| match p {
            Piece::Char(c) => c.width().unwrap_or(0),
            Piece::Escape(_) => 0,
        })
        .sum()
}

enum Piece<'a> {
    Char(char),
    Escape(&'a str),
}

fn pieces(s: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        if c == '\u{1b}' {
            let len = escape_len(rest);
            let (esc, after) = rest.split_at(len);
            rest = after;
            return Some(Piece::Escape(esc));
        }
        rest = &rest[c.len_utf8()..];
        Some(Piece::Char(c))
    })
}

/// Byte length of the escape sequence at the start of `s` (which starts with ESC).
fn escape_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    match bytes.get(1) {
        Some(b'[') => bytes[2..]
            .iter()
            .position(|b| (0x40..=0x7e).contains(b))
            .map_or(s.len(), |i| i + 3),
        Some(b']') => {
            // OSC: ends at BEL or ESC \.
            let mut i = 2;
            while i < bytes.len() {
                if bytes[i] == 0x07 {
                    return i + 1;
                }
                if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'\\') {
                    return i + 2;
                }
                i += 1;
            }
            s.len()
        }
        Some(_) => 2,
        None => 1,
    }
}

/// Breaks one line into lines of at most `cols` columns, between words; a word longer than a
/// whole line is cut (nothing else can fit it). Continuation lines repeat the line's leading
/// indent (plus `hang` columns), so an indented message stays indented.
pub fn wrap(line: &str, cols: usize, hang: usize) -> Vec<String> {
    let cols = cols.max(8);
    if width(line) <= cols {
        return vec![line.to_string()];
    }
    let body = line.trim_start_matches(' ');
    let lead = line.len() - body.len();
    let indent = " ".repeat((lead + hang).min(cols / 2));
    let mut out = Vec::new();
    let mut current = " ".repeat(lead.min(cols / 2));
    let mut col = current.len();
    let mut line_empty = true;
    // The colour escapes in force (since the last reset), re-opened on each new line.
    let mut active = String::new();
    let mut new_line = |current: &mut String, col: &mut usize, active: &str| {
        if !active.is_empty() {
            current.push_str("\u{1b}[0m");
        }
        out.push(std::mem::replace(current, format!("{indent}{active}")));
        *col = indent.len();
    };
    for word in body.split(' ') {
        let w = width(word);
        if !line_empty && col + 1 + w > cols {
            new_line(&mut current, &mut col, &active);
        } else if !line_empty {
            current.push(' ');
            col += 1;
        }
        if col + w <= cols {
            current.push_str(word);
            col += w;
        } else {
            // A word wider than a whole line: cut it where the line ends.
            for p in pieces(word) {
                match p {
                    Piece::Char(c) => {
                        let cw = c.width().unwrap_or(0);
                        if col + cw > cols {
                            new_line(&mut current, &mut col, &active);
                        }
                        current.push(c);
                        col += cw;
                    }
                    Piece::Escape(e) => current.push_str(e),
                }
            }
        }
        line_empty = false;
        for p in pieces(word) {
            if let Piece::Escape(e) = p {
                if e == "\u{1b}[0m" || e == "\u{1b}[m" {
                    active.clear();
                } else if e.starts_with("\u{1b}[") && e.ends_with('m') {
                    active.push_str(e);
                }
            }
        }
    }
    out.push(current);
    out
}

/// [`wrap`] over many lines. A row of a picture (the engine's partition bars, `… │███··│ …`)
/// goes on under its first bar, so the bars stay one column and what follows them (the peak,
/// `THROTTLED 3×`) is kept rather than cut.
pub fn wrap_all(lines: &[String], cols: usize) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| wrap(l, cols, picture_hang(l)))
        .collect()
}

fn picture_hang(line: &str) -> usize {
    let plain = strip_ansi(line);
    let Some(at) = plain.find('│') else {
        return 0;
    };
    let lead = plain.len() - plain.trim_start_matches(' ').len();
    width(&plain[..at]).saturating_sub(lead)
}

/// Joins the lines of a message that the test kit broke at [`PREWRAP_WIDTH`] columns back into
/// one line per paragraph, so [`wrap`] can break them at the terminal's width instead. Two
/// lines join when the first one was broken only because the second's first word did not fit
/// in [`PREWRAP_WIDTH`] (the test kit's own rule) and neither is indented (an indented line is
/// a list item, a difference or a picture, shown as it is).
pub fn reflow(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Width of the previous line as the test kit sent it, when it may go on in the next.
    let mut previous: Option<usize> = None;
    for line in text.lines() {
        let prose = !line.starts_with(' ') && !line.is_empty();
        let first_word = line.split(' ').next().unwrap_or_default();
        if let (true, Some(w), Some(last)) = (prose, previous, out.last_mut()) {
            if w + 1 + width(first_word) > PREWRAP_WIDTH {
                last.push(' ');
                last.push_str(line);
                previous = Some(width(line));
                continue;
            }
        }
        previous = prose.then(|| width(line));
        out.push(line.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_removes_colours_and_links() {
        assert_eq!(strip_ansi("\u{1b}[31mred\u{1b}[0m ok"), "red ok");
        assert_eq!(
            strip_ansi("\u{1b}]8;;file:///x\u{1b}\\x.rs\u{1b}]8;;\u{1b}\\"),
            "x.rs"
        );
        assert_eq!(width("\u{1b}[1m≤ 中\u{1b}[0m"), 4);
    }

    #[test]
    fn wraps_between_words_and_keeps_the_indent() {
        let line = "  the handler wrote new_image twice for the same event id";
        let out = wrap(line, 24, 0);
        assert!(out.iter().all(|l| width(l) <= 24), "{out:?}");
        assert_eq!(out[0], "  the handler wrote");
        assert!(out[1].starts_with("  new_image"), "{out:?}");
        let words: Vec<&str> = out.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words.join(" "), line.trim());
    }

    #[test]
    fn a_picture_row_goes_on_under_its_bar() {
        let row =
            "  partition   3 │████████····│  1000 WCU/s peak!  items 12  THROTTLED 3× (worst)";
        let out = wrap_all(&[row.to_string()], 40);
        assert!(
            out.len() > 1 && out.iter().all(|l| width(l) <= 40),
            "{out:?}"
        );
        assert_eq!(out[0], "  partition   3 │████████····│  1000");
        assert!(out[1].starts_with("                WCU/s"), "{out:?}");
        assert!(out.concat().contains("THROTTLED"), "{out:?}");
    }

    #[test]
    fn a_word_wider_than_the_line_is_cut_and_nothing_is_lost() {
        let out = wrap("see abcdefghijklmnopqrstuvwxyz", 10, 0);
        assert!(out.iter().all(|l| width(l) <= 10), "{out:?}");
        assert_eq!(
            out.concat().replace(' ', ""),
            "seeabcdefghijklmnopqrstuvwxyz"
        );
    }

    #[test]
    fn colour_is_closed_and_reopened_across_a_break() {
        let line = "\u{1b}[31m- one two three four\u{1b}[0m";
        let out = wrap(line, 10, 0);
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].ends_with("\u{1b}[0m"), "{out:?}");
        assert!(out[1].contains("\u{1b}[31m"), "{out:?}");
        assert_eq!(strip_ansi(&out.join(" ")), "- one two three four");
    }

    #[test]
    fn reflow_joins_what_the_test_kit_broke_and_keeps_real_breaks() {
        let para = "word ".repeat(30);
        let kit = katas_like_wrap(para.trim());
        assert!(kit.lines().count() > 1);
        let text = format!("{kit}\nshort line\n  - an item\nnext");
        let out = reflow(&text);
        assert_eq!(out[0], para.trim());
        assert_eq!(&out[1..], ["short line", "  - an item", "next"]);
    }

    /// The test kit's rule (`katas_testkit::wrap`), to build input as hidden tests send it.
    fn katas_like_wrap(line: &str) -> String {
        let mut out = String::new();
        let mut col = 0;
        for w in line.split(' ') {
            if col > 0 && col + 1 + w.len() > PREWRAP_WIDTH {
                out.push('\n');
                col = 0;
            } else if col > 0 {
                out.push(' ');
                col += 1;
            }
            out.push_str(w);
            col += w.len();
        }
        out
    }
}
