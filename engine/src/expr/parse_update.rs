//! UpdateExpression grammar (§5.6).
//!
//! ```text
//! update     ::= clause { clause }           -- SET, REMOVE, ADD, DELETE at most once each
//! clause     ::= SET path '=' value { ',' path '=' value }
//!              | REMOVE path { ',' path }
//!              | ADD path :value { ',' path :value }
//!              | DELETE path :value { ',' path :value }
//! value      ::= '(' value ')' | operand [ ('+' | '-') operand ]
//! operand    ::= '(' operand ')' | path | :value
//!              | if_not_exists '(' path ',' operand ')' | list_append '(' operand ',' operand ')'
//! ```
//!
//! Literal operand types are checked here (`:s + 1` with `:s` a string, `ADD a :list`); the
//! types of attributes read from the item can only be checked when the update is applied.

use crate::error::Result;
use crate::value::AttributeValue;

use super::ast::{Path, SetValue, UpdateAction, UpdateOperand};
use super::lexer::Tok;
use super::names::Problem;
use super::parser::Parser;
use super::paths::check_disjoint;

const CLAUSES: [&str; 4] = ["SET", "REMOVE", "ADD", "DELETE"];
const CONDITION_FUNCTIONS: [&str; 6] = [
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "size",
];

#[derive(Debug)]
enum Raw {
    Path(Path),
    Value(AttributeValue),
    Call(String, Vec<Raw>),
}

pub(crate) fn parse_update(p: &mut Parser) -> Result<Vec<UpdateAction>> {
    let mut actions = Vec::new();
    let mut seen = [false; 4];
    loop {
        let t = p.peek();
        let clause = CLAUSES
            .iter()
            .position(|c| t.kind == Tok::Ident && p.text(t).eq_ignore_ascii_case(c))
            .ok_or_else(|| p.syntax_error())?;
        p.bump();
        if seen[clause] {
            let name = CLAUSES[clause];
            p.record(Problem::DuplicateSection, || {
                format!("The \"{name}\" section can only be used once in an update expression;")
            });
        }
        seen[clause] = true;
        loop {
            let path = p.parse_path()?;
            let action = match clause {
                0 => {
                    p.expect(Tok::Eq)?;
                    UpdateAction::Set(path, parse_set_value(p)?)
                }
                1 => UpdateAction::Remove(path),
                _ => {
                    let t = p.expect(Tok::ValuePh)?;
                    let v = p.value(t);
                    check_add_delete_operand(p, clause == 2, &v);
                    if clause == 2 {
                        UpdateAction::Add(path, v)
                    } else {
                        UpdateAction::Delete(path, v)
                    }
                }
            };
            actions.push(action);
            if p.peek().kind != Tok::Comma {
                break;
            }
            p.bump();
        }
        if p.peek().kind == Tok::Eof {
            break;
        }
    }
    let paths: Vec<&Path> = actions.iter().map(UpdateAction::path).collect();
    check_disjoint(p, &paths);
    Ok(actions)
}

fn check_add_delete_operand(p: &mut Parser, add: bool, v: &AttributeValue) {
    let wording = match v {
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => return,
        AttributeValue::N(_) if add => return,
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "BINARY",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Bool(_) => "BOOLEAN",
        AttributeValue::L(_) => "LIST",
        AttributeValue::M(_) => "MAP",
    };
    let operator = if add { "ADD" } else { "DELETE" };
    p.record(Problem::OperandType, || {
        format!(
            "Incorrect operand type for operator or function; operator: {operator}, operand type: \
             {wording}"
        )
    });
}

fn parse_set_value(p: &mut Parser) -> Result<SetValue> {
    // `(a + b)` groups the whole value; `(a) + b` groups an operand. Look past the `)`.
    if p.peek().kind == Tok::LParen && !paren_followed_by_arith(p) {
        p.bump();
        p.enter()?;
        let v = parse_set_value(p)?;
        p.expect(Tok::RParen)?;
        p.leave();
        return Ok(v);
    }
    let lhs = parse_operand_parens(p)?;
    let op = p.peek().kind;
    if op != Tok::Plus && op != Tok::Minus {
        return Ok(SetValue::Operand(to_operand(p, lhs)));
    }
    p.bump();
    p.count_operator();
    let rhs = parse_operand_parens(p)?;
    let symbol = if op == Tok::Plus { "+" } else { "-" };
    let (lhs, rhs) = (to_operand(p, lhs), to_operand(p, rhs));
    for o in [&lhs, &rhs] {
        if let UpdateOperand::Value(v) = o {
            if v.type_name() != "N" {
                record_operand_type(p, symbol, v.type_name());
            }
        }
    }
    Ok(if op == Tok::Plus {
        SetValue::Plus(lhs, rhs)
    } else {
        SetValue::Minus(lhs, rhs)
    })
}

fn paren_followed_by_arith(p: &Parser) -> bool {
    let mut depth = 0usize;
    let mut i = p.position();
    loop {
        match p.token_at(i).kind {
            Tok::LParen => depth += 1,
            Tok::RParen => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::Eof => return false,
            _ => {}
        }
        i += 1;
    }
    matches!(p.token_at(i + 1).kind, Tok::Plus | Tok::Minus)
}

fn parse_operand_parens(p: &mut Parser) -> Result<Raw> {
    if p.peek().kind != Tok::LParen {
        return parse_operand(p);
    }
    p.bump();
    p.enter()?;
    let inner = parse_operand_parens(p)?;
    p.expect(Tok::RParen)?;
    p.leave();
    Ok(inner)
}

fn parse_operand(p: &mut Parser) -> Result<Raw> {
    let t = p.peek();
    match t.kind {
        Tok::ValuePh => {
            p.bump();
            Ok(Raw::Value(p.value(t)))
        }
        Tok::Ident if !p.is_keyword(t) && p.nth(1).kind == Tok::LParen => {
            p.bump();
            p.bump();
            p.count_operator();
            p.enter()?;
            let mut args = vec![parse_operand_parens(p)?];
            while p.peek().kind == Tok::Comma {
                p.bump();
                args.push(parse_operand_parens(p)?);
            }
            p.expect(Tok::RParen)?;
            p.leave();
            Ok(Raw::Call(p.text(t).to_string(), args))
        }
        _ if p.at_path_start() => Ok(Raw::Path(p.parse_path()?)),
        _ => Err(p.syntax_error()),
    }
}

fn record_operand_type(p: &mut Parser, function: &str, ty: &str) {
    p.record(Problem::OperandType, || {
        format!(
            "Incorrect operand type for operator or function; operator or function: {function}, \
             operand type: {ty}"
        )
    });
}

fn dummy() -> UpdateOperand {
    UpdateOperand::Value(AttributeValue::Null(true))
}

fn to_operand(p: &mut Parser, raw: Raw) -> UpdateOperand {
    let (name, args) = match raw {
        Raw::Path(path) => return UpdateOperand::Path(path),
        Raw::Value(v) => return UpdateOperand::Value(v),
        Raw::Call(name, args) => (name, args),
    };
    if name != "if_not_exists" && name != "list_append" {
        if CONDITION_FUNCTIONS.contains(&name.as_str()) {
            p.record(Problem::UnknownFunction, || {
                format!("The function is not allowed in an update expression; function: {name}")
            });
        } else {
            p.record(Problem::UnknownFunction, || {
                format!("Invalid function name; function: {name}")
            });
        }
        return dummy();
    }
    if args.len() != 2 {
        let n = args.len();
        p.record(Problem::OperandCount, || {
            format!(
                "Incorrect number of operands for operator or function; operator or function: \
                 {name}, number of operands: {n}"
            )
        });
        return dummy();
    }
    let mut args = args.into_iter();
    let (a, b) = match (args.next(), args.next()) {
        (Some(a), Some(b)) => (a, b),
        _ => return dummy(),
    };
    if name == "if_not_exists" {
        let path = match a {
            Raw::Path(path) => path,
            _ => {
                p.record(Problem::OperandType, || {
                    "Operator or function requires a document path; operator or function: \
                     if_not_exists"
                        .into()
                });
                Path(Vec::new())
            }
        };
        let fallback = to_operand(p, b);
        return UpdateOperand::IfNotExists(path, Box::new(fallback));
    }
    let (a, b) = (to_operand(p, a), to_operand(p, b));
    for o in [&a, &b] {
        if let UpdateOperand::Value(v) = o {
            if v.type_name() != "L" {
                record_operand_type(p, "list_append", v.type_name());
            }
        }
    }
    UpdateOperand::ListAppend(Box::new(a), Box::new(b))
}
