//! The Regions of the page: which are up, and each global table's replicas, the writes on
//! their way between them, and the conflicts last writer wins settled.
//!
//! ```text
//!  Regions   local-1 up · eu-west-1 DOWN
//!  Global table app   replicas: us-east-1 (12 items) · eu-west-1 (11 items)
//!    pending  us-east-1 → eu-west-1  {"PK": S("a")}  written 3.200 s, due +0.400 s
//!    conflict {"PK": S("a")}  kept us-east-1 @ 3.200 s, lost eu-west-1 @ 3.100 s
//! ```
//!
//! Drawn only for a world with more than one Region (every kata but global-tables has one,
//! and a page about Regions it does not use would be noise). Each Region's tables are drawn
//! above with the others, named "in" and the Region.

use std::fmt::Write as _;

use engine::world::snapshot::{GlobalTableSnapshot, Snapshot};

use super::esc;
use super::page::seconds;

/// The Regions section, when the world has more than one Region.
pub fn section(out: &mut String, snap: &Snapshot) {
    if snap.regions.len() < 2 && snap.global_tables.is_empty() {
        return;
    }
    out.push_str(r#"<section class="regions"><h2>Regions</h2><p>"#);
    for (i, r) in snap.regions.iter().enumerate() {
        let _ = write!(
            out,
            r#"{}<span class="region-state" data-region="{}">{} {}</span>"#,
            if i > 0 { " · " } else { "" },
            esc(&r.name),
            esc(&r.name),
            if r.up {
                r#"<span class="ok">up</span>"#
            } else {
                r#"<span class="badge bad">DOWN</span>"#
            }
        );
    }
    out.push_str("</p>");
    for g in &snap.global_tables {
        global_table(out, snap, g);
    }
    out.push_str("</section>");
}

fn global_table(out: &mut String, snap: &Snapshot, g: &GlobalTableSnapshot) {
    let replicas: Vec<String> = g
        .replicas
        .iter()
        .map(|r| {
            let items = snap
                .tables
                .iter()
                .find(|t| t.name == g.table && &t.region == r)
                .map_or(String::new(), |t| format!(" ({} items)", t.item_count));
            format!("{}{items}", esc(r))
        })
        .collect();
    let _ = write!(
        out,
        r#"<div class="global" data-global="{t}"><h3>Global table {t} <small>replicas: {}</small></h3>"#,
        replicas.join(" · "),
        t = esc(&g.table),
    );
    let _ = write!(
        out,
        r#"<p class="pending">{}</p>"#,
        match g.pending_count {
            0 => r#"<span class="ok">every replica caught up</span>"#.to_string(),
            n => format!(
                r#"<span class="lag">{n} write{} on the way</span> between replicas{}"#,
                if n == 1 { "" } else { "s" },
                if n > g.pending.len() {
                    format!(" (the first {} below)", g.pending.len())
                } else {
                    String::new()
                }
            ),
        }
    );
    if !g.pending.is_empty() {
        out.push_str(r#"<table class="pending"><tr><th>from</th><th>to</th><th>key</th><th>written</th><th>due</th></tr>"#);
        for p in &g.pending {
            let _ = write!(
                out,
                r#"<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>"#,
                esc(&p.from),
                esc(&p.to),
                esc(&p.key),
                seconds(p.written_ms),
                if p.due_ms <= snap.now_ms {
                    "now (waits for a Region that is down)".to_string()
                } else {
                    format!("+{}", seconds(p.due_ms - snap.now_ms))
                }
            );
        }
        out.push_str("</table>");
    }
    if g.conflict_count == 0 {
        out.push_str(r#"<p class="conflicts">no conflicts</p></div>"#);
        return;
    }
    let _ = write!(
        out,
        r#"<p class="conflicts"><span class="badge bad">{} conflict{}</span> settled by last writer wins: the losing write is gone, in every replica{}</p><table class="conflicts"><tr><th>key</th><th>kept</th><th>lost</th><th>detected</th></tr>"#,
        g.conflict_count,
        if g.conflict_count == 1 { "" } else { "s" },
        if g.conflict_count > g.conflicts.len() {
            format!(" (the latest {} below)", g.conflicts.len())
        } else {
            String::new()
        }
    );
    for c in &g.conflicts {
        let _ = write!(
            out,
            r#"<tr class="conflict"><td><code>{}</code></td><td>{} @ {}</td><td class="lost">{} @ {}</td><td>in {} at {}</td></tr>"#,
            esc(&c.key),
            esc(&c.winner_region),
            seconds(c.winner_at_us / 1000),
            esc(&c.loser_region),
            seconds(c.loser_at_us / 1000),
            esc(&c.detected_in),
            seconds(c.detected_at_us / 1000),
        );
    }
    out.push_str("</table></div>");
}
