//! A kata's failing run, served read-only: `katas-serve view FILE` (what `cargo katas view`
//! and watch mode's `w` run).
//!
//! The hidden test that failed saved its world as a [`SavedRun`] (JSON, written by the test
//! kit into `<target>/katas-view/<kata>.json`). This module reads it, draws the live view's
//! page from its snapshot once ([`page`]), and answers `GET /_katas/` with that page on a
//! loopback port of its own.
//!
//! ```text
//!  <target>/katas-view/hot-key-sharding.json ─▶ load ─▶ page (view::draw, Header::Saved)
//!  GET /_katas/ ─▶ the page    GET / ─▶ 303 /_katas/    anything else ─▶ 404 / 405
//! ```
//!
//! Decision: a server of its own, not a page written to a file for the browser to open. A
//! `file://` page would do for a browser on the same machine, but watch mode often runs in a
//! container or over SSH, where a port can be forwarded and a file cannot be opened; the
//! address printed works the same way as `katas serve`'s. The world is gone (the test's
//! process ended), so nothing here can change it: there are no fault buttons and no refresh.

use std::io::{self, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

use engine::world::snapshot::SavedRun;

use crate::http::{self, ReadError, Request, Response};
use crate::server::KATAS_PREFIX;
use crate::view::{draw, Header};

/// Reads a saved run.
pub fn load(path: &Path) -> Result<SavedRun, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a saved run ({e}); run the kata again to save a new one",
            path.display()
        )
    })
}

/// The kata a saved run's file belongs to: its name (`<kata>.json`).
pub fn kata_of(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "the kata".into(), |s| s.to_string_lossy().into_owned())
}

/// The page of a saved run.
pub fn page(run: &SavedRun, kata: &str) -> String {
    draw(
        &run.snapshot,
        &Header::Saved {
            kata,
            test: &run.test,
            seed: run.seed,
            message: &run.message,
        },
    )
}

/// Serves `page` on `listener` until the process ends (one thread per connection).
pub fn serve(listener: TcpListener, page: String) -> io::Result<()> {
    let page = Arc::new(page);
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let page = Arc::clone(&page);
        std::thread::Builder::new()
            .name("katas-view-conn".into())
            .spawn(move || connection(stream, &page))?;
    }
    Ok(())
}

/// Binds a loopback port (0: a free one) and serves `page` on a background thread; returns
/// the address.
pub fn spawn(port: u16, page: String) -> io::Result<SocketAddr> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
    let addr = listener.local_addr()?;
    std::thread::Builder::new()
        .name("katas-view".into())
        .spawn(move || serve(listener, page))?;
    Ok(addr)
}

fn connection(stream: TcpStream, page: &str) {
    if http::configure(&stream).is_err() {
        return;
    }
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let (response, keep_alive) = match http::read_request(&mut reader, MAX_BODY) {
            Ok(request) => (route(&request, page), !request.close),
            Err(ReadError::Closed) => return,
            Err(ReadError::Refuse(response)) => (response, false),
        };
        if http::write_response(&mut writer, &response, keep_alive).is_err() || !keep_alive {
            return;
        }
    }
}

fn route(request: &Request, page: &str) -> Response {
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", KATAS_PREFIX) => {
            let mut r = Response::new(200, "text/html; charset=utf-8", page.to_string());
            r.headers.push(("Cache-Control", "no-store".into()));
            r
        }
        ("GET", "/" | "/_katas") => {
            let mut r = Response::text(303, "the failing run is at /_katas/");
            r.headers.push(("Location", KATAS_PREFIX.into()));
            r
        }
        ("GET", _) => Response::text(404, "not found: the failing run is at /_katas/"),
        _ => Response::text(
            405,
            "a saved run is read-only: its world ended with the test (GET /_katas/ shows it)",
        ),
    }
}

/// Request bodies, at most: nothing here reads one.
const MAX_BODY: usize = 64 * 1024;
