//! CSV for gradebooks: a header `learner,name,<kata>…,total,max_score`, then one row per
//! learner with the points of each kata.

use crate::grade::Grades;

pub(super) fn render(g: &Grades) -> String {
    let mut out = String::new();
    let mut header = vec!["learner".to_string(), "name".to_string()];
    header.extend(g.katas.iter().map(|k| k.kata.clone()));
    header.push("total".into());
    header.push("max_score".into());
    push_row(&mut out, &header);
    for l in &g.learners {
        let mut row = vec![l.learner.clone(), l.name.clone().unwrap_or_default()];
        row.extend(l.katas.iter().map(|k| k.score.to_string()));
        row.push(l.score.to_string());
        row.push(l.max_score.to_string());
        push_row(&mut out, &row);
    }
    out
}

fn push_row(out: &mut String, fields: &[String]) {
    let cells: Vec<String> = fields.iter().map(|f| field(f)).collect();
    out.push_str(&cells.join(","));
    out.push('\n');
}

/// RFC 4180 quoting; a leading `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet
/// never runs a learner-chosen name as a formula.
fn field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}
