//! The statement grammar: recursive descent over the lexer's tokens, into [`Statement`].
//!
//! ```text
//! statement  ::= ( select | insert | update | delete | EXISTS '(' select ')' ) [';']
//! select     ::= SELECT ( '*' | path { ',' path } ) FROM name [ '.' name ]
//!                [ WHERE cond ] [ ORDER BY name [ASC|DESC] { ',' name [ASC|DESC] } ]
//! insert     ::= INSERT INTO name VALUE tuple
//! update     ::= UPDATE name { SET assign { ',' assign } | REMOVE path { ',' path } }
//!                WHERE cond [ returning ]
//! delete     ::= DELETE FROM name WHERE cond [ returning ]
//! returning  ::= RETURNING ( ALL | MODIFIED ) ( OLD | NEW ) '*'
//! assign     ::= path '=' term [ ('+' | '-') term ]
//! term       ::= path | value | list_append '(' term ',' term ')'
//!              | set_add '(' path ',' value ')' | set_delete '(' path ',' value ')'
//! cond       ::= and { OR and };   and ::= not { AND not };   not ::= NOT not | predicate
//! predicate  ::= '(' cond ')' | function '(' args ')'
//!              | operand ( cmp operand | BETWEEN operand AND operand
//!                        | IN ( '[' values ']' | '(' values ')' ) | IS [NOT] type )
//! operand    ::= path | value | size '(' path ')'
//! value      ::= 'string' | number | TRUE | FALSE | NULL | '?' | tuple | '[' values ']'
//!              | '<<' values '>>'
//! tuple      ::= '{' [ key ':' value { ',' key ':' value } ] '}'      key ::= 'string' | "name"
//! path       ::= name { '.' name | '[' integer ']' | '[' 'string' ']' }
//! name       ::= identifier (not a keyword) | "quoted name"
//! ```
//!
//! The grammar of conditions is in `condition.rs`, of names, paths and values in `values.rs`.
//!
//! `?` takes the next of the request's `Parameters` as the parser meets it, so the tree holds
//! values only, as a parsed expression holds its placeholders' values. Conditions parse into
//! the expression language's own tree ([`CondNode`]); updates into its actions
//! ([`UpdateAction`]).

use crate::error::{Exception, Result};
use crate::expr::{CondNode, Path, SetValue, UpdateAction, UpdateOperand};
use crate::types::ReturnValue;
use crate::value::{AttributeValue, Item};

use super::lexer::{lex, Tok, Token};
use super::malformed;

/// One parsed statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Statement {
    Select(Select),
    Insert(Insert),
    Update(Update),
    Delete(Delete),
    /// `EXISTS(SELECT …)`: a condition check, in a transaction only.
    Exists(Select),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Select {
    /// `None` for `*`.
    pub projection: Option<Vec<Path>>,
    pub table: String,
    pub index: Option<String>,
    pub condition: Option<CondNode>,
    /// `ORDER BY`: (attribute, descending).
    pub order_by: Vec<(String, bool)>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Insert {
    pub table: String,
    pub item: Item,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Update {
    pub table: String,
    pub actions: Vec<UpdateAction>,
    pub condition: CondNode,
    pub returning: Option<ReturnValue>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Delete {
    pub table: String,
    pub condition: CondNode,
    /// `RETURNING ALL OLD *`.
    pub returning: bool,
}

/// Words that cannot be bare names (a quoted name may be anything).
const KEYWORDS: &[&str] = &[
    "ALL",
    "AND",
    "AS",
    "BETWEEN",
    "BY",
    "DELETE",
    "EXISTS",
    "FALSE",
    "FROM",
    "GROUP",
    "HAVING",
    "IN",
    "INSERT",
    "INTO",
    "IS",
    "JOIN",
    "LIMIT",
    "MISSING",
    "NOT",
    "NULL",
    "OR",
    "ORDER",
    "REMOVE",
    "RETURNING",
    "SELECT",
    "SET",
    "TRUE",
    "UNION",
    "UPDATE",
    "VALUE",
    "VALUES",
    "WHERE",
];

/// Parses `src`, taking `params` for its `?`s in order; every parameter must be used.
pub(crate) fn parse(src: &str, params: &[AttributeValue]) -> Result<Statement> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
        params,
        used: 0,
        depth: 0,
    };
    let statement = p.statement()?;
    p.eat(Tok::Semicolon);
    if p.peek().kind != Tok::Eof {
        return Err(p.unexpected());
    }
    if p.used != params.len() {
        return Err(parameter_count());
    }
    Ok(statement)
}

pub(super) fn parameter_count() -> Exception {
    Exception::validation("Number of parameters in request and statement don't match.")
}

pub(super) struct Parser<'a> {
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    pub(super) params: &'a [AttributeValue],
    pub(super) used: usize,
    /// Nesting of parentheses, `NOT`s, values and functions at the point parsed.
    pub(super) depth: usize,
}

impl Parser<'_> {
    /// Parses one nested piece with `f`, refusing nesting deeper than
    /// [`MAX_NESTING`](crate::expr::MAX_NESTING): an 8,192-character statement of `(`s
    /// must be an error, not the end of the thread's stack (the detail is this model's;
    /// unverified).
    pub(super) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= crate::expr::MAX_NESTING {
            return Err(malformed("Statement nests too deeply"));
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    pub(super) fn statement(&mut self) -> Result<Statement> {
        let word = self.word_at(0).map(str::to_ascii_uppercase);
        match word.as_deref() {
            Some("SELECT") => self.select().map(Statement::Select),
            Some("INSERT") => self.insert().map(Statement::Insert),
            Some("UPDATE") => self.update().map(Statement::Update),
            Some("DELETE") => self.delete().map(Statement::Delete),
            Some("EXISTS") => {
                self.bump();
                self.expect(Tok::LParen)?;
                let select = self.select()?;
                self.expect(Tok::RParen)?;
                Ok(Statement::Exists(select))
            }
            _ => Err(malformed("Expected data manipulation")),
        }
    }

    pub(super) fn select(&mut self) -> Result<Select> {
        self.keyword("SELECT")?;
        let projection = if self.eat(Tok::Star) {
            if self.peek().kind == Tok::Comma {
                return Err(Exception::validation(
                    "Other attributes should not be present in the projection when '*' is used.",
                ));
            }
            None
        } else {
            let mut paths = vec![self.path()?];
            while self.eat(Tok::Comma) {
                if self.peek().kind == Tok::Star {
                    return Err(Exception::validation(
                        "Other attributes should not be present in the projection when '*' is used.",
                    ));
                }
                paths.push(self.path()?);
            }
            Some(paths)
        };
        self.keyword("FROM")?;
        let (table, index) = self.source()?;
        let condition = if self.eat_keyword("WHERE") {
            Some(self.condition()?)
        } else {
            None
        };
        let mut order_by = Vec::new();
        if self.at_keyword("ORDER") {
            self.bump();
            self.keyword("BY")?;
            loop {
                let name = self.name()?;
                let descending = if self.eat_keyword("DESC") {
                    true
                } else {
                    self.eat_keyword("ASC");
                    false
                };
                order_by.push((name, descending));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        for clause in ["LIMIT", "GROUP", "HAVING", "OFFSET", "UNION", "JOIN"] {
            if self.at_keyword(clause) {
                let clause = if clause == "GROUP" {
                    "GROUP BY"
                } else {
                    clause
                };
                return Err(Exception::validation(format!(
                    "Unsupported clause: {clause}"
                )));
            }
        }
        Ok(Select {
            projection,
            table,
            index,
            condition,
            order_by,
        })
    }

    /// `FROM`'s table, with an index for a `SELECT`.
    pub(super) fn source(&mut self) -> Result<(String, Option<String>)> {
        let table = self.name()?;
        if !self.eat(Tok::Dot) {
            return Ok((table, None));
        }
        let index = self.name()?;
        if self.peek().kind == Tok::Dot {
            return Err(Exception::validation(
                "A path may contain at most 2 components in the FROM clause",
            ));
        }
        Ok((table, Some(index)))
    }

    /// The one table a write names.
    pub(super) fn table(&mut self) -> Result<String> {
        let (table, index) = self.source()?;
        if index.is_some() {
            return Err(Exception::validation(
                "FROM clause may only contain a single table name in data manipulation statements",
            ));
        }
        Ok(table)
    }

    pub(super) fn insert(&mut self) -> Result<Insert> {
        self.keyword("INSERT")?;
        self.keyword("INTO")?;
        let table = self.table()?;
        if self.at_keyword("VALUES") || self.peek().kind == Tok::LBag {
            return Err(Exception::validation(
                "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead",
            ));
        }
        self.keyword("VALUE")?;
        if self.peek().kind != Tok::LBrace {
            return Err(Exception::validation(
                "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.",
            ));
        }
        let AttributeValue::M(item) = self.value()? else {
            unreachable!("a tuple parses to a map")
        };
        if self.at_keyword("RETURNING") {
            return Err(Exception::validation(
                "RETURNING is not supported in INSERT",
            ));
        }
        Ok(Insert { table, item })
    }

    pub(super) fn update(&mut self) -> Result<Update> {
        self.keyword("UPDATE")?;
        let table = self.table()?;
        let mut actions = Vec::new();
        loop {
            if self.eat_keyword("SET") {
                loop {
                    actions.push(self.assignment()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            } else if self.eat_keyword("REMOVE") {
                loop {
                    actions.push(UpdateAction::Remove(self.path()?));
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            } else if self.at_keyword("ADD") || self.at_keyword("DELETE") {
                return Err(Exception::validation(
                    "Only SET and REMOVE are supported in update expressions at this time",
                ));
            } else {
                break;
            }
        }
        if actions.is_empty() {
            return Err(self.unexpected());
        }
        let paths: Vec<&Path> = actions.iter().map(UpdateAction::path).collect();
        if let Some(message) = crate::expr::paths_clash(&paths) {
            return Err(Exception::validation(message));
        }
        let condition = self.where_clause()?;
        let returning = self.returning()?;
        Ok(Update {
            table,
            actions,
            condition,
            returning,
        })
    }

    pub(super) fn delete(&mut self) -> Result<Delete> {
        self.keyword("DELETE")?;
        self.keyword("FROM")?;
        let table = self.table()?;
        let condition = self.where_clause()?;
        let returning = match self.returning()? {
            None => false,
            Some(ReturnValue::AllOld) => true,
            Some(other) => {
                let words = other
                    .as_str()
                    .replace('_', " ")
                    .replace("UPDATED", "MODIFIED");
                return Err(Exception::validation(format!(
                    "Invalid returning clause: RETURNING {words} *. Only RETURNING ALL OLD * is allowed in DELETE statements."
                )));
            }
        };
        Ok(Delete {
            table,
            condition,
            returning,
        })
    }

    /// A write's `WHERE`: it must be there, since it names the item.
    pub(super) fn where_clause(&mut self) -> Result<CondNode> {
        if !self.eat_keyword("WHERE") {
            return Err(Exception::validation(super::INCOMPLETE_KEY));
        }
        self.condition()
    }

    pub(super) fn returning(&mut self) -> Result<Option<ReturnValue>> {
        if !self.eat_keyword("RETURNING") {
            return Ok(None);
        }
        let all = if self.eat_keyword("ALL") {
            true
        } else if self.eat_keyword("MODIFIED") {
            false
        } else {
            return Err(self.unexpected());
        };
        let new = if self.eat_keyword("NEW") {
            true
        } else if self.eat_keyword("OLD") {
            false
        } else {
            return Err(self.unexpected());
        };
        if !self.eat(Tok::Star) {
            return Err(Exception::validation(
                "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause",
            ));
        }
        if self.peek().kind == Tok::Comma {
            return Err(Exception::validation(
                "Invalid syntax with multiple returning elements in RETURNING clause",
            ));
        }
        Ok(Some(match (all, new) {
            (true, false) => ReturnValue::AllOld,
            (true, true) => ReturnValue::AllNew,
            (false, false) => ReturnValue::UpdatedOld,
            (false, true) => ReturnValue::UpdatedNew,
        }))
    }

    pub(super) fn assignment(&mut self) -> Result<UpdateAction> {
        let path = self.path()?;
        self.expect(Tok::Eq)?;
        for (function, add) in [("set_add", true), ("set_delete", false)] {
            if self
                .word_at(0)
                .is_some_and(|w| w.eq_ignore_ascii_case(function))
                && self.peek_at(1).kind == Tok::LParen
            {
                return self.set_function(path, function, add);
            }
        }
        let first = self.term()?;
        let value = if self.eat(Tok::Plus) {
            SetValue::Plus(first, self.term()?)
        } else if self.eat(Tok::Minus) {
            SetValue::Minus(first, self.term()?)
        } else {
            SetValue::Operand(first)
        };
        Ok(UpdateAction::Set(path, value))
    }

    /// `SET s = set_add(s, <<…>>)`: DynamoDB's `ADD` (`set_delete`: `DELETE`) of set
    /// elements, whose first argument must be the attribute assigned.
    pub(super) fn set_function(
        &mut self,
        path: Path,
        function: &str,
        add: bool,
    ) -> Result<UpdateAction> {
        let upper = function.to_ascii_uppercase().replace("SET_", "");
        self.bump();
        self.expect(Tok::LParen)?;
        let mut args = vec![self.term()?];
        while self.eat(Tok::Comma) {
            args.push(self.term()?);
        }
        self.expect(Tok::RParen)?;
        if args.len() != 2 {
            return Err(Exception::validation(format!(
                "SET_{upper} must have exactly two arguments"
            )));
        }
        let value = args.pop().expect("two");
        if args.pop() != Some(UpdateOperand::Path(path.clone())) {
            return Err(Exception::validation(format!(
                "The first argument to SET_{upper} must equal the assignment value"
            )));
        }
        match value {
            UpdateOperand::Value(
                v @ (AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)),
            ) => Ok(if add {
                UpdateAction::Add(path, v)
            } else {
                UpdateAction::Delete(path, v)
            }),
            _ => Err(Exception::validation(format!(
                "The second argument to SET_{upper} must be a value with type SET"
            ))),
        }
    }

    pub(super) fn term(&mut self) -> Result<UpdateOperand> {
        if self
            .word_at(0)
            .is_some_and(|w| w.eq_ignore_ascii_case("list_append"))
            && self.peek_at(1).kind == Tok::LParen
        {
            self.bump();
            self.bump();
            let a = self.nested(Self::term)?;
            self.expect(Tok::Comma)?;
            let b = self.nested(Self::term)?;
            self.expect(Tok::RParen)?;
            return Ok(UpdateOperand::ListAppend(Box::new(a), Box::new(b)));
        }
        if self.peek_at(1).kind == Tok::LParen && self.peek().kind == Tok::Ident {
            return Err(unrecognized_function(&self.peek().text));
        }
        if self.at_name() {
            return self.path().map(UpdateOperand::Path);
        }
        self.value().map(UpdateOperand::Value)
    }

    // ---- tokens

    pub(super) fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    pub(super) fn peek_at(&self, ahead: usize) -> &Token {
        &self.toks[(self.pos + ahead).min(self.toks.len() - 1)]
    }

    pub(super) fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    pub(super) fn eat(&mut self, kind: Tok) -> bool {
        let here = self.peek().kind == kind;
        if here {
            self.bump();
        }
        here
    }

    pub(super) fn expect(&mut self, kind: Tok) -> Result<Token> {
        if self.peek().kind == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected())
        }
    }

    /// The word at `ahead` tokens from here, if it is a bare word.
    pub(super) fn word_at(&self, ahead: usize) -> Option<&str> {
        let t = self.peek_at(ahead);
        (t.kind == Tok::Ident).then_some(t.text.as_str())
    }

    pub(super) fn at_keyword(&self, kw: &str) -> bool {
        self.word_at(0).is_some_and(|w| w.eq_ignore_ascii_case(kw))
    }

    pub(super) fn eat_keyword(&mut self, kw: &str) -> bool {
        let here = self.at_keyword(kw);
        if here {
            self.bump();
        }
        here
    }

    pub(super) fn keyword(&mut self, kw: &str) -> Result<()> {
        if self.eat_keyword(kw) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// The syntax error for the token at hand.
    pub(super) fn unexpected(&self) -> Exception {
        let t = self.peek();
        malformed(match t.kind {
            Tok::Eof => "Unexpected end of statement",
            Tok::Ident if is_keyword(&t.text) => "Unexpected keyword",
            _ => "Unexpected token",
        })
    }
}

pub(super) fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

pub(super) fn unrecognized_function(name: &str) -> Exception {
    Exception::validation(format!("Unrecognized function: {name}"))
}
