//! # HTTP/1.1, as much as the AWS SDKs speak to DynamoDB
//!
//! Every SDK talks to DynamoDB the same way: `POST /` with a JSON body and a
//! `Content-Length`, on a connection it keeps alive for the next request. This module reads
//! such requests and writes their answers; nothing more of HTTP is needed.
//!
//! ```text
//!  TcpStream ─▶ read_request ──▶ Request { method, path, query, headers, body }
//!     ▲            │  request line, headers (≤ MAX_HEAD_BYTES), body (≤ MAX_BODY_BYTES)
//!     │            │  `Expect: 100-continue` answered before the body is read
//!     │            ▼
//!     └──── write_response ◀── Response { status, headers, body }   (keep-alive unless asked)
//! ```
//!
//! Decision: hand-written on `std::net`, not an HTTP crate. The engine is synchronous and one
//! lock guards the world, so an async runtime (hyper, axum) buys nothing but compile time —
//! tokio and hyper alone are dozens of crates a learner would wait for on their first
//! `cargo katas serve`. The small synchronous servers (tiny_http, rouille) would pull fewer,
//! but add their own threads and buffers for features this server refuses anyway. What DynamoDB
//! clients send is a narrow, well-specified subset, and a thread per keep-alive connection
//! serves it at loopback speed (the README's benchmark).
//!
//! A body comes with a `Content-Length` (every SDK sends one to DynamoDB) or, from a client
//! that streams what it writes (`curl -T -`, some HTTP libraries given a reader), as
//! `Transfer-Encoding: chunked` (`read_chunked`): chunk sizes in hex, each chunk, then
//! trailers, all within the same body cap.
//!
//! Left out on purpose: transfer codings other than `chunked` (a compressed body gets 501),
//! pipelining beyond reading requests in turn, TLS, HTTP/2.
//! Every limit breached is an answer (4xx) and a closed connection, never a panic or a wait
//! longer than [`READ_TIMEOUT`].

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One request as it came in.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// What followed `?`, if anything.
    pub query: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The client asked to close after this request (`Connection: close`, or HTTP/1.0
    /// without `keep-alive`).
    pub close: bool,
}

impl Request {
    /// The first header of this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key` in the query string (no percent-decoding: the keys and values this
    /// server reads are plain numbers).
    pub fn query_param(&self, key: &str) -> Option<&str> {
        self.query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// The fields of an HTML form: the query string's, then those of an
    /// `application/x-www-form-urlencoded` body, percent-decoded (`+` is a space).
    pub fn form(&self) -> Vec<(String, String)> {
        let urlencoded = self
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
        let body = if urlencoded {
            String::from_utf8_lossy(&self.body)
        } else {
            "".into()
        };
        [self.query.as_str(), &body]
            .into_iter()
            .flat_map(|part| part.split('&'))
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                (form_decode(k), form_decode(v))
            })
            .collect()
    }
}

/// Encodes text as one `application/x-www-form-urlencoded` component.
pub fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes one `application/x-www-form-urlencoded` component. A malformed escape is kept as
/// it is; bytes that are not UTF-8 become U+FFFD.
pub fn form_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            ) {
                (Some(hi), Some(lo)) => {
                    out.push((hi * 16 + lo) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One answer.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// An answer with a body of this content type.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", content_type.to_string())],
            body: body.into(),
        }
    }

    /// A plain-text answer.
    pub fn text(status: u16, body: impl Into<String>) -> Response {
        Response::new(status, "text/plain; charset=utf-8", body.into())
    }
}

/// Why no request could be read.
#[derive(Debug)]
pub enum ReadError {
    /// The client closed the connection (or went quiet) between requests: nothing to answer.
    Closed,
    /// The request broke HTTP or a limit: answer this, then close.
    Refuse(Response),
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> ReadError {
        ReadError::Closed
    }
}

/// Reads one request from a keep-alive connection (the reader's socket also carries the
/// `100 Continue` interim answer). A body longer than `max_body` is refused unread.
pub fn read_request(
    reader: &mut BufReader<TcpStream>,
    max_body: usize,
) -> Result<Request, ReadError> {
    let mut head_budget = MAX_HEAD_BYTES;
    let mut line = Vec::new();
    // Tolerate blank lines before a request line (RFC 9112 §2.2).
    loop {
        read_line(reader, &mut line, &mut head_budget, true)?;
        if !line.is_empty() {
            break;
        }
    }
    let request_line = String::from_utf8_lossy(&line).into_owned();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refuse(400, "malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(refuse(505, "only HTTP/1.x is served"));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut headers = Vec::new();
    loop {
        read_line(reader, &mut line, &mut head_budget, false)?;
        if line.is_empty() {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let Some((name, value)) = text.split_once(':') else {
            return Err(refuse(400, "malformed header line"));
        };
        if headers.len() >= MAX_HEADERS {
            return Err(refuse(431, "too many headers"));
        }
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body: Vec::new(),
        close: false,
    };
    let connection = request.header("connection").map(str::to_ascii_lowercase);
    request.close = match connection.as_deref() {
        Some(c) if c.contains("close") => true,
        Some(c) if c.contains("keep-alive") => false,
        _ => version == "HTTP/1.0",
    };
    if let Some(coding) = request.header("transfer-encoding") {
        // RFC 9112 §6.1: chunked must be the last coding; only it alone is served.
        if !coding.trim().eq_ignore_ascii_case("chunked") {
            return Err(refuse(
                501,
                format!(
                    "transfer coding '{coding}' is not served: send chunked or a Content-Length"
                ),
            ));
        }
        // §6.3: with both, Transfer-Encoding wins — but a request that sends both may be an
        // attempt to smuggle a second request past a proxy, so it is refused instead.
        if request.header("content-length").is_some() {
            return Err(refuse(
                400,
                "both Transfer-Encoding and Content-Length: send one of them",
            ));
        }
        continue_if_expected(reader, &request)?;
        request.body = read_chunked(reader, max_body)?;
        return Ok(request);
    }
    let length = match request.header("content-length") {
        None => 0,
        Some(v) => match v.parse::<usize>() {
            Ok(n) => n,
            Err(_) => return Err(refuse(400, "malformed Content-Length")),
        },
    };
    if length > max_body {
        return Err(refuse(
            413,
            format!("request body of {length} bytes is over the limit of {max_body} bytes"),
        ));
    }
    if length > 0 {
        continue_if_expected(reader, &request)?;
    }
    request.body = vec![0; length];
    reader.read_exact(&mut request.body)?;
    Ok(request)
}

/// Answers `Expect: 100-continue` before the body is read.
fn continue_if_expected(
    reader: &mut BufReader<TcpStream>,
    request: &Request,
) -> Result<(), ReadError> {
    if request
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        reader
            .get_mut()
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    Ok(())
}

/// A chunked body (RFC 9112 §7.1): `<hex size>[;ext]` CRLF, the chunk, CRLF, … a zero size,
/// then trailer lines up to an empty one (read and dropped). The sizes add up against
/// `max_body` before any chunk is read; the lines against the head's budget.
fn read_chunked(reader: &mut BufReader<TcpStream>, max_body: usize) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    let mut budget = MAX_HEAD_BYTES;
    let mut line = Vec::new();
    loop {
        read_line(reader, &mut line, &mut budget, false)?;
        let text = String::from_utf8_lossy(&line);
        let digits = text.split(';').next().unwrap_or_default().trim();
        let size = match usize::from_str_radix(digits, 16) {
            Ok(n) if !digits.is_empty() && digits.len() <= 16 => n,
            _ => return Err(refuse(400, "malformed chunk size")),
        };
        if size == 0 {
            break;
        }
        if body.len().saturating_add(size) > max_body {
            return Err(refuse(
                413,
                format!("chunked request body is over the limit of {max_body} bytes"),
            ));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        read_line(reader, &mut line, &mut budget, false)?;
        if !line.is_empty() {
            return Err(refuse(400, "a chunk must end with CRLF"));
        }
    }
    // Trailers, up to the empty line that ends the message.
    loop {
        read_line(reader, &mut line, &mut budget, false)?;
        if line.is_empty() {
            return Ok(body);
        }
    }
}

/// Reads one CRLF- (or LF-) terminated line into `line`, without its terminator, spending
/// `budget`. At the start of a request (`first`), a clean end of stream is `Closed`.
fn read_line(
    reader: &mut BufReader<TcpStream>,
    line: &mut Vec<u8>,
    budget: &mut usize,
    first: bool,
) -> Result<(), ReadError> {
    line.clear();
    let limit = u64::try_from(*budget).unwrap_or(u64::MAX);
    let n = reader.by_ref().take(limit).read_until(b'\n', line)?;
    if n == 0 && first {
        return Err(ReadError::Closed);
    }
    if line.last() != Some(&b'\n') {
        return Err(if n as u64 >= limit {
            refuse(431, "request head too large")
        } else {
            ReadError::Closed
        });
    }
    *budget -= n;
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(())
}

fn refuse(status: u16, why: impl Into<String>) -> ReadError {
    ReadError::Refuse(Response::text(status, why))
}

/// Writes `response`, saying whether the connection stays open.
pub fn write_response(
    stream: &mut impl Write,
    response: &Response,
    keep_alive: bool,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(160 + response.body.len());
    write!(
        out,
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    )?;
    for (name, value) in &response.headers {
        write!(out, "{name}: {value}\r\n")?;
    }
    write!(
        out,
        "Content-Length: {}\r\nConnection: {}\r\n\r\n",
        response.body.len(),
        if keep_alive { "keep-alive" } else { "close" }
    )?;
    out.extend_from_slice(&response.body);
    stream.write_all(&out)?;
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        303 => "See Other",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        501 => "Not Implemented",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// Prepares an accepted connection: no Nagle delay (a request is one write, an answer one
/// write; waiting to coalesce them costs 40 ms per round trip), and a read timeout so that a
/// client that stops mid-request frees its thread.
pub fn configure(stream: &TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))
}

/// Request line and headers together, at most. The SDKs send well under 2 KB (the signature
/// headers are the largest part).
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Headers per request, at most.
pub const MAX_HEADERS: usize = 100;

/// How long a connection may sit idle (between or inside requests) before it is closed. The
/// SDKs reopen a closed keep-alive connection transparently.
pub const READ_TIMEOUT: Duration = Duration::from_secs(60);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_components_decode_escapes_and_plus_and_keep_malformed_escapes() {
        assert_eq!(form_decode("az-b"), "az-b");
        assert_eq!(form_decode("a+b%3A%20c"), "a b: c");
        assert_eq!(form_decode("100%"), "100%");
        assert_eq!(form_decode("%zz%4"), "%zz%4");
        assert_eq!(form_decode("%C3%A9"), "é");
    }

    #[test]
    fn encoding_a_component_round_trips() {
        let text = "orders partition 3: replica in az-b lags 500 ms & more";
        assert_eq!(form_decode(&form_encode(text)), text);
        assert_eq!(form_encode("a b:"), "a+b%3A");
    }
}
