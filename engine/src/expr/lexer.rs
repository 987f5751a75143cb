//! The lexer: one pass over the expression text, producing tokens with byte spans.
//!
//! Every expression kind shares it. Keywords (`AND`, `SET`, …) are not separate token kinds:
//! they are identifiers the parser recognises case-insensitively, because which words are
//! keywords depends on the kind of expression (`REMOVE` is a keyword in an update, a legal
//! attribute name in a condition).
//!
//! A character no rule accepts becomes an [`Tok::Invalid`] token instead of an immediate
//! error, so the parser reports the syntax error where it meets it, with the same
//! `token: "…", near: "…"` shape as every other syntax error.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`: an attribute name, a keyword or a function name.
    Ident,
    /// `#` followed by `[A-Za-z0-9_]+`.
    NamePh,
    /// `:` followed by `[A-Za-z0-9_]+`.
    ValuePh,
    /// `[0-9]+`: only meaningful as a list index.
    Int,
    Dot,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    /// Anything else (one character).
    Invalid,
    /// End of input (zero-width, at the end).
    Eof,
}

/// One token: its kind and its byte span in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
}

fn is_ident_part(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Split `src` into tokens; the last one is always [`Tok::Eof`].
pub(crate) fn lex(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut toks = Vec::with_capacity(bytes.len() / 3 + 2);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        let kind = match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            // A bare name starts with a letter: `_x` is a syntax error at `_`, as the service
            // answers (a peer suite run against it checks `SET _123 = :v` and `_f(b)`); `_`
            // may follow the first letter.
            b'a'..=b'z' | b'A'..=b'Z' => {
                while i < bytes.len() && is_ident_part(bytes[i]) {
                    i += 1;
                }
                Tok::Ident
            }
            b'0'..=b'9' => {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                Tok::Int
            }
            b'#' | b':' => {
                i += 1;
                let body = i;
                while i < bytes.len() && is_ident_part(bytes[i]) {
                    i += 1;
                }
                if i == body {
                    Tok::Invalid
                } else if b == b'#' {
                    Tok::NamePh
                } else {
                    Tok::ValuePh
                }
            }
            b'<' | b'>' => {
                i += 1;
                let next = bytes.get(i).copied();
                match (b, next) {
                    (b'<', Some(b'>')) => {
                        i += 1;
                        Tok::Ne
                    }
                    (b'<', Some(b'=')) => {
                        i += 1;
                        Tok::Le
                    }
                    (b'>', Some(b'=')) => {
                        i += 1;
                        Tok::Ge
                    }
                    (b'<', _) => Tok::Lt,
                    _ => Tok::Gt,
                }
            }
            _ => {
                i += 1;
                match b {
                    b'.' => Tok::Dot,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b',' => Tok::Comma,
                    b'=' => Tok::Eq,
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    _ => {
                        // One whole UTF-8 character, so the error message quotes it intact.
                        while i < bytes.len() && !src.is_char_boundary(i) {
                            i += 1;
                        }
                        Tok::Invalid
                    }
                }
            }
        };
        toks.push(Token {
            kind,
            start,
            end: i,
        });
    }
    toks.push(Token {
        kind: Tok::Eof,
        start: bytes.len(),
        end: bytes.len(),
    });
    toks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn splits_operators_and_placeholders() {
        use Tok::*;
        assert_eq!(
            kinds("a.b[2] <> :v AND #n>=1"),
            vec![
                Ident, Dot, Ident, LBracket, Int, RBracket, Ne, ValuePh, Ident, NamePh, Ge, Int,
                Eof
            ]
        );
        assert_eq!(kinds("# : ¿"), vec![Invalid, Invalid, Invalid, Eof]);
        let t = lex("¿x");
        assert_eq!((t[0].start, t[0].end), (0, 2));
    }
}
