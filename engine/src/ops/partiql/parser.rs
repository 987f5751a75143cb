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
//! `?` takes the next of the request's `Parameters` as the parser meets it, so the tree holds
//! values only, as a parsed expression holds its placeholders' values. Conditions parse into
//! the expression language's own tree ([`CondNode`]); updates into its actions
//! ([`UpdateAction`]).

use crate::error::{Exception, Result};
use crate::expr::{
    Comparator, CondNode, Operand, Path, PathElem, SetValue, UpdateAction, UpdateOperand,
};
use crate::types::ReturnValue;
use crate::value::{canonicalize_value, AttributeValue, Item};

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

fn parameter_count() -> Exception {
    Exception::validation("Number of parameters in request and statement don't match.")
}

struct Parser<'a> {
    toks: Vec<Token>,
    pos: usize,
    params: &'a [AttributeValue],
    used: usize,
}

impl Parser<'_> {
    fn statement(&mut self) -> Result<Statement> {
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

    fn select(&mut self) -> Result<Select> {
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
    fn source(&mut self) -> Result<(String, Option<String>)> {
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
    fn table(&mut self) -> Result<String> {
        let (table, index) = self.source()?;
        if index.is_some() {
            return Err(Exception::validation(
                "FROM clause may only contain a single table name in data manipulation statements",
            ));
        }
        Ok(table)
    }

    fn insert(&mut self) -> Result<Insert> {
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

    fn update(&mut self) -> Result<Update> {
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

    fn delete(&mut self) -> Result<Delete> {
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
    fn where_clause(&mut self) -> Result<CondNode> {
        if !self.eat_keyword("WHERE") {
            return Err(Exception::validation(super::INCOMPLETE_KEY));
        }
        self.condition()
    }

    fn returning(&mut self) -> Result<Option<ReturnValue>> {
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

    fn assignment(&mut self) -> Result<UpdateAction> {
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
    fn set_function(&mut self, path: Path, function: &str, add: bool) -> Result<UpdateAction> {
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

    fn term(&mut self) -> Result<UpdateOperand> {
        if self
            .word_at(0)
            .is_some_and(|w| w.eq_ignore_ascii_case("list_append"))
            && self.peek_at(1).kind == Tok::LParen
        {
            self.bump();
            self.bump();
            let a = self.term()?;
            self.expect(Tok::Comma)?;
            let b = self.term()?;
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

    // ---- conditions

    fn condition(&mut self) -> Result<CondNode> {
        let mut left = self.and()?;
        while self.eat_keyword("OR") {
            left = CondNode::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<CondNode> {
        let mut left = self.not()?;
        while self.eat_keyword("AND") {
            left = CondNode::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<CondNode> {
        if self.eat_keyword("NOT") {
            return Ok(CondNode::Not(Box::new(self.not()?)));
        }
        self.predicate()
    }

    fn predicate(&mut self) -> Result<CondNode> {
        if self.eat(Tok::LParen) {
            let inner = self.condition()?;
            self.expect(Tok::RParen)?;
            return Ok(inner);
        }
        if self.peek().kind == Tok::Ident && self.peek_at(1).kind == Tok::LParen {
            let function = self.peek().text.to_ascii_lowercase();
            if function != "size" {
                return self.function(&function);
            }
        }
        let left = self.operand()?;
        let comparator = match self.peek().kind {
            Tok::Eq => Some(Comparator::Eq),
            Tok::Ne => Some(Comparator::Ne),
            Tok::Lt => Some(Comparator::Lt),
            Tok::Le => Some(Comparator::Le),
            Tok::Gt => Some(Comparator::Gt),
            Tok::Ge => Some(Comparator::Ge),
            _ => None,
        };
        if let Some(c) = comparator {
            self.bump();
            return Ok(CondNode::Compare(c, left, self.operand()?));
        }
        if self.eat_keyword("BETWEEN") {
            let low = self.operand()?;
            self.keyword("AND")?;
            return Ok(CondNode::Between(left, low, self.operand()?));
        }
        if self.eat_keyword("IN") {
            return self.in_list(left);
        }
        if self.eat_keyword("IS") {
            return self.is(left);
        }
        Err(self.unexpected())
    }

    fn in_list(&mut self, left: Operand) -> Result<CondNode> {
        let close = match self.bump().kind {
            Tok::LBracket => Tok::RBracket,
            Tok::LParen => Tok::RParen,
            _ => return Err(invalid_in()),
        };
        let mut values = Vec::new();
        if self.peek().kind != close {
            loop {
                values.push(Operand::Value(self.value()?));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(close)?;
        if values.is_empty() || !matches!(left, Operand::Path(_)) {
            return Err(invalid_in());
        }
        Ok(CondNode::In(left, values))
    }

    /// `x IS [NOT] MISSING | NULL | <type>`.
    fn is(&mut self, left: Operand) -> Result<CondNode> {
        let Operand::Path(path) = left else {
            return Err(Exception::validation(
                "The left hand side argument to IS must be a Variable Reference, Literal, or Path",
            ));
        };
        let negated = self.eat_keyword("NOT");
        let word = self.bump();
        let ty = if word.kind == Tok::Ident {
            word.text.to_ascii_uppercase()
        } else {
            String::new()
        };
        let node = match ty.as_str() {
            "MISSING" => CondNode::NotExists(path),
            other => {
                let tag = match other {
                    "NULL" => "NULL",
                    "BOOLEAN" => "BOOL",
                    "STRING" => "S",
                    "NUMERIC" => "N",
                    "BLOB" => "B",
                    "LIST" => "L",
                    "STRUCT" | "TUPLE" => "M",
                    _ => {
                        return Err(Exception::validation(format!(
                            "Unsupported data type for IS operator: {}. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]",
                            if ty.is_empty() { "UNKNOWN" } else { &ty }
                        )))
                    }
                };
                CondNode::AttrType(path, tag)
            }
        };
        Ok(if negated {
            CondNode::Not(Box::new(node))
        } else {
            node
        })
    }

    /// A function that is itself a condition: `begins_with(a, 'x')`, `contains(…)`,
    /// `attribute_exists(a)`, `attribute_not_exists(a)`, `attribute_type(a, 'S')`,
    /// `missing(a)`.
    fn function(&mut self, name: &str) -> Result<CondNode> {
        self.bump();
        self.expect(Tok::LParen)?;
        let mut args = vec![self.operand()?];
        while self.eat(Tok::Comma) {
            args.push(self.operand()?);
        }
        self.expect(Tok::RParen)?;
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(Exception::validation(format!(
                    "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {}",
                    args.len()
                )))
            }
        };
        let path = |op: &Operand| match op {
            Operand::Path(p) => Ok(p.clone()),
            _ => Err(Exception::validation(format!(
                "Incorrect operand type for operator or function; operator or function: {name}"
            ))),
        };
        Ok(match name {
            "begins_with" | "contains" => {
                arity(2)?;
                let (a, b) = (args[0].clone(), args[1].clone());
                if name == "contains" {
                    CondNode::Contains(a, b)
                } else {
                    CondNode::BeginsWith(a, b)
                }
            }
            "attribute_exists" => {
                arity(1)?;
                CondNode::Exists(path(&args[0])?)
            }
            "attribute_not_exists" | "missing" => {
                arity(1)?;
                CondNode::NotExists(path(&args[0])?)
            }
            "attribute_type" => {
                arity(2)?;
                let tag = match &args[1] {
                    Operand::Value(AttributeValue::S(t)) => type_tag(t).ok_or_else(|| {
                        Exception::validation(format!(
                            "Invalid attribute type name found; type: {t}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                        ))
                    })?,
                    _ => {
                        return Err(Exception::validation(
                            "Incorrect operand type for operator or function; operator or function: attribute_type",
                        ))
                    }
                };
                CondNode::AttrType(path(&args[0])?, tag)
            }
            other => return Err(unrecognized_function(other)),
        })
    }

    fn operand(&mut self) -> Result<Operand> {
        if self
            .word_at(0)
            .is_some_and(|w| w.eq_ignore_ascii_case("size"))
            && self.peek_at(1).kind == Tok::LParen
        {
            self.bump();
            self.bump();
            let inner = self.path()?;
            self.expect(Tok::RParen)?;
            return Ok(Operand::Size(Box::new(Operand::Path(inner))));
        }
        if self.at_keyword("MISSING") {
            return Err(Exception::validation(
                "MISSING must be compared using IS operator",
            ));
        }
        if self.at_name() {
            return self.path().map(Operand::Path);
        }
        self.value().map(Operand::Value)
    }

    // ---- names, paths and values

    /// Whether a name starts here (a quoted name, or a word that is no keyword or literal).
    fn at_name(&self) -> bool {
        let t = self.peek();
        t.kind == Tok::Quoted || (t.kind == Tok::Ident && !is_keyword(&t.text))
    }

    fn name(&mut self) -> Result<String> {
        if self.at_name() {
            Ok(self.bump().text)
        } else {
            Err(self.unexpected())
        }
    }

    fn path(&mut self) -> Result<Path> {
        let mut elems = vec![PathElem::Name(self.name()?)];
        loop {
            if self.eat(Tok::Dot) {
                elems.push(PathElem::Name(self.name()?));
            } else if self.eat(Tok::LBracket) {
                let t = self.bump();
                match t.kind {
                    Tok::Number => {
                        let index = t.text.parse::<u32>().map_err(|_| {
                            Exception::validation(format!(
                                "List index is not within the allowable range; index: [{}]",
                                t.text
                            ))
                        })?;
                        elems.push(PathElem::Index(index));
                    }
                    Tok::Str => elems.push(PathElem::Name(t.text)),
                    _ => return Err(malformed("Unexpected path component")),
                }
                self.expect(Tok::RBracket)?;
            } else {
                return Ok(Path(elems));
            }
        }
    }

    /// A literal or a parameter, in DynamoDB's canonical form.
    fn value(&mut self) -> Result<AttributeValue> {
        let t = self.bump();
        let raw = match t.kind {
            Tok::Str => AttributeValue::S(t.text),
            Tok::Number => AttributeValue::N(t.text),
            Tok::Minus if self.peek().kind == Tok::Number => {
                AttributeValue::N(format!("-{}", self.bump().text))
            }
            Tok::Param => {
                let v = self
                    .params
                    .get(self.used)
                    .cloned()
                    .ok_or_else(parameter_count)?;
                self.used += 1;
                return Ok(v);
            }
            Tok::Ident => match t.text.to_ascii_uppercase().as_str() {
                "TRUE" => AttributeValue::Bool(true),
                "FALSE" => AttributeValue::Bool(false),
                "NULL" => AttributeValue::Null(true),
                "MISSING" => {
                    return Err(Exception::validation(
                        "MISSING must be compared using IS operator",
                    ))
                }
                _ => {
                    self.pos -= 1;
                    return Err(self.unexpected());
                }
            },
            Tok::LBrace => AttributeValue::M(self.tuple()?),
            Tok::LBracket => {
                let mut list = Vec::new();
                if self.peek().kind != Tok::RBracket {
                    loop {
                        list.push(self.value()?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RBracket)?;
                AttributeValue::L(list)
            }
            Tok::LBag => self.bag()?,
            Tok::Eof => return Err(malformed("Unexpected end of statement")),
            _ => {
                self.pos -= 1;
                return Err(self.unexpected());
            }
        };
        canonicalize_value(raw)
    }

    /// The inside of `{…}`, after the brace.
    fn tuple(&mut self) -> Result<Item> {
        let mut item = Item::new();
        if self.eat(Tok::RBrace) {
            return Ok(item);
        }
        loop {
            if !matches!(self.peek().kind, Tok::Str | Tok::Quoted) {
                return Err(self.unexpected());
            }
            let key = self.bump();
            self.expect(Tok::Colon)?;
            let value = self.value()?;
            if item.insert(key.text.clone(), value).is_some() {
                return Err(Exception::validation(format!(
                    "Duplicate keys in tuple. Key: {} under item",
                    key.text
                )));
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace)?;
        Ok(item)
    }

    /// The inside of `<<…>>`: a set of strings or of numbers.
    fn bag(&mut self) -> Result<AttributeValue> {
        let mut strings = Vec::new();
        let mut numbers = Vec::new();
        if self.peek().kind == Tok::RBag {
            return Err(Exception::validation("Empty bags are not supported"));
        }
        loop {
            let negative = self.eat(Tok::Minus);
            let t = self.bump();
            match t.kind {
                Tok::Str if !negative => strings.push(t.text),
                Tok::Number if negative => numbers.push(format!("-{}", t.text)),
                Tok::Number => numbers.push(t.text),
                _ => {
                    return Err(Exception::validation(
                        "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags",
                    ))
                }
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBag)?;
        match (strings.is_empty(), numbers.is_empty()) {
            (false, true) => Ok(AttributeValue::Ss(strings)),
            (true, false) => Ok(AttributeValue::Ns(numbers)),
            _ => Err(Exception::validation(
                "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags",
            )),
        }
    }

    // ---- tokens

    fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        &self.toks[(self.pos + ahead).min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: Tok) -> bool {
        let here = self.peek().kind == kind;
        if here {
            self.bump();
        }
        here
    }

    fn expect(&mut self, kind: Tok) -> Result<Token> {
        if self.peek().kind == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected())
        }
    }

    /// The word at `ahead` tokens from here, if it is a bare word.
    fn word_at(&self, ahead: usize) -> Option<&str> {
        let t = self.peek_at(ahead);
        (t.kind == Tok::Ident).then_some(t.text.as_str())
    }

    fn at_keyword(&self, kw: &str) -> bool {
        self.word_at(0).is_some_and(|w| w.eq_ignore_ascii_case(kw))
    }

    fn eat_keyword(&mut self, kw: &str) -> bool {
        let here = self.at_keyword(kw);
        if here {
            self.bump();
        }
        here
    }

    fn keyword(&mut self, kw: &str) -> Result<()> {
        if self.eat_keyword(kw) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// The syntax error for the token at hand.
    fn unexpected(&self) -> Exception {
        let t = self.peek();
        malformed(match t.kind {
            Tok::Eof => "Unexpected end of statement",
            Tok::Ident if is_keyword(&t.text) => "Unexpected keyword",
            _ => "Unexpected token",
        })
    }
}

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

fn unrecognized_function(name: &str) -> Exception {
    Exception::validation(format!("Unrecognized function: {name}"))
}

fn invalid_in() -> Exception {
    Exception::validation(
        "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member",
    )
}

/// The static tag of a type name `attribute_type` accepts.
fn type_tag(name: &str) -> Option<&'static str> {
    ["S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"]
        .into_iter()
        .find(|t| *t == name)
}
