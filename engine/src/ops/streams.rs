//! The DynamoDB Streams API: DescribeStream, GetShardIterator, GetRecords (and ListStreams).
//!
//! In AWS these belong to a separate client (`aws-sdk-dynamodbstreams`); here they hang off
//! the same `Client` to keep kata code short.
//!
//! Reading a stream: describe it to list its shards (parents before children), get an
//! iterator for a shard (`TRIM_HORIZON` = oldest kept record, `LATEST` = after the newest,
//! `AT_`/`AFTER_SEQUENCE_NUMBER`), then call GetRecords repeatedly with the returned
//! `NextShardIterator`. A page holds at most 1,000 records or 1 MB; it may be empty while
//! the shard is open. A closed shard that has been read to its end returns no
//! `NextShardIterator`. Iterators expire after 15 minutes; records older than the retention
//! period (24 h) are gone: an iterator pointing at them fails with
//! `TrimmedDataAccessException`.

use super::builder::{string_setter, value_setter};
use super::require_table_name;
use crate::client::Client;
use crate::error::{Exception, Result};
use crate::stream::{format_sequence, Record, Stream};
use crate::types::{KeySchemaElement, StreamViewType};
use crate::world::State;

/// How to position a new shard iterator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardIteratorType {
    TrimHorizon,
    Latest,
    AtSequenceNumber,
    AfterSequenceNumber,
}

/// A shard as DescribeStream reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardDescription {
    pub shard_id: String,
    pub parent_shard_id: Option<String>,
    pub starting_sequence_number: String,
    /// Present once the shard is closed.
    pub ending_sequence_number: Option<String>,
}

/// A stream as DescribeStream reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamDescription {
    pub stream_arn: String,
    pub stream_label: String,
    /// `ENABLED` or `DISABLED`.
    pub stream_status: String,
    pub stream_view_type: StreamViewType,
    pub table_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    pub shards: Vec<ShardDescription>,
}

fn stream_of<'a>(state: &'a State, arn: &str) -> Result<(&'a str, &'a Stream)> {
    state
        .tables
        .values()
        .find_map(|t| {
            t.stream_log
                .as_ref()
                .filter(|s| s.arn == arn)
                .map(|s| (t.name.as_str(), s))
        })
        .ok_or_else(|| {
            Exception::resource_not_found(format!(
                "Requested resource not found: Stream: {arn} not found"
            ))
        })
}

/// Builds and sends a DescribeStream request.
#[derive(Clone, Debug)]
pub struct DescribeStreamFluentBuilder {
    client: Client,
    stream_arn: Option<String>,
}

impl DescribeStreamFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        DescribeStreamFluentBuilder {
            client,
            stream_arn: None,
        }
    }
    pub fn stream_arn(mut self, arn: impl Into<String>) -> Self {
        self.stream_arn = Some(arn.into());
        self
    }

    pub fn send(
        self,
    ) -> std::result::Result<
        StreamDescription,
        crate::error::SdkError<crate::error::operations::DescribeStreamError>,
    > {
        self.client.world().send("DescribeStream", |state| {
            let arn = self.stream_arn.as_deref().ok_or_else(|| {
                Exception::validation(
                    "The parameter 'StreamArn' is required but was not present in the request",
                )
            })?;
            let (table, stream) = stream_of(state, arn)?;
            let t = &state.tables[table];
            Ok(StreamDescription {
                stream_arn: stream.arn.clone(),
                stream_label: stream.label.clone(),
                stream_status: if stream.disabled {
                    "DISABLED"
                } else {
                    "ENABLED"
                }
                .to_string(),
                stream_view_type: stream.view_type,
                table_name: table.to_string(),
                key_schema: t.key_elements.clone(),
                shards: stream
                    .shards
                    .iter()
                    .map(|s| ShardDescription {
                        shard_id: s.shard_id.clone(),
                        parent_shard_id: s.parent_shard_id.clone(),
                        starting_sequence_number: format_sequence(s.starting_sequence_number),
                        ending_sequence_number: s.ending_sequence_number.map(format_sequence),
                    })
                    .collect(),
            })
        })
    }
}

/// The parameters of a GetShardIterator request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GetShardIteratorInput {
    pub stream_arn: Option<String>,
    pub shard_id: Option<String>,
    pub shard_iterator_type: Option<ShardIteratorType>,
    pub sequence_number: Option<String>,
}

/// Builds and sends a GetShardIterator request.
#[derive(Clone, Debug)]
pub struct GetShardIteratorFluentBuilder {
    client: Client,
    input: GetShardIteratorInput,
}

impl GetShardIteratorFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        GetShardIteratorFluentBuilder {
            client,
            input: GetShardIteratorInput::default(),
        }
    }
    string_setter!(stream_arn, set_stream_arn, get_stream_arn);
    string_setter!(shard_id, set_shard_id, get_shard_id);
    value_setter!(shard_iterator_type, set_shard_iterator_type, get_shard_iterator_type: ShardIteratorType);
    string_setter!(sequence_number, set_sequence_number, get_sequence_number);

    /// Returns the iterator (an opaque string).
    pub fn send(
        self,
    ) -> std::result::Result<
        String,
        crate::error::SdkError<crate::error::operations::GetShardIteratorError>,
    > {
        self.client.world().send("GetShardIterator", |state| {
            let input = &self.input;
            let arn = input.stream_arn.as_deref().ok_or_else(|| {
                Exception::validation("The parameter 'StreamArn' is required but was not present in the request")
            })?;
            let shard_id = input.shard_id.as_deref().ok_or_else(|| {
                Exception::validation("The parameter 'ShardId' is required but was not present in the request")
            })?;
            let kind = input.shard_iterator_type.ok_or_else(|| {
                Exception::validation("The parameter 'ShardIteratorType' is required but was not present in the request")
            })?;
            let (_, stream) = stream_of(state, arn)?;
            let shard = stream.shards.iter().find(|s| s.shard_id == shard_id).ok_or_else(|| {
                Exception::resource_not_found(format!("Requested resource not found: Shard does not exist: {shard_id}"))
            })?;
            let sequence = || -> Result<u64> {
                input
                    .sequence_number
                    .as_deref()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| Exception::validation("A valid SequenceNumber is required for AT_SEQUENCE_NUMBER and AFTER_SEQUENCE_NUMBER"))
            };
            let position = match kind {
                ShardIteratorType::TrimHorizon => shard.trimmed_before.max(shard.starting_sequence_number),
                ShardIteratorType::Latest => shard.records.last().map_or(stream.next_sequence, |(s, _, _)| s + 1),
                ShardIteratorType::AtSequenceNumber => sequence()?,
                ShardIteratorType::AfterSequenceNumber => sequence()? + 1,
            };
            if position < shard.trimmed_before {
                return Err(trimmed());
            }
            Ok(encode(arn, shard_id, position, state.now_ms))
        })
    }
}

fn trimmed() -> Exception {
    Exception::TrimmedDataAccess {
        message: "The operation attempted to read past the oldest stream record in a shard."
            .to_string(),
    }
}

fn encode(arn: &str, shard: &str, position: u64, issued_ms: u64) -> String {
    format!("{arn}|{shard}|{position}|{issued_ms}")
}

fn decode(iterator: &str) -> Option<(String, String, u64, u64)> {
    let mut parts = iterator.rsplitn(4, '|');
    let issued = parts.next()?.parse().ok()?;
    let position = parts.next()?.parse().ok()?;
    let shard = parts.next()?.to_string();
    let arn = parts.next()?.to_string();
    Some((arn, shard, position, issued))
}

/// One page of stream records.
#[derive(Clone, Debug, PartialEq)]
pub struct GetRecordsOutput {
    pub records: Vec<Record>,
    /// `None` when the shard is closed and every record has been read.
    pub next_shard_iterator: Option<String>,
}

impl GetRecordsOutput {
    pub fn records(&self) -> &[Record] {
        &self.records
    }
    pub fn next_shard_iterator(&self) -> Option<&str> {
        self.next_shard_iterator.as_deref()
    }
}

/// Builds and sends a GetRecords request.
#[derive(Clone, Debug)]
pub struct GetRecordsFluentBuilder {
    client: Client,
    shard_iterator: Option<String>,
    limit: Option<i32>,
}

impl GetRecordsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        GetRecordsFluentBuilder {
            client,
            shard_iterator: None,
            limit: None,
        }
    }
    pub fn shard_iterator(mut self, iterator: impl Into<String>) -> Self {
        self.shard_iterator = Some(iterator.into());
        self
    }
    pub fn limit(mut self, limit: i32) -> Self {
        self.limit = Some(limit);
        self
    }

    pub fn send(
        self,
    ) -> std::result::Result<
        GetRecordsOutput,
        crate::error::SdkError<crate::error::operations::GetRecordsError>,
    > {
        self.client.world().send("GetRecords", |state| {
            let iterator = self.shard_iterator.as_deref().ok_or_else(|| {
                Exception::validation("The parameter 'ShardIterator' is required but was not present in the request")
            })?;
            let limit = match self.limit {
                Some(l) if !(1..=1000).contains(&l) => {
                    return Err(Exception::validation(format!(
                        "1 validation error detected: Value '{l}' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000"
                    )))
                }
                Some(l) => l as usize,
                None => 1000,
            };
            let (arn, shard_id, position, issued) =
                decode(iterator).ok_or_else(|| Exception::validation("Invalid ShardIterator"))?;
            if state.now_ms.saturating_sub(issued) > ITERATOR_LIFETIME_MS {
                return Err(Exception::ExpiredIterator { message: "Iterator expired. The iterator was created more than 15 minutes ago.".to_string() });
            }
            let (table, stream) = stream_of(state, &arn)?;
            let shard = stream
                .shards
                .iter()
                .find(|s| s.shard_id == shard_id)
                .ok_or_else(trimmed)?;
            if position < shard.trimmed_before {
                return Err(trimmed());
            }
            let start = shard.records.partition_point(|(seq, _, _)| *seq < position);
            let mut records = Vec::new();
            let mut bytes = 0;
            let mut next = position;
            let schema = &state.tables[table].store.schema;
            for (seq, _, change) in &shard.records[start..] {
                if records.len() == limit || bytes >= PAGE_BYTES {
                    break;
                }
                let record = stream.record(*seq, change, schema);
                bytes += record.dynamodb.size_bytes as usize;
                records.push(record);
                next = seq + 1;
            }
            let drained = start + records.len() == shard.records.len();
            let closed = shard.ending_sequence_number.is_some() || stream.disabled;
            Ok(GetRecordsOutput {
                records,
                next_shard_iterator: if closed && drained { None } else { Some(encode(&arn, &shard_id, next, state.now_ms)) },
            })
        })
    }
}

/// Builds and sends a ListStreams request (the streams of one table, or of all).
#[derive(Clone, Debug)]
pub struct ListStreamsFluentBuilder {
    client: Client,
    table_name: Option<String>,
}

impl ListStreamsFluentBuilder {
    pub(crate) fn new(client: Client) -> Self {
        ListStreamsFluentBuilder {
            client,
            table_name: None,
        }
    }
    pub fn table_name(mut self, name: impl Into<String>) -> Self {
        self.table_name = Some(name.into());
        self
    }

    /// Returns the stream ARNs.
    pub fn send(
        self,
    ) -> std::result::Result<
        Vec<String>,
        crate::error::SdkError<crate::error::operations::ListStreamsError>,
    > {
        self.client.world().send("ListStreams", |state| {
            if let Some(name) = &self.table_name {
                require_table_name(&Some(name.clone()))?;
            }
            Ok(state
                .tables
                .values()
                .filter(|t| self.table_name.as_ref().is_none_or(|n| *n == t.name))
                .filter_map(|t| t.stream_log.as_ref().map(|s| s.arn.clone()))
                .collect())
        })
    }
}

/// How long a shard iterator stays valid: 15 minutes.
pub const ITERATOR_LIFETIME_MS: u64 = 15 * 60 * 1000;
/// Data per GetRecords page: 1 MB.
pub const PAGE_BYTES: usize = 1024 * 1024;
