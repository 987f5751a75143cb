//! The lexer: one pass over the statement text, producing tokens with byte spans.
//!
//! PartiQL's lexical rules differ from the expression languages' (`expr/lexer.rs`) in the
//! places a learner meets first: strings are literals in single quotes (`'Ana'`, with `''`
//! for a quote inside), double quotes make an identifier of anything (`"order-date"`,
//! `"status"`), numbers are literals, `?` is a parameter, and `<<` `>>` open and close a
//! set. Comments (`--` to the end of the line, `/* … */`) are skipped.
//!
//! Keywords are not token kinds: like the expression lexer, this one leaves it to the
//! parser to recognise a word, case-insensitively, where the grammar expects one.

use super::malformed;
use crate::error::Result;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_$]*`: a name, a keyword or a function.
    Ident,
    /// `"…"`: a name, whatever its characters (its text, unquoted, is in `Token::text`).
    Quoted,
    /// `'…'`: a string literal.
    Str,
    /// `12`, `-` is separate; `1.5`, `2E3`.
    Number,
    /// `?`.
    Param,
    Dot,
    Comma,
    Colon,
    Semicolon,
    Star,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    /// `<<`, a set literal opens.
    LBag,
    /// `>>`, a set literal closes.
    RBag,
    Eq,
    /// `<>` or `!=`.
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    /// End of input (zero-width, at the end).
    Eof,
}

/// One token: its kind, its span in the source and its text — a word's or a number's as
/// written; a string's or quoted name's without its quotes, a doubled quote made one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Split `src` into tokens; the last one is always [`Tok::Eof`]. A character no rule
/// accepts, or a string or quoted name left open, is a syntax error.
pub(crate) fn lex(src: &str) -> Result<Vec<Token>> {
    let bytes = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        let rest = &bytes[i..];
        let two = |s: &[u8]| rest.starts_with(s);
        let (kind, len) = match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'-' if two(b"--") => {
                i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                continue;
            }
            b'/' if two(b"/*") => {
                let close = src[i + 2..]
                    .find("*/")
                    .ok_or_else(|| malformed("Unterminated comment"))?;
                i += close + 4;
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let len = rest
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$'))
                    .unwrap_or(rest.len());
                (Tok::Ident, len)
            }
            b'0'..=b'9' => (Tok::Number, number_len(rest)),
            b'.' if rest.get(1).is_some_and(u8::is_ascii_digit) => (Tok::Number, number_len(rest)),
            b'\'' | b'"' => {
                let (text, len) = quoted(&src[i..], b as char)?;
                let kind = if b == b'\'' { Tok::Str } else { Tok::Quoted };
                toks.push(Token {
                    kind,
                    start,
                    end: start + len,
                    text,
                });
                i += len;
                continue;
            }
            b'?' => (Tok::Param, 1),
            b'.' => (Tok::Dot, 1),
            b',' => (Tok::Comma, 1),
            b':' => (Tok::Colon, 1),
            b';' => (Tok::Semicolon, 1),
            b'*' => (Tok::Star, 1),
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b'[' => (Tok::LBracket, 1),
            b']' => (Tok::RBracket, 1),
            b'{' => (Tok::LBrace, 1),
            b'}' => (Tok::RBrace, 1),
            b'<' if two(b"<<") => (Tok::LBag, 2),
            b'<' if two(b"<=") => (Tok::Le, 2),
            b'<' if two(b"<>") => (Tok::Ne, 2),
            b'<' => (Tok::Lt, 1),
            b'>' if two(b">>") => (Tok::RBag, 2),
            b'>' if two(b">=") => (Tok::Ge, 2),
            b'>' => (Tok::Gt, 1),
            b'!' if two(b"!=") => (Tok::Ne, 2),
            b'=' => (Tok::Eq, 1),
            b'+' => (Tok::Plus, 1),
            b'-' => (Tok::Minus, 1),
            _ => return Err(malformed("Unexpected character")),
        };
        let text = match kind {
            Tok::Ident | Tok::Number => src[start..start + len].to_string(),
            _ => String::new(),
        };
        toks.push(Token {
            kind,
            start,
            end: start + len,
            text,
        });
        i += len;
    }
    toks.push(Token {
        kind: Tok::Eof,
        start: src.len(),
        end: src.len(),
        text: String::new(),
    });
    Ok(toks)
}

/// `12`, `1.5`, `.5`, `2E3`, `2.5e-3`.
fn number_len(s: &[u8]) -> usize {
    let digits = |from: usize| {
        s[from..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(s.len(), |p| from + p)
    };
    let mut i = digits(0);
    if s.get(i) == Some(&b'.') {
        i = digits(i + 1);
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
        if s.get(i + 1 + sign).is_some_and(u8::is_ascii_digit) {
            i = digits(i + 1 + sign);
        }
    }
    i
}

/// A quoted string or name starting at `s[0]`: its text (a doubled quote is one quote) and
/// its length in bytes, quotes included.
fn quoted(s: &str, quote: char) -> Result<(String, usize)> {
    let mut text = String::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if c == quote {
            if chars.peek().is_some_and(|&(_, next)| next == quote) {
                chars.next();
                text.push(quote);
                continue;
            }
            return Ok((text, i + 1));
        }
        text.push(c);
    }
    Err(malformed(if quote == '\'' {
        "Unterminated string literal"
    } else {
        "Unterminated quoted identifier"
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn strings_names_numbers_and_bags_are_told_apart() {
        use Tok::*;
        assert_eq!(
            kinds(r#"SELECT "a b" FROM t WHERE x = 'it''s' AND n >= -1.5e2 AND s = <<1>>"#),
            [
                Ident, Quoted, Ident, Ident, Ident, Ident, Eq, Str, Ident, Ident, Ge, Minus,
                Number, Ident, Ident, Eq, LBag, Number, RBag, Eof
            ]
        );
        let toks = lex("'it''s' \"a\"\"b\"").unwrap();
        assert_eq!(
            (toks[0].text.as_str(), toks[1].text.as_str()),
            ("it's", "a\"b")
        );
    }

    #[test]
    fn comments_are_skipped_and_open_quotes_refused() {
        assert_eq!(
            kinds("SELECT -- the rest\n * /* all */ FROM t;"),
            [
                Tok::Ident,
                Tok::Star,
                Tok::Ident,
                Tok::Ident,
                Tok::Semicolon,
                Tok::Eof
            ]
        );
        assert!(lex("SELECT * FROM t WHERE a = 'open").is_err());
        assert!(lex("SELECT * FROM t WHERE a = #").is_err());
    }
}
