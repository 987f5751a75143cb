//! One partition's last minutes as an SVG chart, drawn on the server.
//!
//! ```text
//!  12 ┤      ╭─╮                 write units consumed per second (blue)
//!     │  ╭───╯ ╰──╮   ▒          read units consumed per second (green)
//!   0 ┼──╯        ╰───▒──────    ▒ a second with throttled requests (red band, count on top)
//!     −120 s               now
//! ```
//!
//! The y axis is scaled to the window's peak, not to the partition's hardware ceiling: a hot
//! key that is throttled at 5 WCU of a provisioned table would be a flat line against 1,000.
//! The ceiling is drawn only when the peak comes near it, and named in the caption otherwise.

use std::fmt::Write as _;

use engine::world::snapshot::SecondSnapshot;

use super::esc;

/// One partition's series over the window, one value per second, oldest first.
#[derive(Debug, Default)]
pub struct Series {
    pub read: Vec<f64>,
    pub write: Vec<f64>,
    pub throttled: Vec<u64>,
}

impl Series {
    /// The seconds `from..=to` of one partition's load, zero where it has no entry (a
    /// second without requests).
    pub fn of(seconds: &[SecondSnapshot], from: u64, to: u64) -> Series {
        let n = usize::try_from((to + 1).saturating_sub(from)).unwrap_or(0);
        let mut s = Series {
            read: vec![0.0; n],
            write: vec![0.0; n],
            throttled: vec![0; n],
        };
        for m in seconds.iter().filter(|m| (from..=to).contains(&m.second)) {
            let i = (m.second - from) as usize;
            s.read[i] += m.consumed_read;
            s.write[i] += m.consumed_write;
            s.throttled[i] += m.throttled_reads + m.throttled_writes;
        }
        s
    }

    pub fn peak_read(&self) -> f64 {
        self.read.iter().copied().fold(0.0, f64::max)
    }

    pub fn peak_write(&self) -> f64 {
        self.write.iter().copied().fold(0.0, f64::max)
    }

    pub fn throttled_total(&self) -> u64 {
        self.throttled.iter().sum()
    }
}

/// The chart of one partition. `ceilings`: its read and write units per second.
pub fn svg(label: &str, s: &Series, ceilings: (f64, f64)) -> String {
    let n = s.read.len().max(1);
    let peak = s.peak_read().max(s.peak_write());
    let top = nice_ceiling(peak.max(1.0));
    let plot_w = WIDTH - LEFT;
    let x = |i: usize| LEFT + plot_w * i as f64 / n as f64;
    let y = |v: f64| TOP + PLOT_H * (1.0 - (v / top).min(1.0));
    let step = plot_w / n as f64;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img"><title>{}: peak {:.0} WCU/s, {:.0} RCU/s, {} throttled</title>"#,
        esc(label),
        s.peak_write(),
        s.peak_read(),
        s.throttled_total()
    );
    // Throttled seconds first, so the lines draw over them.
    let worst = s.throttled.iter().copied().max().unwrap_or(0);
    for (i, &t) in s.throttled.iter().enumerate().filter(|(_, t)| **t > 0) {
        let _ = write!(
            out,
            r#"<rect class="thr" x="{:.1}" y="{TOP}" width="{:.1}" height="{PLOT_H}"/>"#,
            x(i),
            step.max(1.5)
        );
        if t == worst {
            let _ = write!(
                out,
                r#"<text class="thr" x="{:.1}" y="{:.1}">{t}</text>"#,
                x(i),
                TOP - 2.0
            );
        }
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{LEFT}" y1="{b}" x2="{WIDTH}" y2="{b}"/><line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b}"/>"#,
        b = TOP + PLOT_H
    );
    for (ceiling, class) in [(ceilings.1, "wcap"), (ceilings.0, "rcap")] {
        if ceiling <= top {
            let _ = write!(
                out,
                r#"<line class="{class}" x1="{LEFT}" y1="{yc:.1}" x2="{WIDTH}" y2="{yc:.1}"/>"#,
                yc = y(ceiling)
            );
        }
    }
    for (values, class) in [(&s.read, "read"), (&s.write, "write")] {
        if values.iter().all(|v| *v == 0.0) {
            continue;
        }
        // A step per second (the value holds across its second), so that a window of one
        // second — a failing run that lasted less — still draws a line.
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .flat_map(|(i, v)| [(x(i), y(*v)), (x(i) + step, y(*v))])
            .map(|(px, py)| format!("{px:.1},{py:.1}"))
            .collect();
        let _ = write!(
            out,
            r#"<polyline class="{class}" points="{}"/>"#,
            points.join(" ")
        );
    }
    let _ = write!(
        out,
        r#"<text x="{}" y="{}" text-anchor="end">{}</text><text x="{}" y="{}" text-anchor="end">0</text><text x="{LEFT}" y="{HEIGHT}">−{n} s</text><text x="{WIDTH}" y="{HEIGHT}" text-anchor="end">now</text></svg>"#,
        LEFT - 3.0,
        TOP + 8.0,
        units(top),
        LEFT - 3.0,
        TOP + PLOT_H,
    );
    out
}

/// The smallest of 1, 2, 5 × 10^k at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    let mut m = 1.0;
    loop {
        for f in [1.0, 2.0, 5.0] {
            if f * m >= v {
                return f * m;
            }
        }
        m *= 10.0;
    }
}

fn units(v: f64) -> String {
    if v >= 1000.0 {
        format!("{}k", v / 1000.0)
    } else {
        format!("{v}")
    }
}

/// Chart size in CSS pixels.
const WIDTH: f64 = 420.0;
const HEIGHT: f64 = 74.0;
/// Room for the y labels.
const LEFT: f64 = 34.0;
/// Room above the plot for the throttle count.
const TOP: f64 = 10.0;
/// The plot's height; the rest below is the x labels' row.
const PLOT_H: f64 = 52.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn second(second: u64, write: f64, throttled: u64) -> SecondSnapshot {
        SecondSnapshot {
            second,
            consumed_read: 0.0,
            consumed_write: write,
            throttled_reads: 0,
            throttled_writes: throttled,
        }
    }

    #[test]
    fn a_series_has_one_value_per_second_and_zero_where_nothing_happened() {
        let metrics = [second(9, 9.0, 0), second(10, 5.0, 0), second(12, 7.0, 3)];
        let s = Series::of(&metrics, 10, 13);
        assert_eq!(s.write, [5.0, 0.0, 7.0, 0.0]);
        assert_eq!(s.throttled, [0, 0, 3, 0]);
        assert_eq!(s.peak_write(), 7.0);
    }

    #[test]
    fn throttled_seconds_are_bands_and_the_scale_fits_the_peak() {
        let metrics = [second(1, 7.0, 4)];
        let chart = svg("partition 0", &Series::of(&metrics, 0, 3), (3000.0, 1000.0));
        assert_eq!(chart.matches(r#"<rect class="thr""#).count(), 1);
        assert!(chart.contains(">10</text>"), "y axis to 10: {chart}");
        assert!(!chart.contains("wcap"), "the far ceiling is not drawn");
        assert!(chart.contains("4 throttled"));
    }

    #[test]
    fn a_window_of_one_second_still_draws_its_line() {
        let chart = svg(
            "p",
            &Series::of(&[second(5, 7.0, 0)], 5, 5),
            (3000.0, 1000.0),
        );
        let points = chart.split(r#"points=""#).nth(1).unwrap();
        let points = &points[..points.find('"').unwrap()];
        assert_eq!(
            points.split(' ').count(),
            2,
            "two ends of one step: {points}"
        );
    }

    #[test]
    fn nice_ceilings_are_one_two_five() {
        assert_eq!(nice_ceiling(0.3), 1.0);
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(1000.0), 1000.0);
        assert_eq!(nice_ceiling(1001.0), 2000.0);
    }
}
