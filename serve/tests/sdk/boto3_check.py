"""A real AWS SDK (boto3) against `katas serve`: what a learner's production code does.

Run by `serve/tests/sdk.rs` (`cargo test -p katas-serve --test sdk -- --ignored`, with
KATAS_PYTHON naming a Python that has boto3), which starts the server on a free port with the
real clock and passes its URL:

    python3 boto3_check.py http://127.0.0.1:PORT

Each check prints `ok - name` or `FAIL - name: why`; the last line is `N passed, N failed`.
Every check goes through boto3's own request building, response parsing, typed exceptions,
CRC32 check and retry policy: nothing here speaks HTTP by hand.
"""

import sys
import time
import traceback
from decimal import Decimal

import boto3
from boto3.dynamodb.conditions import Key
from botocore.config import Config

ENDPOINT = sys.argv[1]
SESSION = boto3.session.Session(
    aws_access_key_id="any", aws_secret_access_key="any", region_name="eu-west-3"
)
DDB = SESSION.client("dynamodb", endpoint_url=ENDPOINT)
STREAMS = SESSION.client("dynamodbstreams", endpoint_url=ENDPOINT)
RESOURCE = SESSION.resource("dynamodb", endpoint_url=ENDPOINT)

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def eventually(what, probe, timeout_s=5.0):
    """Polls `probe` (wall clock: the server's world follows it) until it returns truthy."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s} s")
        time.sleep(0.05)


@check
def tables_are_created_described_listed_and_deleted():
    DDB.create_table(
        TableName="app",
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "email", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-email",
                "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    DDB.get_waiter("table_exists").wait(TableName="app", WaiterConfig={"Delay": 1})
    table = DDB.describe_table(TableName="app")["Table"]
    assert table["TableStatus"] == "ACTIVE", table
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST", table
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["PK", "SK"], table
    assert table["GlobalSecondaryIndexes"][0]["IndexName"] == "by-email", table
    assert table["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES", table
    assert table["LatestStreamArn"].startswith("arn:aws:dynamodb:"), table
    # A datetime parsed from the wire's epoch seconds, near today (the real clock's epoch).
    assert abs(table["CreationDateTime"].timestamp() - time.time()) < 3600, table
    DDB.create_table(
        TableName="scratch",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    assert DDB.list_tables()["TableNames"] == ["app", "scratch"]
    DDB.delete_table(TableName="scratch")
    DDB.get_waiter("table_not_exists").wait(TableName="scratch", WaiterConfig={"Delay": 1})
    try:
        DDB.describe_table(TableName="scratch")
        raise AssertionError("a deleted table was described")
    except DDB.exceptions.ResourceNotFoundException:
        pass


@check
def crud_with_conditions_raises_the_typed_conditional_check_failed():
    item = {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ana"},
            "visits": {"N": "1"}, "avatar": {"B": b"\x00\x01\xfe"},
            "tags": {"SS": ["a", "b"]}}
    DDB.put_item(TableName="app", Item=item, ConditionExpression="attribute_not_exists(PK)")
    try:
        DDB.put_item(
            TableName="app",
            Item=item,
            ConditionExpression="attribute_not_exists(PK)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        raise AssertionError("a second create-only put succeeded")
    except DDB.exceptions.ConditionalCheckFailedException as e:
        assert e.response["Error"]["Code"] == "ConditionalCheckFailedException", e.response
        assert e.response["Error"]["Message"] == "The conditional request failed", e.response
        assert e.response["Item"]["name"] == {"S": "Ana"}, e.response
    got = DDB.get_item(TableName="app", Key={"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
                       ConsistentRead=True)["Item"]
    assert got["avatar"] == {"B": b"\x00\x01\xfe"}, got
    assert sorted(got["tags"]["SS"]) == ["a", "b"], got
    out = DDB.update_item(
        TableName="app",
        Key={"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
        UpdateExpression="SET visits = visits + :one",
        ConditionExpression="visits = :seen",
        ExpressionAttributeValues={":one": {"N": "1"}, ":seen": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
        ReturnConsumedCapacity="TOTAL",
    )
    assert out["Attributes"] == {"visits": {"N": "2"}}, out
    assert out["ConsumedCapacity"]["TableName"] == "app", out
    assert out["ConsumedCapacity"]["CapacityUnits"] > 0, out
    try:
        DDB.delete_item(TableName="app", Key={"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
                        ConditionExpression="visits = :seen",
                        ExpressionAttributeValues={":seen": {"N": "1"}})
        raise AssertionError("a stale conditional delete succeeded")
    except DDB.exceptions.ConditionalCheckFailedException:
        pass
    old = DDB.delete_item(TableName="app", Key={"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
                          ReturnValues="ALL_OLD")["Attributes"]
    assert old["visits"] == {"N": "2"}, old
    assert "Item" not in DDB.get_item(
        TableName="app", Key={"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}}, ConsistentRead=True)


@check
def validation_errors_arrive_as_client_errors_with_dynamodbs_words():
    try:
        DDB.put_item(TableName="app", Item={"PK": {"S": "x"}})
        raise AssertionError("an item without its sort key was written")
    except DDB.exceptions.ClientError as e:
        assert e.response["Error"]["Code"] == "ValidationException", e.response
        assert "One or more parameter values were invalid" in e.response["Error"]["Message"]
    try:
        DDB.get_item(TableName="nope", Key={"PK": {"S": "x"}})
        raise AssertionError("a missing table was read")
    except DDB.exceptions.ResourceNotFoundException:
        pass


@check
def the_resource_layer_round_trips_numbers_and_binary():
    table = RESOURCE.Table("app")
    table.put_item(Item={"PK": "ORDER#9", "SK": "LINE#1", "price": Decimal("19.99"),
                         "qty": 3, "blob": b"\xff\x00", "gift": True, "note": None})
    got = table.get_item(Key={"PK": "ORDER#9", "SK": "LINE#1"}, ConsistentRead=True)["Item"]
    assert got["price"] == Decimal("19.99") and got["qty"] == 3, got
    assert got["blob"].value == b"\xff\x00" and got["gift"] is True and got["note"] is None, got


@check
def query_paginates_with_last_evaluated_key():
    with RESOURCE.Table("app").batch_writer() as batch:
        for i in range(25):
            batch.put_item(Item={"PK": "FEED#1", "SK": f"POST#{i:03}", "n": i})
    pages = list(DDB.get_paginator("query").paginate(
        TableName="app",
        KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
        ExpressionAttributeValues={":pk": {"S": "FEED#1"}, ":p": {"S": "POST#"}},
        ConsistentRead=True,
        PaginationConfig={"PageSize": 10},
    ))
    sizes = [p["Count"] for p in pages]
    assert sizes[:3] == [10, 10, 5], sizes
    keys = [i["SK"]["S"] for p in pages for i in p["Items"]]
    assert keys == [f"POST#{i:03}" for i in range(25)], keys
    assert "LastEvaluatedKey" in pages[0] and "LastEvaluatedKey" in pages[1], pages[0].keys()
    backwards = RESOURCE.Table("app").query(
        KeyConditionExpression=Key("PK").eq("FEED#1"), ScanIndexForward=False, Limit=2,
        ConsistentRead=True)
    assert [i["SK"] for i in backwards["Items"]] == ["POST#024", "POST#023"], backwards


@check
def a_cancelled_transaction_carries_its_reasons():
    DDB.put_item(TableName="app", Item={"PK": {"S": "ACCT#1"}, "SK": {"S": "A"},
                                        "balance": {"N": "10"}})
    try:
        DDB.transact_write_items(TransactItems=[
            {"Update": {
                "TableName": "app",
                "Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "A"}},
                "UpdateExpression": "SET balance = balance - :amt",
                "ConditionExpression": "balance >= :amt",
                "ExpressionAttributeValues": {":amt": {"N": "50"}},
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }},
            {"Put": {"TableName": "app", "Item": {"PK": {"S": "ACCT#2"}, "SK": {"S": "A"}}}},
        ])
        raise AssertionError("an overdraft transaction succeeded")
    except DDB.exceptions.TransactionCanceledException as e:
        reasons = e.response["CancellationReasons"]
        assert [r["Code"] for r in reasons] == ["ConditionalCheckFailed", "None"], reasons
        assert reasons[0]["Item"]["balance"] == {"N": "10"}, reasons
        assert "ConditionalCheckFailed" in e.response["Error"]["Message"], e.response
    assert "Item" not in DDB.get_item(
        TableName="app", Key={"PK": {"S": "ACCT#2"}, "SK": {"S": "A"}}, ConsistentRead=True)
    DDB.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": "app", "Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "A"}},
                            "ConditionExpression": "balance >= :amt",
                            "ExpressionAttributeValues": {":amt": {"N": "5"}}}},
        {"Put": {"TableName": "app", "Item": {"PK": {"S": "ACCT#2"}, "SK": {"S": "A"}}}},
    ])
    got = DDB.transact_get_items(TransactItems=[
        {"Get": {"TableName": "app", "Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "A"}}}},
        {"Get": {"TableName": "app", "Key": {"PK": {"S": "ACCT#2"}, "SK": {"S": "A"}}}},
        {"Get": {"TableName": "app", "Key": {"PK": {"S": "ACCT#3"}, "SK": {"S": "A"}}}},
    ])["Responses"]
    assert got[0]["Item"]["balance"] == {"N": "10"} and "Item" in got[1] and got[2] == {}, got


def create_provisioned(name, wcu):
    DDB.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        ProvisionedThroughput={"ReadCapacityUnits": 100, "WriteCapacityUnits": wcu},
    )


@check
def batch_write_returns_unprocessed_items_until_capacity_frees():
    # A new table is born with its burst bank full (300 s of its rate: 1,500 writes here), so
    # batches land whole until the bank is spent; the first batch past it comes back with
    # unprocessed items, which land once the 5 WCU rate refills the bucket.
    create_provisioned("slow", 5)
    written = 0
    out = {"UnprocessedItems": {}}
    for batch in range(100):
        writes = [{"PutRequest": {"Item": {"id": {"S": f"k{batch:03}-{i:02}"}}}}
                  for i in range(25)]
        out = DDB.batch_write_item(RequestItems={"slow": writes})
        written += 25
        if out["UnprocessedItems"]:
            break
    left = out["UnprocessedItems"].get("slow", [])
    assert 0 < len(left) <= 25, f"{written} writes in batches of 25 never came back unprocessed"
    assert 1000 < written, f"only {written} writes landed before the first unprocessed item"
    assert set(left[0]["PutRequest"]["Item"]) == {"id"}, left[0]
    rounds = 1
    pending = out["UnprocessedItems"]
    while pending:
        time.sleep(0.3 * rounds)
        pending = DDB.batch_write_item(RequestItems=pending)["UnprocessedItems"]
        rounds += 1
        assert rounds < 20, "still unprocessed after 20 rounds"
    count = DDB.scan(TableName="slow", ConsistentRead=True, Select="COUNT")["Count"]
    assert count == written, (count, written)
    got = DDB.batch_get_item(RequestItems={"slow": {"Keys": [{"id": {"S": "k000-00"}},
                                                             {"id": {"S": left[-1]["PutRequest"]["Item"]["id"]["S"]}}],
                                                    "ConsistentRead": True}})
    assert len(got["Responses"]["slow"]) == 2 and got["UnprocessedKeys"] == {}, got


@check
def a_gsi_query_finds_the_item_once_the_index_catches_up():
    DDB.put_item(TableName="app", Item={"PK": {"S": "USER#7"}, "SK": {"S": "PROFILE"},
                                        "email": {"S": "eve@example.com"}})

    def probe():
        return DDB.query(TableName="app", IndexName="by-email",
                         KeyConditionExpression="email = :e",
                         ExpressionAttributeValues={":e": {"S": "eve@example.com"}})["Items"]

    items = eventually("the GSI entry", probe)
    assert items[0]["PK"] == {"S": "USER#7"}, items
    try:
        DDB.query(TableName="app", IndexName="by-email", ConsistentRead=True,
                  KeyConditionExpression="email = :e",
                  ExpressionAttributeValues={":e": {"S": "eve@example.com"}})
        raise AssertionError("a strongly consistent GSI query was accepted")
    except DDB.exceptions.ClientError as e:
        assert e.response["Error"]["Code"] == "ValidationException", e.response


@check
def the_streams_client_reads_the_tables_changes():
    arn = STREAMS.list_streams(TableName="app")["Streams"][0]["StreamArn"]
    description = STREAMS.describe_stream(StreamArn=arn)["StreamDescription"]
    assert description["StreamViewType"] == "NEW_AND_OLD_IMAGES", description
    events = []
    for shard in description["Shards"]:
        iterator = STREAMS.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        for _ in range(5):
            page = STREAMS.get_records(ShardIterator=iterator, Limit=1000)
            events += page["Records"]
            iterator = page.get("NextShardIterator")
            if not iterator or not page["Records"]:
                break
    profile = [e for e in events if e["dynamodb"]["Keys"]["PK"] == {"S": "USER#1"}]
    assert [e["eventName"] for e in profile] == ["INSERT", "MODIFY", "REMOVE"], profile
    modify = profile[1]["dynamodb"]
    assert modify["OldImage"]["visits"] == {"N": "1"}, modify
    assert modify["NewImage"]["visits"] == {"N": "2"}, modify
    assert profile[0]["eventSource"] == "aws:dynamodb", profile[0]


@check
def throttled_writes_succeed_through_the_sdks_own_retries():
    create_provisioned("hot", 3)
    # Without retries, a burst of writes surfaces the typed exception once the partition's
    # second and its burst bank (full at creation: 300 s of 3 WCU, 900 writes) are spent.
    eager = SESSION.client("dynamodb", endpoint_url=ENDPOINT,
                           config=Config(retries={"mode": "legacy", "total_max_attempts": 1}))
    accepted = 0
    try:
        for i in range(3000):
            eager.put_item(TableName="hot", Item={"id": {"S": f"burst{i}"}})
            accepted += 1
        raise AssertionError("3,000 writes fitted a 3 WCU table")
    except eager.exceptions.ProvisionedThroughputExceededException as e:
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 400, e.response
        # The reason: the table over its provisioned rate (not a hot key), and which table.
        arn = DDB.describe_table(TableName="hot")["Table"]["TableArn"]
        assert e.response["ThrottlingReasons"] == [
            {"reason": "TableWriteProvisionedThroughputExceeded", "resource": arn}
        ], e.response
    # With boto3's own retry policy (exponential backoff from 50 ms), the same pressure is
    # absorbed: every write lands, some after retries.
    patient = SESSION.client("dynamodb", endpoint_url=ENDPOINT,
                             config=Config(retries={"mode": "legacy", "total_max_attempts": 13}))
    retried = 0
    for i in range(6):
        out = patient.put_item(TableName="hot", Item={"id": {"S": f"k{i}"}})
        retried += out["ResponseMetadata"]["RetryAttempts"]
    assert retried > 0, "no write was throttled and retried"
    count = DDB.scan(TableName="hot", ConsistentRead=True)["Count"]
    assert count == accepted + 6, (count, accepted)


@check
def legacy_parameters_work_as_boto3_sends_them():
    DDB.create_table(
        TableName="legacy",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(5):
        DDB.put_item(TableName="legacy",
                     Item={"PK": {"S": "p"}, "SK": {"N": str(i)}, "n": {"N": str(i * 10)}},
                     Expected={"PK": {"Exists": False}})
    try:
        DDB.put_item(TableName="legacy", Item={"PK": {"S": "p"}, "SK": {"N": "0"}},
                     Expected={"PK": {"Exists": False}})
        raise AssertionError("a create-only legacy put overwrote an item")
    except DDB.exceptions.ConditionalCheckFailedException:
        pass
    out = DDB.update_item(
        TableName="legacy", Key={"PK": {"S": "p"}, "SK": {"N": "1"}},
        AttributeUpdates={"n": {"Action": "ADD", "Value": {"N": "5"}},
                          "tags": {"Action": "ADD", "Value": {"SS": ["x"]}}},
        Expected={"n": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "10"}]}},
        ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"n": {"N": "15"}, "tags": {"SS": ["x"]}}, out
    page = DDB.query(
        TableName="legacy", ConsistentRead=True,
        KeyConditions={"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
                       "SK": {"ComparisonOperator": "BETWEEN",
                              "AttributeValueList": [{"N": "1"}, {"N": "3"}]}},
        QueryFilter={"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "20"}]}},
        AttributesToGet=["SK"])
    assert page["Items"] == [{"SK": {"N": "2"}}, {"SK": {"N": "3"}}], page
    assert page["ScannedCount"] == 3, page
    scanned = DDB.scan(TableName="legacy", ConsistentRead=True, ConditionalOperator="OR",
                       ScanFilter={"n": {"ComparisonOperator": "LT",
                                         "AttributeValueList": [{"N": "1"}]},
                                   "tags": {"ComparisonOperator": "NOT_NULL"}})
    assert scanned["Count"] == 2, scanned
    try:
        DDB.query(TableName="legacy", KeyConditionExpression="PK = :p",
                  ExpressionAttributeValues={":p": {"S": "p"}},
                  QueryFilter={"n": {"ComparisonOperator": "NULL"}})
        raise AssertionError("legacy and expression parameters were mixed")
    except DDB.exceptions.ClientError as e:
        assert e.response["Error"]["Code"] == "ValidationException", e.response
        assert e.response["Error"]["Message"].startswith(
            "Can not use both expression and non-expression parameters"), e.response


@check
def tags_are_set_listed_and_removed_by_arn():
    DDB.create_table(
        TableName="tagged",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        Tags=[{"Key": "team", "Value": "checkout"}],
    )
    arn = DDB.describe_table(TableName="tagged")["Table"]["TableArn"]
    DDB.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "dev"}])
    tags = DDB.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert tags == [{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "checkout"}], tags
    DDB.untag_resource(ResourceArn=arn, TagKeys=["team"])
    tags = DDB.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert tags == [{"Key": "env", "Value": "dev"}], tags
    try:
        DDB.list_tags_of_resource(ResourceArn=arn.replace("table/tagged", "table/gone"))
        raise AssertionError("a missing table's tags were listed")
    except DDB.exceptions.ResourceNotFoundException:
        pass


@check
def backups_encryption_endpoints_and_limits_parse_in_boto3():
    DDB.create_table(
        TableName="secret",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        SSESpecification={"Enabled": True, "SSEType": "KMS"},
    )
    sse = DDB.describe_table(TableName="secret")["Table"]["SSEDescription"]
    assert sse["Status"] == "ENABLED" and sse["SSEType"] == "KMS", sse
    pitr = DDB.describe_continuous_backups(TableName="secret")["ContinuousBackupsDescription"]
    assert pitr["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED", pitr
    pitr = DDB.update_continuous_backups(
        TableName="secret",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
    )["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED", pitr
    assert pitr["EarliestRestorableDateTime"].year >= 2020, pitr
    try:
        DDB.describe_continuous_backups(TableName="nope")
        raise AssertionError("a missing table's backups were described")
    except DDB.exceptions.TableNotFoundException:
        pass
    limits = DDB.describe_limits()
    assert limits["TableMaxReadCapacityUnits"] == 40000, limits
    endpoints = DDB.describe_endpoints()["Endpoints"]
    assert endpoints[0]["CachePeriodInMinutes"] == 1440, endpoints


@check
def partiql_statements_run_the_same_operations_through_boto3():
    DDB.create_table(
        TableName="pql",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )
    insert = "INSERT INTO \"pql\" VALUE {'PK': ?, 'SK': ?, 'n': ?}"
    for i in range(5):
        out = DDB.execute_statement(Statement=insert, Parameters=[
            {"S": "p"}, {"S": str(i)}, {"N": str(i)}])
        assert out["Items"] == [], out
    try:
        DDB.execute_statement(Statement=insert, Parameters=[{"S": "p"}, {"S": "0"}, {"N": "9"}])
        raise AssertionError("an INSERT overwrote an item")
    except DDB.exceptions.DuplicateItemException as e:
        assert e.response["Error"]["Message"] == "Duplicate primary key exists in table", e.response
    pages, token = [], None
    while True:
        request = {"Statement": "SELECT SK FROM \"pql\" WHERE PK = ? AND n >= ?",
                   "Parameters": [{"S": "p"}, {"N": "1"}], "Limit": 2, "ConsistentRead": True}
        if token:
            request["NextToken"] = token
        out = DDB.execute_statement(**request)
        pages.append([i["SK"]["S"] for i in out["Items"]])
        token = out.get("NextToken")
        if not token:
            break
    assert pages == [["1"], ["2", "3"], ["4"]], pages
    scan = DDB.execute_statement(Statement="SELECT * FROM \"pql\" WHERE n > 2",
                                 ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert sorted(i["SK"]["S"] for i in scan["Items"]) == ["3", "4"], scan
    plain = DDB.scan(TableName="pql", FilterExpression="n > :two", ConsistentRead=True,
                     ExpressionAttributeValues={":two": {"N": "2"}},
                     ReturnConsumedCapacity="TOTAL")
    assert scan["ConsumedCapacity"] == plain["ConsumedCapacity"], (scan, plain)
    new = DDB.execute_statement(
        Statement="UPDATE \"pql\" SET n = n + 10 WHERE PK = 'p' AND SK = '0' RETURNING MODIFIED NEW *")
    assert new["Items"] == [{"n": {"N": "10"}}], new
    try:
        DDB.execute_statement(Statement="UPDATE \"pql\" SET n = 1 WHERE PK = 'p' AND SK = '9'")
        raise AssertionError("an UPDATE created an item")
    except DDB.exceptions.ConditionalCheckFailedException:
        pass
    batch = DDB.batch_execute_statement(Statements=[
        {"Statement": "SELECT n FROM \"pql\" WHERE PK = 'p' AND SK = '1'", "ConsistentRead": True},
        {"Statement": "SELECT * FROM \"pql\" WHERE PK = 'p'"},
    ])["Responses"]
    assert batch[0]["Item"] == {"n": {"N": "1"}}, batch
    assert batch[1]["Error"]["Code"] == "ValidationError", batch
    DDB.execute_transaction(TransactStatements=[
        {"Statement": "DELETE FROM \"pql\" WHERE PK = 'p' AND SK = '4'"},
        {"Statement": insert, "Parameters": [{"S": "p"}, {"S": "5"}, {"N": "5"}]},
    ])
    try:
        DDB.execute_transaction(TransactStatements=[
            {"Statement": "UPDATE \"pql\" SET n = 0 WHERE PK = 'p' AND SK = '1'"},
            {"Statement": insert, "Parameters": [{"S": "p"}, {"S": "5"}, {"N": "5"}]},
        ])
        raise AssertionError("a transaction with a duplicate INSERT committed")
    except DDB.exceptions.TransactionCanceledException as e:
        codes = [r["Code"] for r in e.response["CancellationReasons"]]
        assert codes == ["None", "DuplicateItem"], e.response
    read = DDB.execute_transaction(TransactStatements=[
        {"Statement": "SELECT n FROM \"pql\" WHERE PK = 'p' AND SK = '1'"},
        {"Statement": "SELECT n FROM \"pql\" WHERE PK = 'p' AND SK = '4'"},
    ])["Responses"]
    assert read == [{"Item": {"n": {"N": "1"}}}, {}], read


def main():
    passed = failed = 0
    for fn in CHECKS:
        try:
            fn()
            passed += 1
            print(f"ok - {fn.__name__}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, then counted
            failed += 1
            print(f"FAIL - {fn.__name__}: {e!r}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
