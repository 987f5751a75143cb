//! The DynamoDB Streams API (`DynamoDBStreams_20120810.*`): ListStreams, DescribeStream,
//! GetShardIterator, GetRecords. In AWS a separate endpoint and SDK client; here the same
//! server answers both, so a streams client pointed at the same URL reads the tables' streams.

use serde_json::Value;

use super::read::Fields;
use super::write::{record, stream_description, Out};
use super::{Api, WireError};

pub fn list_streams(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .list_streams()
        .set_table_name(req.string("TableName")?)
        .set_limit(req.i32("Limit")?)
        .set_exclusive_start_stream_arn(req.string("ExclusiveStartStreamArn")?);
    req.finish()?;
    let out = call.send()?;
    let streams = out.streams().iter().map(|s| {
        Out::new()
            .str("StreamArn", s.stream_arn())
            .str("TableName", s.table_name())
            .str("StreamLabel", s.stream_label())
            .done()
    });
    Ok(Out::new()
        .put("Streams", Some(Value::Array(streams.collect())))
        .str("LastEvaluatedStreamArn", out.last_evaluated_stream_arn())
        .done())
}

pub fn describe_stream(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .describe_stream()
        .set_stream_arn(req.string("StreamArn")?)
        .set_limit(req.i32("Limit")?)
        .set_exclusive_start_shard_id(req.string("ExclusiveStartShardId")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "StreamDescription",
            out.stream_description().map(stream_description),
        )
        .done())
}

pub fn get_shard_iterator(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .get_shard_iterator()
        .set_stream_arn(req.string("StreamArn")?)
        .set_shard_id(req.string("ShardId")?)
        .set_shard_iterator_type(req.enumeration("ShardIteratorType")?)
        .set_sequence_number(req.string("SequenceNumber")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new().str("ShardIterator", out.shard_iterator()).done())
}

pub fn get_records(api: &Api, req: &Fields<'_>) -> Result<Value, WireError> {
    let call = api
        .client
        .get_records()
        .set_shard_iterator(req.string("ShardIterator")?)
        .set_limit(req.i32("Limit")?);
    req.finish()?;
    let out = call.send()?;
    Ok(Out::new()
        .put(
            "Records",
            Some(Value::Array(out.records().iter().map(record).collect())),
        )
        .str("NextShardIterator", out.next_shard_iterator())
        .done())
}
