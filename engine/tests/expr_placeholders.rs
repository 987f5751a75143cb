//! Placeholder bookkeeping across all the expressions of one request (§5.8), reserved words
//! (§5.9) and every expression limit at its boundary.

use std::collections::HashMap;

use engine::expr::{parse_request, ExpressionInput, ParsedExpressions};
use engine::AttributeValue;

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}

fn names(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}
fn values(pairs: &[(&str, AttributeValue)]) -> HashMap<String, AttributeValue> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn error(input: ExpressionInput) -> String {
    match parse_request(&input) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => {
            assert_eq!(e.name(), "ValidationException");
            e.message().to_string()
        }
    }
}

fn condition(expr: &str, v: &HashMap<String, AttributeValue>) -> Result<ParsedExpressions, String> {
    let input = ExpressionInput {
        condition: Some(expr),
        values: Some(v),
        ..Default::default()
    };
    parse_request(&input).map_err(|e| e.message().to_string())
}

#[test]
fn placeholders_are_shared_by_all_expressions_of_a_request() {
    let nm = names(&[("#s", "status"), ("#c", "count")]);
    let vl = values(&[(":one", n("1")), (":zero", n("0"))]);
    let input = ExpressionInput {
        update: Some("SET #c = #c + :one"),
        condition: Some("#s <> :zero"),
        names: Some(&nm),
        values: Some(&vl),
        ..Default::default()
    };
    let parsed = parse_request(&input).unwrap();
    assert_eq!(parsed.update.unwrap().top_level_targets(), vec!["count"]);
    assert_eq!(parsed.condition.unwrap().top_level_names(), vec!["status"]);
}

#[test]
fn unused_keys_are_errors_listed_in_key_order() {
    let nm = names(&[("#b", "b"), ("#a", "a"), ("#used", "u")]);
    let vl = values(&[(":z", n("1")), (":y", n("2")), (":used", n("3"))]);
    let input = ExpressionInput {
        condition: Some("#used = :used"),
        names: Some(&nm),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(
        error(input),
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"
    );
    let nm = names(&[("#used", "u")]);
    let input = ExpressionInput {
        condition: Some("#used = :used"),
        names: Some(&nm),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(
        error(input),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:y, :z}"
    );
    let input = ExpressionInput {
        projection: Some("#used"),
        names: Some(&nm),
        ..Default::default()
    };
    assert!(parse_request(&input).is_ok(), "a projection can use names");
}

#[test]
fn undefined_placeholders_and_bad_maps() {
    let vl = values(&[(":v", n("1"))]);
    let input = ExpressionInput {
        condition: Some("#x = :v"),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(error(input), "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x");
    let input = ExpressionInput {
        update: Some("SET a = :w"),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(error(input), "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :w");
    let empty_n = HashMap::new();
    let empty_v = HashMap::new();
    let input = ExpressionInput {
        condition: Some("a = :v"),
        names: Some(&empty_n),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(error(input), "ExpressionAttributeNames must not be empty");
    let input = ExpressionInput {
        condition: Some("a = :v"),
        values: Some(&empty_v),
        ..Default::default()
    };
    assert_eq!(error(input), "ExpressionAttributeValues must not be empty");
    let bad = names(&[("x", "y")]);
    let input = ExpressionInput {
        condition: Some("a = :v"),
        names: Some(&bad),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(
        error(input),
        "ExpressionAttributeNames contains invalid key: Syntax error; key: \"x\""
    );
    let bad = values(&[(":v", n("1")), (":bad", n("twelve"))]);
    let input = ExpressionInput {
        condition: Some("a = :v"),
        values: Some(&bad),
        ..Default::default()
    };
    let msg = error(input);
    assert!(
        msg.starts_with("ExpressionAttributeValues contains invalid value: ")
            && msg.ends_with(" for key :bad"),
        "{msg}"
    );
    let nm = names(&[("#a", "a")]);
    let input = ExpressionInput {
        names: Some(&nm),
        ..Default::default()
    };
    assert_eq!(
        error(input),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
    let input = ExpressionInput {
        projection: Some("a"),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(
        error(input),
        "ExpressionAttributeValues can only be specified when using expressions"
    );
}

#[test]
fn values_are_canonicalized_once() {
    let vl = values(&[(":v", n("+01.50"))]);
    let parsed = condition("a = :v", &vl).unwrap();
    let item = engine::item! { "a" => AttributeValue::N("1.5".into()) };
    assert!(parsed.condition.unwrap().evaluate(Some(&item)));
}

#[test]
fn reserved_words_are_refused_bare_in_every_kind() {
    let vl = values(&[(":v", n("1"))]);
    let m = |kind: &str, w: &str| {
        format!("Invalid {kind}: Attribute name is a reserved keyword; reserved keyword: {w}")
    };
    assert_eq!(
        condition("Status = :v", &vl).unwrap_err(),
        m("ConditionExpression", "Status")
    );
    assert_eq!(
        condition("a.data = :v", &vl).unwrap_err(),
        m("ConditionExpression", "data")
    );
    let input = ExpressionInput {
        update: Some("SET ttl = :v"),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(error(input), m("UpdateExpression", "ttl"));
    let input = ExpressionInput {
        filter: Some("attribute_exists(YEAR)"),
        ..Default::default()
    };
    assert_eq!(error(input), m("FilterExpression", "YEAR"));
    let input = ExpressionInput {
        key_condition: Some("user = :v"),
        values: Some(&vl),
        ..Default::default()
    };
    assert_eq!(error(input), m("KeyConditionExpression", "user"));
    let input = ExpressionInput {
        projection: Some("a, comment"),
        ..Default::default()
    };
    assert_eq!(error(input), m("ProjectionExpression", "comment"));
    // Through a placeholder, any name is fine, including keywords and odd characters.
    let nm = names(&[("#n", "name"), ("#w", "a weird-name.with dots")]);
    let input = ExpressionInput {
        condition: Some("#n = :v AND attribute_exists(#w)"),
        names: Some(&nm),
        values: Some(&vl),
        ..Default::default()
    };
    assert!(parse_request(&input).is_ok());
}

#[test]
fn expression_size_limit_is_4096_bytes() {
    let vl = values(&[(":v", n("1"))]);
    let at_limit = format!("a = :v{}", " ".repeat(4096 - 6));
    assert_eq!(at_limit.len(), 4096);
    assert!(condition(&at_limit, &vl).is_ok());
    let over = format!("{at_limit} ");
    assert_eq!(condition(&over, &vl).unwrap_err(), "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097");
}

#[test]
fn in_takes_at_most_100_operands() {
    let vl = values(&[(":v", n("1"))]);
    let list = |k: usize| format!("a IN ({})", vec![":v"; k].join(", "));
    assert!(condition(&list(100), &vl).is_ok());
    assert_eq!(condition(&list(101), &vl).unwrap_err(), "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101");
}

#[test]
fn at_most_300_operators() {
    let vl = values(&[(":v", n("1"))]);
    let update = |k: usize| {
        (0..k)
            .map(|i| format!("a{i}=:v+:v"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let parse_update = |k: usize| {
        let expr = format!("SET {}", update(k));
        let input = ExpressionInput {
            update: Some(&expr),
            values: Some(&vl),
            ..Default::default()
        };
        parse_request(&input)
            .map(|_| ())
            .map_err(|e| e.message().to_string())
    };
    assert!(parse_update(300).is_ok());
    assert_eq!(
        parse_update(301).unwrap_err(),
        "Invalid UpdateExpression: The expression contains too many operators; operator count: 301"
    );
    // In a condition: comparisons, AND, OR, NOT and functions all count.
    let ands = |k: usize| vec!["a = :v"; k].join(" AND ");
    assert!(
        condition(&format!("NOT {}", ands(150)), &vl).is_ok(),
        "150 + 149 + 1 = 300"
    );
    assert_eq!(condition(&ands(151), &vl).unwrap_err(), "Invalid ConditionExpression: The expression contains too many operators; operator count: 301");
}

#[test]
fn document_paths_nest_at_most_32_levels() {
    let vl = values(&[(":v", n("1"))]);
    let path = |k: usize| format!("a{}", ".b".repeat(k - 1));
    assert!(condition(&format!("{} = :v", path(32)), &vl).is_ok());
    assert_eq!(condition(&format!("{} = :v", path(33)), &vl).unwrap_err(), "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33");
    let indexed = format!("a{} = :v", "[0]".repeat(32));
    assert!(condition(&indexed, &vl)
        .unwrap_err()
        .ends_with("nesting levels: 33"));
    assert_eq!(condition("a[99999999999] = :v", &vl).unwrap_err(), "Invalid ConditionExpression: List index is not within the allowable range; index: 99999999999");
}

#[test]
fn placeholder_keys_are_at_most_255_bytes() {
    let name_key = |k: usize| format!("#{}", "x".repeat(k - 1));
    let ok = name_key(255);
    let nm = names(&[(&ok, "a")]);
    let input = ExpressionInput {
        projection: Some(&ok),
        names: Some(&nm),
        ..Default::default()
    };
    assert!(parse_request(&input).is_ok());
    let long = name_key(256);
    let nm = names(&[(&long, "a")]);
    let input = ExpressionInput {
        projection: Some(&long),
        names: Some(&nm),
        ..Default::default()
    };
    assert_eq!(error(input), format!("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; key: \"{long}\""));
    let value_key = format!(":{}", "v".repeat(255));
    let vl = values(&[(&value_key, n("1"))]);
    assert!(condition(&format!("a = {value_key}"), &vl).unwrap_err().starts_with("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long"));
}

#[test]
fn nesting_is_bounded_without_overflowing_the_stack() {
    let vl = values(&[(":v", n("1"))]);
    let nested = |k: usize| format!("{}a = :v{}", "(".repeat(k), ")".repeat(k));
    // A single pair is fine; stacked pairs are redundant; very deep stacks stop at the guard.
    assert!(condition(&nested(1), &vl).is_ok());
    assert!(condition(&nested(2000), &vl)
        .unwrap_err()
        .contains("too many nesting levels"));
    let deepest = format!("{}a = :v", "NOT ".repeat(100));
    assert!(
        condition(&deepest, &vl).is_ok(),
        "100 levels fit on a test thread's stack"
    );
    let deep_calls = format!("{}a{} = :v", "size(".repeat(100), ")".repeat(100));
    assert!(condition(&deep_calls, &vl)
        .unwrap_err()
        .contains("operand type: N"));
    // A run of NOTs is not nesting the parser recurses on: 299 of them and one comparison
    // make 300 operators, which the service accepts; one more is over the operator limit.
    let nots = format!("{}a = :v", "NOT ".repeat(299));
    assert!(condition(&nots, &vl).is_ok());
    let nots = format!("{}a = :v", "NOT ".repeat(300));
    assert_eq!(
        condition(&nots, &vl).unwrap_err(),
        "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"
    );
}
