//! Code blocks: which info strings are Rust (as rustdoc reads them), which lines rustdoc
//! hides, and a small keyword highlighter.

use super::render::{dim, Style, BLUE, CYAN, GREEN, MAGENTA, YELLOW};

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
pub(super) fn code_language(info: &str) -> String {
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

pub(super) fn is_rustdoc_hidden(line: &str) -> bool {
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
pub(super) fn highlight(lang: &str, line: &str) -> String {
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
