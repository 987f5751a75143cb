//! Names, document paths and literal values (and `?` parameters) of the statement grammar.
//!
//! ```text
//! value  ::= 'string' | number | TRUE | FALSE | NULL | '?' | tuple | '[' values ']'
//!          | '<<' values '>>'
//! tuple  ::= '{' [ key ':' value { ',' key ':' value } ] '}'      key ::= 'string' | "name"
//! path   ::= name { '.' name | '[' integer ']' | '[' 'string' ']' }
//! name   ::= identifier (not a keyword) | "quoted name"
//! ```

use crate::error::{Exception, Result};
use crate::expr::{Path, PathElem};
use crate::value::{canonicalize_value, AttributeValue, Item};

use super::lexer::Tok;
use super::malformed;
use super::parser::{is_keyword, parameter_count, Parser};

impl Parser<'_> {
    /// Whether a name starts here (a quoted name, or a word that is no keyword or literal).
    pub(super) fn at_name(&self) -> bool {
        let t = self.peek();
        t.kind == Tok::Quoted || (t.kind == Tok::Ident && !is_keyword(&t.text))
    }

    pub(super) fn name(&mut self) -> Result<String> {
        if self.at_name() {
            Ok(self.bump().text)
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn path(&mut self) -> Result<Path> {
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
    pub(super) fn value(&mut self) -> Result<AttributeValue> {
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
            Tok::LBrace => AttributeValue::M(self.nested(Self::tuple)?),
            Tok::LBracket => {
                let mut list = Vec::new();
                if self.peek().kind != Tok::RBracket {
                    loop {
                        list.push(self.nested(Self::value)?);
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
    pub(super) fn tuple(&mut self) -> Result<Item> {
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
            let value = self.nested(Self::value)?;
            if item.insert(key.text.clone(), value).is_some() {
                // DynamoDB's message, but what it says after "under" is unverified.
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
    pub(super) fn bag(&mut self) -> Result<AttributeValue> {
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
}
