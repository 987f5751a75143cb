//! The wire protocol over a real socket: what an SDK relies on besides the operations
//! themselves (routes, error shapes, the checksum header, keep-alive, limits, the clock).

mod common;

use common::{api_request, create_table_body, ddb, Conn};
use serve::{ClockMode, Config, Server};

fn start(clock: ClockMode) -> (std::net::SocketAddr, engine::World) {
    let server = Server::bind(&Config {
        port: 0,
        clock,
        max_body: 64 * 1024,
        ..Config::default()
    })
    .unwrap();
    let world = server.world();
    (server.spawn().unwrap(), world)
}

#[test]
fn get_slash_is_the_health_check_and_other_paths_are_not_found() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    let health = conn.raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert_eq!(health.status, 200);
    assert_eq!(
        String::from_utf8_lossy(&health.body),
        format!("healthy: {addr}")
    );
    let other = conn
        .raw(b"GET /tables HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(other.status, 404);
    let view = conn
        .raw(b"GET /_katas/nothing HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(view.status, 404);
}

#[test]
fn one_keep_alive_connection_serves_a_whole_session() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    assert_eq!(
        conn.call(&ddb("CreateTable"), &create_table_body("app"))
            .status,
        200
    );
    let put = conn.call(
        &ddb("PutItem"),
        r#"{"TableName":"app","Item":{"PK":{"S":"a"},"SK":{"S":"1"},"n":{"N":"1.50"},"b":{"B":"AAE="}}}"#,
    );
    assert_eq!(put.status, 200, "{}", String::from_utf8_lossy(&put.body));
    assert_eq!(
        put.json(),
        serde_json::json!({}),
        "no optional field without a value"
    );
    let got = conn.call(
        &ddb("GetItem"),
        r#"{"TableName":"app","Key":{"PK":{"S":"a"},"SK":{"S":"1"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}"#,
    );
    let body = got.json();
    assert_eq!(body["Item"]["n"], serde_json::json!({"N": "1.5"}));
    assert_eq!(body["Item"]["b"], serde_json::json!({"B": "AAE="}));
    assert_eq!(
        body["ConsumedCapacity"]["CapacityUnits"],
        serde_json::json!(1.0)
    );
}

#[test]
fn every_answer_carries_the_crc32_of_its_body() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    for reply in [
        conn.call(&ddb("ListTables"), "{}"),
        conn.call(&ddb("DescribeTable"), r#"{"TableName":"missing"}"#),
    ] {
        let crc: u32 = reply.header("x-amz-crc32").unwrap().parse().unwrap();
        assert_eq!(crc, serve::crc32::crc32(&reply.body));
        assert!(reply.header("x-amzn-requestid").is_some());
        assert_eq!(
            reply.header("content-type"),
            Some("application/x-amz-json-1.0")
        );
    }
}

#[test]
fn errors_have_dynamodbs_types_and_messages() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    let missing = conn.call(
        &ddb("GetItem"),
        r#"{"TableName":"nope","Key":{"PK":{"S":"a"}}}"#,
    );
    assert_eq!(missing.status, 400);
    assert_eq!(
        missing.json()["__type"],
        "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
    );
    assert_eq!(missing.json()["message"], "Requested resource not found");
    // Not an operation of DynamoDB's at all (no statement can be cancelled), so the engine
    // will never offer it.
    let unknown = conn.call(&ddb("CancelStatement"), "{}");
    assert_eq!(unknown.error_name(), "UnknownOperationException");
    let no_target = conn.raw(&api_request("", b"{}")).unwrap();
    assert_eq!(no_target.error_name(), "UnknownOperationException");
    let malformed = conn.call(&ddb("ListTables"), "{\"Limit\":");
    assert_eq!(malformed.error_name(), "SerializationException");
    let wrong_type = conn.call(&ddb("ListTables"), r#"{"Limit":"5"}"#);
    assert_eq!(wrong_type.error_name(), "SerializationException");
    let bad_enum = conn.call(
        &ddb("PutItem"),
        r#"{"TableName":"app","Item":{"PK":{"S":"a"}},"ReturnValues":"EVERYTHING"}"#,
    );
    assert_eq!(bad_enum.error_name(), "ValidationException");
    assert_eq!(
        bad_enum.json()["message"],
        "1 validation error detected: Value 'EVERYTHING' at 'returnValues' failed to satisfy \
         constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, \
         UPDATED_NEW]"
    );
    let no_key_type = conn.call(
        &ddb("CreateTable"),
        r#"{"TableName":"t1x","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK"}],"BillingMode":"PAY_PER_REQUEST"}"#,
    );
    assert_eq!(
        no_key_type.json()["message"],
        "1 validation error detected: Value null at 'keySchema.1.member.keyType' failed to \
         satisfy constraint: Member must not be null"
    );
}

#[test]
fn a_failed_condition_and_a_cancelled_transaction_carry_their_fields() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    conn.call(&ddb("CreateTable"), &create_table_body("app"));
    let item = r#"{"PK":{"S":"a"},"SK":{"S":"1"},"v":{"N":"1"}}"#;
    conn.call(
        &ddb("PutItem"),
        &format!(r#"{{"TableName":"app","Item":{item}}}"#),
    );
    let failed = conn.call(
        &ddb("PutItem"),
        &format!(
            r#"{{"TableName":"app","Item":{item},"ConditionExpression":"attribute_not_exists(PK)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}"#
        ),
    );
    assert_eq!(failed.error_name(), "ConditionalCheckFailedException");
    assert_eq!(failed.json()["Item"]["v"], serde_json::json!({"N": "1"}));
    let cancelled = conn.call(
        &ddb("TransactWriteItems"),
        r#"{"TransactItems":[{"ConditionCheck":{"TableName":"app","Key":{"PK":{"S":"a"},"SK":{"S":"1"}},"ConditionExpression":"v = :two","ExpressionAttributeValues":{":two":{"N":"2"}}}},{"Put":{"TableName":"app","Item":{"PK":{"S":"b"},"SK":{"S":"1"}}}}]}"#,
    );
    assert_eq!(cancelled.error_name(), "TransactionCanceledException");
    assert_eq!(
        cancelled.json()["CancellationReasons"],
        serde_json::json!([
            {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
            {"Code": "None"}
        ])
    );
}

#[test]
fn a_throttled_request_carries_its_throttling_reasons() {
    // A 1 WCU table on a clock that stands still: once its burst is spent, the next write is
    // refused — the table over its provisioned rate, not a hot key.
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    let created = conn.call(
        &ddb("CreateTable"),
        r#"{"TableName":"slow","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}"#,
    );
    let arn = created.json()["TableDescription"]["TableArn"].clone();
    assert!(arn.is_string(), "{:?}", created.json());
    let put = |conn: &mut Conn, pk: &str| {
        conn.call(
            &ddb("PutItem"),
            &format!(r#"{{"TableName":"slow","Item":{{"PK":{{"S":"{pk}"}}}}}}"#),
        )
    };
    // A new table is born with its burst saved (300 s of its 1 WCU): the writes of the
    // standing second spend it, then the table's rate refuses the next.
    let mut n = 0;
    let throttled = loop {
        let sent = put(&mut conn, &format!("k{n}"));
        if sent.status != 200 || n > 400 {
            break sent;
        }
        n += 1;
    };
    assert!(n >= 1, "the first write of the second goes through");
    assert_eq!(
        throttled.status, 400,
        "a 1 WCU table is throttled within its burst"
    );
    assert_eq!(
        throttled.error_name(),
        "ProvisionedThroughputExceededException"
    );
    assert_eq!(
        throttled.json()["ThrottlingReasons"],
        serde_json::json!([
            {"reason": "TableWriteProvisionedThroughputExceeded", "resource": arn}
        ])
    );
    // Errors that are not throttles carry none.
    let missing = conn.call(
        &ddb("GetItem"),
        r#"{"TableName":"nope","Key":{"PK":{"S":"a"}}}"#,
    );
    assert!(missing.json().get("ThrottlingReasons").is_none());
}

#[test]
fn bodies_over_the_cap_are_refused_unread() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    let big = vec![b' '; 64 * 1024 + 1];
    let reply = conn.raw(&api_request(&ddb("ListTables"), &big)).unwrap();
    assert_eq!(reply.status, 413);
    let mut fresh = Conn::open(addr);
    assert_eq!(fresh.call(&ddb("ListTables"), "{}").status, 200);
}

#[test]
fn a_manual_clock_moves_only_when_asked() {
    let (addr, world) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    conn.call(&ddb("ListTables"), "{}");
    std::thread::sleep(std::time::Duration::from_millis(30));
    conn.call(&ddb("ListTables"), "{}");
    assert_eq!(world.now().as_millis(), 0);
    let moved = conn
        .raw(b"POST /_katas/advance?ms=1500 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    assert_eq!(moved.status, 200);
    assert_eq!(moved.json()["now_ms"], 1500);
    assert_eq!(world.now().as_millis(), 1500);
    let bad = conn
        .raw(b"POST /_katas/advance?ms=soon HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    assert_eq!(bad.status, 400);
}

#[test]
fn a_real_clock_follows_the_wall_clock() {
    let (addr, world) = start(ClockMode::Real);
    let mut conn = Conn::open(addr);
    std::thread::sleep(std::time::Duration::from_millis(50));
    conn.call(&ddb("ListTables"), "{}");
    assert!(world.now().as_millis() >= 50, "{:?}", world.now());
}

/// A request whose body is sent as `chunks` (Transfer-Encoding: chunked).
fn chunked_request(target: &str, chunks: &[&str], extra_headers: &str) -> Vec<u8> {
    let mut r = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: {target}\r\nContent-Type: application/x-amz-json-1.0\r\n{extra_headers}Transfer-Encoding: chunked\r\n\r\n"
    );
    for c in chunks {
        r.push_str(&format!("{:x};ext=1\r\n{c}\r\n", c.len()));
    }
    r.push_str("0\r\nx-trailer: ignored\r\n\r\n");
    r.into_bytes()
}

#[test]
fn a_chunked_body_is_read_like_a_sized_one_and_bad_framing_is_refused() {
    let (addr, world) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    assert_eq!(
        conn.call(&ddb("CreateTable"), &create_table_body("orders"))
            .status,
        200
    );
    let item = r#"{"TableName":"orders","Item":{"PK":{"S":"a"},"SK":{"S":"1"}}}"#;
    let (head, tail) = item.split_at(20);
    let reply = conn
        .raw(&chunked_request(&ddb("PutItem"), &[head, tail], ""))
        .unwrap();
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(world.tables()[0].item_count, 1);
    // The same connection goes on: the chunked body was read to its end, trailers too.
    assert_eq!(conn.call(&ddb("ListTables"), "{}").status, 200);

    let both = chunked_request(&ddb("ListTables"), &["{}"], "Content-Length: 2\r\n");
    assert_eq!(Conn::open(addr).raw(&both).unwrap().status, 400);
    let gzip = String::from_utf8(chunked_request(&ddb("ListTables"), &["{}"], ""))
        .unwrap()
        .replace(
            "Transfer-Encoding: chunked",
            "Transfer-Encoding: gzip, chunked",
        );
    assert_eq!(Conn::open(addr).raw(gzip.as_bytes()).unwrap().status, 501);
    let bad_size =
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
    assert_eq!(Conn::open(addr).raw(bad_size).unwrap().status, 400);
    // The cap counts the chunks' sizes, before reading them.
    let over = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10001\r\n";
    assert_eq!(Conn::open(addr).raw(over).unwrap().status, 413);
    assert_eq!(world.tables()[0].item_count, 1, "nothing else was written");
}

#[test]
fn streams_page_on_the_wire_and_unknown_fields_are_ignored() {
    let (addr, _) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    for name in ["carts", "orders"] {
        let body = create_table_body(name).replace(
            r#","BillingMode""#,
            r#","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"BillingMode""#,
        );
        assert_eq!(conn.call(&ddb("CreateTable"), &body).status, 200);
    }
    let streams = |body: &str| {
        let mut c = Conn::open(addr);
        c.call("DynamoDBStreams_20120810.ListStreams", body).json()
    };
    let first = streams(r#"{"Limit":1}"#);
    assert_eq!(first["Streams"].as_array().unwrap().len(), 1);
    assert_eq!(first["Streams"][0]["TableName"], "carts");
    let last = first["LastEvaluatedStreamArn"]
        .as_str()
        .expect("one more follows");
    let rest = streams(&format!(
        r#"{{"Limit":1,"ExclusiveStartStreamArn":"{last}","SomeFieldFromANewerSdk":true}}"#
    ));
    assert_eq!(rest["Streams"][0]["TableName"], "orders");
    assert!(rest.get("LastEvaluatedStreamArn").is_none(), "{rest}");
    let describe = Conn::open(addr)
        .call(
            "DynamoDBStreams_20120810.DescribeStream",
            &format!(r#"{{"StreamArn":"{last}","Limit":1,"ExclusiveStartShardId":"shardId-0"}}"#),
        )
        .json();
    assert_eq!(
        describe["StreamDescription"]["Shards"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let bad = Conn::open(addr).call(
        "DynamoDBStreams_20120810.DescribeStream",
        &format!(r#"{{"StreamArn":"{last}","Limit":0}}"#),
    );
    assert_eq!(bad.status, 400);
    assert!(bad.json()["message"]
        .as_str()
        .unwrap()
        .contains("greater than or equal to 1"));
}

#[test]
fn descriptions_carry_the_table_id_index_arns_and_dates_on_the_worlds_calendar() {
    let (addr, world) = start(ClockMode::Manual);
    let mut conn = Conn::open(addr);
    let body = r#"{"TableName":"docs","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"G","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"G","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"LocalSecondaryIndexes":[{"IndexName":"byG2","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"G","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}}"#;
    assert_eq!(conn.call(&ddb("CreateTable"), body).status, 200);
    let t = conn
        .call(&ddb("DescribeTable"), r#"{"TableName":"docs"}"#)
        .json();
    let t = &t["Table"];
    let arn = t["TableArn"].as_str().unwrap();
    assert_eq!(t["TableId"].as_str().unwrap().len(), 36);
    assert_eq!(
        t["GlobalSecondaryIndexes"][0]["IndexArn"],
        serde_json::json!(format!("{arn}/index/byG"))
    );
    assert_eq!(
        t["LocalSecondaryIndexes"][0]["IndexArn"],
        serde_json::json!(format!("{arn}/index/byG2"))
    );
    let epoch = world.epoch_seconds() as f64;
    assert_eq!(t["CreationDateTime"], serde_json::json!(epoch));
    assert_eq!(
        t["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"],
        serde_json::json!(epoch)
    );
    let stream = conn
        .call(
            "DynamoDBStreams_20120810.DescribeStream",
            &format!(
                r#"{{"StreamArn":"{}"}}"#,
                t["LatestStreamArn"].as_str().unwrap()
            ),
        )
        .json();
    assert_eq!(
        stream["StreamDescription"]["CreationRequestDateTime"],
        serde_json::json!(epoch)
    );
    let deleted = conn
        .call(&ddb("DeleteTable"), r#"{"TableName":"docs"}"#)
        .json();
    let d = &deleted["TableDescription"];
    assert_eq!(d["TableStatus"], serde_json::json!("DELETING"));
    assert!(d.get("KeySchema").is_none() && d.get("GlobalSecondaryIndexes").is_none());
}
