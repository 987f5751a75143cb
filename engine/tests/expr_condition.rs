//! ConditionExpression and FilterExpression: what a condition means when evaluated against an
//! item (§5.2–§5.4), and what DynamoDB refuses before evaluating anything.

use std::collections::HashMap;

use engine::expr::{parse_request, Condition, ExpressionInput};
use engine::{item, AttributeValue, Blob, Item};

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}
fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn parse(
    expr: &str,
    names: &[(&str, &str)],
    values: &[(&str, AttributeValue)],
) -> Result<Condition, String> {
    let names: HashMap<String, String> = names
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let values: HashMap<String, AttributeValue> = values
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let input = ExpressionInput {
        condition: Some(expr),
        names: (!names.is_empty()).then_some(&names),
        values: (!values.is_empty()).then_some(&values),
        ..Default::default()
    };
    parse_request(&input)
        .map(|p| p.condition.unwrap())
        .map_err(|e| e.message().to_string())
}

/// Evaluate `expr` (values given) against `item`.
fn holds(expr: &str, values: &[(&str, AttributeValue)], item: &Item) -> bool {
    parse(expr, &[], values)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .evaluate(Some(item))
}

fn rejected(expr: &str, values: &[(&str, AttributeValue)]) -> String {
    match parse(expr, &[], values) {
        Ok(c) => panic!("{expr} parsed: {c:?}"),
        Err(e) => e,
    }
}

fn product() -> Item {
    item! {
        "id" => "p1",
        "price" => 25,
        "title" => "Bicycle 101",
        "color" => AttributeValue::Ss(vec!["red".into(), "black".into()]),
        "ratings" => AttributeValue::Ns(vec!["5".into(), "3".into()]),
        "tags" => vec![s("new"), n("7")],
        "dims" => item! { "w" => 10, "h" => 20 },
        "pic" => AttributeValue::B(Blob::new(vec![1u8, 2, 3])),
        "flag" => AttributeValue::Bool(true),
        "nothing" => AttributeValue::Null(true),
    }
}

#[test]
fn comparisons_follow_type_rules() {
    let it = product();
    assert!(
        holds("price = :p", &[(":p", n("25.0"))], &it),
        "numbers compare numerically"
    );
    assert!(holds("price < :p", &[(":p", n("100"))], &it));
    assert!(holds("price >= :p", &[(":p", n("25"))], &it));
    assert!(
        !holds("price < :p", &[(":p", s("100"))], &it),
        "N vs S is false, not an error"
    );
    assert!(
        holds("price <> :p", &[(":p", s("25"))], &it),
        "different types are different"
    );
    assert!(holds("title > :t", &[(":t", s("Bicycle 100"))], &it));
    assert!(holds(
        "color = :c",
        &[(":c", AttributeValue::Ss(vec!["black".into(), "red".into()]))],
        &it
    ));
    assert!(holds("dims.w < dims.h", &[], &it));
    assert!(holds("tags[1] = :seven", &[(":seven", n("7"))], &it));
}

#[test]
fn a_missing_attribute_fails_every_comparison_but_not_equal() {
    let it = product();
    let v = [(":v", n("1"))];
    for op in ["=", "<", "<=", ">", ">="] {
        assert!(!holds(&format!("gone {op} :v"), &v, &it), "{op}");
    }
    assert!(holds("gone <> :v", &v, &it));
    assert!(!holds("gone IN (:v)", &v, &it));
    assert!(!holds("gone BETWEEN :v AND :v", &v, &it));
    // No item at all: every path absent.
    let c = parse("attribute_not_exists(id) AND id <> :v", &[], &v).unwrap();
    assert!(c.evaluate(None));
}

#[test]
fn precedence_is_not_then_and_then_or() {
    let it = product();
    let v = [(":t", AttributeValue::Bool(true))];
    // a OR b AND c  ==  a OR (b AND c)
    assert!(holds(
        "flag = :t OR attribute_exists(nope) AND attribute_exists(nope2)",
        &v,
        &it
    ));
    assert!(!holds(
        "(flag = :t OR attribute_exists(nope)) AND attribute_exists(nope2)",
        &v,
        &it
    ));
    // NOT binds tighter than AND.
    assert!(!holds("NOT flag = :t AND flag = :t", &v, &it));
    assert!(
        holds("not (flag <> :t) and FLAG_missing <> :t", &v, &it),
        "keywords are case-insensitive"
    );
}

#[test]
fn functions() {
    let it = product();
    assert!(holds("attribute_exists(nothing)", &[], &it), "NULL exists");
    assert!(holds("attribute_not_exists(dims.d)", &[], &it));
    assert!(holds("attribute_type(dims, :m)", &[(":m", s("M"))], &it));
    assert!(!holds("attribute_type(price, :m)", &[(":m", s("S"))], &it));
    assert!(holds("begins_with(title, :b)", &[(":b", s("Bic"))], &it));
    assert!(holds(
        "begins_with(pic, :b)",
        &[(":b", AttributeValue::B(Blob::new(vec![1u8])))],
        &it
    ));
    assert!(!holds("begins_with(price, :b)", &[(":b", s("2"))], &it));
    assert!(holds("contains(title, :x)", &[(":x", s("cle 1"))], &it));
    assert!(holds("contains(color, :x)", &[(":x", s("red"))], &it));
    assert!(
        holds("contains(ratings, :x)", &[(":x", n("5.0"))], &it),
        "NS membership is numeric"
    );
    assert!(
        !holds("contains(color, :x)", &[(":x", n("5"))], &it),
        "element type must match"
    );
    assert!(
        holds("contains(tags, :x)", &[(":x", n("7"))], &it),
        "lists hold any type"
    );
    assert!(holds("size(title) = :n", &[(":n", n("11"))], &it));
    assert!(holds("size(color) = :n", &[(":n", n("2"))], &it));
    assert!(holds("size(dims) < :n", &[(":n", n("3"))], &it));
    assert!(holds("size(pic) = :n", &[(":n", n("3"))], &it));
    assert!(
        !holds("size(price) = :n", &[(":n", n("2"))], &it),
        "size of N: false at runtime"
    );
    assert!(
        holds("size(gone) <> :n", &[(":n", n("2"))], &it),
        "absent: only <> holds"
    );
}

#[test]
fn between_and_in() {
    let it = product();
    let v = [(":lo", n("10")), (":hi", n("25"))];
    assert!(
        holds("price BETWEEN :lo AND :hi", &v, &it),
        "bounds are inclusive"
    );
    assert!(holds("price IN (:lo, :hi)", &v, &it));
    assert!(!holds("price IN (:lo)", &v[..1], &it));
    assert!(holds("dims.w IN (dims.h, :lo)", &v[..1], &it));
}

#[test]
fn top_level_names_are_reported_once() {
    let c = parse(
        "a.b = :v AND (size(c) > :v OR a[1] <> :v) AND attribute_exists(#d)",
        &[("#d", "d d")],
        &[(":v", n("1"))],
    )
    .unwrap();
    assert_eq!(c.top_level_names(), vec!["a", "c", "d d"]);
}

#[test]
fn syntax_errors_quote_the_token_and_its_neighbours() {
    let v = [(":v", n("1"))];
    assert_eq!(
        rejected("a = :v b", &v),
        r#"Invalid ConditionExpression: Syntax error; token: "b", near: ":v b""#
    );
    assert_eq!(
        rejected("a =", &[]),
        r#"Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "=""#
    );
    assert_eq!(
        rejected("a = 10", &[]),
        r#"Invalid ConditionExpression: Syntax error; token: "10", near: "= 10""#
    );
    assert_eq!(
        rejected("a ! :v", &v),
        r#"Invalid ConditionExpression: Syntax error; token: "!", near: "a ! :v""#
    );
    assert_eq!(
        rejected("attribute_type()", &[]),
        r#"Invalid ConditionExpression: Syntax error; token: ")", near: "()""#
    );
    assert_eq!(
        rejected("a", &[]),
        r#"Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a""#
    );
    assert_eq!(
        rejected("a[-1] = :v", &v),
        r#"Invalid ConditionExpression: Syntax error; token: "-", near: "[-1""#
    );
    assert_eq!(
        rejected("a = :v AND", &v),
        r#"Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND""#
    );
    assert_eq!(
        rejected("", &[]),
        "Invalid ConditionExpression: The expression can not be empty;"
    );
    assert_eq!(
        rejected("  \n", &[]),
        "Invalid ConditionExpression: The expression can not be empty;"
    );
}

#[test]
fn function_misuse_is_refused_at_parse_time() {
    let v = [(":v", n("1"))];
    let sv = [(":v", s("x"))];
    let p = "Invalid ConditionExpression: ";
    assert_eq!(
        rejected("foo(a)", &[]),
        format!("{p}Invalid function name; function: foo")
    );
    assert_eq!(
        rejected("Attribute_Exists(a)", &[]),
        format!("{p}Invalid function name; function: Attribute_Exists"),
        "function names are case-sensitive"
    );
    assert_eq!(
        rejected("if_not_exists(a, :v) = :v", &v),
        format!(
            "{p}The function is not allowed in a condition expression; function: if_not_exists"
        )
    );
    assert_eq!(
        rejected("size(a)", &[]),
        format!(
            "{p}The function is not allowed to be used this way in an expression; function: size"
        )
    );
    assert_eq!(rejected("attribute_exists(a) = :v", &v), format!("{p}The function is not allowed to be used this way in an expression; function: attribute_exists"));
    assert_eq!(rejected("size(a, b) > :v", &v), format!("{p}Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"));
    assert_eq!(rejected("contains(a)", &[]), format!("{p}Incorrect number of operands for operator or function; operator or function: contains, number of operands: 1"));
    assert_eq!(rejected("contains(a, a)", &[]), format!("{p}The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a]"));
    assert_eq!(rejected("attribute_exists(:v)", &v), format!("{p}Operator or function requires a document path; operator or function: attribute_exists"));
    assert_eq!(rejected("size(:v) > :v", &v), format!("{p}Incorrect operand type for operator or function; operator or function: size, operand type: N"));
    assert_eq!(rejected("begins_with(a, :v)", &v), format!("{p}Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"));
    assert_eq!(rejected("attribute_type(a, :v)", &v), format!("{p}Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"));
    assert_eq!(rejected("attribute_type(a, :v)", &sv), format!("{p}Invalid attribute type name found; type: x, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"));
    assert_eq!(rejected("a < :v", &[(":v", AttributeValue::Bool(true))]), format!("{p}Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"));
    assert_eq!(
        rejected("((a = :v))", &v),
        format!("{p}The expression has redundant parentheses;")
    );
    assert_eq!(
        rejected("((a)) = :v", &v),
        format!("{p}The expression has redundant parentheses;")
    );
    assert!(
        parse("(a) = :v AND (b = :v)", &[], &v).is_ok(),
        "one pair of parentheses is fine"
    );
}

#[test]
fn between_with_literal_bounds_is_checked() {
    let p = "Invalid ConditionExpression: ";
    assert_eq!(
        rejected("a BETWEEN :hi AND :lo", &[(":lo", n("1")), (":hi", n("5"))]),
        format!("{p}The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {{N:5}}, upper bound operand: AttributeValue: {{N:1}}")
    );
    assert_eq!(
        rejected("a BETWEEN :a AND :b", &[(":a", n("1")), (":b", s("x"))]),
        format!("{p}The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {{N:1}}, upper bound operand: AttributeValue: {{S:x}}")
    );
}

#[test]
fn filter_expressions_use_their_own_prefix() {
    let input = ExpressionInput {
        filter: Some("a = "),
        ..Default::default()
    };
    assert_eq!(
        parse_request(&input).unwrap_err().message(),
        r#"Invalid FilterExpression: Syntax error; token: "<EOF>", near: "=""#
    );
}
