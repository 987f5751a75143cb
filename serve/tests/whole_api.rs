//! The rest of DynamoDB's API over a real socket: the legacy parameters as an SDK sends
//! them (issue 19), tags, PartiQL, and the small operations tools call.

mod common;

use common::{create_table_body, ddb, Conn};
use serde_json::json;
use serve::{ClockMode, Config, Server};

fn session() -> Conn {
    let server = Server::bind(&Config {
        port: 0,
        clock: ClockMode::Manual,
        ..Config::default()
    })
    .unwrap();
    let mut conn = Conn::open(server.spawn().unwrap());
    let created = conn.call(&ddb("CreateTable"), &create_table_body("app"));
    assert_eq!(created.status, 200);
    conn
}

fn ok(conn: &mut Conn, op: &str, body: serde_json::Value) -> serde_json::Value {
    let reply = conn.call(&ddb(op), &body.to_string());
    assert_eq!(
        reply.status,
        200,
        "{op}: {}",
        String::from_utf8_lossy(&reply.body)
    );
    reply.json()
}

fn refused(conn: &mut Conn, op: &str, body: serde_json::Value) -> (String, String) {
    let reply = conn.call(&ddb(op), &body.to_string());
    assert_eq!(reply.status, 400, "{op} should fail");
    let body = reply.json();
    (
        reply.error_name(),
        body["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_legacy_session_puts_updates_queries_and_scans() {
    let mut conn = session();
    for (sk, n) in [("1", "1"), ("2", "5"), ("3", "9")] {
        ok(
            &mut conn,
            "PutItem",
            json!({"TableName": "app",
                   "Item": {"PK": {"S": "p"}, "SK": {"S": sk}, "n": {"N": n}},
                   "Expected": {"PK": {"Exists": false}}}),
        );
    }
    let (name, message) = refused(
        &mut conn,
        "PutItem",
        json!({"TableName": "app", "Item": {"PK": {"S": "p"}, "SK": {"S": "1"}},
               "Expected": {"PK": {"Exists": false}}}),
    );
    assert_eq!(name, "ConditionalCheckFailedException");
    assert_eq!(message, "The conditional request failed");
    let updated = ok(
        &mut conn,
        "UpdateItem",
        json!({"TableName": "app", "Key": {"PK": {"S": "p"}, "SK": {"S": "1"}},
               "AttributeUpdates": {"n": {"Action": "ADD", "Value": {"N": "10"}},
                                    "tag": {"Value": {"S": "x"}}},
               "Expected": {"n": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "5"}]}},
               "ReturnValues": "ALL_NEW"}),
    );
    assert_eq!(updated["Attributes"]["n"], json!({"N": "11"}));
    assert_eq!(updated["Attributes"]["tag"], json!({"S": "x"}));
    let query = ok(
        &mut conn,
        "Query",
        json!({"TableName": "app", "ConsistentRead": true,
               "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
                                 "SK": {"ComparisonOperator": "GE", "AttributeValueList": [{"S": "2"}]}},
               "QueryFilter": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "6"}]}},
               "AttributesToGet": ["SK"]}),
    );
    assert_eq!(query["Items"], json!([{"SK": {"S": "3"}}]));
    assert_eq!(query["ScannedCount"], json!(2));
    let scan = ok(
        &mut conn,
        "Scan",
        json!({"TableName": "app", "ConsistentRead": true, "ConditionalOperator": "OR",
               "ScanFilter": {"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "5"}]},
                              "tag": {"ComparisonOperator": "NOT_NULL"}},
               "AttributesToGet": ["SK"]}),
    );
    assert_eq!(scan["Count"], json!(2));
    let got = ok(
        &mut conn,
        "GetItem",
        json!({"TableName": "app", "Key": {"PK": {"S": "p"}, "SK": {"S": "2"}},
               "ConsistentRead": true, "AttributesToGet": ["n"]}),
    );
    assert_eq!(got["Item"], json!({"n": {"N": "5"}}));
    ok(
        &mut conn,
        "DeleteItem",
        json!({"TableName": "app", "Key": {"PK": {"S": "p"}, "SK": {"S": "2"}},
               "Expected": {"n": {"Value": {"N": "5"}}}}),
    );
}

#[test]
fn legacy_validation_reaches_the_wire_in_dynamodbs_words() {
    let mut conn = session();
    let (name, message) = refused(
        &mut conn,
        "Query",
        json!({"TableName": "app", "KeyConditionExpression": "PK = :p",
               "ExpressionAttributeValues": {":p": {"S": "p"}},
               "QueryFilter": {"n": {"ComparisonOperator": "NULL"}}}),
    );
    assert_eq!(name, "ValidationException");
    assert_eq!(
        message,
        "Can not use both expression and non-expression parameters in the same request: \
         Non-expression parameters: {QueryFilter} Expression parameters: {KeyConditionExpression}"
    );
    let (_, message) = refused(
        &mut conn,
        "Scan",
        json!({"TableName": "app",
               "ScanFilter": {"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}]}}}),
    );
    assert_eq!(
        message,
        "One or more parameter values were invalid: Invalid number of argument(s) for the \
         BETWEEN ComparisonOperator"
    );
    let (_, message) = refused(
        &mut conn,
        "Scan",
        json!({"TableName": "app", "ScanFilter": {"n": {"ComparisonOperator": "ABOUT"}}}),
    );
    assert_eq!(
        message,
        "1 validation error detected: Value 'ABOUT' at 'scanFilter.n.member.comparisonOperator' \
         failed to satisfy constraint: Member must satisfy enum value set: [EQ, NE, IN, LE, LT, \
         GE, GT, BETWEEN, NOT_NULL, NULL, CONTAINS, NOT_CONTAINS, BEGINS_WITH]"
    );
}

#[test]
fn tags_travel_by_arn() {
    let mut conn = session();
    let described = ok(&mut conn, "DescribeTable", json!({"TableName": "app"}));
    let arn = described["Table"]["TableArn"].as_str().unwrap().to_string();
    ok(
        &mut conn,
        "TagResource",
        json!({"ResourceArn": arn, "Tags": [{"Key": "team", "Value": "checkout"},
                                            {"Key": "env", "Value": "dev"}]}),
    );
    ok(
        &mut conn,
        "UntagResource",
        json!({"ResourceArn": arn, "TagKeys": ["env"]}),
    );
    let listed = ok(&mut conn, "ListTagsOfResource", json!({"ResourceArn": arn}));
    assert_eq!(
        listed,
        json!({"Tags": [{"Key": "team", "Value": "checkout"}]})
    );
    let created = conn.call(
        &ddb("CreateTable"),
        &create_table_body("tagged").replacen(
            "\"BillingMode\"",
            r#""Tags":[{"Key":"a","Value":"1"}],"BillingMode""#,
            1,
        ),
    );
    assert_eq!(created.status, 200);
    let arn2 = arn.replace("table/app", "table/tagged");
    let listed = ok(
        &mut conn,
        "ListTagsOfResource",
        json!({"ResourceArn": arn2}),
    );
    assert_eq!(listed["Tags"], json!([{"Key": "a", "Value": "1"}]));
    let (name, message) = refused(
        &mut conn,
        "TagResource",
        json!({"ResourceArn": arn, "Tags": [{"Key": "k"}]}),
    );
    assert_eq!(name, "ValidationException");
    assert_eq!(
        message,
        "1 validation error detected: Value null at 'tags.1.member.value' failed to satisfy \
         constraint: Member must not be null"
    );
    let (name, _) = refused(
        &mut conn,
        "ListTagsOfResource",
        json!({"ResourceArn": arn.replace("table/app", "table/gone")}),
    );
    assert_eq!(name, "ResourceNotFoundException");
}

#[test]
fn backups_encryption_endpoints_and_limits_answer_as_dynamodb_does() {
    let mut conn = session();
    let backups = ok(
        &mut conn,
        "DescribeContinuousBackups",
        json!({"TableName": "app"}),
    );
    assert_eq!(
        backups,
        json!({"ContinuousBackupsDescription": {
            "ContinuousBackupsStatus": "ENABLED",
            "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}})
    );
    let updated = ok(
        &mut conn,
        "UpdateContinuousBackups",
        json!({"TableName": "app",
               "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}),
    );
    let pitr = &updated["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"];
    assert_eq!(pitr["PointInTimeRecoveryStatus"], "ENABLED");
    assert!(pitr["EarliestRestorableDateTime"].is_number());
    let (name, _) = refused(
        &mut conn,
        "DescribeContinuousBackups",
        json!({"TableName": "nope"}),
    );
    assert_eq!(name, "TableNotFoundException");

    let created = conn.call(
        &ddb("CreateTable"),
        &create_table_body("secret").replacen(
            "\"BillingMode\"",
            r#""SSESpecification":{"Enabled":true},"BillingMode""#,
            1,
        ),
    );
    assert_eq!(created.status, 200);
    let described = ok(&mut conn, "DescribeTable", json!({"TableName": "secret"}));
    assert_eq!(described["Table"]["SSEDescription"]["Status"], "ENABLED");
    assert_eq!(described["Table"]["SSEDescription"]["SSEType"], "KMS");
    let plain = ok(&mut conn, "DescribeTable", json!({"TableName": "app"}));
    assert!(plain["Table"].get("SSEDescription").is_none());

    let endpoints = ok(&mut conn, "DescribeEndpoints", json!({}));
    assert_eq!(endpoints["Endpoints"][0]["CachePeriodInMinutes"], 1440);
    let limits = ok(&mut conn, "DescribeLimits", json!({}));
    assert_eq!(
        limits,
        json!({"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
               "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000})
    );
}

#[test]
fn partiql_runs_over_the_wire_with_its_pages_and_errors() {
    let mut conn = session();
    for sk in ["1", "2", "3"] {
        ok(
            &mut conn,
            "ExecuteStatement",
            json!({"Statement": "INSERT INTO \"app\" VALUE {'PK': ?, 'SK': ?, 'n': 1}",
                   "Parameters": [{"S": "p"}, {"S": sk}]}),
        );
    }
    let (name, message) = refused(
        &mut conn,
        "ExecuteStatement",
        json!({"Statement": "INSERT INTO \"app\" VALUE {'PK': 'p', 'SK': '1'}"}),
    );
    assert_eq!(
        (name.as_str(), message.as_str()),
        (
            "DuplicateItemException",
            "Duplicate primary key exists in table"
        )
    );
    let first = ok(
        &mut conn,
        "ExecuteStatement",
        json!({"Statement": "SELECT SK FROM \"app\" WHERE PK = 'p'", "Limit": 2,
               "ConsistentRead": true, "ReturnConsumedCapacity": "TOTAL"}),
    );
    assert_eq!(
        first["Items"],
        json!([{"SK": {"S": "1"}}, {"SK": {"S": "2"}}])
    );
    assert_eq!(
        first["LastEvaluatedKey"],
        json!({"PK": {"S": "p"}, "SK": {"S": "2"}})
    );
    assert_eq!(first["ConsumedCapacity"]["CapacityUnits"], json!(1.0));
    let token = first["NextToken"]
        .as_str()
        .expect("a second page")
        .to_string();
    let second = ok(
        &mut conn,
        "ExecuteStatement",
        json!({"Statement": "SELECT SK FROM \"app\" WHERE PK = 'p'", "NextToken": token,
               "ConsistentRead": true}),
    );
    assert_eq!(second["Items"], json!([{"SK": {"S": "3"}}]));
    assert!(second.get("NextToken").is_none());
    let (name, message) = refused(
        &mut conn,
        "ExecuteStatement",
        json!({"Statement": "SELEKT * FROM app"}),
    );
    assert_eq!(name, "ValidationException");
    assert_eq!(
        message,
        "Statement wasn't well formed, can't be processed: Expected data manipulation"
    );

    let batch = ok(
        &mut conn,
        "BatchExecuteStatement",
        json!({"Statements": [
            {"Statement": "UPDATE app SET n = n + 1 WHERE PK = 'p' AND SK = '1'"},
            {"Statement": "UPDATE app SET n = 5 WHERE PK = 'p' AND SK = '9'"},
        ]}),
    );
    assert_eq!(batch["Responses"][0], json!({"TableName": "app"}));
    assert_eq!(
        batch["Responses"][1]["Error"],
        json!({"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"})
    );

    let (name, _) = refused(
        &mut conn,
        "ExecuteTransaction",
        json!({"TransactStatements": [
            {"Statement": "DELETE FROM app WHERE PK = 'p' AND SK = '2'"},
            {"Statement": "INSERT INTO app VALUE {'PK': 'p', 'SK': '3'}"},
        ]}),
    );
    assert_eq!(name, "TransactionCanceledException");
    let read = ok(
        &mut conn,
        "ExecuteTransaction",
        json!({"TransactStatements": [
            {"Statement": "SELECT n FROM app WHERE PK = ? AND SK = ?",
             "Parameters": [{"S": "p"}, {"S": "1"}]},
            {"Statement": "SELECT n FROM app WHERE PK = 'p' AND SK = '2'"},
        ]}),
    );
    assert_eq!(
        read["Responses"],
        json!([{"Item": {"n": {"N": "2"}}}, {"Item": {"n": {"N": "1"}}}]),
        "the batch's update stood; the cancelled delete did not run"
    );
}
