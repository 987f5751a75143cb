//! Scenario tests for PartiQL: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.
//!
//! The property: a statement runs as the operation it translates to — a `SELECT` with the
//! partition key fixed is a Query, without it a Scan, an `INSERT` a conditional PutItem, an
//! `UPDATE` a conditional UpdateItem — so it returns, costs and logs what that operation
//! does. Most tests therefore run a statement next to the operation it stands for and
//! compare; the rest pin DynamoDB's PartiQL rules and messages.
mod common;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::operation::execute_statement::ExecuteStatementOutput;
use engine::types::{
    AttributeDefinition, BatchStatementErrorCodeEnum, BatchStatementRequest, BillingMode,
    GlobalSecondaryIndex, KeySchemaElement, KeyType, ParameterizedStatement, Projection,
    ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure, ScalarAttributeType,
};
use engine::world::log::RequestRecord;
use engine::{item, AttributeValue, Client, Item, World};

/// `app` with one customer's profile and five orders, and a second customer's order.
fn orders() -> (World, Client) {
    let (w, c) = app();
    put(
        &c,
        item! { "PK" => "C#1", "SK" => "PROFILE", "name" => "Ana" },
    );
    for (i, total) in [(1, 30), (2, 120), (3, 75), (4, 210), (5, 15)] {
        put(
            &c,
            item! { "PK" => "C#1", "SK" => format!("ORDER#{i}"), "total" => total, "status" => if i % 2 == 0 { "SHIPPED" } else { "NEW" } },
        );
    }
    put(
        &c,
        item! { "PK" => "C#2", "SK" => "ORDER#1", "total" => 99 },
    );
    w.advance(std::time::Duration::from_secs(5));
    w.clear_request_log();
    (w, c)
}

fn statement(c: &Client, text: &str) -> ExecuteStatementOutput {
    c.execute_statement()
        .statement(text)
        .send()
        .unwrap_or_else(|e| panic!("{text}: {}", e.message().unwrap_or_default()))
}

fn statement_err(c: &Client, text: &str) -> String {
    message(c.execute_statement().statement(text).send())
}

fn last(w: &World) -> RequestRecord {
    w.request_log().pop().expect("a request was logged")
}

fn sks(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["SK"].as_s().unwrap().clone())
        .collect()
}

// ---- SELECT: Query or Scan

#[test]
fn a_select_that_fixes_the_partition_key_is_a_query_and_costs_what_the_query_costs() {
    let (w, c) = orders();
    let out = c
        .execute_statement()
        .statement(r#"SELECT * FROM "app" WHERE PK = 'C#1' AND begins_with(SK, 'ORDER#')"#)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let record = last(&w);
    assert_eq!(
        (record.operation, record.via),
        ("Query", Some("ExecuteStatement"))
    );
    let query = c
        .query()
        .table_name("app")
        .key_condition_expression("PK = :p AND begins_with(SK, :o)")
        .expression_attribute_values(":p", s("C#1"))
        .expression_attribute_values(":o", s("ORDER#"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.items(), query.items());
    assert_eq!(sks(out.items()).len(), 5);
    assert_eq!(out.consumed_capacity(), query.consumed_capacity());
    assert_eq!(record.items_read, last(&w).items_read);
}

#[test]
fn a_select_without_the_partition_key_is_a_scan_and_pays_for_every_item_read() {
    let (w, c) = orders();
    let out = c
        .execute_statement()
        .statement(r#"SELECT * FROM "app" WHERE total > 100"#)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let record = last(&w);
    assert_eq!(
        (record.operation, record.via),
        ("Scan", Some("ExecuteStatement"))
    );
    assert_eq!(sks(out.items()).len(), 2, "two orders above 100");
    assert_eq!(record.items_read, 7, "every item of the table was read");
    let scan = c
        .scan()
        .table_name("app")
        .filter_expression("#total > :t")
        .expression_attribute_names("#total", "total")
        .expression_attribute_values(":t", n("100"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert_eq!(out.consumed_capacity(), scan.consumed_capacity());
    assert_eq!(record.read_units, last(&w).read_units);
}

#[test]
fn a_partition_key_compared_with_anything_but_equality_is_still_a_scan() {
    let (w, c) = orders();
    let out = statement(&c, r#"SELECT * FROM "app" WHERE PK > 'C#1'"#);
    assert_eq!(last(&w).operation, "Scan");
    assert_eq!(sks(out.items()), ["ORDER#1"]);
    statement(&c, r#"SELECT * FROM "app" WHERE PK = 'C#1' OR total = 99"#);
    assert_eq!(last(&w).operation, "Scan");
}

#[test]
fn each_sort_key_condition_is_the_query_s_key_condition() {
    let (w, c) = orders();
    for (partiql, expression, values) in [
        ("SK = 'ORDER#2'", "SK = :a", vec![s("ORDER#2")]),
        ("SK < 'ORDER#2'", "SK < :a", vec![s("ORDER#2")]),
        ("SK <= 'ORDER#2'", "SK <= :a", vec![s("ORDER#2")]),
        ("SK > 'ORDER#2'", "SK > :a", vec![s("ORDER#2")]),
        ("'ORDER#2' <= SK", "SK >= :a", vec![s("ORDER#2")]),
        (
            "SK BETWEEN 'ORDER#2' AND 'ORDER#4'",
            "SK BETWEEN :a AND :b",
            vec![s("ORDER#2"), s("ORDER#4")],
        ),
        (
            "begins_with(SK, 'ORD')",
            "begins_with(SK, :a)",
            vec![s("ORD")],
        ),
    ] {
        let out = statement(
            &c,
            &format!(r#"SELECT * FROM "app" WHERE PK = 'C#1' AND {partiql}"#),
        );
        let read = last(&w).items_read;
        let mut q = c
            .query()
            .table_name("app")
            .key_condition_expression(format!("PK = :p AND {expression}"))
            .expression_attribute_values(":p", s("C#1"));
        for (name, v) in [":a", ":b"].into_iter().zip(values) {
            q = q.expression_attribute_values(name, v);
        }
        let query = q.send().unwrap();
        assert_eq!(sks(out.items()), sks(query.items()), "{partiql}");
        assert_eq!(
            read,
            last(&w).items_read,
            "{partiql}: read only the key range"
        );
    }
}

#[test]
fn other_conditions_filter_after_the_read_even_on_the_sort_key() {
    let (w, c) = orders();
    let out = statement(
        &c,
        r#"SELECT * FROM "app" WHERE PK = 'C#1' AND SK <> 'PROFILE' AND status = 'SHIPPED'"#,
    );
    assert_eq!(sks(out.items()), ["ORDER#2", "ORDER#4"]);
    let record = last(&w);
    assert_eq!(record.operation, "Query");
    assert_eq!(
        record.items_read, 6,
        "the filter ran on the whole collection"
    );
}

#[test]
fn in_on_the_partition_key_is_one_query_per_value_and_order_by_sorts_them() {
    let (w, c) = orders();
    let out = statement(
        &c,
        r#"SELECT * FROM "app" WHERE PK IN ['C#2', 'C#1'] AND SK = 'ORDER#1' ORDER BY PK DESC"#,
    );
    assert_eq!(last(&w).operation, "Query");
    let pks: Vec<&str> = out
        .items()
        .iter()
        .map(|i| i["PK"].as_s().unwrap().as_str())
        .collect();
    assert_eq!(pks, ["C#2", "C#1"]);
    assert_eq!(
        last(&w).partitions.len(),
        2,
        "two item collections, each its own Query"
    );
    let or = statement(&c, r#"SELECT * FROM "app" WHERE PK = 'C#1' OR PK = 'C#2'"#);
    assert_eq!(or.items().len(), 7);
    assert_eq!(last(&w).operation, "Query");
}

#[test]
fn order_by_the_sort_key_descending_reads_backwards() {
    let (_w, c) = orders();
    let out = statement(
        &c,
        r#"SELECT SK FROM "app" WHERE PK = 'C#1' AND begins_with(SK, 'ORDER#') ORDER BY SK DESC"#,
    );
    assert_eq!(
        sks(out.items()),
        ["ORDER#5", "ORDER#4", "ORDER#3", "ORDER#2", "ORDER#1"]
    );
    assert_eq!(out.items()[0].len(), 1, "only SK was projected");
}

#[test]
fn order_by_needs_the_partition_key_fixed_and_key_attributes_only() {
    let (_w, c) = orders();
    assert_eq!(
        statement_err(&c, r#"SELECT * FROM "app" ORDER BY SK"#),
        "Must have WHERE clause in the statement when using ORDER BY clause."
    );
    assert_eq!(
        statement_err(&c, r#"SELECT * FROM "app" WHERE total > 1 ORDER BY SK"#),
        "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
    );
    assert_eq!(
        statement_err(&c, r#"SELECT * FROM "app" WHERE PK = 'C#1' ORDER BY total"#),
        "Variable reference total in ORDER BY clause must be part of the primary key"
    );
    assert_eq!(
        statement_err(&c, r#"SELECT * FROM "app" WHERE PK IN ['C#1', 'C#2'] ORDER BY SK"#),
        "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause."
    );
}

#[test]
fn a_projection_list_returns_those_attributes_and_nested_paths() {
    let (w, c) = app();
    put(
        &c,
        item! { "PK" => "p", "SK" => "1", "m" => item! { "a" => 1, "b" => 2 }, "l" => vec![n("7"), n("8")], "x" => 1 },
    );
    w.advance(std::time::Duration::from_secs(5));
    let out = statement(&c, r#"SELECT "m".a, l[1], x FROM app WHERE PK = 'p'"#);
    assert_eq!(
        out.items(),
        [item! { "m" => item! { "a" => 1 }, "l" => vec![n("8")], "x" => 1 }]
    );
    assert_eq!(
        statement_err(&c, r#"SELECT x, x FROM app WHERE PK = 'p'"#),
        "Duplicate identifiers in select clause: x"
    );
    assert_eq!(
        statement_err(&c, r#"SELECT *, x FROM app"#),
        "Other attributes should not be present in the projection when '*' is used."
    );
}

#[test]
fn limit_counts_items_read_and_next_token_pages_through_the_rest() {
    let (_w, c) = orders();
    let text = r#"SELECT * FROM "app" WHERE PK = 'C#1' AND status = 'NEW'"#;
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let out = c
            .execute_statement()
            .statement(text)
            .limit(2)
            .set_next_token(token.clone())
            .send()
            .unwrap();
        pages.push(sks(out.items()));
        assert_eq!(
            out.next_token().is_some(),
            out.last_evaluated_key().is_some()
        );
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    // Six items read two at a time: three full pages, then an empty last one.
    assert_eq!(
        pages,
        [vec!["ORDER#1"], vec!["ORDER#3"], vec!["ORDER#5"], vec![]]
    );
}

#[test]
fn a_next_token_continues_only_its_own_statement() {
    let (_w, c) = orders();
    let first = c
        .execute_statement()
        .statement(r#"SELECT * FROM "app""#)
        .limit(3)
        .send()
        .unwrap();
    let token = first.next_token().expect("more to read").to_string();
    let rest = c
        .execute_statement()
        .statement(r#"SELECT * FROM "app""#)
        .next_token(&token)
        .send()
        .unwrap();
    assert_eq!(first.items().len() + rest.items().len(), 7);
    assert!(rest.next_token().is_none());
    assert_eq!(
        message(
            c.execute_statement()
                .statement(r#"SELECT * FROM "app" WHERE total > 1"#)
                .next_token(&token)
                .send()
        ),
        "NextToken does not match request"
    );
    assert_eq!(
        message(
            c.execute_statement()
                .statement(r#"SELECT * FROM "app""#)
                .next_token("not a token")
                .send()
        ),
        "Invalid NextToken"
    );
}

#[test]
fn paging_an_in_list_crosses_from_one_query_to_the_next() {
    let (_w, c) = orders();
    let text = r#"SELECT * FROM "app" WHERE PK IN ['C#1', 'C#2']"#;
    let mut seen = Vec::new();
    let mut token = None;
    loop {
        let out = c
            .execute_statement()
            .statement(text)
            .limit(4)
            .set_next_token(token)
            .send()
            .unwrap();
        seen.extend(
            out.items()
                .iter()
                .map(|i| format!("{}/{}", i["PK"].as_s().unwrap(), i["SK"].as_s().unwrap())),
        );
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 7, "{seen:?}");
    assert_eq!(seen.last().map(String::as_str), Some("C#2/ORDER#1"));
}

#[test]
fn consistent_read_reaches_the_operation_and_not_on_a_global_index() {
    let (w, c) = orders();
    c.execute_statement()
        .statement(r#"SELECT * FROM "app" WHERE PK = 'C#1'"#)
        .consistent_read(true)
        .send()
        .unwrap();
    assert_eq!(last(&w).consistent_read, Some(true));
    statement(&c, r#"SELECT * FROM "app" WHERE PK = 'C#1'"#);
    assert_eq!(last(&w).consistent_read, Some(false));
}

#[test]
fn a_select_on_an_index_queries_the_index() {
    let w = World::new(3);
    let c = w.client();
    c.create_table()
        .table_name("shop")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("status", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .global_secondary_indexes(GlobalSecondaryIndex::new(
            "byStatus",
            vec![KeySchemaElement::new("status", KeyType::Hash)],
            Projection::all(),
        ))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    for (pk, status) in [("o1", "NEW"), ("o2", "SHIPPED"), ("o3", "NEW")] {
        put_into(&c, "shop", item! { "PK" => pk, "status" => status });
    }
    w.advance(std::time::Duration::from_secs(5));
    let out = statement(
        &c,
        r#"SELECT PK FROM "shop"."byStatus" WHERE status = 'NEW'"#,
    );
    let mut pks: Vec<&str> = out
        .items()
        .iter()
        .map(|i| i["PK"].as_s().unwrap().as_str())
        .collect();
    pks.sort_unstable();
    assert_eq!(pks, ["o1", "o3"]);
    let record = last(&w);
    assert_eq!(
        (record.operation, record.index.as_deref()),
        ("Query", Some("byStatus"))
    );
    assert_eq!(
        message(
            c.execute_statement()
                .statement(r#"SELECT * FROM "shop"."byStatus" WHERE status = 'NEW'"#)
                .consistent_read(true)
                .send()
        ),
        "Strongly consistent read is not supported on Global Secondary Indexes"
    );
}

// ---- parameters and literals

#[test]
fn parameters_fill_the_question_marks_in_order() {
    let (_w, c) = orders();
    let out = c
        .execute_statement()
        .statement(r#"SELECT * FROM "app" WHERE PK = ? AND total >= ?"#)
        .parameters(s("C#1"))
        .parameters(n("100"))
        .send()
        .unwrap();
    assert_eq!(sks(out.items()), ["ORDER#2", "ORDER#4"]);
    for params in [vec![s("C#1")], vec![s("C#1"), n("1"), n("2")]] {
        assert_eq!(
            message(
                c.execute_statement()
                    .statement(r#"SELECT * FROM "app" WHERE PK = ? AND total >= ?"#)
                    .set_parameters(Some(params))
                    .send()
            ),
            "Number of parameters in request and statement don't match."
        );
    }
    assert!(message(
        c.execute_statement()
            .statement(r#"SELECT * FROM "app""#)
            .set_parameters(Some(vec![]))
            .send()
    )
    .contains("at 'parameters' failed to satisfy constraint"));
}

#[test]
fn literals_are_dynamodb_s_types() {
    let (_w, c) = app();
    statement(
        &c,
        r#"INSERT INTO "app" VALUE {'PK': 'p', 'SK': 'it''s', 'n': -1.50, 'yes': TRUE, 'none': NULL,
             'm': {'a': [1, 'two']}, 'tags': <<'b', 'a'>>, "nums": <<3, 1>>}"#,
    );
    let got = get(&c, "p", "it's").expect("inserted");
    assert_eq!(got["n"], n("-1.5"));
    assert_eq!(got["yes"], AttributeValue::Bool(true));
    assert_eq!(got["none"], AttributeValue::Null(true));
    assert_eq!(
        got["m"],
        AttributeValue::M(item! { "a" => vec![n("1"), s("two")] })
    );
    assert!(matches!(&got["tags"], AttributeValue::Ss(v) if v.len() == 2));
    assert!(matches!(&got["nums"], AttributeValue::Ns(v) if v.len() == 2));
    assert_eq!(
        statement_err(
            &c,
            r#"INSERT INTO "app" VALUE {'PK': 'q', 'SK': 'x', 's': <<>>}"#
        ),
        "Empty bags are not supported"
    );
}

// ---- writes

#[test]
fn insert_is_a_put_that_never_overwrites() {
    let (w, c) = orders();
    let out = c
        .execute_statement()
        .statement(r#"INSERT INTO "app" VALUE {'PK': 'C#3', 'SK': 'PROFILE', 'name': 'Bo'}"#)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    assert!(out.items().is_empty());
    let record = last(&w);
    assert_eq!(
        (record.operation, record.via),
        ("PutItem", Some("ExecuteStatement"))
    );
    assert_eq!(
        out.consumed_capacity().and_then(|c| c.capacity_units()),
        Some(1.0)
    );
    let again = c
        .execute_statement()
        .statement(r#"INSERT INTO "app" VALUE {'PK': 'C#1', 'SK': 'PROFILE', 'name': 'Eve'}"#)
        .send()
        .unwrap_err();
    let err = again.into_service_error();
    assert!(err.is_duplicate_item_exception(), "{err:?}");
    assert_eq!(err.message(), Some("Duplicate primary key exists in table"));
    assert_eq!(last(&w).error, Some("DuplicateItemException"));
    assert_eq!(
        get(&c, "C#1", "PROFILE").unwrap()["name"],
        s("Ana"),
        "not overwritten"
    );
}

#[test]
fn update_sets_and_removes_and_refuses_a_missing_item() {
    let (w, c) = orders();
    let out = statement(
        &c,
        r#"UPDATE "app" SET total = total + 5, tags = <<'gift'>> SET notes = list_append([], ['a']) REMOVE status
           WHERE PK = 'C#1' AND SK = 'ORDER#1' RETURNING ALL NEW *"#,
    );
    assert_eq!(last(&w).operation, "UpdateItem");
    let new = &out.items()[0];
    assert_eq!(new["total"], n("35"));
    assert_eq!(new["notes"], AttributeValue::L(vec![s("a")]));
    assert!(!new.contains_key("status"));
    statement(
        &c,
        r#"UPDATE "app" SET tags = set_add(tags, <<'fragile'>>) WHERE PK = 'C#1' AND SK = 'ORDER#1'"#,
    );
    assert!(
        matches!(&get(&c, "C#1", "ORDER#1").unwrap()["tags"], AttributeValue::Ss(v) if v.len() == 2)
    );

    let missing = c
        .execute_statement()
        .statement(r#"UPDATE "app" SET total = 1 WHERE PK = 'C#9' AND SK = 'ORDER#1'"#)
        .send()
        .unwrap_err()
        .into_service_error();
    assert!(
        missing.is_conditional_check_failed_exception(),
        "{missing:?}"
    );
    assert_eq!(
        get(&c, "C#9", "ORDER#1"),
        None,
        "an UPDATE never creates an item"
    );
}

#[test]
fn update_with_a_condition_fails_as_a_conditional_update_and_can_return_the_item() {
    let (_w, c) = orders();
    let err = c
        .execute_statement()
        .statement(
            r#"UPDATE "app" SET total = 0 WHERE PK = 'C#1' AND SK = 'ORDER#2' AND total < 100"#,
        )
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .unwrap_err()
        .into_service_error();
    let engine::operation::execute_statement::ExecuteStatementError::ConditionalCheckFailedException(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!(e.item().map(|i| i["total"].clone()), Some(n("120")));
    assert_eq!(get(&c, "C#1", "ORDER#2").unwrap()["total"], n("120"));
}

#[test]
fn delete_of_a_missing_item_succeeds_and_a_false_condition_does_not() {
    let (w, c) = orders();
    let out = statement(
        &c,
        r#"DELETE FROM "app" WHERE PK = 'C#9' AND SK = 'X' AND total > 1"#,
    );
    assert!(out.items().is_empty());
    assert_eq!(last(&w).operation, "DeleteItem");
    let err = c
        .execute_statement()
        .statement(r#"DELETE FROM "app" WHERE PK = 'C#1' AND SK = 'ORDER#1' AND total > 100"#)
        .send()
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conditional_check_failed_exception());
    assert!(get(&c, "C#1", "ORDER#1").is_some());
    let out = statement(
        &c,
        r#"DELETE FROM "app" WHERE PK = 'C#1' AND SK = 'ORDER#1' RETURNING ALL OLD *"#,
    );
    assert_eq!(out.items()[0]["total"], n("30"));
    assert!(get(&c, "C#1", "ORDER#1").is_none());
}

#[test]
fn writes_must_name_the_whole_key() {
    let (_w, c) = orders();
    for text in [
        r#"UPDATE "app" SET total = 1 WHERE PK = 'C#1'"#,
        r#"UPDATE "app" SET total = 1 WHERE PK = 'C#1' AND SK > 'A'"#,
        r#"DELETE FROM "app" WHERE total = 30"#,
        r#"UPDATE "app" SET total = 1"#,
        r#"DELETE FROM "app" WHERE PK = 'C#1' OR SK = 'ORDER#1'"#,
    ] {
        assert_eq!(
            statement_err(&c, text),
            "Where clause does not contain a mandatory equality on all key attributes",
            "{text}"
        );
    }
    assert_eq!(
        statement_err(&c, r#"UPDATE "app" SET PK = 'x' WHERE PK = 'C#1' AND SK = 'ORDER#1'"#),
        "One or more parameter values were invalid: Cannot update attribute PK. This attribute is part of the key",
        "the UpdateItem underneath enforces its own rules"
    );
    assert_eq!(
        statement_err(&c, r#"DELETE FROM "app" WHERE PK = 1 AND SK = 'ORDER#1'"#),
        "Key attribute's data type should match its data type in table's schema: Key PK"
    );
}

#[test]
fn statements_dynamodb_does_not_take_are_refused_with_its_messages() {
    let (_w, c) = orders();
    for (text, expected) in [
        ("UPSERT INTO app VALUE {'PK': 'a'}", "Statement wasn't well formed, can't be processed: Expected data manipulation"),
        ("SELECT * FROM app WHERE", "Statement wasn't well formed, can't be processed: Unexpected end of statement"),
        ("SELECT * FROM app WHERE PK = 'a", "Statement wasn't well formed, can't be processed: Unterminated string literal"),
        ("SELECT * FROM app LIMIT 5", "Unsupported clause: LIMIT"),
        ("INSERT INTO app VALUES ('a', 'b')", "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead"),
        ("INSERT INTO app VALUE {'PK': 'a', 'SK': 'b'} RETURNING ALL OLD *", "RETURNING is not supported in INSERT"),
        ("DELETE FROM app WHERE PK = 'a' AND SK = 'b' RETURNING ALL NEW *", "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements."),
        ("EXISTS(SELECT * FROM app WHERE PK = 'a' AND SK = 'b' AND x = 1)", "EXISTS can only be used in ExecuteTransaction write requests."),
        ("UPDATE \"app\".\"idx\" SET a = 1 WHERE PK = 'a' AND SK = 'b'", "FROM clause may only contain a single table name in data manipulation statements"),
        ("SELECT * FROM app WHERE a = MISSING", "MISSING must be compared using IS operator"),
    ] {
        assert_eq!(statement_err(&c, text), expected, "{text}");
    }
    assert_eq!(
        message(
            c.execute_statement()
                .statement(r#"SELECT * FROM "nope""#)
                .send()
        ),
        "Requested resource not found"
    );
}

#[test]
fn is_missing_and_functions_filter_as_their_expression_counterparts() {
    let (_w, c) = orders();
    let missing = statement(
        &c,
        r#"SELECT * FROM app WHERE PK = 'C#1' AND status IS MISSING"#,
    );
    assert_eq!(sks(missing.items()), ["PROFILE"]);
    let present = statement(
        &c,
        r#"SELECT * FROM app WHERE PK = 'C#1' AND attribute_exists(total) AND NOT contains(status, 'SHIP')"#,
    );
    assert_eq!(sks(present.items()), ["ORDER#1", "ORDER#3", "ORDER#5"]);
    let sized = statement(
        &c,
        r#"SELECT * FROM app WHERE PK = 'C#1' AND size(status) = 7"#,
    );
    assert_eq!(sks(sized.items()), ["ORDER#2", "ORDER#4"]);
}

// ---- BatchExecuteStatement

fn batch_statement(text: &str) -> BatchStatementRequest {
    BatchStatementRequest::builder()
        .statement(text)
        .build()
        .unwrap()
}

#[test]
fn a_batch_of_reads_answers_each_statement_in_order() {
    let (w, c) = orders();
    let out = c
        .batch_execute_statement()
        .statements(batch_statement(
            r#"SELECT name FROM app WHERE PK = 'C#1' AND SK = 'PROFILE'"#,
        ))
        .statements(batch_statement(
            r#"SELECT * FROM app WHERE PK = 'C#7' AND SK = 'PROFILE'"#,
        ))
        .statements(batch_statement(r#"SELECT * FROM app WHERE PK = 'C#1'"#))
        .statements(
            BatchStatementRequest::builder()
                .statement(r#"SELECT * FROM app WHERE PK = ? AND SK = ? AND total > 100"#)
                .parameters(s("C#2"))
                .parameters(s("ORDER#1"))
                .build()
                .unwrap(),
        )
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .unwrap();
    let r = out.responses();
    assert_eq!(r.len(), 4);
    assert_eq!(r[0].item(), Some(&item! { "name" => "Ana" }));
    assert_eq!(
        (r[1].item(), r[1].error()),
        (None, None),
        "a missing item is no error"
    );
    let e = r[2].error().expect("a SELECT in a batch names one item");
    assert_eq!(
        e.code(),
        Some(&BatchStatementErrorCodeEnum::ValidationError)
    );
    assert_eq!(
        e.message(),
        Some("Where clause does not contain a mandatory equality on all key attributes")
    );
    assert_eq!(
        (r[3].item(), r[3].error()),
        (None, None),
        "read, then filtered out"
    );
    assert_eq!(r[0].table_name(), Some("app"));
    let record = last(&w);
    assert_eq!(
        (record.operation, record.via),
        ("BatchGetItem", Some("BatchExecuteStatement"))
    );
    assert_eq!(
        out.consumed_capacity()[0].capacity_units(),
        Some(1.5),
        "three items read, eventually consistent: half a unit each"
    );
}

#[test]
fn a_batch_of_writes_is_no_transaction() {
    let (_w, c) = orders();
    let out = c
        .batch_execute_statement()
        .statements(batch_statement(
            r#"INSERT INTO app VALUE {'PK': 'C#5', 'SK': 'PROFILE'}"#,
        ))
        .statements(batch_statement(
            r#"INSERT INTO app VALUE {'PK': 'C#1', 'SK': 'PROFILE'}"#,
        ))
        .statements(batch_statement(
            r#"UPDATE app SET total = 1 WHERE PK = 'C#1' AND SK = 'ORDER#9'"#,
        ))
        .statements(batch_statement(
            r#"DELETE FROM app WHERE PK = 'C#2' AND SK = 'ORDER#1'"#,
        ))
        .statements(batch_statement("NOT PARTIQL"))
        .send()
        .unwrap();
    let codes: Vec<Option<&str>> = out
        .responses()
        .iter()
        .map(|r| r.error().and_then(|e| e.code()).map(|c| c.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            None,
            Some("DuplicateItem"),
            Some("ConditionalCheckFailed"),
            None,
            Some("ValidationError")
        ]
    );
    assert!(
        get(&c, "C#5", "PROFILE").is_some(),
        "the first insert stands"
    );
    assert!(get(&c, "C#2", "ORDER#1").is_none(), "the delete ran");
}

#[test]
fn a_batch_mixes_no_reads_with_writes_and_holds_at_most_25() {
    let (_w, c) = orders();
    assert_eq!(
        message(
            c.batch_execute_statement()
                .statements(batch_statement(r#"SELECT * FROM app WHERE PK = 'C#1' AND SK = 'PROFILE'"#))
                .statements(batch_statement(r#"DELETE FROM app WHERE PK = 'C#1' AND SK = 'PROFILE'"#))
                .send()
        ),
        "BatchExecuteStatement API does not support both read and write operations in the same request."
    );
    let many = vec![batch_statement(r#"SELECT * FROM app WHERE PK = 'a' AND SK = 'b'"#); 26];
    assert!(message(
        c.batch_execute_statement()
            .set_statements(Some(many))
            .send()
    )
    .contains("Member must have length less than or equal to 25"));
}

// ---- ExecuteTransaction

fn tx_statement(text: &str) -> ParameterizedStatement {
    ParameterizedStatement::builder()
        .statement(text)
        .build()
        .unwrap()
}

#[test]
fn a_transaction_writes_all_or_nothing() {
    let (w, c) = orders();
    let err = c
        .execute_transaction()
        .transact_statements(tx_statement(
            r#"INSERT INTO app VALUE {'PK': 'C#4', 'SK': 'PROFILE'}"#,
        ))
        .transact_statements(tx_statement(
            r#"UPDATE app SET total = 1 WHERE PK = 'C#1' AND SK = 'ORDER#9'"#,
        ))
        .transact_statements(tx_statement(
            r#"INSERT INTO app VALUE {'PK': 'C#1', 'SK': 'PROFILE'}"#,
        ))
        .send()
        .unwrap_err()
        .into_service_error();
    let engine::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(e) = err else {
        panic!("{err:?}")
    };
    let codes: Vec<Option<&str>> = e.cancellation_reasons().iter().map(|r| r.code()).collect();
    assert_eq!(
        codes,
        [
            Some("None"),
            Some("ConditionalCheckFailed"),
            Some("DuplicateItem")
        ]
    );
    let record = last(&w);
    assert_eq!(
        (record.operation, record.via),
        ("TransactWriteItems", Some("ExecuteTransaction"))
    );
    assert!(get(&c, "C#4", "PROFILE").is_none(), "nothing was written");

    c.execute_transaction()
        .transact_statements(tx_statement(
            r#"INSERT INTO app VALUE {'PK': 'C#4', 'SK': 'PROFILE'}"#,
        ))
        .transact_statements(tx_statement(
            r#"UPDATE app SET total = total - 5 WHERE PK = 'C#1' AND SK = 'ORDER#1'"#,
        ))
        .transact_statements(tx_statement(
            r#"EXISTS(SELECT * FROM app WHERE PK = 'C#1' AND SK = 'PROFILE' AND name = 'Ana')"#,
        ))
        .send()
        .unwrap();
    assert!(get(&c, "C#4", "PROFILE").is_some());
    assert_eq!(get(&c, "C#1", "ORDER#1").unwrap()["total"], n("25"));
}

#[test]
fn a_failed_exists_cancels_the_transaction() {
    let (_w, c) = orders();
    let err = c
        .execute_transaction()
        .transact_statements(tx_statement(
            r#"UPDATE app SET total = 0 WHERE PK = 'C#1' AND SK = 'ORDER#1'"#,
        ))
        .transact_statements(tx_statement(
            r#"EXISTS(SELECT * FROM app WHERE PK = 'C#1' AND SK = 'PROFILE' AND name = 'Bo')"#,
        ))
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("TransactionCanceledException"));
    assert_eq!(get(&c, "C#1", "ORDER#1").unwrap()["total"], n("30"));
}

#[test]
fn a_transaction_of_reads_is_a_snapshot_by_full_key() {
    let (w, c) = orders();
    let out = c
        .execute_transaction()
        .transact_statements(tx_statement(
            r#"SELECT name FROM app WHERE PK = 'C#1' AND SK = 'PROFILE'"#,
        ))
        .transact_statements(tx_statement(
            r#"SELECT * FROM app WHERE PK = 'C#8' AND SK = 'PROFILE'"#,
        ))
        .send()
        .unwrap();
    assert_eq!(out.responses()[0].item(), Some(&item! { "name" => "Ana" }));
    assert_eq!(out.responses()[1].item(), None);
    assert_eq!(last(&w).operation, "TransactGetItems");
    for (text, expected) in [
        (r#"SELECT * FROM app WHERE PK = 'C#1'"#, "Select statements within ExecuteTransaction must specify the primary key in the where clause."),
        (r#"SELECT * FROM app WHERE PK = 'C#1' AND SK = 'PROFILE' AND name = 'Ana'"#, "Select statements within ExecuteTransaction must specify the primary key in the where clause."),
    ] {
        assert_eq!(message(c.execute_transaction().transact_statements(tx_statement(text)).send()), expected);
    }
    assert_eq!(
        message(
            c.execute_transaction()
                .transact_statements(tx_statement(r#"SELECT * FROM app WHERE PK = 'C#1' AND SK = 'PROFILE'"#))
                .transact_statements(tx_statement(r#"DELETE FROM app WHERE PK = 'C#1' AND SK = 'PROFILE'"#))
                .send()
        ),
        "ExecuteTransaction API does not support both read and write operations in the same request."
    );
    let many = vec![tx_statement(r#"SELECT * FROM app WHERE PK = 'a' AND SK = 'b'"#); 101];
    assert!(message(
        c.execute_transaction()
            .set_transact_statements(Some(many))
            .send()
    )
    .contains("Member must have length less than or equal to 100"));
}

#[test]
fn a_client_request_token_makes_a_retry_safe() {
    let (_w, c) = orders();
    let send = |text: &str| {
        c.execute_transaction()
            .transact_statements(tx_statement(text))
            .client_request_token("retry-1")
            .send()
    };
    let add = r#"UPDATE app SET total = total + 1 WHERE PK = 'C#1' AND SK = 'ORDER#1'"#;
    send(add).unwrap();
    send(add).unwrap();
    assert_eq!(
        get(&c, "C#1", "ORDER#1").unwrap()["total"],
        n("31"),
        "applied once"
    );
    let other = send(r#"UPDATE app SET total = 0 WHERE PK = 'C#1' AND SK = 'ORDER#1'"#)
        .unwrap_err()
        .into_service_error();
    assert!(
        other.is_idempotent_parameter_mismatch_exception(),
        "{other:?}"
    );
}

// ---- hostile input

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let (_w, c) = orders();
    let deep = format!(
        r#"SELECT * FROM app WHERE {}a = 1{}"#,
        "(".repeat(4000),
        ")".repeat(4000)
    );
    assert_eq!(
        statement_err(&c, &deep),
        "Statement wasn't well formed, can't be processed: Statement nests too deeply"
    );
    let nots = format!("SELECT * FROM app WHERE {} a = 1", "NOT ".repeat(2000));
    assert!(statement_err(&c, &nots).starts_with("Statement wasn't well formed"));
    let lists = format!(
        "INSERT INTO app VALUE {{'PK': 'x', 'SK': 'y', 'l': {}1{}}}",
        "[".repeat(3000),
        "]".repeat(3000)
    );
    assert!(statement_err(&c, &lists).starts_with("Statement wasn't well formed"));
}

#[test]
fn any_text_is_answered_and_never_panics() {
    let (_w, c) = orders();
    const PIECES: &[&str] = &[
        "SELECT",
        "*",
        "FROM",
        "\"app\"",
        "app",
        ".",
        "\"idx\"",
        "WHERE",
        "PK",
        "SK",
        "=",
        "<>",
        "<",
        ">=",
        "AND",
        "OR",
        "NOT",
        "(",
        ")",
        "'C#1'",
        "'ORDER#",
        "1",
        "-2.5e3",
        "?",
        "IN",
        "[",
        "]",
        "{",
        "}",
        ":",
        ",",
        "<<",
        ">>",
        "BETWEEN",
        "IS",
        "MISSING",
        "NULL",
        "TRUE",
        "begins_with",
        "size",
        "INSERT",
        "INTO",
        "VALUE",
        "UPDATE",
        "SET",
        "REMOVE",
        "DELETE",
        "RETURNING",
        "ALL",
        "OLD",
        "NEW",
        "ORDER",
        "BY",
        "DESC",
        "list_append",
        "set_add",
        "EXISTS",
        ";",
        "--",
        "/*",
        "\"",
        "'",
        "é",
        "total",
        "+",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % n
    };
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..3000 {
        let len = 1 + next(14);
        let text: Vec<&str> = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
        let text = text.join(" ");
        let params = (0..next(3)).map(|i| n(&i.to_string())).collect::<Vec<_>>();
        let sent = c
            .execute_statement()
            .statement(&text)
            .set_parameters((!params.is_empty()).then_some(params))
            .send();
        match sent {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(e.code().is_some(), "{text}: an error without a code");
                refused += 1;
            }
        }
    }
    // Random text rarely forms a statement: most is refused, each with a code.
    assert!(
        refused > 2000,
        "most random text is refused ({refused}, {ok} ran)"
    );
}

#[test]
fn return_values_on_condition_check_failure_reaches_batches_and_transactions() {
    let (_w, c) = orders();
    let stale = r#"UPDATE app SET total = 0 WHERE PK = 'C#1' AND SK = 'ORDER#2' AND total = 1"#;
    let out = c
        .batch_execute_statement()
        .statements(
            BatchStatementRequest::builder()
                .statement(stale)
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .build()
                .unwrap(),
        )
        .send()
        .unwrap();
    let error = out.responses()[0].error().expect("the condition failed");
    assert_eq!(error.item().map(|i| i["total"].clone()), Some(n("120")));
    let err = c
        .execute_transaction()
        .transact_statements(
            ParameterizedStatement::builder()
                .statement(stale)
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .build()
                .unwrap(),
        )
        .send()
        .unwrap_err()
        .into_service_error();
    let engine::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(e) = err else {
        panic!("{err:?}")
    };
    let reason = &e.cancellation_reasons()[0];
    assert_eq!(reason.item().map(|i| i["total"].clone()), Some(n("120")));
}
