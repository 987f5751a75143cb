//! A real AWS SDK against the server: boto3 runs `tests/sdk/boto3_check.py` (tables, CRUD
//! with conditions, Query pagination, a cancelled transaction, BatchWriteItem's unprocessed
//! items, a GSI catching up, the streams client, throttling through boto3's retries, the
//! legacy parameters and tags as boto3 sends them, point-in-time recovery, SSE,
//! DescribeEndpoints and DescribeLimits, and PartiQL: statements with parameters, paging with
//! NextToken, DuplicateItemException, a batch and transactions).
//!
//! Outside the default `cargo test` (it needs Python with boto3, and takes seconds of wall
//! time on the real clock):
//!
//! ```text
//! python3 -m venv /tmp/katas-sdk && /tmp/katas-sdk/bin/pip install boto3
//! KATAS_PYTHON=/tmp/katas-sdk/bin/python cargo test -p katas-serve --test sdk -- --ignored
//! ```

use std::path::Path;
use std::process::Command;

use serve::{ClockMode, Config, Server};

#[test]
#[ignore = "needs Python with boto3: KATAS_PYTHON=... cargo test -p katas-serve --test sdk -- --ignored"]
fn boto3_works_against_the_server() {
    let server = Server::bind(&Config {
        port: 0,
        clock: ClockMode::Real,
        ..Config::default()
    })
    .expect("bind a free loopback port");
    let addr = server.spawn().expect("start the server");
    let python = std::env::var("KATAS_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk/boto3_check.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(format!("http://{addr}"))
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} (set KATAS_PYTHON): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "boto3 checks failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains(" passed, 0 failed"),
        "the script ran no checks:\n{stdout}"
    );
}
