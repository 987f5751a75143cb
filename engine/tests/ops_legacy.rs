//! Scenario tests for the legacy parameters (`KeyConditions`, `QueryFilter`, `ScanFilter`,
//! `AttributesToGet`, `Expected`, `AttributeUpdates`, `ConditionalOperator`).
//!
//! The property: a legacy parameter means exactly what its expression counterpart means.
//! Most tests therefore run one request both ways and compare; the rest pin the legacy
//! shapes' own validation messages.
mod common;

use common::*;
use engine::types::{
    AttributeAction, AttributeValueUpdate, ComparisonOperator as Op, Condition,
    ConditionalOperator, ExpectedAttributeValue, ReturnConsumedCapacity, ReturnValue, Select,
};
use engine::{item, AttributeValue, Client, Item};

fn cond(op: Op, args: Vec<AttributeValue>) -> Condition {
    Condition::builder()
        .set_attribute_value_list(Some(args))
        .comparison_operator(op)
        .build()
        .unwrap()
}

fn ss(v: &[&str]) -> AttributeValue {
    AttributeValue::Ss(v.iter().map(|s| s.to_string()).collect())
}

/// A table `app` holding six items under `PK = p` with assorted attributes `a`.
fn seeded() -> (engine::World, Client) {
    let (w, c) = app();
    for it in [
        item! { "PK" => "p", "SK" => "1", "a" => 1, "t" => "apple" },
        item! { "PK" => "p", "SK" => "2", "a" => 5, "t" => "banana" },
        item! { "PK" => "p", "SK" => "3", "a" => "5", "t" => "cherry" },
        item! { "PK" => "p", "SK" => "4", "t" => "apricot" },
        item! { "PK" => "p", "SK" => "5", "a" => 9 },
    ] {
        put(&c, it);
    }
    put(
        &c,
        [
            ("PK".to_string(), s("p")),
            ("SK".to_string(), s("6")),
            ("a".to_string(), ss(&["x", "y"])),
        ]
        .into_iter()
        .collect(),
    );
    // Let every replica catch up, so eventually consistent reads see all six.
    w.advance(std::time::Duration::from_secs(5));
    (w, c)
}

fn sks(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["SK"].as_s().unwrap().clone())
        .collect()
}

/// The items a ScanFilter keeps, and those the equivalent FilterExpression keeps.
fn scan_both(
    c: &Client,
    filter: Condition,
    expression: &str,
    values: &[(&str, AttributeValue)],
) -> (Vec<String>, Vec<String>) {
    let legacy = c
        .scan()
        .table_name("app")
        .scan_filter("a", filter)
        .send()
        .unwrap();
    let mut modern = c.scan().table_name("app").filter_expression(expression);
    for (k, v) in values {
        modern = modern.expression_attribute_values(*k, v.clone());
    }
    let modern = modern.send().unwrap();
    (sks(legacy.items()), sks(modern.items()))
}

/// An operator, its arguments, the equivalent expression and its values, the sort keys kept.
type Case<'a> = (
    Op,
    Vec<AttributeValue>,
    &'a str,
    Vec<(&'a str, AttributeValue)>,
    Vec<&'a str>,
);

#[test]
fn every_comparison_operator_filters_as_its_expression_does() {
    let (_w, c) = seeded();
    let cases: Vec<Case> = vec![
        (
            Op::Eq,
            vec![n("5")],
            "a = :v",
            vec![(":v", n("5"))],
            vec!["2"],
        ),
        (
            Op::Ne,
            vec![n("5")],
            "a <> :v",
            vec![(":v", n("5"))],
            vec!["1", "3", "4", "5", "6"],
        ),
        (
            Op::Lt,
            vec![n("5")],
            "a < :v",
            vec![(":v", n("5"))],
            vec!["1"],
        ),
        (
            Op::Le,
            vec![n("5")],
            "a <= :v",
            vec![(":v", n("5"))],
            vec!["1", "2"],
        ),
        (
            Op::Gt,
            vec![n("5")],
            "a > :v",
            vec![(":v", n("5"))],
            vec!["5"],
        ),
        (
            Op::Ge,
            vec![n("5")],
            "a >= :v",
            vec![(":v", n("5"))],
            vec!["2", "5"],
        ),
        (
            Op::NotNull,
            vec![],
            "attribute_exists(a)",
            vec![],
            vec!["1", "2", "3", "5", "6"],
        ),
        (
            Op::Null,
            vec![],
            "attribute_not_exists(a)",
            vec![],
            vec!["4"],
        ),
        (
            Op::Contains,
            vec![s("x")],
            "contains(a, :v)",
            vec![(":v", s("x"))],
            vec!["6"],
        ),
        (
            Op::NotContains,
            vec![s("x")],
            "NOT contains(a, :v)",
            vec![(":v", s("x"))],
            vec!["1", "2", "3", "4", "5"],
        ),
        (
            Op::BeginsWith,
            vec![s("5")],
            "begins_with(a, :v)",
            vec![(":v", s("5"))],
            vec!["3"],
        ),
        (
            Op::In,
            vec![n("1"), n("9")],
            "a IN (:x, :y)",
            vec![(":x", n("1")), (":y", n("9"))],
            vec!["1", "5"],
        ),
        (
            Op::Between,
            vec![n("2"), n("9")],
            "a BETWEEN :lo AND :hi",
            vec![(":lo", n("2")), (":hi", n("9"))],
            vec!["2", "5"],
        ),
    ];
    for (op, args, expression, values, expected) in cases {
        let (legacy, modern) = scan_both(&c, cond(op.clone(), args), expression, &values);
        assert_eq!(legacy, modern, "{op} against {expression}");
        assert_eq!(legacy, expected, "{op}");
    }
}

#[test]
fn conditional_operator_or_keeps_items_matching_either_filter() {
    let (_w, c) = seeded();
    let both = |op: Option<ConditionalOperator>| {
        let out = c
            .scan()
            .table_name("app")
            .scan_filter("a", cond(Op::Eq, vec![n("1")]))
            .scan_filter("t", cond(Op::BeginsWith, vec![s("ap")]))
            .set_conditional_operator(op)
            .send()
            .unwrap();
        sks(out.items())
    };
    assert_eq!(both(None), vec!["1"], "AND is the default");
    assert_eq!(both(Some(ConditionalOperator::And)), vec!["1"]);
    assert_eq!(both(Some(ConditionalOperator::Or)), vec!["1", "4"]);
}

#[test]
fn key_conditions_read_the_same_range_as_a_key_condition_expression_and_cost_the_same() {
    let (_w, c) = seeded();
    let legacy = c
        .query()
        .table_name("app")
        .key_conditions("PK", cond(Op::Eq, vec![s("p")]))
        .key_conditions("SK", cond(Op::Between, vec![s("2"), s("4")]))
        .query_filter("t", cond(Op::NotNull, vec![]))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let modern = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :p AND SK BETWEEN :lo AND :hi")
        .filter_expression("attribute_exists(t)")
        .expression_attribute_values(":p", s("p"))
        .expression_attribute_values(":lo", s("2"))
        .expression_attribute_values(":hi", s("4"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(sks(legacy.items()), vec!["2", "3", "4"]);
    assert_eq!(legacy.items(), modern.items());
    assert_eq!(legacy.scanned_count, modern.scanned_count);
    assert_eq!(legacy.consumed_capacity, modern.consumed_capacity);
}

#[test]
fn key_conditions_may_come_with_a_filter_expression() {
    let (_w, c) = seeded();
    let out = c
        .query()
        .table_name("app")
        .key_conditions("PK", cond(Op::Eq, vec![s("p")]))
        .key_conditions("SK", cond(Op::Lt, vec![s("3")]))
        .filter_expression("a > :one")
        .expression_attribute_values(":one", n("1"))
        .send()
        .unwrap();
    assert_eq!(sks(out.items()), vec!["2"]);
}

#[test]
fn key_conditions_refuse_what_a_key_cannot_do() {
    let (_w, c) = seeded();
    let query = |conds: Vec<(&str, Condition)>| {
        let mut q = c.query().table_name("app");
        for (k, v) in conds {
            q = q.key_conditions(k, v);
        }
        message(q.send())
    };
    for op in [
        Op::Ne,
        Op::Null,
        Op::NotNull,
        Op::Contains,
        Op::NotContains,
        Op::In,
    ] {
        let args = match op {
            Op::Null | Op::NotNull => vec![],
            _ => vec![s("p")],
        };
        assert_eq!(
            query(vec![("PK", cond(op.clone(), args))]),
            "Attempted conditional constraint is not an indexable operation",
            "{op}"
        );
    }
    assert_eq!(
        query(vec![("PK", cond(Op::Gt, vec![s("p")]))]),
        "Query key condition not supported"
    );
    assert_eq!(
        query(vec![("SK", cond(Op::Eq, vec![s("1")]))]),
        "Query condition missed key schema element: PK"
    );
    assert_eq!(
        query(vec![("PK", cond(Op::Eq, vec![n("1")]))]),
        "One or more parameter values were invalid: Condition parameter type does not match schema type"
    );
}

#[test]
fn each_operator_takes_its_number_of_arguments() {
    let (_w, c) = seeded();
    for (op, args) in [
        (Op::Eq, vec![]),
        (Op::Eq, vec![n("1"), n("2")]),
        (Op::Null, vec![n("1")]),
        (Op::Between, vec![n("1")]),
        (Op::In, vec![]),
        (Op::BeginsWith, vec![]),
    ] {
        let got = message(
            c.scan()
                .table_name("app")
                .scan_filter("a", cond(op.clone(), args))
                .send(),
        );
        assert_eq!(
            got,
            format!(
                "One or more parameter values were invalid: Invalid number of argument(s) for the {} ComparisonOperator",
                op.as_str()
            )
        );
    }
}

#[test]
fn filter_arguments_must_suit_the_operator_and_share_one_type() {
    let (_w, c) = seeded();
    let scan = |op, args| {
        message(
            c.scan()
                .table_name("app")
                .scan_filter("a", cond(op, args))
                .send(),
        )
    };
    assert_eq!(
        scan(Op::Lt, vec![ss(&["x"])]),
        "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS AttributeValue type"
    );
    assert_eq!(
        scan(Op::BeginsWith, vec![n("1")]),
        "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"
    );
    assert_eq!(
        scan(Op::In, vec![n("1"), s("1")]),
        "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"
    );
    assert_eq!(
        scan(Op::Between, vec![n("9"), n("1")]),
        "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
    );
    // EQ and NE take any type, lists included.
    assert!(c
        .scan()
        .table_name("app")
        .scan_filter("a", cond(Op::Eq, vec![AttributeValue::L(vec![])]))
        .send()
        .is_ok());
}

#[test]
fn attributes_to_get_projects_top_level_attributes_everywhere() {
    let (_w, c) = seeded();
    let got = c
        .get_item()
        .table_name("app")
        .key("PK", s("p"))
        .key("SK", s("1"))
        .attributes_to_get("t")
        .attributes_to_get("nope")
        .send()
        .unwrap();
    assert_eq!(got.item(), Some(&item! { "t" => "apple" }));
    let q = c
        .query()
        .table_name("app")
        .key_conditions("PK", cond(Op::Eq, vec![s("p")]))
        .attributes_to_get("SK")
        .limit(1)
        .send()
        .unwrap();
    assert_eq!(q.items(), &[item! { "SK" => "1" }]);
    let sc = c
        .scan()
        .table_name("app")
        .attributes_to_get("a")
        .select(Select::SpecificAttributes)
        .scan_filter("a", cond(Op::Eq, vec![n("9")]))
        .send()
        .unwrap();
    assert_eq!(sc.items(), &[item! { "a" => 9 }]);
    let batch = c
        .batch_get_item()
        .request_items(
            "app",
            engine::types::KeysAndAttributes::builder()
                .keys(item! { "PK" => "p", "SK" => "2" })
                .attributes_to_get("a")
                .build()
                .unwrap(),
        )
        .send()
        .unwrap();
    assert_eq!(batch.responses().unwrap()["app"], vec![item! { "a" => 5 }]);
}

#[test]
fn attributes_to_get_validation() {
    let (_w, c) = seeded();
    let get = |names: Vec<&str>| {
        message(
            c.get_item()
                .table_name("app")
                .key("PK", s("p"))
                .key("SK", s("1"))
                .set_attributes_to_get(Some(names.into_iter().map(String::from).collect()))
                .send(),
        )
    };
    assert_eq!(
        get(vec![]),
        "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
    assert_eq!(
        get(vec!["a", "a"]),
        "One or more parameter values were invalid: Duplicate value in attribute name: a"
    );
    assert_eq!(
        message(
            c.scan()
                .table_name("app")
                .attributes_to_get("a")
                .select(Select::Count)
                .send()
        ),
        "Cannot specify the AttributesToGet when choosing to get COUNT"
    );
}

#[test]
fn mixing_legacy_and_expression_parameters_is_refused() {
    let (_w, c) = seeded();
    assert_eq!(
        message(
            c.put_item()
                .table_name("app")
                .item("PK", s("p"))
                .item("SK", s("9"))
                .expected("PK", ExpectedAttributeValue::builder().exists(false).build())
                .condition_expression("attribute_not_exists(PK)")
                .send()
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"
    );
    assert_eq!(
        message(
            c.query()
                .table_name("app")
                .key_condition_expression("PK = :p")
                .expression_attribute_values(":p", s("p"))
                .query_filter("a", cond(Op::NotNull, vec![]))
                .send()
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter} Expression parameters: {KeyConditionExpression}"
    );
    assert_eq!(
        message(
            c.update_item()
                .table_name("app")
                .key("PK", s("p"))
                .key("SK", s("1"))
                .update_expression("SET b = :b")
                .expression_attribute_values(":b", n("1"))
                .attribute_updates("c", AttributeValueUpdate::builder().value(n("1")).build())
                .send()
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}"
    );
    assert_eq!(
        message(
            c.get_item()
                .table_name("app")
                .key("PK", s("p"))
                .key("SK", s("1"))
                .attributes_to_get("a")
                .projection_expression("a")
                .send()
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"
    );
    assert_eq!(
        message(
            c.scan()
                .table_name("app")
                .filter_expression("attribute_exists(a)")
                .conditional_operator(ConditionalOperator::Or)
                .send()
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ConditionalOperator} Expression parameters: {FilterExpression}"
    );
}

fn expect(e: ExpectedAttributeValue) -> Result<(), String> {
    let (_w, c) = seeded();
    c.put_item()
        .table_name("app")
        .item("PK", s("p"))
        .item("SK", s("1"))
        .item("a", n("2"))
        .expected("a", e)
        .send()
        .map(|_| ())
        .map_err(|e| {
            use engine::error::ProvideErrorMetadata;
            format!(
                "{}: {}",
                e.code().unwrap_or_default(),
                e.message().unwrap_or_default()
            )
        })
}

#[test]
fn expected_value_and_exists_forms() {
    let e = ExpectedAttributeValue::builder;
    // Item SK=1 has a = 1.
    assert_eq!(expect(e().value(n("1")).build()), Ok(()));
    assert_eq!(expect(e().value(n("1")).exists(true).build()), Ok(()));
    assert_eq!(
        expect(e().value(n("2")).build()),
        Err("ConditionalCheckFailedException: The conditional request failed".into())
    );
    assert_eq!(
        expect(e().exists(false).build()),
        Err("ConditionalCheckFailedException: The conditional request failed".into())
    );
    let invalid = |m: &str| {
        Err(format!(
            "ValidationException: One or more parameter values were invalid: {m}"
        ))
    };
    assert_eq!(
        expect(e().exists(false).value(n("1")).build()),
        invalid("Value cannot be used when Exists is false for Attribute: a")
    );
    assert_eq!(
        expect(e().exists(true).build()),
        invalid("Value must be provided when Exists is true for Attribute: a")
    );
    assert_eq!(
        expect(e().build()),
        invalid("Value must be provided when Exists is null for Attribute: a")
    );
}

#[test]
fn expected_comparison_operator_form() {
    let e = ExpectedAttributeValue::builder;
    assert_eq!(
        expect(
            e().comparison_operator(Op::Lt)
                .attribute_value_list(n("3"))
                .build()
        ),
        Ok(())
    );
    assert_eq!(
        expect(e().comparison_operator(Op::Gt).value(n("0")).build()),
        Ok(())
    );
    assert_eq!(expect(e().comparison_operator(Op::NotNull).build()), Ok(()));
    assert_eq!(
        expect(e().comparison_operator(Op::Null).build()),
        Err("ConditionalCheckFailedException: The conditional request failed".into())
    );
    let invalid = |m: &str| {
        Err(format!(
            "ValidationException: One or more parameter values were invalid: {m}"
        ))
    };
    assert_eq!(
        expect(
            e().comparison_operator(Op::Eq)
                .exists(true)
                .value(n("1"))
                .build()
        ),
        invalid("Exists and ComparisonOperator cannot be used together for Attribute: a")
    );
    assert_eq!(
        expect(
            e().comparison_operator(Op::Eq)
                .value(n("1"))
                .attribute_value_list(n("1"))
                .build()
        ),
        invalid("Value and AttributeValueList cannot be used together for Attribute: a")
    );
    assert_eq!(
        expect(e().comparison_operator(Op::Eq).build()),
        invalid(
            "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"
        )
    );
    assert_eq!(
        expect(e().attribute_value_list(n("1")).build()),
        invalid("AttributeValueList can only be used with a ComparisonOperator for Attribute: a")
    );
    assert_eq!(
        expect(
            e().comparison_operator(Op::Between)
                .attribute_value_list(n("1"))
                .build()
        ),
        invalid("Invalid number of argument(s) for the BETWEEN ComparisonOperator")
    );
}

#[test]
fn expected_entries_combine_with_the_conditional_operator() {
    let (_w, c) = seeded();
    let delete = |op| {
        c.delete_item()
            .table_name("app")
            .key("PK", s("p"))
            .key("SK", s("1"))
            .expected("a", ExpectedAttributeValue::builder().value(n("1")).build())
            .expected(
                "t",
                ExpectedAttributeValue::builder().value(s("pear")).build(),
            )
            .conditional_operator(op)
            .send()
    };
    assert!(delete(ConditionalOperator::And).is_err(), "t is not pear");
    assert!(delete(ConditionalOperator::Or).is_ok(), "a is 1");
    assert!(get(&c, "p", "1").is_none());
}

#[test]
fn attribute_updates_put_add_and_delete_as_update_expressions_do() {
    let (_w, c) = seeded();
    put(&c, {
        let mut it = item! { "PK" => "u", "SK" => "1", "n" => 1, "gone" => "x" };
        it.insert("l".into(), AttributeValue::L(vec![n("1")]));
        it
    });
    let u = |v: Option<AttributeValue>, a| {
        AttributeValueUpdate::builder()
            .set_value(v)
            .action(a)
            .build()
    };
    let out = c
        .update_item()
        .table_name("app")
        .key("PK", s("u"))
        .key("SK", s("1"))
        .attribute_updates("n", u(Some(n("4")), AttributeAction::Add))
        .attribute_updates("new", AttributeValueUpdate::builder().value(s("v")).build())
        .attribute_updates("gone", u(None, AttributeAction::Delete))
        .attribute_updates("tags", u(Some(ss(&["a", "b"])), AttributeAction::Add))
        .attribute_updates(
            "l",
            u(Some(AttributeValue::L(vec![n("2")])), AttributeAction::Add),
        )
        .attribute_updates(
            "fresh",
            u(Some(AttributeValue::L(vec![n("7")])), AttributeAction::Add),
        )
        .return_values(ReturnValue::UpdatedNew)
        .send()
        .unwrap();
    let mut expected = item! { "n" => 5, "new" => "v" };
    expected.insert("l".into(), AttributeValue::L(vec![n("1"), n("2")]));
    expected.insert("fresh".into(), AttributeValue::L(vec![n("7")]));
    expected.insert("tags".into(), ss(&["a", "b"]));
    assert_eq!(out.attributes, Some(expected));
    let stored = get(&c, "u", "1").unwrap();
    assert!(!stored.contains_key("gone"));
    c.update_item()
        .table_name("app")
        .key("PK", s("u"))
        .key("SK", s("1"))
        .attribute_updates("tags", u(Some(ss(&["a"])), AttributeAction::Delete))
        .send()
        .unwrap();
    assert_eq!(get(&c, "u", "1").unwrap()["tags"], ss(&["b"]));
}

#[test]
fn attribute_updates_validation() {
    let (_w, c) = seeded();
    let update = |name: &str, u: AttributeValueUpdate| {
        message(
            c.update_item()
                .table_name("app")
                .key("PK", s("p"))
                .key("SK", s("1"))
                .attribute_updates(name, u)
                .send(),
        )
    };
    let b = AttributeValueUpdate::builder;
    let invalid = |m: &str| format!("One or more parameter values were invalid: {m}");
    assert_eq!(
        update("a", b().action(AttributeAction::Put).build()),
        invalid("Only DELETE action is allowed when no attribute value is specified")
    );
    assert_eq!(
        update(
            "a",
            b().action(AttributeAction::Delete).value(s("x")).build()
        ),
        invalid("DELETE action with value is not supported for the type S")
    );
    assert_eq!(
        update("a", b().action(AttributeAction::Add).value(s("x")).build()),
        invalid("ADD action is not supported for the type S")
    );
    assert_eq!(
        update("SK", b().value(s("x")).build()),
        invalid("Cannot update attribute SK. This attribute is part of the key")
    );
}

#[test]
fn a_legacy_conditional_put_costs_and_logs_as_an_expression_one() {
    let w1 = engine::World::new(7);
    let w2 = engine::World::new(7);
    for (w, legacy) in [(&w1, true), (&w2, false)] {
        let c = w.client();
        create_app(&c);
        put(&c, item! { "PK" => "k", "SK" => "1", "v" => 1 });
        let mut req = c
            .put_item()
            .table_name("app")
            .item("PK", s("k"))
            .item("SK", s("1"))
            .item("v", n("2"));
        req = if legacy {
            req.expected("v", ExpectedAttributeValue::builder().value(n("1")).build())
        } else {
            req.condition_expression("v = :one")
                .expression_attribute_values(":one", n("1"))
        };
        req.send().unwrap();
    }
    assert_eq!(w1.trace_hash(), w2.trace_hash());
}
