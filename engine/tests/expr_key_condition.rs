//! KeyConditionExpression: the shape a Query's key condition must have, and how it resolves
//! against a table's or an index's key schema (§5.5).

use std::collections::HashMap;

use engine::expr::{
    parse_request, ExpressionInput, KeyCondition, KeyConditionExpr, ScalarType, SortCondition,
};
use engine::{AttributeValue, Blob};

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}
fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn parse(expr: &str, values: &[(&str, AttributeValue)]) -> Result<KeyConditionExpr, String> {
    let names: HashMap<String, String> = HashMap::from([("#st".to_string(), "status".to_string())]);
    let values: HashMap<String, AttributeValue> = values
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let input = ExpressionInput {
        key_condition: Some(expr),
        names: expr.contains("#st").then_some(&names),
        values: (!values.is_empty()).then_some(&values),
        ..Default::default()
    };
    parse_request(&input)
        .map(|p| p.key_condition.unwrap())
        .map_err(|e| e.message().to_string())
}

/// Resolve against a table keyed `pk` (S) + `sk` (N).
fn resolve(expr: &str, values: &[(&str, AttributeValue)]) -> Result<KeyCondition, String> {
    parse(expr, values)?
        .resolve("pk", ScalarType::S, Some(("sk", ScalarType::N)))
        .map_err(|e| e.message().to_string())
}

#[test]
fn partition_key_alone_or_with_one_sort_condition() {
    let k = resolve("pk = :p", &[(":p", s("A"))]).unwrap();
    assert_eq!(
        k,
        KeyCondition {
            partition_value: s("A"),
            sort: None
        }
    );
    let k = resolve(
        "sk BETWEEN :a AND :b AND pk = :p",
        &[(":p", s("A")), (":a", n("1")), (":b", n("9"))],
    )
    .unwrap();
    assert_eq!(k.sort, Some(SortCondition::Between(n("1"), n("9"))));
    let k = resolve(":v < sk and pk = :p", &[(":p", s("A")), (":v", n("5"))]).unwrap();
    assert_eq!(
        k.sort,
        Some(SortCondition::Gt(n("5"))),
        "a value on the left flips the comparison"
    );
    let k = parse(
        "(#st = :p) AND begins_with(sk, :pre)",
        &[(":p", s("A")), (":pre", s("2024-"))],
    )
    .unwrap()
    .resolve("status", ScalarType::S, Some(("sk", ScalarType::S)))
    .unwrap();
    assert_eq!(k.sort, Some(SortCondition::BeginsWith(s("2024-"))));
}

#[test]
fn sort_conditions_match_in_key_order() {
    let between = SortCondition::Between(n("2"), n("10"));
    assert!(between.matches(&n("2")) && between.matches(&n("10")) && between.matches(&n("9.5")));
    assert!(!between.matches(&n("10.01")) && !between.matches(&s("5")));
    assert!(SortCondition::Lt(s("b")).matches(&s("a")));
    assert!(
        SortCondition::Gt(s("Z")).matches(&s("a")),
        "bytes: 'a' > 'Z'"
    );
    assert!(SortCondition::BeginsWith(s("ab")).matches(&s("abc")));
    let b = |v: &[u8]| AttributeValue::B(Blob::new(v.to_vec()));
    assert!(
        SortCondition::Ge(b(&[0x7f])).matches(&b(&[0x80])),
        "bytes are unsigned"
    );
    assert!(SortCondition::Eq(n("1.0")).matches(&n("1")));
}

#[test]
fn shape_errors() {
    let v = [(":p", s("A")), (":q", s("B"))];
    assert_eq!(
        parse("pk = :p OR pk = :q", &v).unwrap_err(),
        "Invalid operator used in KeyConditionExpression: OR"
    );
    assert_eq!(
        parse("NOT pk = :p", &v[..1]).unwrap_err(),
        "Invalid operator used in KeyConditionExpression: NOT"
    );
    assert_eq!(
        parse("pk IN (:p, :q)", &v).unwrap_err(),
        "Invalid operator used in KeyConditionExpression: IN"
    );
    assert_eq!(
        parse("pk <> :p", &v[..1]).unwrap_err(),
        "Invalid operator used in KeyConditionExpression: <>"
    );
    assert_eq!(
        parse("pk = :p AND attribute_exists(sk)", &v[..1]).unwrap_err(),
        "Invalid operator used in KeyConditionExpression: attribute_exists"
    );
    assert_eq!(
        parse("pk = :p AND contains(sk, :q)", &v).unwrap_err(),
        "Invalid operator used in KeyConditionExpression: contains"
    );
    assert_eq!(
        parse("size(pk) = :p", &v[..1]).unwrap_err(),
        "KeyConditionExpressions cannot contain nested operations"
    );
    assert_eq!(
        parse("pk.x = :p", &v[..1]).unwrap_err(),
        "KeyConditionExpressions cannot have conditions on nested attributes"
    );
    assert_eq!(parse("pk = sk", &[]).unwrap_err(), "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
    assert_eq!(
        parse(":p = :q", &v).unwrap_err(),
        "Invalid condition in KeyConditionExpression: No key attribute specified"
    );
    assert_eq!(
        parse("pk = :p AND pk = :q", &v).unwrap_err(),
        "KeyConditionExpressions must only contain one condition per key"
    );
    assert_eq!(
        parse("pk = :p AND sk = :q AND x = :q", &v).unwrap_err(),
        "Conditions can be of length 1 or 2 only"
    );
    assert_eq!(parse(":p BETWEEN sk AND :q", &v).unwrap_err(), "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand");
    assert_eq!(
        parse("pk = :p AND sk BETWEEN :q AND :p", &v).unwrap_err(),
        "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:B}, upper bound operand: AttributeValue: {S:A}"
    );
}

#[test]
fn schema_errors() {
    let v = [(":p", s("A")), (":n", n("1"))];
    assert_eq!(
        resolve("sk = :n", &v[1..]).unwrap_err(),
        "Query condition missed key schema element: pk"
    );
    assert_eq!(
        resolve("pk > :p", &v[..1]).unwrap_err(),
        "Query key condition not supported"
    );
    assert_eq!(
        resolve("pk = :p AND extra = :n", &v).unwrap_err(),
        "Query key condition not supported"
    );
    let mismatch = "One or more parameter values were invalid: Condition parameter type does not match schema type";
    assert_eq!(resolve("pk = :n", &v[1..]).unwrap_err(), mismatch);
    assert_eq!(
        resolve("pk = :p AND sk >= :p", &v[..1]).unwrap_err(),
        mismatch
    );
    assert_eq!(
        resolve("pk = :p AND begins_with(sk, :p)", &v[..1]).unwrap_err(),
        mismatch,
        "begins_with is not for N keys"
    );
    assert_eq!(
        parse("pk = :p AND begins_with(sk, :n)", &v).unwrap_err(),
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"
    );
    let table_without_sk =
        parse("pk = :p AND sk = :n", &v)
            .unwrap()
            .resolve("pk", ScalarType::S, None);
    assert_eq!(
        table_without_sk.unwrap_err().message(),
        "Query key condition not supported"
    );
}
