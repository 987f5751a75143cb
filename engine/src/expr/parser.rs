//! The parser machinery every expression kind shares: a token cursor, syntax errors in
//! DynamoDB's shape, document paths, placeholder resolution and the limits.
//!
//! Syntax errors quote the offending token and its neighbourhood, as DynamoDB does:
//! `Syntax error; token: "b", near: "a b"`. "Near" is the source text from the start of
//! the token before the offending one to the end of the token after it; at the end of the
//! input the token is `<EOF>`. (The service's exact choice of context is not documented;
//! this rule reproduces the examples we have.)

use crate::error::{Exception, Result};
use crate::value::AttributeValue;

use super::ast::{ExprKind, Path, PathElem};
use super::lexer::{lex, Tok, Token};
use super::names::{Placeholders, Problem, Problems};
use super::reserved::is_reserved;
use super::{MAX_NESTING, MAX_OPERATORS, MAX_PATH_DEPTH};

/// A recursive-descent parser over one expression's tokens.
#[derive(Debug)]
pub(crate) struct Parser<'s, 'p, 'a> {
    pub src: &'s str,
    toks: Vec<Token>,
    pos: usize,
    pub kind: ExprKind,
    pub ph: &'p mut Placeholders<'a>,
    pub problems: Problems,
    operators: usize,
    depth: usize,
}

impl<'s, 'p, 'a> Parser<'s, 'p, 'a> {
    pub(crate) fn new(src: &'s str, kind: ExprKind, ph: &'p mut Placeholders<'a>) -> Self {
        Parser {
            src,
            toks: lex(src),
            pos: 0,
            kind,
            ph,
            problems: Problems::default(),
            operators: 0,
            depth: 0,
        }
    }

    pub(crate) fn peek(&self) -> Token {
        self.toks[self.pos]
    }

    pub(crate) fn nth(&self, n: usize) -> Token {
        self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }

    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn token_at(&self, index: usize) -> Token {
        self.toks[index.min(self.toks.len() - 1)]
    }

    pub(crate) fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    pub(crate) fn text(&self, t: Token) -> &'s str {
        &self.src[t.start..t.end]
    }

    /// Whether the next token is the keyword `kw` (case-insensitive).
    pub(crate) fn at_keyword(&self, kw: &str) -> bool {
        let t = self.peek();
        t.kind == Tok::Ident && self.text(t).eq_ignore_ascii_case(kw)
    }

    /// Whether `t` is an identifier that this kind's grammar reserves as a keyword.
    pub(crate) fn is_keyword(&self, t: Token) -> bool {
        t.kind == Tok::Ident && self.kind.is_keyword(self.text(t))
    }

    /// A `Invalid <Kind>: <problem>` validation error.
    pub(crate) fn invalid(&self, problem: &str) -> Exception {
        invalid(self.kind, problem)
    }

    /// The syntax error for the token under the cursor.
    pub(crate) fn syntax_error(&self) -> Exception {
        let cur = self.peek();
        let token = if cur.kind == Tok::Eof {
            "<EOF>"
        } else {
            self.text(cur)
        };
        let start = if self.pos > 0 {
            self.toks[self.pos - 1].start
        } else {
            cur.start
        };
        let next = self.nth(1);
        let end = if cur.kind == Tok::Eof {
            if self.pos > 0 {
                self.toks[self.pos - 1].end
            } else {
                cur.end
            }
        } else if next.kind != Tok::Eof && self.pos + 1 < self.toks.len() {
            next.end
        } else {
            cur.end
        };
        let near = &self.src[start..end];
        self.invalid(&format!(
            "Syntax error; token: \"{token}\", near: \"{near}\""
        ))
    }

    pub(crate) fn expect(&mut self, kind: Tok) -> Result<Token> {
        if self.peek().kind == kind {
            Ok(self.bump())
        } else {
            Err(self.syntax_error())
        }
    }

    pub(crate) fn expect_keyword(&mut self, kw: &str) -> Result<()> {
        if self.at_keyword(kw) {
            self.bump();
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    /// Enter one level of nesting (a parenthesis, `NOT`, a function's arguments). The bound
    /// keeps the recursion far from the stack's end on any input.
    pub(crate) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.invalid(&format!(
                "The expression has too many nesting levels; nesting levels: {}",
                self.depth
            )));
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Count one operator or function against the limit of 300.
    pub(crate) fn count_operator(&mut self) {
        self.operators += 1;
    }

    pub(crate) fn record(&mut self, kind: Problem, message: impl FnOnce() -> String) {
        self.problems.record(kind, message);
    }

    /// Whether the cursor is at a token that can start a document path.
    pub(crate) fn at_path_start(&self) -> bool {
        let t = self.peek();
        t.kind == Tok::NamePh || (t.kind == Tok::Ident && !self.is_keyword(t))
    }

    /// `name ( '.' name | '[' n ']' )*`, with names resolved and reserved words flagged.
    pub(crate) fn parse_path(&mut self) -> Result<Path> {
        let mut elems = Vec::with_capacity(2);
        elems.push(PathElem::Name(self.path_name()?));
        loop {
            match self.peek().kind {
                Tok::Dot => {
                    self.bump();
                    elems.push(PathElem::Name(self.path_name()?));
                }
                Tok::LBracket => {
                    self.bump();
                    let t = self.expect(Tok::Int)?;
                    let digits = self.text(t);
                    let index = match digits.parse::<u32>() {
                        Ok(ix) => ix,
                        Err(_) => {
                            self.record(Problem::PathLimit, || {
                                format!(
                                    "List index is not within the allowable range; index: {digits}"
                                )
                            });
                            0
                        }
                    };
                    self.expect(Tok::RBracket)?;
                    elems.push(PathElem::Index(index));
                }
                _ => break,
            }
        }
        if elems.len() > MAX_PATH_DEPTH {
            let n = elems.len();
            self.record(Problem::PathLimit, || {
                format!("The document path has too many nesting levels; nesting levels: {n}")
            });
        }
        Ok(Path(elems))
    }

    fn path_name(&mut self) -> Result<String> {
        let t = self.peek();
        match t.kind {
            Tok::Ident if !self.is_keyword(t) => {
                self.bump();
                let word = self.text(t);
                if is_reserved(word) {
                    self.record(Problem::Reserved, || {
                        format!("Attribute name is a reserved keyword; reserved keyword: {word}")
                    });
                }
                Ok(word.to_string())
            }
            Tok::NamePh => {
                self.bump();
                let ph = self.text(t);
                match self.ph.name(ph) {
                    Some(name) => Ok(name.to_string()),
                    None => {
                        self.record(Problem::Undefined, || {
                            format!(
                                "An expression attribute name used in the document path is not \
                                 defined; attribute name: {ph}"
                            )
                        });
                        Ok(String::new())
                    }
                }
            }
            _ => Err(self.syntax_error()),
        }
    }

    /// Resolve the `:value` token `t` (already consumed).
    pub(crate) fn value(&mut self, t: Token) -> AttributeValue {
        let ph = self.text(t);
        match self.ph.value(ph) {
            Some(v) => v,
            None => {
                self.record(Problem::Undefined, || {
                    format!(
                        "An expression attribute value used in expression is not defined; \
                         attribute value: {ph}"
                    )
                });
                AttributeValue::Null(true)
            }
        }
    }

    /// End of the parse: the input must be used up; then the first recorded problem, if any.
    pub(crate) fn finish<T>(mut self, parsed: Result<T>) -> Result<T> {
        let parsed = parsed?;
        if self.peek().kind != Tok::Eof {
            return Err(self.syntax_error());
        }
        if self.operators > MAX_OPERATORS {
            let n = self.operators;
            self.record(Problem::TooManyOperators, || {
                format!("The expression contains too many operators; operator count: {n}")
            });
        }
        match self.problems.first() {
            Some(problem) => Err(invalid(self.kind, &problem)),
            None => Ok(parsed),
        }
    }
}

/// `Invalid <Kind>Expression: <problem>`.
pub(crate) fn invalid(kind: ExprKind, problem: &str) -> Exception {
    Exception::validation(format!("Invalid {}: {problem}", kind.param_name()))
}
