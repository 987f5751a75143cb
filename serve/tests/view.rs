//! The live view over a real socket: a workload with a hot key and a lagging replica (lagged
//! through the view's own fault form), then `GET /_katas/` must show what happened — the
//! throttled partition marked and no other, the lag on the right replica, the request log's
//! tail newest first.
//!
//! With `KATAS_SCREENSHOT=path.png` (and `chromium` or `chromium-headless-shell` on the
//! PATH), `the_page_renders_in_a_headless_browser` also takes a screenshot of the page.

mod common;

use std::net::SocketAddr;

use common::{create_table_body, ddb, Conn, Reply};
use engine::AttributeValue;
use serve::{ClockMode, Config, Server};

fn start() -> (SocketAddr, engine::World) {
    let server = Server::bind(&Config {
        port: 0,
        clock: ClockMode::Manual,
        ..Config::default()
    })
    .unwrap();
    let world = server.world();
    (server.spawn().unwrap(), world)
}

fn get(conn: &mut Conn, path: &str) -> Reply {
    conn.raw(format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes())
        .unwrap()
}

fn post(conn: &mut Conn, path: &str, extra_headers: &str) -> Reply {
    conn.raw(
        format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\n{extra_headers}Content-Length: 0\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap()
}

fn page(conn: &mut Conn) -> String {
    let reply = get(conn, "/_katas/");
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    String::from_utf8(reply.body).unwrap()
}

/// The `<tr>` of one table partition, up to the next row.
fn partition_row(page: &str, id: u32) -> &str {
    let marker = format!(r#"data-partition="{id}">"#);
    let at = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no row for partition {id}"));
    let start = page[..at].rfind("<tr").unwrap();
    let end = page[at..].find("</tr>").map_or(page.len(), |e| at + e);
    &page[start..end]
}

/// The cell of one replica in a partition's row.
fn replica_cell<'a>(row: &'a str, az: &str) -> &'a str {
    let at = row.find(&format!(r#"data-az="{az}""#)).unwrap();
    &row[at..at + row[at..].find("</td>").unwrap()]
}

/// A 9.5 KB item: 10 write units.
fn big_item(pk: &str, sk: usize) -> String {
    format!(
        r#"{{"TableName":"orders","Item":{{"PK":{{"S":"{pk}"}},"SK":{{"S":"{sk}"}},"pad":{{"S":"{}"}}}}}}"#,
        "x".repeat(9_700)
    )
}

fn small_item(pk: &str, sk: usize) -> String {
    format!(r#"{{"TableName":"orders","Item":{{"PK":{{"S":"{pk}"}},"SK":{{"S":"{sk}"}}}}}}"#)
}

#[test]
fn the_view_shows_the_throttled_partition_the_lagging_replica_and_the_log_tail() {
    let (addr, world) = start();
    let mut conn = Conn::open(addr);
    assert!(page(&mut conn).contains("No tables yet"));
    assert_eq!(
        get(&mut conn, "/_katas").header("location"),
        Some("/_katas/")
    );

    assert_eq!(
        conn.call(&ddb("CreateTable"), &create_table_body("orders"))
            .status,
        200
    );
    // A hot key: 10-unit writes to one partition key, all in the same simulated second,
    // past the partition's 1,000 WCU ceiling and the second of headroom above it.
    let mut throttled = 0;
    for i in 0..220 {
        let reply = conn.call(&ddb("PutItem"), &big_item("hot", i));
        match reply.status {
            200 => {}
            400 => {
                assert_eq!(reply.error_name(), "ThrottlingException");
                throttled += 1;
            }
            s => panic!("PutItem answered {s}"),
        }
    }
    assert!(throttled > 0, "the hot key was never throttled");
    let hot = world
        .partition_of("orders", &AttributeValue::S("hot".into()))
        .unwrap();

    // A cold key on another partition, whose follower is lagged through the fault form.
    let cold_key = (0..)
        .map(|i| format!("cold-{i}"))
        .find(|k| {
            world
                .partition_of("orders", &AttributeValue::S(k.clone()))
                .unwrap()
                != hot
        })
        .unwrap();
    let cold = world
        .partition_of("orders", &AttributeValue::S(cold_key.clone()))
        .unwrap();
    let leader = world.leader_az("orders", cold).unwrap().unwrap();
    let follower = engine::world::faults::Az::ALL
        .into_iter()
        .find(|az| *az != leader)
        .unwrap()
        .name();
    let lagged = post(
        &mut conn,
        &format!(
            "/_katas/fault?op=lag_replica&table=orders&partition={cold}&az={follower}&ms=60000"
        ),
        "",
    );
    assert_eq!(
        lagged.status,
        303,
        "{}",
        String::from_utf8_lossy(&lagged.body)
    );
    assert_eq!(
        lagged.header("location").unwrap(),
        format!(
            "/_katas/?done=orders+partition+{cold}%3A+replica+in+{follower}+lags+60000+ms+more"
        )
    );
    for i in 0..3 {
        assert_eq!(
            conn.call(&ddb("PutItem"), &small_item(&cold_key, i)).status,
            200
        );
    }

    let view = page(&mut conn);
    // The hot partition is marked, with its count; no other partition is.
    let row = partition_row(&view, hot);
    assert!(row.contains(r#"class="partition throttled""#), "{row}");
    assert!(row.contains(&format!("THROTTLED {throttled}×")), "{row}");
    assert!(
        row.contains(&format!("{throttled} throttled</title>")),
        "the chart names it: {row}"
    );
    assert_eq!(view.matches(r#"class="partition throttled""#).count(), 1);
    // The lagged follower is behind by the three writes, with the injected lag shown; the
    // leader is marked.
    let row = partition_row(&view, cold);
    let cell = replica_cell(row, follower);
    assert!(cell.contains("lag 3 writes"), "{cell}");
    assert!(cell.contains("+60000 ms injected"), "{cell}");
    assert!(
        replica_cell(row, leader.name()).contains(">leader"),
        "{row}"
    );
    // The log's tail, newest first: the three cold writes, then the hot key's last attempts.
    let log = &view[view.find(r#"<section class="log">"#).unwrap()..];
    let total = 1 + 220 + 3;
    assert!(
        log.contains(&format!("the last {} of {total}", serve::view::LOG_TAIL)),
        "{log}"
    );
    let first_row = &log[log.find(r#"<tr class="req"#).unwrap()..];
    assert!(
        first_row.starts_with(&format!(r#"<tr class="req"><td>{}</td>"#, total - 1)),
        "{first_row}"
    );
    assert!(first_row[..first_row.find("</tr>").unwrap()].contains("PutItem"));
    assert!(log.contains(r#"<tr class="req throttled">"#));
    assert!(log.contains(r#"<span class="badge bad">ThrottlingException</span>"#));

    // Looking is not a request: the log did not grow by the pages fetched.
    assert_eq!(world.request_totals().requests, total as u64);

    // Once the lag has passed, the follower has caught up.
    assert_eq!(post(&mut conn, "/_katas/advance?ms=61000", "").status, 200);
    let view = page(&mut conn);
    let cell = replica_cell(partition_row(&view, cold), follower);
    assert!(cell.contains("caught up"), "{cell}");
}

#[test]
fn the_fault_buttons_fail_and_heal_an_availability_zone() {
    let (addr, world) = start();
    let mut conn = Conn::open(addr);
    assert_eq!(
        conn.call(&ddb("CreateTable"), &create_table_body("orders"))
            .status,
        200
    );
    let partitions = world.partitions("orders").unwrap().len();

    // A form posted from another site's page is refused, and changes nothing.
    let refused = post(
        &mut conn,
        "/_katas/fault?op=fail_az&az=az-b",
        "Origin: http://evil.example\r\n",
    );
    assert_eq!(refused.status, 403);
    assert!(!page(&mut conn).contains("DOWN"));

    // The same form from the page itself (its fields in the body, as a browser sends them).
    let body = "op=fail_az&az=az-b";
    let failed = conn
        .raw(
            format!(
                "POST /_katas/fault HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost\r\n\
                 Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .unwrap();
    assert_eq!(failed.status, 303);
    let view = page(&mut conn);
    assert_eq!(
        view.matches(r#"data-az="az-b">DOWN"#).count(),
        partitions,
        "every replica in az-b"
    );

    assert_eq!(
        post(&mut conn, "/_katas/fault?op=heal_az&az=b", "").status,
        303
    );
    assert!(!page(&mut conn).contains(">DOWN"));

    let bad = post(
        &mut conn,
        "/_katas/fault?op=stop_leader&table=orders&partition=99",
        "",
    );
    assert_eq!(bad.status, 400);
    assert!(String::from_utf8_lossy(&bad.body).contains("no partition 99"));
}

#[test]
fn a_stopped_leader_shows_an_election_and_stream_shards_show_their_lineage() {
    let (addr, world) = start();
    let mut conn = Conn::open(addr);
    let spec = create_table_body("orders").replace(
        r#","BillingMode""#,
        r#","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"BillingMode""#,
    );
    assert_eq!(conn.call(&ddb("CreateTable"), &spec).status, 200);
    assert_eq!(conn.call(&ddb("PutItem"), &small_item("a", 1)).status, 200);
    let p = world
        .partition_of("orders", &AttributeValue::S("a".into()))
        .unwrap();
    assert_eq!(
        post(
            &mut conn,
            &format!("/_katas/fault?op=stop_leader&table=orders&partition={p}"),
            ""
        )
        .status,
        303
    );
    let view = page(&mut conn);
    let row = partition_row(&view, p);
    assert!(row.contains("ELECTING"), "{row}");
    assert_eq!(row.matches(">DOWN").count(), 1, "{row}");
    // One open shard per partition, the written one holding its record.
    let shards = &view[view.find(r#"<ul class="shards">"#).unwrap()..];
    assert!(
        shards.contains(&format!("partition {p} · 1 record · open")),
        "{shards}"
    );
}

/// A table `orders` (PK, SK) with a global index `by-status` on `st`, on demand.
fn table_with_index() -> String {
    r#"{"TableName":"orders","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"st","AttributeType":"S"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"by-status","KeySchema":[{"AttributeName":"st","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"BillingMode":"PAY_PER_REQUEST"}"#.into()
}

fn status_item(pk: &str, st: &str) -> String {
    format!(
        r#"{{"TableName":"orders","Item":{{"PK":{{"S":"{pk}"}},"SK":{{"S":"0"}},"st":{{"S":"{st}"}},"region":{{"S":"eu"}}}}}}"#
    )
}

/// The `<tr>` of one index.
fn index_row<'a>(page: &'a str, name: &str) -> &'a str {
    let at = page
        .find(&format!(r#"data-index="{name}""#))
        .unwrap_or_else(|| panic!("no index {name}"));
    &page[at..at + page[at..].find("</tr>").unwrap()]
}

#[test]
fn indexes_show_their_lag_and_backfill() {
    let (addr, _) = start();
    let mut conn = Conn::open(addr);
    assert_eq!(
        conn.call(&ddb("CreateTable"), &table_with_index()).status,
        200
    );
    for i in 0..5 {
        assert_eq!(
            conn.call(&ddb("PutItem"), &status_item(&format!("o{i}"), "open"))
                .status,
            200
        );
    }
    // The writes are on their way to the index (5-50 ms on the simulated clock).
    let row = index_row(&page(&mut conn), "by-status").to_string();
    assert!(row.contains("5 changes in flight"), "{row}");
    assert!(row.contains("<td>global</td><td>ACTIVE</td>"), "{row}");

    // An index added now is backfilled from the table's five items.
    let add = r#"{"TableName":"orders","AttributeDefinitions":[{"AttributeName":"region","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"by-region","KeySchema":[{"AttributeName":"region","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}"#;
    let updated = conn.call(&ddb("UpdateTable"), add);
    assert_eq!(
        updated.status,
        200,
        "{}",
        String::from_utf8_lossy(&updated.body)
    );
    let view = page(&mut conn);
    let row = index_row(&view, "by-region");
    assert!(row.contains("CREATING · backfilling"), "{row}");

    assert_eq!(post(&mut conn, "/_katas/advance?ms=5000", "").status, 200);
    let view = page(&mut conn);
    let row = index_row(&view, "by-status");
    assert!(
        row.contains("caught up") && row.contains("<td>5</td>"),
        "{row}"
    );
    let row = index_row(&view, "by-region");
    assert!(
        row.contains("<td>ACTIVE</td>") && !row.contains("backfilling"),
        "{row}"
    );
}

/// What the page's script swaps in on each refresh: its `<main id="live">`.
fn live_part(page: &str) -> &str {
    let start = page
        .find(r#"<main id="live">"#)
        .expect("the refreshed part");
    &page[start..start + page[start..].find("</main>").unwrap()]
}

#[test]
fn the_page_refreshes_itself_and_a_refresh_shows_a_write_that_arrived_between() {
    let (addr, _) = start();
    let mut conn = Conn::open(addr);
    assert_eq!(
        conn.call(&ddb("CreateTable"), &create_table_body("orders"))
            .status,
        200
    );
    let first = page(&mut conn);
    // The script fetches this same path every REFRESH_MS and swaps the part below.
    let script = &first[first.find("<script>").expect("the refresh script")..];
    assert!(script.contains("fetch(location.pathname"), "{script}");
    assert!(script.contains(r#"getElementById("live")"#), "{script}");
    assert!(
        script.contains(&format!("}},{})", serve::view::REFRESH_MS)),
        "{script}"
    );
    assert_eq!(first.matches(r#"<main id="live">"#).count(), 1);
    let before = live_part(&first).to_string();
    assert!(before.contains("1 requests"), "only the CreateTable so far");

    // A write arrives between two refreshes…
    assert_eq!(conn.call(&ddb("PutItem"), &small_item("a", 1)).status, 200);
    let second = page(&mut conn);
    let after = live_part(&second);
    // …and the next refresh shows it: the count, the item, the log's newest row.
    assert_ne!(before, after);
    assert!(after.contains("2 requests"), "{after}");
    assert!(after.contains("· 1 items ·"), "the table's item count");
    let log = &after[after.find(r#"class="log""#).unwrap()..];
    let newest = &log[log.find(r#"<tr class="req"#).unwrap()..];
    assert!(
        newest.starts_with(r#"<tr class="req"><td>1</td>"#),
        "{newest}"
    );
    assert!(newest.contains("<td>PutItem</td>"), "{newest}");
    // Looking is not a request: a third refresh with nothing sent is the second again.
    assert_eq!(live_part(&page(&mut conn)), after);
}

/// The `<tr>` of one partition of an index.
fn index_partition_row<'a>(page: &'a str, index: &str, id: u32) -> Option<&'a str> {
    let at = page.find(&format!(r#"data-index-partition="{index}/{id}""#))?;
    let start = page[..at].rfind("<tr").unwrap();
    Some(&page[start..at + page[at..].find("</tr>").unwrap()])
}

#[test]
fn a_global_index_has_partitions_with_charts_like_the_tables() {
    let (addr, world) = start();
    let mut conn = Conn::open(addr);
    // by-status projects every attribute: a 9.5 KB item costs the index 10 WCU too.
    let table = table_with_index().replace(r#"KEYS_ONLY"}}]"#, r#"ALL"}}]"#);
    assert!(table.contains(r#""ProjectionType":"ALL""#));
    assert_eq!(conn.call(&ddb("CreateTable"), &table).status, 200);
    let pad = "x".repeat(9_700);
    let mut throttled = 0;
    for i in 0..250 {
        let item = format!(
            r#"{{"TableName":"orders","Item":{{"PK":{{"S":"o{i}"}},"SK":{{"S":"0"}},"st":{{"S":"open"}},"pad":{{"S":"{pad}"}}}}}}"#
        );
        if conn.call(&ddb("PutItem"), &item).status != 200 {
            throttled += 1;
        }
    }
    assert!(
        throttled > 0,
        "one index key takes 2,500 WCU in a second, past its partition's ceiling and headroom"
    );
    let view = page(&mut conn);
    let metrics = world
        .partition_metrics("orders", Some("by-status"))
        .unwrap();
    let hot = metrics
        .iter()
        .find(|m| m.throttled_writes > 0)
        .expect("the index's partition throttled");
    let row =
        index_partition_row(&view, "by-status", hot.partition).expect("a row per index partition");
    assert!(row.contains(r#"<svg class="chart""#), "a chart: {row}");
    assert!(row.contains("THROTTLED"), "{row}");
    // The ceiling and the second of headroom above it, spent.
    assert!(row.contains("peak 2000 WCU/s"), "{row}");
    assert!(
        index_row(&view, "by-status").contains("THROTTLED"),
        "the index row says so too"
    );
    // No table partition is marked: the table's own partitions had room.
    assert!(!view.contains(r#"<tr class="partition throttled""#));
}

#[test]
fn a_global_table_shows_its_replicas_writes_on_the_way_and_conflicts() {
    use engine::types::{
        AttributeDefinition, BillingMode, CreateReplicationGroupMemberAction, KeySchemaElement,
        KeyType, ReplicationGroupUpdate, ScalarAttributeType,
    };
    let world = engine::World::new(3);
    let us = world.client_in("us-east-1");
    us.create_table()
        .table_name("app")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
    us.update_table()
        .table_name("app")
        .replica_updates(
            ReplicationGroupUpdate::builder()
                .create(
                    CreateReplicationGroupMemberAction::builder()
                        .region_name("eu-west-1")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .unwrap();
    let eu = world.client_in("eu-west-1");
    for client in [&us, &eu] {
        client
            .put_item()
            .table_name("app")
            .item("PK", AttributeValue::S("k".into()))
            .item(
                "from",
                AttributeValue::S(client.world().region().to_string()),
            )
            .send()
            .unwrap();
    }
    let header = serve::view::Header::Live {
        clock: "manual",
        flash: None,
    };
    let draw = || serve::view::draw(&serve::view::live_snapshot(&world), &header);
    let before = draw();
    assert!(before.contains("<h2>Regions</h2>"), "a section of its own");
    assert!(before.contains(r#"Table app <span class="region">in eu-west-1</span>"#));
    assert!(
        before.contains("2 writes on the way"),
        "each Region's write is on its way to the other"
    );
    assert!(
        before.contains(r#"<td>us-east-1</td><td>eu-west-1</td><td><code>{&quot;PK&quot;: S(&quot;k&quot;)}</code>"#),
        "the write, its link and its key"
    );
    world.fail_region("eu-west-1");
    assert!(draw().contains(r#"eu-west-1 <span class="badge bad">DOWN</span>"#));
    world.heal_region("eu-west-1");
    world.settle();
    let after = draw();
    assert!(after.contains("every replica caught up"), "{after}");
    assert!(after.contains("1 conflict</span> settled by last writer wins"));
    assert_eq!(after.matches(r#"<tr class="conflict">"#).count(), 1);
}

/// The browser on the PATH, if any (`KATAS_CHROMIUM` names another).
fn chromium() -> Option<String> {
    if let Ok(path) = std::env::var("KATAS_CHROMIUM") {
        return Some(path);
    }
    ["chromium-headless-shell", "chromium"]
        .into_iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(name))
                    .find(|p| p.is_file())
                    .map(|p| p.display().to_string())
            })
        })
}

/// Runs the browser headless on `url` with `args` (as root it needs `--no-sandbox`).
fn browse(browser: &str, args: &[&str], url: &str) -> std::process::Output {
    std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .args(["--window-size=1500,2000", "--virtual-time-budget=3000"])
        .args(args)
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {browser}: {e}"))
}

/// Outside the default set (it needs a browser): `cargo test -p katas-serve --test view --
/// --ignored`. The page a real browser builds (after its script ran) must show the throttled
/// partition and the lagging replica; the screenshot goes to `KATAS_SCREENSHOT` (default
/// `target/katas-live-view.png`), for CI to keep and a person to look at.
#[test]
#[ignore = "needs chromium or chromium-headless-shell"]
fn the_page_renders_in_a_headless_browser() {
    let browser = chromium().expect("no chromium-headless-shell or chromium on the PATH");
    let (addr, world) = start();
    let mut conn = Conn::open(addr);
    assert_eq!(
        conn.call(&ddb("CreateTable"), &table_with_index()).status,
        200
    );
    // Some seconds of ordinary traffic, then a hot key's burst in the last one.
    for second in 0..20 {
        for i in 0..(5 + second % 7) {
            conn.call(&ddb("PutItem"), &small_item(&format!("user-{i}"), second));
        }
        if second % 3 == 0 {
            conn.call(&ddb("PutItem"), &big_item("hot", second));
            conn.call(&ddb("PutItem"), &status_item(&format!("o{second}"), "open"));
        }
        post(&mut conn, "/_katas/advance?ms=1000", "");
    }
    // A new table is born with its burst bank full (300 s of its rate), so the hot key writes
    // through the bank first; the burst ends after a few throttles.
    let mut throttled = 0;
    for i in 0..5_000 {
        if conn.call(&ddb("PutItem"), &big_item("hot", 100 + i)).status == 400 {
            throttled += 1;
            if throttled == 10 {
                break;
            }
        }
    }
    assert!(
        throttled > 0,
        "5,000 writes of the hot key were all admitted"
    );
    let hot = world
        .partition_of("orders", &AttributeValue::S("hot".into()))
        .unwrap();
    let cold = (0..)
        .map(|i| format!("user-{i}"))
        .find(|k| {
            world
                .partition_of("orders", &AttributeValue::S(k.clone()))
                .unwrap()
                != hot
        })
        .unwrap();
    let cold_p = world
        .partition_of("orders", &AttributeValue::S(cold.clone()))
        .unwrap();
    let leader = world.leader_az("orders", cold_p).unwrap().unwrap();
    let follower = engine::world::faults::Az::ALL
        .into_iter()
        .find(|az| *az != leader)
        .unwrap();
    let lag = format!(
        "/_katas/fault?op=lag_replica&table=orders&partition={cold_p}&az={}&ms=30000",
        follower.name()
    );
    assert_eq!(post(&mut conn, &lag, "").status, 303);
    for i in 0..4 {
        conn.call(&ddb("PutItem"), &small_item(&cold, 1000 + i));
    }
    assert_eq!(
        post(&mut conn, "/_katas/fault?op=fail_az&az=az-c", "").status,
        303
    );
    let add = r#"{"TableName":"orders","AttributeDefinitions":[{"AttributeName":"region","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"by-region","KeySchema":[{"AttributeName":"region","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}"#;
    assert_eq!(conn.call(&ddb("UpdateTable"), add).status, 200);

    let url = format!("http://{addr}/_katas/");
    let dom = browse(&browser, &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&dom.stdout);
    let row = partition_row(&dom, hot);
    assert!(row.contains(&format!("THROTTLED {throttled}×")), "{row}");
    let cell = replica_cell(partition_row(&dom, cold_p), follower.name());
    assert!(cell.contains("lag 4 writes"), "{cell}");

    let shot = std::env::var("KATAS_SCREENSHOT").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../target/katas-live-view.png").into()
    });
    let _ = std::fs::remove_file(&shot);
    if let Some(dir) = std::path::Path::new(&shot).parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let out = browse(&browser, &[&format!("--screenshot={shot}")], &url);
    let png = std::fs::read(&shot).unwrap_or_else(|e| {
        panic!(
            "no screenshot at {shot} ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(png.starts_with(b"\x89PNG"), "the screenshot is a PNG");
    println!("screenshot: {shot}");
}
