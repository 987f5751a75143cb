//! ConditionExpression / FilterExpression / KeyConditionExpression grammar (§5.2).
//!
//! ```text
//! or        ::= and { OR and }
//! and       ::= not { AND not }
//! not       ::= NOT not | primary
//! primary   ::= '(' or ')'
//!             | operand comparator operand
//!             | operand BETWEEN operand AND operand
//!             | operand IN '(' operand { ',' operand } ')'
//!             | function '(' operand { ',' operand } ')'
//! operand   ::= '(' operand ')' | path | :value | function '(' … ')'
//! ```
//!
//! Precedence falls out of the layering: `NOT` binds tighter than `AND`, `AND` tighter than
//! `OR`, comparisons tighter than all three. `(` is ambiguous at the start of a primary —
//! `(a) = :v` parenthesises an operand, `(a = :v)` a condition — and is resolved by looking
//! past the matching `)`: a comparator, `BETWEEN` or `IN` there means an operand.
//!
//! Functions are parsed generically (any name, any number of arguments) and checked
//! afterwards, so `foo(a)` reports "Invalid function name" rather than a syntax error, as
//! DynamoDB does.

use crate::error::Result;
use crate::value::AttributeValue;

use super::ast::{Comparator, CondNode, Operand, Path};
use super::lexer::Tok;
use super::names::Problem;
use super::parser::Parser;
use super::MAX_IN_OPERANDS;

/// An operand before function checks: a call keeps its name and raw arguments.
#[derive(Debug)]
enum Raw {
    Path(Path),
    Value(AttributeValue),
    Call(String, Vec<Raw>),
}

const CONDITION_FUNCTIONS: [(&str, usize); 6] = [
    ("attribute_exists", 1),
    ("attribute_not_exists", 1),
    ("attribute_type", 2),
    ("begins_with", 2),
    ("contains", 2),
    ("size", 1),
];
const UPDATE_FUNCTIONS: [&str; 2] = ["if_not_exists", "list_append"];
const TYPE_NAMES: [&str; 10] = ["S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"];

/// Parse a whole condition (the caller checks the end of input via `Parser::finish`).
pub(crate) fn parse_condition(p: &mut Parser) -> Result<CondNode> {
    Ok(parse_or(p)?.0)
}

// Each level returns the node and whether it is exactly one parenthesised group, which is
// how `((a = :v))` is recognised as redundant.
fn parse_or(p: &mut Parser) -> Result<(CondNode, bool)> {
    let (mut left, mut only_paren) = parse_and(p)?;
    while p.at_keyword("OR") {
        p.bump();
        p.count_operator();
        let (right, _) = parse_and(p)?;
        left = CondNode::Or(Box::new(left), Box::new(right));
        only_paren = false;
    }
    Ok((left, only_paren))
}

fn parse_and(p: &mut Parser) -> Result<(CondNode, bool)> {
    let (mut left, mut only_paren) = parse_not(p)?;
    while p.at_keyword("AND") {
        p.bump();
        p.count_operator();
        let (right, _) = parse_not(p)?;
        left = CondNode::And(Box::new(left), Box::new(right));
        only_paren = false;
    }
    Ok((left, only_paren))
}

/// `NOT NOT … condition`: a run of NOTs is read in a loop, not by recursion, so it is
/// bounded only by the operator limit (a condition with 299 NOTs and one comparison is
/// accepted, as the service accepts it), not by the parser's nesting guard.
fn parse_not(p: &mut Parser) -> Result<(CondNode, bool)> {
    let mut nots = 0usize;
    while p.at_keyword("NOT") {
        p.bump();
        p.count_operator();
        nots += 1;
    }
    let (mut node, only_paren) = parse_primary(p)?;
    if nots == 0 {
        return Ok((node, only_paren));
    }
    for _ in 0..nots {
        node = CondNode::Not(Box::new(node));
    }
    Ok((node, false))
}

fn redundant(p: &mut Parser) {
    p.record(Problem::RedundantParens, || {
        "The expression has redundant parentheses;".into()
    });
}

/// Whether the `(` under the cursor encloses a condition rather than an operand.
fn paren_encloses_condition(p: &Parser) -> bool {
    let mut depth = 0usize;
    let mut i = p.position();
    loop {
        let t = p.token_at(i);
        match t.kind {
            Tok::LParen => depth += 1,
            Tok::RParen => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::Eof => return true,
            _ => {}
        }
        i += 1;
    }
    let after = p.token_at(i + 1);
    let word = p.text(after);
    !(matches!(
        after.kind,
        Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge
    ) || (after.kind == Tok::Ident
        && (word.eq_ignore_ascii_case("BETWEEN") || word.eq_ignore_ascii_case("IN"))))
}

fn comparator(kind: Tok) -> Option<Comparator> {
    Some(match kind {
        Tok::Eq => Comparator::Eq,
        Tok::Ne => Comparator::Ne,
        Tok::Lt => Comparator::Lt,
        Tok::Le => Comparator::Le,
        Tok::Gt => Comparator::Gt,
        Tok::Ge => Comparator::Ge,
        _ => return None,
    })
}

fn parse_primary(p: &mut Parser) -> Result<(CondNode, bool)> {
    if p.peek().kind == Tok::LParen && paren_encloses_condition(p) {
        p.bump();
        p.enter()?;
        let (inner, inner_paren) = parse_or(p)?;
        p.expect(Tok::RParen)?;
        p.leave();
        if inner_paren {
            redundant(p);
        }
        return Ok((inner, true));
    }
    let (lhs, _) = parse_operand_parens(p)?;
    if let Some(cmp) = comparator(p.peek().kind) {
        p.bump();
        p.count_operator();
        let (rhs, _) = parse_operand_parens(p)?;
        let lhs = to_operand(p, lhs);
        let rhs = to_operand(p, rhs);
        check_distinct(p, cmp.symbol(), &lhs, &rhs);
        if !matches!(cmp, Comparator::Eq | Comparator::Ne) {
            check_comparable(p, cmp.symbol(), &[&lhs, &rhs]);
        }
        return Ok((CondNode::Compare(cmp, lhs, rhs), false));
    }
    if p.at_keyword("BETWEEN") {
        p.bump();
        p.count_operator();
        let (lo, _) = parse_operand_parens(p)?;
        p.expect_keyword("AND")?;
        let (hi, _) = parse_operand_parens(p)?;
        let (x, lo, hi) = (to_operand(p, lhs), to_operand(p, lo), to_operand(p, hi));
        check_comparable(p, "BETWEEN", &[&x, &lo, &hi]);
        check_between_bounds(p, &lo, &hi);
        return Ok((CondNode::Between(x, lo, hi), false));
    }
    if p.at_keyword("IN") {
        p.bump();
        p.count_operator();
        p.expect(Tok::LParen)?;
        p.enter()?;
        let mut list = vec![parse_operand_parens(p)?.0];
        while p.peek().kind == Tok::Comma {
            p.bump();
            list.push(parse_operand_parens(p)?.0);
        }
        p.expect(Tok::RParen)?;
        p.leave();
        if list.len() > MAX_IN_OPERANDS {
            let n = list.len();
            p.record(Problem::TooManyInOperands, || {
                format!(
                    "The IN operator is provided with too many operands; number of operands: {n}"
                )
            });
        }
        let x = to_operand(p, lhs);
        let list = list.into_iter().map(|r| to_operand(p, r)).collect();
        return Ok((CondNode::In(x, list), false));
    }
    match lhs {
        Raw::Call(name, args) => Ok((call_to_condition(p, name, args), false)),
        _ => Err(p.syntax_error()),
    }
}

/// An operand, possibly in parentheses; the flag says it was parenthesised.
fn parse_operand_parens(p: &mut Parser) -> Result<(Raw, bool)> {
    if p.peek().kind != Tok::LParen {
        return Ok((parse_operand(p)?, false));
    }
    p.bump();
    p.enter()?;
    let (inner, inner_paren) = parse_operand_parens(p)?;
    p.expect(Tok::RParen)?;
    p.leave();
    if inner_paren {
        redundant(p);
    }
    Ok((inner, true))
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
            let mut args = vec![parse_operand_parens(p)?.0];
            while p.peek().kind == Tok::Comma {
                p.bump();
                args.push(parse_operand_parens(p)?.0);
            }
            p.expect(Tok::RParen)?;
            p.leave();
            Ok(Raw::Call(p.text(t).to_string(), args))
        }
        _ if p.at_path_start() => Ok(Raw::Path(p.parse_path()?)),
        _ => Err(p.syntax_error()),
    }
}

/// Check that `name` is a condition function taking `arity` operands. Records the problem
/// and returns false otherwise.
fn check_call(p: &mut Parser, name: &str, args: &[Raw]) -> bool {
    let Some(&(_, arity)) = CONDITION_FUNCTIONS.iter().find(|(n, _)| *n == name) else {
        if UPDATE_FUNCTIONS.contains(&name) {
            p.record(Problem::UnknownFunction, || {
                format!("The function is not allowed in a condition expression; function: {name}")
            });
        } else {
            p.record(Problem::UnknownFunction, || {
                format!("Invalid function name; function: {name}")
            });
        }
        return false;
    };
    if args.len() != arity {
        let n = args.len();
        p.record(Problem::OperandCount, || {
            format!(
                "Incorrect number of operands for operator or function; operator or function: \
                 {name}, number of operands: {n}"
            )
        });
        return false;
    }
    true
}

/// A placeholder for a node whose problem has been recorded; the parse fails at `finish`.
fn dummy_operand() -> Operand {
    Operand::Value(AttributeValue::Null(true))
}

fn to_operand(p: &mut Parser, raw: Raw) -> Operand {
    match raw {
        Raw::Path(path) => Operand::Path(path),
        Raw::Value(v) => Operand::Value(v),
        Raw::Call(name, args) => {
            if name != "size" {
                if check_call(p, &name, &args) {
                    p.record(Problem::MisusedFunction, || {
                        format!(
                            "The function is not allowed to be used this way in an expression; \
                             function: {name}"
                        )
                    });
                }
                return dummy_operand();
            }
            if !check_call(p, &name, &args) {
                return dummy_operand();
            }
            let arg = args
                .into_iter()
                .next()
                .map(|a| to_operand(p, a))
                .unwrap_or_else(dummy_operand);
            if let Some(t @ ("N" | "BOOL" | "NULL")) = static_type(&arg) {
                record_operand_type(p, "size", t);
            }
            Operand::Size(Box::new(arg))
        }
    }
}

/// The type of an operand known before evaluation: a literal's, or N for `size`.
fn static_type(op: &Operand) -> Option<&'static str> {
    match op {
        Operand::Path(_) => None,
        Operand::Value(v) => Some(v.type_name()),
        Operand::Size(_) => Some("N"),
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

fn check_distinct(p: &mut Parser, operator: &str, a: &Operand, b: &Operand) {
    if let (Operand::Path(x), Operand::Path(y)) = (a, b) {
        if x == y {
            p.record(Problem::Distinct, || {
                format!(
                    "The first operand must be distinct from the remaining operands for this \
                     operator or function; operator: {operator}, first operand: {x}"
                )
            });
        }
    }
}

/// `<`, `<=`, `>`, `>=` and BETWEEN order only N, S and B; a literal of another type can
/// never compare, so DynamoDB refuses it up front.
fn check_comparable(p: &mut Parser, operator: &str, ops: &[&Operand]) {
    for op in ops {
        if let Some(t) = static_type(op) {
            if !matches!(t, "N" | "S" | "B") {
                record_operand_type(p, operator, t);
            }
        }
    }
}

fn check_between_bounds(p: &mut Parser, lo: &Operand, hi: &Operand) {
    let (Operand::Value(lo), Operand::Value(hi)) = (lo, hi) else {
        return;
    };
    let (lt, ht) = (lo.type_name(), hi.type_name());
    let describe = || {
        format!(
            "lower bound operand: AttributeValue: {{{lt}:{}}}, upper bound operand: \
             AttributeValue: {{{ht}:{}}}",
            scalar_text(lo),
            scalar_text(hi)
        )
    };
    if lt != ht {
        p.record(Problem::OperandType, || {
            format!(
                "The BETWEEN operator requires same data type for lower and upper bounds; {}",
                describe()
            )
        });
    } else if lo.dynamo_cmp(hi) == Some(std::cmp::Ordering::Greater) {
        p.record(Problem::OperandType, || {
            format!(
                "The BETWEEN operator requires upper bound to be greater than or equal to lower \
                 bound; {}",
                describe()
            )
        });
    }
}

/// How an error message shows a scalar: the text of S and N, base64 of B.
pub(crate) fn scalar_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        AttributeValue::B(b) => base64(b.as_ref()),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "true".to_string(),
        other => other.type_name().to_string(),
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn call_to_condition(p: &mut Parser, name: String, args: Vec<Raw>) -> CondNode {
    let dummy = CondNode::Exists(Path(Vec::new()));
    if name == "size" {
        if check_call(p, &name, &args) {
            p.record(Problem::MisusedFunction, || {
                "The function is not allowed to be used this way in an expression; function: size"
                    .into()
            });
        }
        return dummy;
    }
    if !check_call(p, &name, &args) {
        return dummy;
    }
    let mut ops = args.into_iter().map(|a| to_operand(p, a));
    let first = ops.next().unwrap_or_else(dummy_operand);
    let second = ops.next();
    let needs_path = |p: &mut Parser, op: Operand| match op {
        Operand::Path(path) => path,
        _ => {
            p.record(Problem::OperandType, || {
                format!(
                    "Operator or function requires a document path; operator or function: {name}"
                )
            });
            Path(Vec::new())
        }
    };
    match name.as_str() {
        "attribute_exists" => CondNode::Exists(needs_path(p, first)),
        "attribute_not_exists" => CondNode::NotExists(needs_path(p, first)),
        "attribute_type" => {
            // A path or a value: `attribute_type(:v, :t)` is accepted by the service (a peer
            // suite run against it checks it), and is true when the value has the type.
            let subject = match first {
                Operand::Size(_) => Operand::Path(needs_path(p, first)),
                other => other,
            };
            let ty = match second {
                Some(Operand::Value(AttributeValue::S(s))) => {
                    match TYPE_NAMES.iter().find(|t| **t == s) {
                        Some(t) => t,
                        None => {
                            p.record(Problem::OperandType, || {
                                format!(
                                    "Invalid attribute type name found; type: {s}, valid types: \
                                     {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                                )
                            });
                            "S"
                        }
                    }
                }
                other => {
                    let ty = other.as_ref().and_then(static_type);
                    record_operand_type(p, &name, ty.unwrap_or("{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"));
                    "S"
                }
            };
            CondNode::AttrType(subject, ty)
        }
        "begins_with" => {
            let second = second.unwrap_or_else(dummy_operand);
            for op in [&first, &second] {
                if let Some(t) = static_type(op) {
                    if t != "S" && t != "B" {
                        record_operand_type(p, &name, t);
                    }
                }
            }
            check_distinct(p, &name, &first, &second);
            CondNode::BeginsWith(first, second)
        }
        _ => {
            let second = second.unwrap_or_else(dummy_operand);
            check_distinct(p, &name, &first, &second);
            CondNode::Contains(first, second)
        }
    }
}
