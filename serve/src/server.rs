//! # The server: connections, routes, and the seam for `/_katas/`
//!
//! ```text
//!  accept ─▶ one thread per connection (≤ MAX_CONNECTIONS) ─▶ loop: read_request
//!                                                                  │
//!            route(request) ◀──────────────────────────────────────┘
//!             ├ POST /            X-Amz-Target → wire::call  (the clock catches up first)
//!             ├ GET  /            200 "healthy: host:port"
//!             ├ *    /_katas/…    katas_route: the server's own pages and controls — the
//!             │                   live view (GET /_katas/), its fault forms, the clock
//!             └ anything else     404
//! ```
//!
//! A handler that panics (it should not: the engine answers bad input with errors, and the
//! fuzz test holds it to that) is caught and answered `500 InternalServerError`; the
//! world's lock survives a panic consistent, since every operation validates before it
//! writes.

use std::io::{self, BufReader};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engine::{World, WorldConfig};

use crate::clock::{Clock, ClockMode};
use crate::crc32::crc32;
use crate::http::{self, ReadError, Request, Response};
use crate::view;
use crate::wire::{self, Api, WireError};

/// What the server runs with, resolved from the command line.
#[derive(Clone, Debug)]
pub struct Config {
    pub host: IpAddr,
    /// 0 picks a free port (tests, benchmarks).
    pub port: u16,
    pub seed: u64,
    pub clock: ClockMode,
    /// Request bodies longer than this are refused (413).
    pub max_body: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            host: IpAddr::from([127, 0, 0, 1]),
            port: 8000,
            seed: 0,
            clock: ClockMode::Real,
            max_body: MAX_BODY_BYTES,
        }
    }
}

/// A bound server, not yet accepting.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
}

/// What every connection shares.
#[derive(Debug)]
struct App {
    api: Api,
    world: World,
    clock: Clock,
    /// `host:port`, for the health answer.
    address: String,
    max_body: usize,
    connections: AtomicUsize,
    requests: AtomicU64,
}

impl Server {
    /// Binds the listening socket and creates the world.
    pub fn bind(config: &Config) -> io::Result<Server> {
        let listener = TcpListener::bind(SocketAddr::new(config.host, config.port))?;
        let defaults = WorldConfig::default();
        let epoch_seconds = Clock::epoch_seconds(config.clock, defaults.epoch_seconds);
        let world = World::with_config(WorldConfig {
            seed: config.seed,
            epoch_seconds,
            ..defaults
        });
        let address = listener.local_addr()?.to_string();
        let app = App {
            api: Api {
                client: world.client(),
                epoch_seconds,
            },
            world,
            clock: Clock::new(config.clock),
            address,
            max_body: config.max_body,
            connections: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
        };
        Ok(Server {
            listener,
            app: Arc::new(app),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The world it serves (tests look inside it; the live view will too).
    pub fn world(&self) -> World {
        self.app.world.clone()
    }

    /// Accepts connections until the process ends.
    pub fn run(self) -> io::Result<()> {
        for stream in self.listener.incoming() {
            let Ok(stream) = stream else { continue };
            let app = Arc::clone(&self.app);
            if app.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                app.connections.fetch_sub(1, Ordering::SeqCst);
                refuse_busy(stream);
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("katas-serve-conn".into())
                .spawn(move || {
                    serve_connection(&app, stream);
                    app.connections.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                self.app.connections.fetch_sub(1, Ordering::SeqCst);
            }
        }
        Ok(())
    }

    /// Runs the server on a background thread (tests, benchmarks); returns its address.
    pub fn spawn(self) -> io::Result<SocketAddr> {
        let addr = self.local_addr()?;
        std::thread::Builder::new()
            .name("katas-serve".into())
            .spawn(move || self.run())?;
        Ok(addr)
    }
}

fn refuse_busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let response = Response::text(503, "too many connections");
    let _ = http::write_response(&mut stream, &response, false);
}

fn serve_connection(app: &App, stream: TcpStream) {
    if http::configure(&stream).is_err() {
        return;
    }
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::with_capacity(16 * 1024, stream);
    loop {
        let (response, keep_alive) = match http::read_request(&mut reader, app.max_body) {
            Ok(request) => {
                let response = catch_unwind(AssertUnwindSafe(|| route(app, &request)))
                    .unwrap_or_else(|_| panicked());
                (response, !request.close)
            }
            Err(ReadError::Closed) => return,
            Err(ReadError::Refuse(response)) => (response, false),
        };
        if http::write_response(&mut writer, &response, keep_alive).is_err() || !keep_alive {
            return;
        }
    }
}

fn route(app: &App, request: &Request) -> Response {
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/") => api(app, request),
        ("GET", "/") => Response::text(200, format!("healthy: {}", app.address)),
        (_, "/") => Response::text(405, "DynamoDB's API is POST /"),
        (_, path) if path.starts_with(KATAS_PREFIX) => katas_route(app, request),
        ("GET", "/_katas") => {
            let mut response = Response::text(303, "the live view is at /_katas/");
            response.headers.push(("Location", KATAS_PREFIX.into()));
            response
        }
        _ => Response::text(404, "not found: DynamoDB's API is POST /"),
    }
}

/// One DynamoDB API call.
fn api(app: &App, request: &Request) -> Response {
    app.clock.catch_up(&app.world);
    let n = app.requests.fetch_add(1, Ordering::Relaxed);
    let (status, body) = match wire::call(&app.api, request.header("x-amz-target"), &request.body) {
        Ok(body) => (200, body),
        Err(e) => (e.status, e.body()),
    };
    json_response(status, body.to_string().into_bytes(), n)
}

fn json_response(status: u16, body: Vec<u8>, request_number: u64) -> Response {
    let mut response = Response::new(status, "application/x-amz-json-1.0", body);
    response
        .headers
        .push(("x-amz-crc32", crc32(&response.body).to_string()));
    response
        .headers
        .push(("x-amzn-RequestId", request_id(request_number)));
    response
}

/// A request id in DynamoDB's shape (52 upper-case letters and digits), counting requests.
fn request_id(n: u64) -> String {
    format!("KATAS{n:047}")
}

fn panicked() -> Response {
    let e = WireError {
        status: 500,
        kind: "com.amazonaws.dynamodb.v20120810#InternalServerError".into(),
        message: "Internal server error: the request handler panicked (a bug: please report it)"
            .into(),
        fields: Default::default(),
    };
    json_response(500, e.body().to_string().into_bytes(), 0)
}

/// The server's own routes, under [`KATAS_PREFIX`]: the live view ([`crate::view`]), its
/// fault forms, and the clock.
fn katas_route(app: &App, request: &Request) -> Response {
    let rest = &request.path[KATAS_PREFIX.len()..];
    match (request.method.as_str(), rest) {
        ("GET", "") => live_view(app, request),
        ("POST", "fault") => fault(app, request),
        ("POST", "advance") => advance(app, request),
        _ => Response::text(
            404,
            "not found under /_katas/: GET /_katas/ (the live view), POST /_katas/fault?op=…, \
             POST /_katas/advance?ms=N",
        ),
    }
}

/// `GET /_katas/`: the live view, with the world caught up to the wall clock first (so a
/// lagging replica catches up, or an election ends, while nobody sends requests).
fn live_view(app: &App, request: &Request) -> Response {
    app.clock.catch_up(&app.world);
    let form = request.form();
    let flash = form
        .iter()
        .find(|(k, _)| k == "done")
        .map(|(_, v)| v.as_str());
    let header = view::Header::Live {
        clock: match app.clock.mode() {
            ClockMode::Real => "real",
            ClockMode::Manual => "manual",
        },
        flash,
    };
    let mut response = Response::new(
        200,
        "text/html; charset=utf-8",
        view::draw(&view::live_snapshot(&app.world), &header),
    );
    response.headers.push(("Cache-Control", "no-store".into()));
    response
}

/// `POST /_katas/fault?op=…`: one of the engine's faults ([`view::faults`]), then back to the
/// view (303) saying what was done.
fn fault(app: &App, request: &Request) -> Response {
    if let Some(why) = cross_site(request) {
        return Response::text(403, why);
    }
    app.clock.catch_up(&app.world);
    match view::faults::apply(&app.world, &request.form()) {
        Ok(done) => {
            let mut response = Response::text(303, done.clone());
            response.headers.push((
                "Location",
                format!("{KATAS_PREFIX}?done={}", http::form_encode(&done)),
            ));
            response
        }
        Err(why) => Response::text(400, why),
    }
}

/// Why a fault form is refused: a browser posted it from another site's page. Browsers say
/// where a form came from (`Origin`, `Sec-Fetch-Site`); `curl` and the tests say neither.
fn cross_site(request: &Request) -> Option<&'static str> {
    let refused = "fault forms are accepted from the live view's own page only";
    if request.header("sec-fetch-site") == Some("cross-site") {
        return Some(refused);
    }
    match (request.header("origin"), request.header("host")) {
        (Some("null"), _) => Some(refused),
        (Some(origin), Some(host)) if origin.split_once("://").map(|(_, h)| h) != Some(host) => {
            Some(refused)
        }
        _ => None,
    }
}

/// `POST /_katas/advance?ms=N`: moves the simulated clock forward by N milliseconds (on top
/// of the wall clock's, with `--clock real`); answers the world's time.
fn advance(app: &App, request: &Request) -> Response {
    let Some(ms) = request
        .query_param("ms")
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return Response::text(
            400,
            "POST /_katas/advance?ms=N, N a whole number of milliseconds",
        );
    };
    if ms > MAX_ADVANCE_MS {
        return Response::text(
            400,
            format!("at most {MAX_ADVANCE_MS} ms (a year) per advance"),
        );
    }
    app.clock.catch_up(&app.world);
    app.world.advance(Duration::from_millis(ms));
    let now = app.world.now().as_millis();
    Response::new(
        200,
        "application/json",
        format!(
            "{{\"now_ms\":{now},\"epoch_seconds\":{}}}",
            app.world.epoch_seconds()
        ),
    )
}

/// The path prefix of the server's own routes (never a DynamoDB path).
pub const KATAS_PREFIX: &str = "/_katas/";

/// Request bodies, at most. DynamoDB caps a request at 16 MB (BatchWriteItem's 25 items of
/// 400 KB fit well under it); the same cap here.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Connections served at once; more are answered 503. Each holds a thread; SDK clients open
/// ten or so (botocore's pool default).
pub const MAX_CONNECTIONS: usize = 512;

/// One advance moves the clock by at most this: a year, far more than any TTL or retention
/// window, small enough that the world's arithmetic never nears overflow.
pub const MAX_ADVANCE_MS: u64 = 366 * 24 * 3600 * 1000;
