//! The page: one section per table, then the request log's tail — drawn from a
//! [`Snapshot`], whether of the running world or of a failing run's saved one.

use std::fmt::Write as _;

use engine::world::faults::Az;
use engine::world::snapshot::{
    IndexSnapshot, PartitionSnapshot, RequestSnapshot, Snapshot, StreamSnapshot, TableSnapshot,
};

use super::chart::{self, Series};
use super::{esc, REFRESH_MS};

/// Where the picture comes from, and what the page adds to the world's own state.
#[derive(Debug)]
pub enum Header<'a> {
    /// The running server's world: fault buttons, refreshed every [`REFRESH_MS`].
    Live {
        /// `real` or `manual`.
        clock: &'a str,
        /// What the last fault did (the `done` of the redirect after a fault form).
        flash: Option<&'a str>,
    },
    /// A kata's failing run, saved by its hidden test: read-only, drawn once.
    Saved {
        kata: &'a str,
        test: &'a str,
        seed: Option<u64>,
        message: &'a str,
    },
}

impl Header<'_> {
    fn live(&self) -> bool {
        matches!(self, Header::Live { .. })
    }
}

/// The whole page.
pub fn draw(snap: &Snapshot, header: &Header) -> String {
    let (from, to) = snap.window;
    let ceilings = (snap.partition_read_ceiling, snap.partition_write_ceiling);
    let several_regions = snap.regions.len() > 1;
    let mut out = String::with_capacity(64 * 1024);
    let title = match header {
        Header::Live { .. } => "katas serve — live view".to_string(),
        Header::Saved { kata, .. } => format!("{kata} — the failing run"),
    };
    let _ = write!(
        out,
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{}</title><style>{STYLE}</style></head><body>"#,
        esc(&title)
    );
    if let Header::Live {
        flash: Some(flash), ..
    } = header
    {
        let _ = write!(out, r#"<p class="flash">{}</p>"#, esc(flash));
    }
    let source = match header {
        Header::Live { clock, .. } => format!("clock {}", esc(clock)),
        Header::Saved { .. } => "saved when the test failed".to_string(),
    };
    let _ = write!(
        out,
        r#"<main id="live"><header><h1>DynamoDB Katas — {}</h1>"#,
        match header {
            Header::Live { .. } => "live view".to_string(),
            Header::Saved { kata, .. } =>
                format!("inside the failing run of <code>{}</code>", esc(kata)),
        }
    );
    if let Header::Saved {
        test,
        seed,
        message,
        ..
    } = header
    {
        let _ = write!(
            out,
            r#"<p class="failed">test <b>{}</b>{} failed: {}</p>"#,
            esc(test),
            seed.map_or(String::new(), |s| format!(" (seed {s})")),
            esc(message)
        );
    }
    let _ = write!(
        out,
        r#"<p class="meta">simulated time <b>{}</b> · {source} · {} requests · <span class="{}">{} throttled</span> · {} errors · charts: seconds {from}–{to} ({}), per second · ceiling per partition {:.0} WCU / {:.0} RCU</p></header>"#,
        seconds(snap.now_ms),
        snap.requests,
        if snap.throttled > 0 { "bad" } else { "" },
        snap.throttled,
        snap.errors,
        esc(&snap.window_end),
        ceilings.1,
        ceilings.0,
    );
    // A test that clears the request log after its workload (to count only what follows)
    // resets the totals above, but not the partitions' per-second counts.
    let partition_throttles: u64 = snap
        .tables
        .iter()
        .flat_map(|t| &t.partitions)
        .flat_map(|p| &p.seconds)
        .map(|s| s.throttled_reads + s.throttled_writes)
        .sum();
    if partition_throttles > snap.throttled {
        let _ = write!(
            out,
            r#"<p class="meta">The partitions below throttled <b class="lag">{partition_throttles}</b> requests in these seconds: the request log was cleared after them, so its counts above start later.</p>"#
        );
    }
    if header.live() {
        fault_bar(&mut out);
    }
    if snap.tables.is_empty() {
        out.push_str(match header {
            Header::Live { .. } => r#"<p class="empty">No tables yet: create one, e.g. <code>aws dynamodb create-table … --endpoint-url http://127.0.0.1:8000</code></p>"#,
            Header::Saved { .. } => r#"<p class="empty">The failing test's world had no tables.</p>"#,
        });
    }
    for t in &snap.tables {
        let region = several_regions.then_some(t.region.as_str());
        table_section(&mut out, t, region, (from, to), ceilings, header.live());
        indexes_section(&mut out, t, snap.now_ms, (from, to), ceilings);
        if let Some(stream) = &t.stream {
            stream_section(&mut out, stream);
        }
        out.push_str("</section>");
    }
    super::regions::section(&mut out, snap);
    log_section(&mut out, &snap.log, snap.requests);
    out.push_str("</main>");
    if header.live() {
        let _ = write!(
            out,
            "<script>{}</script>",
            SCRIPT.replace("REFRESH_MS", &REFRESH_MS.to_string())
        );
    }
    out.push_str("</body></html>");
    out
}

fn fault_bar(out: &mut String) {
    out.push_str(r#"<section class="faults"><h2>Faults</h2>"#);
    for az in Az::ALL {
        let n = az.name();
        let _ = write!(
            out,
            r#"<span class="az">{n} {}{}</span>"#,
            button(&format!("op=fail_az&az={n}"), "fail", "danger"),
            button(&format!("op=heal_az&az={n}"), "heal", ""),
        );
    }
    out.push_str(&button("op=heal_all", "heal all", ""));
    out.push_str(r#"<span class="hint">per partition: stop its leader, lag a replica (in the partition rows)</span></section>"#);
}

/// A form that is one button posting `query` to the fault route.
fn button(query: &str, label: &str, class: &str) -> String {
    format!(
        r#"<form method="post" action="/_katas/fault?{}"><button class="{class}">{}</button></form>"#,
        esc(query),
        esc(label)
    )
}

fn table_section(
    out: &mut String,
    t: &TableSnapshot,
    region: Option<&str>,
    window: (u64, u64),
    ceilings: (f64, f64),
    live: bool,
) {
    let mode = match (t.billing_mode.as_str(), t.provisioned) {
        ("PROVISIONED", Some((r, w))) => format!("provisioned {r} RCU / {w} WCU (table-wide)"),
        ("PROVISIONED", None) => "provisioned".into(),
        _ => "on-demand".into(),
    };
    let n = t.partitions.len();
    let _ = write!(
        out,
        r#"<section class="table" id="table-{name}"><h2>Table {name}{} <small>{} · {mode} · {} items · {} · {n} partition{}</small></h2>"#,
        region.map_or(String::new(), |r| format!(
            r#" <span class="region">in {}</span>"#,
            esc(r)
        )),
        esc(&t.status),
        t.item_count,
        bytes(t.bytes),
        if n == 1 { "" } else { "s" },
        name = esc(&t.name),
    );
    let rows = Rows {
        // Fault buttons act on the running world's table partitions only.
        faults_of: live.then_some(t.name.as_str()),
        // A failing run is read for its busy partitions: forty idle rows would bury them.
        collapse_idle: !live,
        index: None,
    };
    partitions_table(out, &t.partitions, window, ceilings, &rows);
}

/// How [`partitions_table`] draws its rows.
struct Rows<'a> {
    /// The table whose partitions get fault buttons (the live page's table partitions).
    faults_of: Option<&'a str>,
    /// Fold partitions with nothing to show into one row (when there are many).
    collapse_idle: bool,
    /// The index whose partitions these are (`None`: the table's own).
    index: Option<&'a str>,
}

/// A partition with nothing to show in the window: no load, no items, a leader, every
/// replica up and caught up.
fn idle(p: &PartitionSnapshot) -> bool {
    p.seconds.is_empty()
        && p.item_count == 0
        && p.leader.is_some()
        && p.replicas
            .iter()
            .all(|r| r.up && r.lag_writes == 0 && r.extra_lag_ms == 0)
}

/// The partitions of a table or of a global index: hash range, items, replicas by AZ, the
/// per-second chart, and (live, table) the fault buttons.
fn partitions_table(
    out: &mut String,
    partitions: &[PartitionSnapshot],
    (from, to): (u64, u64),
    ceilings: (f64, f64),
    rows: &Rows,
) {
    let class = if rows.index.is_some() {
        "partitions of-index"
    } else {
        "partitions"
    };
    let _ = write!(
        out,
        r#"<table class="{class}"><tr><th>partition</th><th>hash range</th><th>items</th><th>size</th>"#
    );
    let azs: Vec<&str> = partitions
        .first()
        .map(|p| p.replicas.iter().map(|r| r.az.as_str()).collect())
        .unwrap_or_default();
    for az in &azs {
        let _ = write!(out, "<th>{}</th>", esc(az));
    }
    out.push_str("<th>capacity per second</th>");
    if rows.faults_of.is_some() {
        out.push_str("<th>faults</th>");
    }
    out.push_str("</tr>");
    let folded: Vec<u32> = if rows.collapse_idle && partitions.len() > COLLAPSE_OVER {
        partitions
            .iter()
            .filter(|p| idle(p))
            .map(|p| p.id)
            .collect()
    } else {
        Vec::new()
    };
    let mut folded_row_drawn = false;
    for p in partitions {
        if folded.contains(&p.id) {
            if !folded_row_drawn {
                folded_row_drawn = true;
                let _ = write!(
                    out,
                    r#"<tr class="idle"><td colspan="{}">partitions {}: idle in these seconds (no load, no items, replicas caught up)</td></tr>"#,
                    5 + azs.len(),
                    id_ranges(&folded)
                );
            }
            continue;
        }
        let series = Series::of(&p.seconds, from, to);
        let throttled = series.throttled_total();
        let (row_class, data) = match rows.index {
            None => ("partition", format!(r#"data-partition="{}""#, p.id)),
            Some(i) => (
                "ipartition",
                format!(r#"data-index-partition="{}/{}""#, esc(i), p.id),
            ),
        };
        let _ = write!(
            out,
            r#"<tr class="{row_class}{}" {data}><td class="pid">{}{}</td><td><code>{}</code></td><td>{}</td><td>{}</td>"#,
            if throttled > 0 { " throttled" } else { "" },
            p.id,
            match (throttled, &p.leader) {
                (0, Some(_)) => String::new(),
                (0, None) => r#"<br><span class="badge warn">ELECTING</span>"#.into(),
                (n, _) => format!(r#"<br><span class="badge bad">THROTTLED {n}×</span>"#),
            },
            hash_range(p.hash_range),
            p.item_count,
            bytes(p.bytes),
        );
        replica_cells(out, p);
        let label = match rows.index {
            None => format!("partition {}", p.id),
            Some(i) => format!("index {i}, partition {}", p.id),
        };
        let _ = write!(
            out,
            r#"<td>{}<div class="caption">peak {:.0} WCU/s · {:.0} RCU/s{}</div></td>"#,
            chart::svg(&label, &series, ceilings),
            series.peak_write(),
            series.peak_read(),
            if throttled > 0 {
                format!(" · {throttled} requests throttled")
            } else {
                String::new()
            }
        );
        if let Some(table) = rows.faults_of {
            partition_faults(out, table, p);
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// `[0, 1, 2, 4, 6, 7]` → `0–2, 4, 6–7`.
fn id_ranges(ids: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}–{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// Partitions a table may have before idle ones are folded (a failing run's page).
const COLLAPSE_OVER: usize = 6;

fn replica_cells(out: &mut String, p: &PartitionSnapshot) {
    for r in &p.replicas {
        let leader = p.leader.as_deref() == Some(r.az.as_str());
        let (class, role) = match (r.up, leader) {
            (false, _) => ("replica down", "DOWN"),
            (true, true) => ("replica leader", "leader"),
            (true, false) => ("replica", "follower"),
        };
        let mut detail = String::new();
        if r.lag_writes > 0 || !r.up {
            let _ = write!(
                detail,
                r#"<br><span class="lag">lag {} write{}</span>"#,
                r.lag_writes,
                if r.lag_writes == 1 { "" } else { "s" }
            );
        } else if !leader && r.up {
            detail.push_str(r#"<br><span class="ok">caught up</span>"#);
        }
        if r.extra_lag_ms > 0 {
            let _ = write!(
                detail,
                r#"<br><span class="lag">+{} ms injected</span>"#,
                r.extra_lag_ms
            );
        }
        let _ = write!(
            out,
            r#"<td class="{class}" data-az="{}">{role}{detail}</td>"#,
            esc(&r.az)
        );
    }
}

fn partition_faults(out: &mut String, table: &str, p: &PartitionSnapshot) {
    let t = esc(table);
    let _ = write!(
        out,
        r#"<td class="controls">{}<form method="post" action="/_katas/fault"><input type="hidden" name="op" value="lag_replica"><input type="hidden" name="table" value="{t}"><input type="hidden" name="partition" value="{}"><select name="az">"#,
        button(
            &format!("op=stop_leader&table={table}&partition={}", p.id),
            "stop leader",
            "danger"
        ),
        p.id
    );
    // The first follower is the likely choice: a lagging leader changes nothing.
    let pick = p
        .replicas
        .iter()
        .map(|r| r.az.as_str())
        .find(|az| p.leader.as_deref() != Some(*az));
    for r in &p.replicas {
        let selected = if pick == Some(r.az.as_str()) {
            " selected"
        } else {
            ""
        };
        let _ = write!(out, r#"<option{selected}>{}</option>"#, esc(&r.az));
    }
    out.push_str(r#"</select><input type="number" name="ms" value="5000" min="0" max="3600000" step="100" required> ms <button>lag replica</button></form></td>"#);
}

fn indexes_section(
    out: &mut String,
    t: &TableSnapshot,
    now_ms: u64,
    window: (u64, u64),
    ceilings: (f64, f64),
) {
    if t.indexes.is_empty() {
        return;
    }
    out.push_str(r#"<h3>Secondary indexes</h3><table class="indexes"><tr><th>index</th><th>kind</th><th>status</th><th>lag</th><th>items</th><th>size</th><th>partitions</th></tr>"#);
    for i in &t.indexes {
        let throttled: u64 = i
            .partitions
            .iter()
            .flat_map(|p| &p.seconds)
            .filter(|s| (window.0..=window.1).contains(&s.second))
            .map(|s| s.throttled_reads + s.throttled_writes)
            .sum();
        let _ = write!(
            out,
            r#"<tr class="index{}" data-index="{}"><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            if throttled > 0 { " throttled" } else { "" },
            esc(&i.name),
            esc(&i.name),
            if throttled > 0 {
                format!(r#"<br><span class="badge bad">THROTTLED {throttled}×</span>"#)
            } else {
                String::new()
            },
            if i.global { "global" } else { "local" },
            index_status(i, now_ms),
            index_lag(i, now_ms),
            i.item_count,
            bytes(i.bytes),
            if i.global {
                format!("{} (below)", i.partitions.len())
            } else {
                "lives in the table's partitions".to_string()
            },
        );
    }
    out.push_str("</table>");
    // Each global index's partitions, with the same charts as the table's: an index has
    // capacity of its own, and a hot index key throttles writes to the table.
    for i in t.indexes.iter().filter(|i| i.global) {
        let _ = write!(
            out,
            r#"<h4>Index {} <small>its own partitions and capacity</small></h4>"#,
            esc(&i.name)
        );
        let rows = Rows {
            faults_of: None,
            collapse_idle: true,
            index: Some(&i.name),
        };
        partitions_table(out, &i.partitions, window, ceilings, &rows);
    }
}

fn index_status(i: &IndexSnapshot, now_ms: u64) -> String {
    match i.backfill_due_ms {
        Some(due) => format!(
            r#"<span class="badge warn">{} · backfilling</span> done in {}"#,
            esc(&i.status),
            seconds(due.saturating_sub(now_ms))
        ),
        None => esc(&i.status),
    }
}

fn index_lag(i: &IndexSnapshot, now_ms: u64) -> String {
    match (i.global, i.caught_up_at_ms) {
        (false, _) => "none (updated with the table)".into(),
        (_, None) => r#"<span class="ok">caught up</span>"#.into(),
        (_, Some(due)) => format!(
            r#"<span class="lag">{} change{} in flight</span>, all in by {}"#,
            i.pending_changes,
            if i.pending_changes == 1 { "" } else { "s" },
            if due <= now_ms {
                "now".to_string()
            } else {
                format!("+{}", seconds(due - now_ms))
            }
        ),
    }
}

fn stream_section(out: &mut String, s: &StreamSnapshot) {
    let _ = write!(
        out,
        r#"<h3>Stream <small>{} · {}{}</small></h3><ul class="shards">"#,
        esc(&s.label),
        esc(&s.view_type),
        if s.disabled { " · disabled" } else { "" }
    );
    // Roots first, each followed by its descendants, indented by generation.
    fn walk(out: &mut String, s: &StreamSnapshot, parent: Option<&str>, depth: usize) {
        for sh in s
            .shards
            .iter()
            .filter(|sh| sh.parent_shard_id.as_deref() == parent)
        {
            let _ = write!(
                out,
                r#"<li style="margin-left:{}em" class="shard{}">{}{} · partition {} · {} record{} · {}</li>"#,
                depth * 2,
                if sh.open { " open" } else { "" },
                if depth > 0 { "└ " } else { "" },
                esc(&sh.shard_id),
                sh.partition,
                sh.records,
                if sh.records == 1 { "" } else { "s" },
                if sh.open { "open" } else { "closed (split)" }
            );
            walk(out, s, Some(&sh.shard_id), depth + 1);
        }
    }
    walk(out, s, None, 0);
    // A shard whose parent was trimmed away is a root too.
    let ids: Vec<&str> = s.shards.iter().map(|sh| sh.shard_id.as_str()).collect();
    for sh in &s.shards {
        if let Some(p) = sh.parent_shard_id.as_deref().filter(|p| !ids.contains(p)) {
            walk(out, s, Some(p), 0);
        }
    }
    out.push_str("</ul>");
}

fn log_section(out: &mut String, records: &[RequestSnapshot], total: u64) {
    let _ = write!(
        out,
        r#"<section class="log"><h2>Request log <small>the last {} of {total}, newest first</small></h2><table class="log"><tr><th>#</th><th>time</th><th>operation</th><th>table / index</th><th>partitions</th><th>RCU</th><th>WCU</th><th>outcome</th></tr>"#,
        records.len()
    );
    for r in records.iter().rev() {
        let partitions: Vec<String> = r.partitions.iter().map(u32::to_string).collect();
        let target = match &r.index {
            Some(i) => format!("{} / {}", r.tables.join(", "), i),
            None => r.tables.join(", "),
        };
        let outcome = match &r.error {
            None => r#"<span class="ok">ok</span>"#.to_string(),
            Some(e) if r.throttled => format!(r#"<span class="badge bad">{}</span>"#, esc(e)),
            Some(e) => format!(r#"<span class="err">{}</span>"#, esc(e)),
        };
        let _ = write!(
            out,
            r#"<tr class="req{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{outcome}</td></tr>"#,
            if r.throttled { " throttled" } else { "" },
            r.seq,
            seconds(r.at_ms),
            esc(&r.operation),
            esc(&target),
            partitions.join(" "),
            units(r.read_units),
            units(r.write_units),
        );
    }
    out.push_str("</table></section>");
}

/// The first four hex digits of each end: enough to see how the key space is cut.
fn hash_range((start, end): (u64, u64)) -> String {
    format!("{:04x}…–{:04x}…", start >> 48, end >> 48)
}

pub(super) fn seconds(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}

fn units(u: f64) -> String {
    if u == 0.0 {
        "·".into()
    } else {
        format!("{u}")
    }
}

fn bytes(n: usize) -> String {
    match n {
        n if n < 10 * 1024 => format!("{n} B"),
        n if n < 10 * 1024 * 1024 => format!("{} KB", n / 1024),
        n => format!("{} MB", n / (1024 * 1024)),
    }
}

const STYLE: &str = "\
body{font:13px/1.35 system-ui,sans-serif;margin:0;background:#fafafa;color:#1f2328}\
main{padding:10px 16px}h1{font-size:18px;margin:4px 0}h2{font-size:15px;margin:14px 0 6px}\
h3{font-size:13px;margin:10px 0 4px}h4{font-size:12px;margin:8px 0 3px}\
tr.idle td{color:#57606a;font-style:italic}tr.index.throttled>td:first-child{background:#ffebe9}small{font-weight:normal;color:#57606a}\
.meta{color:#57606a;margin:2px 0}.failed{background:#ffebe9;border-left:4px solid #cf222e;margin:6px 0;padding:4px 8px;white-space:pre-wrap}\
.region{color:#8250df}.flash{background:#fff8c5;margin:0;padding:4px 16px}\
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d0d7de;padding:3px 6px;\
vertical-align:top;text-align:left}th{background:#f6f8fa;font-weight:600}\
tr.throttled>td.pid,tr.req.throttled{background:#ffebe9}\
.badge{display:inline-block;border-radius:3px;padding:0 4px;font-size:11px;font-weight:600}\
.bad{background:#cf222e;color:#fff}.warn{background:#bf8700;color:#fff}.ok{color:#1a7f37}\
.err{color:#9a6700}.lag{color:#bc4c00;font-weight:600}\
td.leader{background:#dafbe1}td.down{background:#ffebe9;color:#cf222e;font-weight:600}\
.caption{color:#57606a;font-size:11px}form{display:inline;margin:0 2px}\
.controls form{display:block;margin:2px 0}.faults .az{margin-right:12px}\
button{font-size:12px;cursor:pointer}button.danger{color:#cf222e}.hint{color:#57606a}\
svg.chart{display:block;background:#fff}svg text{font-size:9px;fill:#57606a}\
svg text.thr{fill:#cf222e;font-weight:600}rect.thr{fill:#cf222e;opacity:.25}\
line.axis{stroke:#8c959f}line.wcap{stroke:#0969da;stroke-dasharray:3 3}\
line.rcap{stroke:#1a7f37;stroke-dasharray:3 3}polyline{fill:none;stroke-width:1.5}\
polyline.write{stroke:#0969da}polyline.read{stroke:#1a7f37}\
.ipart{white-space:nowrap}.ipart.throttled{color:#cf222e}ul.shards{margin:0;padding-left:16px}\
li.shard.open{font-weight:600}code{font-size:12px}";

/// Fetches the page every `REFRESH_MS` and swaps its `<main>`, except while a form field
/// has focus (a lag being typed) or a fetch is still out.
const SCRIPT: &str = r#"(function(){var busy=false;setInterval(function(){var a=document.activeElement;if(busy||document.hidden||(a&&a.form))return;busy=true;fetch(location.pathname,{cache:"no-store"}).then(function(r){return r.text()}).then(function(t){var n=new DOMParser().parseFromString(t,"text/html").getElementById("live");if(n)document.getElementById("live").replaceWith(n)}).catch(function(){}).finally(function(){busy=false})},REFRESH_MS)})();"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_partitions_are_named_as_ranges() {
        assert_eq!(id_ranges(&[0, 1, 2, 4, 6, 7]), "0–2, 4, 6–7");
        assert_eq!(id_ranges(&[5]), "5");
        assert_eq!(id_ranges(&[]), "");
    }
}
