//! Bad input never panics, never hangs, and changes nothing: 100,000+ random and mutated
//! request bodies (and some broken HTTP) against a live server.
//!
//! Outside the default `cargo test` (about half a minute):
//!
//! ```text
//! cargo test -p katas-serve --test fuzz -- --ignored --nocapture     # KATAS_FUZZ_N=… to change the count
//! ```
//!
//! Each case is one of: random bytes; a random JSON document; a valid request of some
//! operation with its bytes mutated (flipped, inserted, deleted, truncated); a valid request
//! with one JSON node replaced by a random value, or one member removed — sent to a random
//! operation's target (or a made-up one). Every answer must be well-formed: a status below
//! 500, a JSON body with the crc32 header that matches it, and for an error a `__type`. Every
//! 50th case also checks that an error answer left the tables' contents as they were. The
//! seed is printed; `KATAS_FUZZ_SEED` replays a run.

mod common;

use std::time::Instant;

use common::{api_request, Conn};
use engine::World;
use serde_json::{json, Value};
use serve::{ClockMode, Config, Server};

/// xorshift64*: seeded, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const TARGETS: &[&str] = &[
    "DynamoDB_20120810.CreateTable",
    "DynamoDB_20120810.DescribeTable",
    "DynamoDB_20120810.DeleteTable",
    "DynamoDB_20120810.ListTables",
    "DynamoDB_20120810.UpdateTable",
    "DynamoDB_20120810.UpdateTimeToLive",
    "DynamoDB_20120810.DescribeTimeToLive",
    "DynamoDB_20120810.GetItem",
    "DynamoDB_20120810.PutItem",
    "DynamoDB_20120810.UpdateItem",
    "DynamoDB_20120810.DeleteItem",
    "DynamoDB_20120810.Query",
    "DynamoDB_20120810.Scan",
    "DynamoDB_20120810.BatchGetItem",
    "DynamoDB_20120810.BatchWriteItem",
    "DynamoDB_20120810.TransactGetItems",
    "DynamoDB_20120810.TransactWriteItems",
    "DynamoDBStreams_20120810.ListStreams",
    "DynamoDBStreams_20120810.DescribeStream",
    "DynamoDBStreams_20120810.GetShardIterator",
    "DynamoDBStreams_20120810.GetRecords",
    "DynamoDB_20120810.Nothing",
    "Nothing.PutItem",
    "",
];

/// A valid request for each operation in `TARGETS` order (the made-up ones get a PutItem).
fn seeds() -> Vec<Value> {
    let key = json!({"PK": {"S": "a"}, "SK": {"S": "1"}});
    let item = json!({"PK": {"S": "a"}, "SK": {"S": "1"}, "n": {"N": "12.5"}, "b": {"B": "AAE="},
        "l": {"L": [{"S": "x"}, {"BOOL": true}, {"NULL": true}]}, "m": {"M": {"k": {"SS": ["p", "q"]}}},
        "ns": {"NS": ["1", "2"]}, "bs": {"BS": ["AA=="]}, "email": {"S": "a@b"}});
    let values = json!({":v": {"N": "1"}, ":pk": {"S": "a"}});
    let put = json!({"TableName": "fuzz", "Item": item, "ConditionExpression": "attribute_not_exists(PK) OR n < :v",
        "ExpressionAttributeValues": values.clone(), "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "INDEXES",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"});
    vec![
        json!({"TableName": "fuzz3", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "email", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
            "GlobalSecondaryIndexes": [{"IndexName": "g", "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}, "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}),
        json!({"TableName": "fuzz"}),
        json!({"TableName": "fuzz2"}),
        json!({"ExclusiveStartTableName": "a", "Limit": 2}),
        json!({"TableName": "fuzz", "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 10},
            "AttributeDefinitions": [{"AttributeName": "email", "AttributeType": "S"}],
            "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "e", "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}),
        json!({"TableName": "fuzz", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "ttl"}}),
        json!({"TableName": "fuzz"}),
        json!({"TableName": "fuzz", "Key": key, "ConsistentRead": true, "ProjectionExpression": "#n, l[0], m.k",
            "ExpressionAttributeNames": {"#n": "n"}, "ReturnConsumedCapacity": "TOTAL"}),
        put.clone(),
        json!({"TableName": "fuzz", "Key": key, "UpdateExpression": "SET n = n + :v REMOVE l ADD ns :s",
            "ExpressionAttributeValues": {":v": {"N": "1"}, ":s": {"NS": ["3"]}}, "ReturnValues": "UPDATED_NEW"}),
        json!({"TableName": "fuzz", "Key": key, "ConditionExpression": "attribute_exists(PK)", "ReturnValues": "ALL_OLD"}),
        json!({"TableName": "fuzz", "KeyConditionExpression": "PK = :pk AND SK BETWEEN :a AND :b",
            "ExpressionAttributeValues": {":pk": {"S": "a"}, ":a": {"S": "0"}, ":b": {"S": "9"}}, "Limit": 3,
            "ScanIndexForward": false, "ExclusiveStartKey": key, "Select": "ALL_ATTRIBUTES", "FilterExpression": "size(l) > :z",
            "ExpressionAttributeNames": {"#x": "x"}}),
        json!({"TableName": "fuzz", "Limit": 5, "Segment": 0, "TotalSegments": 2, "FilterExpression": "contains(m.k, :p)",
            "ExpressionAttributeValues": {":p": {"S": "p"}}, "Select": "COUNT"}),
        json!({"RequestItems": {"fuzz": {"Keys": [key, {"PK": {"S": "b"}, "SK": {"S": "2"}}], "ConsistentRead": true,
            "ProjectionExpression": "PK"}}, "ReturnConsumedCapacity": "TOTAL"}),
        json!({"RequestItems": {"fuzz": [{"PutRequest": {"Item": item}}, {"DeleteRequest": {"Key": {"PK": {"S": "c"}, "SK": {"S": "3"}}}}]}}),
        json!({"TransactItems": [{"Get": {"TableName": "fuzz", "Key": key}}, {"Get": {"TableName": "fuzz2", "Key": {"id": {"N": "1"}}}}]}),
        json!({"TransactItems": [{"Put": {"TableName": "fuzz", "Item": item}}, {"Update": {"TableName": "fuzz2", "Key": {"id": {"N": "1"}},
            "UpdateExpression": "SET c = if_not_exists(c, :z) + :one", "ExpressionAttributeValues": {":z": {"N": "0"}, ":one": {"N": "1"}}}},
            {"ConditionCheck": {"TableName": "fuzz", "Key": {"PK": {"S": "z"}, "SK": {"S": "z"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
            {"Delete": {"TableName": "fuzz", "Key": {"PK": {"S": "d"}, "SK": {"S": "4"}}}}], "ClientRequestToken": "tok"}),
        json!({"TableName": "fuzz"}),
        json!({"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/stream/1970-01-01T00:00:00.000"}),
        json!({"StreamArn": "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/stream/x", "ShardId": "shardId-1",
            "ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": "1"}),
        json!({"ShardIterator": "not-an-iterator", "Limit": 10}),
        put.clone(),
        put.clone(),
        put,
    ]
}

fn random_json(rng: &mut Rng, depth: usize) -> Value {
    let words = [
        "S",
        "N",
        "B",
        "M",
        "L",
        "SS",
        "NS",
        "BS",
        "BOOL",
        "NULL",
        "TableName",
        "Item",
        "Key",
        "fuzz",
        "PK",
        "SK",
        "1e400",
        "-0",
        "AAE=",
        "=",
        "",
        "#n",
        ":v",
        "ALL_OLD",
    ];
    match rng.below(if depth > 6 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => json!(rng.next() as i64 >> rng.below(64)),
        3 => json!((rng.next() as f64) / 7.0),
        4 => Value::String(words[rng.below(words.len())].to_string()),
        5 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_json(rng, depth + 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| {
                    (
                        words[rng.below(words.len())].to_string(),
                        random_json(rng, depth + 1),
                    )
                })
                .collect(),
        ),
    }
}

/// Replaces one node of `v` (found by a random walk) with a random value, or drops a member.
fn mutate_tree(rng: &mut Rng, v: &mut Value) {
    let stop = rng.chance(25);
    match v {
        Value::Object(map) if !map.is_empty() && !stop => {
            let k = map.keys().nth(rng.below(map.len())).cloned().unwrap();
            if rng.chance(15) {
                map.remove(&k);
            } else if let Some(child) = map.get_mut(&k) {
                mutate_tree(rng, child);
            }
        }
        Value::Array(list) if !list.is_empty() && !stop => {
            let i = rng.below(list.len());
            mutate_tree(rng, &mut list[i]);
        }
        _ => *v = random_json(rng, 3),
    }
}

fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 if at < bytes.len() => bytes[at] ^= 1 << rng.below(8),
            1 => {
                const NASTY: &[u8] = b"{}[]\",:\\\0\xff0aN";
                bytes.insert(at, NASTY[rng.below(NASTY.len())]);
            }
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => bytes.truncate(at),
        }
    }
}

/// What the seeded tables hold (and which tables exist), to compare around a refused case.
fn contents(world: &World) -> String {
    let client = world.client();
    let mut out = format!("{:?}", client.list_tables().send().map(|o| o.table_names));
    for table in ["fuzz", "fuzz2"] {
        if let Ok(scan) = client.scan().table_name(table).consistent_read(true).send() {
            let mut items: Vec<String> = scan
                .items
                .unwrap_or_default()
                .iter()
                .map(|i| engine::value::item_to_json(i).to_string())
                .collect();
            items.sort();
            out.push_str(&items.join("\n"));
        }
    }
    out
}

#[test]
#[ignore = "a long run: cargo test -p katas-serve --test fuzz -- --ignored --nocapture"]
fn random_and_mutated_requests_never_break_the_server() {
    let cases: usize = std::env::var("KATAS_FUZZ_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let seed: u64 = std::env::var("KATAS_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x5eed_0014);
    println!("fuzz: {cases} cases, KATAS_FUZZ_SEED={seed}");
    let server = Server::bind(&Config {
        port: 0,
        clock: ClockMode::Manual,
        max_body: 256 * 1024,
        ..Config::default()
    })
    .unwrap();
    let world = server.world();
    let addr = server.spawn().unwrap();
    let mut conn = Conn::open(addr);
    let setup = [
        common::create_table_body("fuzz"),
        r#"{"TableName":"fuzz2","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"N"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}}"#.to_string(),
    ];
    for body in &setup {
        assert_eq!(conn.call("DynamoDB_20120810.CreateTable", body).status, 200);
    }
    let seeds = seeds();
    let mut rng = Rng(seed | 1);
    let started = Instant::now();
    let (mut ok, mut refused, mut http_refused, mut checked) = (0usize, 0usize, 0usize, 0usize);
    for case in 0..cases {
        let op = rng.below(TARGETS.len());
        let target = TARGETS[if rng.chance(90) {
            op
        } else {
            rng.below(TARGETS.len())
        }];
        let body: Vec<u8> = match rng.below(10) {
            0 => (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
            1 => random_json(&mut rng, 0).to_string().into_bytes(),
            2..=4 => {
                let mut b = seeds[op].to_string().into_bytes();
                mutate_bytes(&mut rng, &mut b);
                b
            }
            5 => seeds[op].to_string().into_bytes(),
            _ => {
                let mut v = seeds[op].clone();
                for _ in 0..=rng.below(3) {
                    mutate_tree(&mut rng, &mut v);
                }
                v.to_string().into_bytes()
            }
        };
        let mut request = api_request(target, &body);
        if rng.chance(1) {
            // Broken HTTP (a mangled head, a Content-Length that lies), on a connection of
            // its own: whatever the server makes of the bytes, it answers without an internal
            // error (505 for a mangled version is fair) or waits for the rest (a client that
            // lied about the length gets no answer).
            mutate_bytes(&mut rng, &mut request);
            let mut broken = Conn::open(addr);
            broken.set_timeout(std::time::Duration::from_millis(50));
            if let Ok(reply) = broken.raw(&request) {
                assert_ne!(reply.status, 500, "case {case} (seed {seed}): broken HTTP");
            }
            http_refused += 1;
            continue;
        }
        let check_state = case % 50 == 0;
        let before = check_state.then(|| contents(&world));
        let reply = conn
            .raw(&request)
            .unwrap_or_else(|e| panic!("case {case} (seed {seed}): no answer: {e}"));
        let context = || {
            format!(
                "case {case} (seed {seed}), target {target:?}, body {:?}",
                String::from_utf8_lossy(&body)
            )
        };
        assert!(
            reply.status < 500,
            "{}: status {} {}",
            context(),
            reply.status,
            String::from_utf8_lossy(&reply.body)
        );
        if reply.header("connection") == Some("close") {
            conn = Conn::open(addr);
        }
        assert_eq!(
            reply.header("content-type"),
            Some("application/x-amz-json-1.0"),
            "{}",
            context()
        );
        let crc: u32 = reply.header("x-amz-crc32").unwrap().parse().unwrap();
        assert_eq!(crc, serve::crc32::crc32(&reply.body), "{}", context());
        let json = reply.json();
        if reply.status == 200 {
            ok += 1;
        } else {
            refused += 1;
            assert!(json["__type"].is_string(), "{}: {json}", context());
            if let Some(before) = before {
                assert_eq!(
                    before,
                    contents(&world),
                    "{}: refused but changed",
                    context()
                );
                checked += 1;
            }
        }
    }
    let elapsed = started.elapsed();
    println!(
        "fuzz: {cases} cases in {:.1} s: {ok} answered 200, {refused} DynamoDB errors \
         ({checked} checked to change nothing), {http_refused} refused at the HTTP layer; \
         no 5xx, no panic, no hang",
        elapsed.as_secs_f64()
    );
    assert!(ok > 0 && refused > 0, "the cases exercised only one side");
    // The server still serves.
    let mut fresh = Conn::open(addr);
    assert_eq!(fresh.call("DynamoDB_20120810.ListTables", "{}").status, 200);
}
