//! The `WHERE` grammar: conditions into the expression language's [`CondNode`] tree.
//!
//! ```text
//! cond       ::= and { OR and };   and ::= not { AND not };   not ::= NOT not | predicate
//! predicate  ::= '(' cond ')' | function '(' args ')'
//!              | operand ( cmp operand | BETWEEN operand AND operand
//!                        | IN ( '[' values ']' | '(' values ')' ) | IS [NOT] type )
//! operand    ::= path | value | size '(' path ')'
//! ```

use crate::error::{Exception, Result};
use crate::expr::{Comparator, CondNode, Operand};
use crate::value::AttributeValue;

use super::lexer::Tok;
use super::parser::{unrecognized_function, Parser};

impl Parser<'_> {
    pub(super) fn condition(&mut self) -> Result<CondNode> {
        let mut left = self.and()?;
        while self.eat_keyword("OR") {
            left = CondNode::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    pub(super) fn and(&mut self) -> Result<CondNode> {
        let mut left = self.not()?;
        while self.eat_keyword("AND") {
            left = CondNode::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    pub(super) fn not(&mut self) -> Result<CondNode> {
        if self.eat_keyword("NOT") {
            return Ok(CondNode::Not(Box::new(self.nested(Self::not)?)));
        }
        self.predicate()
    }

    pub(super) fn predicate(&mut self) -> Result<CondNode> {
        if self.eat(Tok::LParen) {
            let inner = self.nested(Self::condition)?;
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

    pub(super) fn in_list(&mut self, left: Operand) -> Result<CondNode> {
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
    pub(super) fn is(&mut self, left: Operand) -> Result<CondNode> {
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
        // `IS NULL` is the NULL type only; PartiQL's MISSING-is-NULL is left out (module
        // essay).
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
    pub(super) fn function(&mut self, name: &str) -> Result<CondNode> {
        self.bump();
        self.expect(Tok::LParen)?;
        let mut args = vec![self.operand()?];
        while self.eat(Tok::Comma) {
            args.push(self.operand()?);
        }
        self.expect(Tok::RParen)?;
        // The expression language's messages for a function's operands (unverified for
        // PartiQL, whose own catalogue has none).
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

    pub(super) fn operand(&mut self) -> Result<Operand> {
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
