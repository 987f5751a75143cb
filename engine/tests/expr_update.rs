//! UpdateExpression: what SET, REMOVE, ADD and DELETE do to an item (§5.6), the errors that
//! only the item can reveal, and what is refused before any item is read.

use std::collections::HashMap;

use engine::expr::{parse_request, ExpressionInput, UpdateExpr};
use engine::{item, AttributeValue, Item};

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}
fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}
fn ss(v: &[&str]) -> AttributeValue {
    AttributeValue::Ss(v.iter().map(|x| x.to_string()).collect())
}
fn ns(v: &[&str]) -> AttributeValue {
    AttributeValue::Ns(v.iter().map(|x| x.to_string()).collect())
}

fn parse(
    expr: &str,
    names: &[(&str, &str)],
    values: &[(&str, AttributeValue)],
) -> Result<UpdateExpr, String> {
    let names: HashMap<String, String> = names
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let values: HashMap<String, AttributeValue> = values
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let input = ExpressionInput {
        update: Some(expr),
        names: (!names.is_empty()).then_some(&names),
        values: (!values.is_empty()).then_some(&values),
        ..Default::default()
    };
    parse_request(&input)
        .map(|p| p.update.unwrap())
        .map_err(|e| e.message().to_string())
}

fn apply(expr: &str, values: &[(&str, AttributeValue)], base: &Item) -> Result<Item, String> {
    parse(expr, &[], values)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .apply(base)
        .map_err(|e| e.message().to_string())
}

fn rejected(expr: &str, values: &[(&str, AttributeValue)]) -> String {
    match parse(expr, &[], values) {
        Ok(u) => panic!("{expr} parsed: {u:?}"),
        Err(e) => e,
    }
}

fn base() -> Item {
    item! {
        "pk" => "k",
        "a" => 1,
        "b" => 2,
        "l" => vec![s("x0"), s("x1"), s("x2")],
        "m" => item! { "nest" => item! { "deep" => 1 } },
        "tags" => ss(&["a", "b"]),
        "nums" => ns(&["1", "2"]),
        "str" => "text",
    }
}

#[test]
fn set_reads_the_pre_update_item() {
    let out = apply("SET a = b, b = a", &[], &base()).unwrap();
    assert_eq!(
        (out["a"].clone(), out["b"].clone()),
        (n("2"), n("1")),
        "a swap"
    );
    let out = apply("SET a = a + :d, b = b - :d", &[(":d", n("0.5"))], &base()).unwrap();
    assert_eq!((out["a"].clone(), out["b"].clone()), (n("1.5"), n("1.5")));
    let out = apply(
        "SET c = if_not_exists(c, :z), a = if_not_exists(a, :z)",
        &[(":z", n("0"))],
        &base(),
    )
    .unwrap();
    assert_eq!((out["c"].clone(), out["a"].clone()), (n("0"), n("1")));
    let out = apply(
        "SET l = list_append(:front, l)",
        &[(":front", AttributeValue::L(vec![s("new")]))],
        &base(),
    )
    .unwrap();
    assert_eq!(
        out["l"],
        AttributeValue::L(vec![s("new"), s("x0"), s("x1"), s("x2")])
    );
    assert_eq!(
        parse("SET m.#nest.deep = :v", &[], &[(":v", n("9"))]).unwrap_err(),
        "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #nest"
    );
}

#[test]
fn nested_set_needs_an_existing_parent_of_the_right_kind() {
    let v = [(":v", n("9"))];
    let out = apply("SET m.extra = :v, l[1] = :v", &v, &base()).unwrap();
    assert_eq!(out["l"], AttributeValue::L(vec![s("x0"), n("9"), s("x2")]));
    let AttributeValue::M(m) = &out["m"] else {
        panic!()
    };
    assert_eq!(m["extra"], n("9"));
    let bad = "The document path provided in the update expression is invalid for update";
    assert_eq!(apply("SET nope.x = :v", &v, &base()).unwrap_err(), bad);
    assert_eq!(apply("SET str.x = :v", &v, &base()).unwrap_err(), bad);
    assert_eq!(apply("SET m[0] = :v", &v, &base()).unwrap_err(), bad);
    assert_eq!(apply("SET l.x = :v", &v, &base()).unwrap_err(), bad);
}

#[test]
fn list_index_sets_beyond_the_end_append_in_index_order() {
    let v = [(":p", s("p")), (":q", s("q"))];
    let out = apply("SET l[9] = :p, l[5] = :q", &v, &base()).unwrap();
    assert_eq!(
        out["l"],
        AttributeValue::L(vec![s("x0"), s("x1"), s("x2"), s("q"), s("p")])
    );
}

#[test]
fn remove_uses_pre_update_indices_and_ignores_missing_paths() {
    let out = apply("REMOVE l[1], l[2], nope, m.nest.gone, a", &[], &base()).unwrap();
    assert_eq!(out["l"], AttributeValue::L(vec![s("x0")]));
    assert!(!out.contains_key("a"));
    let out = apply("SET l[2] = :v REMOVE l[0]", &[(":v", s("new"))], &base()).unwrap();
    assert_eq!(out["l"], AttributeValue::L(vec![s("x1"), s("new")]));
}

#[test]
fn add_and_delete_on_numbers_and_sets() {
    let out = apply(
        "ADD a :d, hits :d, tags :t, nums :n",
        &[
            (":d", n("-3")),
            (":t", ss(&["b", "c"])),
            (":n", ns(&["2.0", "3"])),
        ],
        &base(),
    )
    .unwrap();
    assert_eq!(out["a"], n("-2"));
    assert_eq!(out["hits"], n("-3"), "a missing number starts at 0");
    assert_eq!(out["tags"], ss(&["a", "b", "c"]));
    assert_eq!(out["nums"], ns(&["1", "2", "3"]), "NS union is numeric");
    let out = apply(
        "DELETE tags :t, nums :n, gone :t",
        &[(":t", ss(&["a", "b"])), (":n", ns(&["1"]))],
        &base(),
    )
    .unwrap();
    assert!(
        !out.contains_key("tags"),
        "a set emptied by DELETE is removed"
    );
    assert_eq!(out["nums"], ns(&["2"]));
}

#[test]
fn runtime_type_errors() {
    let wrong = "An operand in the update expression has an incorrect data type";
    assert_eq!(
        apply("SET a = str + :d", &[(":d", n("1"))], &base()).unwrap_err(),
        wrong
    );
    assert_eq!(
        apply(
            "SET a = list_append(str, :l)",
            &[(":l", AttributeValue::L(vec![]))],
            &base()
        )
        .unwrap_err(),
        wrong
    );
    assert_eq!(
        apply("ADD str :d", &[(":d", n("1"))], &base()).unwrap_err(),
        wrong
    );
    assert_eq!(
        apply("ADD tags :n", &[(":n", ns(&["1"]))], &base()).unwrap_err(),
        wrong
    );
    assert_eq!(
        apply("DELETE nums :t", &[(":t", ss(&["1"]))], &base()).unwrap_err(),
        wrong
    );
    assert_eq!(
        apply("SET x = nope", &[], &base()).unwrap_err(),
        "The provided expression refers to an attribute that does not exist in the item"
    );
    let big = "9.9999999999999999999999999999999999999E+125";
    let err = apply("SET a = :big + :big", &[(":big", n(big))], &base()).unwrap_err();
    assert!(err.starts_with("Number overflow"), "{err}");
}

#[test]
fn targets_and_updated_projection() {
    let u = parse(
        "SET a = :v, m.nest.deep = :v, l[0] = :v REMOVE b ADD z :v",
        &[],
        &[(":v", n("5"))],
    )
    .unwrap();
    assert_eq!(u.top_level_targets(), vec!["a", "m", "l", "b", "z"]);
    let new = u.apply(&base()).unwrap();
    let updated = u.project_updated(&new);
    assert_eq!(
        updated,
        item! { "a" => 5, "m" => item! { "nest" => item! { "deep" => 5 } }, "l" => vec![n("5")], "z" => 5 }
    );
    let old = u.project_updated(&base());
    assert_eq!(old["l"], AttributeValue::L(vec![s("x0")]));
    assert_eq!(old["b"], n("2"));
    assert!(!old.contains_key("z"));
}

#[test]
fn parse_time_rejections() {
    let v = [(":v", n("1"))];
    let p = "Invalid UpdateExpression: ";
    assert_eq!(
        rejected("SET a = :v SET b = :v", &v),
        format!("{p}The \"SET\" section can only be used once in an update expression;")
    );
    assert_eq!(
        rejected("set a = :v remove b Remove c", &v),
        format!("{p}The \"REMOVE\" section can only be used once in an update expression;")
    );
    assert_eq!(rejected("SET a = :v, a.b = :v", &v), format!("{p}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"));
    assert_eq!(rejected("SET a = :v REMOVE a", &v), format!("{p}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"));
    assert_eq!(rejected("SET a.b = :v REMOVE a[0]", &v), format!("{p}Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]"));
    assert_eq!(rejected("SET a = :s + :v", &[(":v", n("1")), (":s", s("x"))]), format!("{p}Incorrect operand type for operator or function; operator or function: +, operand type: S"));
    assert_eq!(rejected("SET a = list_append(:v, b)", &v), format!("{p}Incorrect operand type for operator or function; operator or function: list_append, operand type: N"));
    assert_eq!(
        rejected("SET a = if_not_exists(:v, :v)", &v),
        format!(
            "{p}Operator or function requires a document path; operator or function: if_not_exists"
        )
    );
    assert_eq!(
        rejected("SET a = size(b)", &[]),
        format!("{p}The function is not allowed in an update expression; function: size")
    );
    assert_eq!(
        rejected("SET a = foo(b)", &[]),
        format!("{p}Invalid function name; function: foo")
    );
    assert_eq!(rejected("SET a = if_not_exists(b)", &[]), format!("{p}Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"));
    assert_eq!(rejected("ADD a :s", &[(":s", s("x"))]), format!("{p}Incorrect operand type for operator or function; operator: ADD, operand type: STRING"));
    assert_eq!(rejected("DELETE a :v", &v), format!("{p}Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"));
    assert_eq!(
        rejected("SET a = :v + :v + :v", &v),
        format!("{p}Syntax error; token: \"+\", near: \":v + :v\"")
    );
    assert_eq!(
        rejected("a = :v", &v),
        format!("{p}Syntax error; token: \"a\", near: \"a =\"")
    );
    assert_eq!(
        rejected("SET a = :v,", &v),
        format!("{p}Syntax error; token: \"<EOF>\", near: \",\"")
    );
    assert_eq!(
        rejected("SET name = :v", &v),
        format!("{p}Attribute name is a reserved keyword; reserved keyword: name")
    );
    assert!(parse("SET a = (:v + b), c = (d) - :v", &[], &v).is_ok());
    assert!(parse("SET #r = :v", &[("#r", "remove")], &v).is_ok());
}
