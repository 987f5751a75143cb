//! Speed over the wire (issue 14, part 4): GetItem and PutItem over loopback HTTP with
//! keep-alive, next to the same operations in-process, in one run.
//!
//! ```text
//! cargo bench -p katas-serve --bench serve        # KATAS_BENCH_SECS=… per measurement (default 3)
//! ```
//!
//! The table is provisioned far above the load (100,000 RCU / 40,000 WCU: 40 partitions), so
//! nothing is throttled and every answer is a 200 — the run fails otherwise. Keys are spread
//! over 10,000 items of about 100 bytes. The HTTP client is `tests/common` (requests written
//! as prepared bytes, answers read by Content-Length), on `CLIENTS` keep-alive connections in
//! threads of this process: client and server share the machine's cores, as they would for a
//! learner's script on a laptop.

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{api_request, Conn};
use engine::types::{
    AttributeDefinition, KeySchemaElement, KeyType, ProvisionedThroughput, ScalarAttributeType,
};
use engine::{AttributeValue, Client};
use serve::{ClockMode, Config, Server};

const ITEMS: usize = 10_000;
const CLIENTS: usize = 4;

fn create_table(client: &Client) {
    client
        .create_table()
        .table_name("bench")
        .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("id", KeyType::Hash))
        .provisioned_throughput(ProvisionedThroughput::new(100_000, 40_000))
        .send()
        .expect("create the bench table");
}

fn key(i: usize) -> String {
    format!("user#{i:06}")
}

const PAYLOAD: &str =
    "a payload of about a hundred bytes, so that an item is a realistic small record";

fn put_body(i: usize) -> String {
    format!(
        r#"{{"TableName":"bench","Item":{{"id":{{"S":"{}"}},"n":{{"N":"{i}"}},"payload":{{"S":"{PAYLOAD}"}}}}}}"#,
        key(i)
    )
}

fn get_body(i: usize) -> String {
    format!(
        r#"{{"TableName":"bench","Key":{{"id":{{"S":"{}"}}}}}}"#,
        key(i)
    )
}

/// Requests per second in-process, one thread; the simulated clock moves a second every
/// 10,000 requests so the per-second capacity renews as it would in real time.
fn in_process(client: &Client, put: bool, secs: f64) -> f64 {
    let started = Instant::now();
    let mut n = 0usize;
    while started.elapsed().as_secs_f64() < secs {
        for _ in 0..1000 {
            let i = (n * 7919) % ITEMS;
            if put {
                client
                    .put_item()
                    .table_name("bench")
                    .item("id", AttributeValue::S(key(i)))
                    .item("n", AttributeValue::N(i.to_string()))
                    .item("payload", AttributeValue::S(PAYLOAD.into()))
                    .send()
                    .expect("in-process put");
            } else {
                client
                    .get_item()
                    .table_name("bench")
                    .key("id", AttributeValue::S(key(i)))
                    .send()
                    .expect("in-process get");
            }
            n += 1;
            if n % 10_000 == 0 {
                client.world().advance(Duration::from_secs(1));
            }
        }
    }
    n as f64 / started.elapsed().as_secs_f64()
}

/// Requests per second over HTTP, `CLIENTS` keep-alive connections.
fn over_http(addr: std::net::SocketAddr, op: &str, secs: f64) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let target = format!("DynamoDB_20120810.{op}");
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (stop, done, target) = (Arc::clone(&stop), Arc::clone(&done), target.clone());
            let requests: Vec<Vec<u8>> = (0..1000)
                .map(|j| {
                    let i = (c * 1000 + j * 7) % ITEMS;
                    let body = if op == "PutItem" {
                        put_body(i)
                    } else {
                        get_body(i)
                    };
                    api_request(&target, body.as_bytes())
                })
                .collect();
            std::thread::spawn(move || {
                let mut conn = Conn::open(addr);
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let reply = conn.raw(&requests[n as usize % requests.len()]).unwrap();
                    assert_eq!(
                        reply.status,
                        200,
                        "{}",
                        String::from_utf8_lossy(&reply.body)
                    );
                    n += 1;
                }
                done.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let secs: f64 = std::env::var("KATAS_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);

    let world = engine::World::new(1);
    let client = world.client();
    create_table(&client);
    in_process(&client, true, 0.3); // warm: every key written once or more
    let in_get = in_process(&client, false, secs);
    let in_put = in_process(&client, true, secs);

    let server = Server::bind(&Config {
        port: 0,
        clock: ClockMode::Real,
        ..Config::default()
    })
    .expect("bind");
    let served = server.world().client();
    create_table(&served);
    for i in 0..ITEMS {
        served
            .put_item()
            .table_name("bench")
            .item("id", AttributeValue::S(key(i)))
            .item("payload", AttributeValue::S(PAYLOAD.into()))
            .send()
            .expect("preload");
    }
    let addr = server.spawn().expect("serve");
    over_http(addr, "GetItem", 0.3); // warm: connections, threads
    let http_get = over_http(addr, "GetItem", secs);
    let http_put = over_http(addr, "PutItem", secs);

    println!("katas-serve benchmark ({secs} s per figure, {CLIENTS} keep-alive connections, {ITEMS} items of ~100 B)");
    println!("  GetItem  over HTTP {http_get:>9.0} req/s   in-process {in_get:>9.0} req/s");
    println!("  PutItem  over HTTP {http_put:>9.0} req/s   in-process {in_put:>9.0} req/s");
    println!(
        "  targets (issue 14): GetItem >= 20,000 req/s {}, PutItem >= 15,000 req/s {}",
        if http_get >= 20_000.0 {
            "met"
        } else {
            "MISSED"
        },
        if http_put >= 15_000.0 {
            "met"
        } else {
            "MISSED"
        },
    );
}
