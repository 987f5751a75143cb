//! Text a submission controls — file and learner names, compiler messages from its
//! `compile_error!`, its test failures and printed values — reaches the instructor's terminal,
//! a spreadsheet and XML. Every such text passes through here once, when it enters the
//! report, so no format can forget: escape sequences and control characters are removed (an
//! escape code could erase lines or paint a fake row; a bidirectional override could reorder
//! one) and lengths are capped (a 10 MB panic message must not become a 10 MB report).
//!
//! Design decision: clean at the source (staging, scoring) rather than in each renderer. The
//! JSON report is itself read by other tools and terminals, and one rule in one place is one
//! rule to check.

/// Longest message kept from a test or a verdict (failure message, reason), in characters.
pub const MAX_MESSAGE: usize = 2_000;
/// Longest expected or actual value kept, in characters.
pub const MAX_VALUE: usize = 4_000;
/// Longest name kept (learner, file), in characters.
pub const MAX_NAME: usize = 120;

/// `s` without escape sequences or control characters (tabs and newlines are kept), cut to
/// `cap` characters with a note of how much was cut.
pub fn clean(s: &str, cap: usize) -> String {
    let plain = crate::text::strip_ansi(s);
    let mut out = String::with_capacity(plain.len().min(cap * 4));
    let mut kept = 0usize;
    let mut cut = 0usize;
    for c in plain
        .chars()
        .filter(|&c| !is_control(c) || c == '\n' || c == '\t')
    {
        if kept < cap {
            out.push(c);
            kept += 1;
        } else {
            cut += 1;
        }
    }
    if cut > 0 {
        out.push_str(&format!("… ({cut} more characters cut)"));
    }
    out
}

/// [`clean`] on one line: newlines and tabs become spaces (a name or a table note must not
/// start a row of its own).
pub fn one_line(s: &str, cap: usize) -> String {
    clean(s, cap)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect()
}

/// C0 and C1 controls, DEL, and the Unicode formatting characters that reorder or hide text
/// (bidirectional overrides and isolates, zero-width joiners and marks).
fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// The wall-clock time now, as RFC 3339 in UTC (`2025-03-01T09:30:00Z`), for a report's
/// timestamp. (The grader's clock, never the engine's: the engine has none.)
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the Unix epoch as RFC 3339 UTC (Howard Hinnant's days-to-civil algorithm).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_740_821_400), "2025-03-01T09:30:00Z");
    }

    use super::*;

    #[test]
    fn escape_codes_and_controls_are_removed() {
        let s = "ok\x1b[2K\x1b[1A\rfake row\x07\u{202e}txt.rs\u{0085}";
        assert_eq!(clean(s, 100), "okfake rowtxt.rs");
        assert_eq!(one_line("a\nb\tc", 100), "a b c");
    }

    #[test]
    fn long_text_is_cut_with_a_count() {
        let s = "x".repeat(2_500);
        let c = clean(&s, 2_000);
        assert!(c.starts_with(&"x".repeat(2_000)));
        assert!(c.ends_with("… (500 more characters cut)"), "{c}");
    }
}
