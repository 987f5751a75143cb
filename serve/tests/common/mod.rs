//! A minimal keep-alive HTTP/1.1 client for the tests and the benchmark: it writes requests
//! as bytes and reads answers by `Content-Length`, so what it measures and checks is the
//! server, not a client library.

#![allow(dead_code)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "answer is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    /// The `__type`'s name after `#`, for an error answer.
    pub fn error_name(&self) -> String {
        let body = self.json();
        let kind = body["__type"].as_str().unwrap_or_default();
        kind.rsplit('#').next().unwrap_or_default().to_string()
    }
}

/// A keep-alive connection.
pub struct Conn {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Conn {
    pub fn open(addr: SocketAddr) -> Conn {
        let stream = TcpStream::connect(addr).expect("connect to the server");
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Conn {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
        }
    }

    /// How long a read may wait for the server.
    pub fn set_timeout(&self, timeout: Duration) {
        self.writer.set_read_timeout(Some(timeout)).unwrap();
    }

    /// Sends raw bytes and reads one answer.
    pub fn raw(&mut self, request: &[u8]) -> io::Result<Reply> {
        self.writer.write_all(request)?;
        self.read_reply()
    }

    /// One DynamoDB API call.
    pub fn call(&mut self, target: &str, body: &str) -> Reply {
        self.raw(&api_request(target, body.as_bytes()))
            .expect("an answer")
    }

    pub fn read_reply(&mut self) -> io::Result<Reply> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed"));
        }
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| io::Error::other(format!("bad status line {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((n, v)) = l.split_once(':') {
                headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        Ok(Reply {
            status,
            headers,
            body,
        })
    }
}

/// The bytes of `POST /` with this target and body, as an SDK sends it.
pub fn api_request(target: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: {target}\r\nAuthorization: AWS4-HMAC-SHA256 Credential=any/20260101/\
         us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// `DynamoDB_20120810.<op>`.
pub fn ddb(op: &str) -> String {
    format!("DynamoDB_20120810.{op}")
}

/// A table `name` with a string partition key `PK` and sort key `SK`, on demand.
pub fn create_table_body(name: &str) -> String {
    format!(
        r#"{{"TableName":"{name}","AttributeDefinitions":[{{"AttributeName":"PK","AttributeType":"S"}},{{"AttributeName":"SK","AttributeType":"S"}}],"KeySchema":[{{"AttributeName":"PK","KeyType":"HASH"}},{{"AttributeName":"SK","KeyType":"RANGE"}}],"BillingMode":"PAY_PER_REQUEST"}}"#
    )
}
