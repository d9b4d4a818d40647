//! Charts as inline SVG made on the server. Each has a text equivalent (`aria-label` or a
//! `<title>` per mark) so a screen reader reads the numbers the picture shows.

use maud::{Markup, html};

/// Marks at least 3:1 against white (and the black interval marks at least 3:1 against the
/// bars); the track behind a bar is decoration.
pub(crate) const INK: &str = "#1e3a8a";
const BAR: &str = "#3b82f6";
pub(crate) const MARK: &str = "#111";
pub(crate) const TRACK: &str = "#e5e7eb";

/// A coordinate to a tenth of a pixel: shorter markup, the same picture.
pub(crate) fn px(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// One group of a breakdown: its name, success rate, 95% interval, passed of runs.
pub(crate) struct Group {
    pub name: String,
    pub rate: Option<f64>,
    pub ci: [f64; 2],
    pub passed: i64,
    pub runs: i64,
}

/// The rate as a number and a 120-pixel bar: the interval shaded, the rate a dark mark.
pub(crate) fn interval_bar(rate: f64, lo: f64, hi: f64) -> Markup {
    let x = |v: f64| (v.clamp(0.0, 1.0) * 120.0).round();
    let label = format!("{rate:.2}, 95% interval {lo:.2} to {hi:.2}");
    html! {
        span { (format!("{rate:.2}")) " " }
        svg width="124" height="14" viewBox="0 0 124 14" role="img" aria-label=(label) {
            rect x="2" y="5" width="120" height="4" fill=(TRACK) {}
            rect x=(x(lo) + 2.0) y="3" width=(x(hi) - x(lo)) height="8" fill=(BAR) {}
            rect x=(x(rate) + 1.0) y="0" width="2" height="14" fill=(MARK) {}
        }
    }
}

/// Success rate per group as horizontal bars with their intervals, in a figure with a caption.
pub(crate) fn breakdown(caption: &str, groups: &[Group]) -> Markup {
    const LABEL: f64 = 130.0;
    const WIDTH: f64 = 220.0;
    const ROW: f64 = 24.0;
    let height = ROW * groups.len() as f64 + 22.0;
    let x = |v: f64| LABEL + v.clamp(0.0, 1.0) * WIDTH;
    let summary: Vec<String> = groups
        .iter()
        .map(|g| match g.rate {
            Some(r) => format!(
                "{} {r:.2} ({} of {}, interval {:.2} to {:.2})",
                g.name, g.passed, g.runs, g.ci[0], g.ci[1]
            ),
            None => format!("{} no runs", g.name),
        })
        .collect();
    html! {
        figure {
            figcaption { (caption) }
            svg width=(LABEL + WIDTH + 50.0) height=(height) viewBox=(format!("0 0 {} {height}", LABEL + WIDTH + 50.0))
                role="img" aria-label=(format!("{caption}: {}", summary.join("; "))) {
                @for (i, g) in groups.iter().enumerate() {
                    @let y = ROW * i as f64;
                    text x="0" y=(y + 15.0) { (g.name) }
                    rect x=(LABEL) y=(y + 6.0) width=(WIDTH) height="10" fill=(TRACK) {}
                    @if let Some(r) = g.rate {
                        rect x=(LABEL) y=(y + 6.0) width=(px(x(r) - LABEL)) height="10" fill=(BAR) {}
                        line x1=(px(x(g.ci[0]))) x2=(px(x(g.ci[1]))) y1=(y + 11.0) y2=(y + 11.0) stroke=(MARK) {}
                        line x1=(px(x(g.ci[0]))) x2=(px(x(g.ci[0]))) y1=(y + 3.0) y2=(y + 19.0) stroke=(MARK) {}
                        line x1=(px(x(g.ci[1]))) x2=(px(x(g.ci[1]))) y1=(y + 3.0) y2=(y + 19.0) stroke=(MARK) {}
                        text x=(LABEL + WIDTH + 6.0) y=(y + 15.0) { (format!("{r:.2}")) }
                    }
                }
                // The axis: 0, 0.5 and 1 under the bars.
                @for (v, t) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
                    text x=(x(v) - 4.0) y=(height - 4.0) { (t) }
                }
            }
        }
    }
}

/// One agent's success rate per month; `None` where it has no finished submission.
pub(crate) struct Series {
    pub label: String,
    pub rates: Vec<Option<f64>>,
}

/// Distinguishable on white and for common colour blindness (Okabe-Ito), with a dash pattern
/// per line as well so colour is never the only cue.
const LINES: [(&str, &str); 6] = [
    ("#0072b2", ""),
    ("#d55e00", "6 3"),
    ("#009e73", "2 3"),
    ("#cc79a7", "8 3 2 3"),
    ("#000000", "1 2"),
    ("#7b3294", "4 4"),
];

/// Success rate across months, one line per agent (at most six).
pub(crate) fn history(caption: &str, months: &[String], series: &[Series]) -> Markup {
    const W: f64 = 560.0;
    const H: f64 = 180.0;
    const LEFT: f64 = 34.0;
    const TOP: f64 = 8.0;
    let step = if months.len() > 1 {
        (W - LEFT - 70.0) / (months.len() - 1) as f64
    } else {
        0.0
    };
    let x = |i: usize| LEFT + 10.0 + step * i as f64;
    let y = |r: f64| TOP + (1.0 - r.clamp(0.0, 1.0)) * (H - 40.0);
    html! {
        figure {
            figcaption { (caption) }
            svg width=(W) height=(H + 16.0 * series.len() as f64) viewBox=(format!("0 0 {W} {}", H + 16.0 * series.len() as f64))
                role="img" aria-label=(format!("{caption}; the table below gives the numbers")) {
                @for v in [0.0, 0.5, 1.0] {
                    line x1=(LEFT) x2=(W) y1=(y(v)) y2=(y(v)) stroke=(TRACK) {}
                    text x="0" y=(y(v) + 4.0) { (format!("{v:.1}")) }
                }
                // Every month labelled up to six; past that every other one, and the last.
                @for (i, m) in months.iter().enumerate() {
                    @if months.len() <= 6 || i % 2 == 0 || i + 1 == months.len() {
                        text x=(px(x(i) - 20.0)) y=(H - 16.0) { (m) }
                    }
                }
                @for (s, (colour, dash)) in series.iter().zip(LINES) {
                    @let points: Vec<String> = s.rates.iter().enumerate()
                        .filter_map(|(i, r)| r.map(|r| format!("{},{}", px(x(i)), px(y(r)))))
                        .collect();
                    polyline points=(points.join(" ")) fill="none" stroke=(colour)
                        stroke-width="2" stroke-dasharray=(dash) {}
                    @for (i, r) in s.rates.iter().enumerate() {
                        @if let Some(r) = r {
                            circle cx=(px(x(i))) cy=(px(y(*r))) r="3" fill=(colour) {
                                title { (s.label) ", " (months[i]) ": " (format!("{r:.2}")) }
                            }
                        }
                    }
                }
                @for (k, (s, (colour, dash))) in series.iter().zip(LINES).enumerate() {
                    @let ly = H + 16.0 * k as f64;
                    line x1=(LEFT) x2=(LEFT + 24.0) y1=(ly - 4.0) y2=(ly - 4.0) stroke=(colour)
                        stroke-width="2" stroke-dasharray=(dash) {}
                    text x=(LEFT + 30.0) y=(ly) { (s.label) }
                }
            }
        }
    }
}

/// One span of a run's timeline: where it starts and ends (µs from the run's start), its row
/// label and what it was.
pub(crate) struct Span {
    pub start_us: u64,
    pub end_us: u64,
    pub label: String,
    pub kind: SpanKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanKind {
    Agent,
    Ok,
    Error,
    Refused,
}

impl SpanKind {
    fn colour(self) -> &'static str {
        match self {
            SpanKind::Agent => "#6b7280",
            SpanKind::Ok => INK,
            SpanKind::Error => "#b45309",
            SpanKind::Refused => "#991b1b",
        }
    }
}

/// The run as a Gantt chart: the agent's exchange on top, one row per MCP request below it,
/// each bar from request to answer on a common time axis (a bar is at least a pixel wide).
pub(crate) fn timeline(spans: &[Span], total_us: u64) -> Markup {
    const LABEL: f64 = 150.0;
    const W: f64 = 400.0;
    const ROW: f64 = 14.0;
    let total = total_us.max(1) as f64;
    let x = |us: u64| LABEL + (us as f64 / total).min(1.0) * W;
    let height = ROW * spans.len() as f64 + 20.0;
    html! {
        figure {
            figcaption { "Timeline" }
            svg width=(LABEL + W + 10.0) height=(height) viewBox=(format!("0 0 {} {height}", LABEL + W + 10.0)) role="img"
                aria-label=(format!("Timeline of {} requests over {}; the list below gives each one",
                    spans.len(), super::duration(total / 1000.0))) {
                @for (i, s) in spans.iter().enumerate() {
                    @let y = ROW * i as f64;
                    text x="0" y=(y + 11.0) { (s.label) }
                    rect x=(px(x(s.start_us))) y=(y + 3.0) width=(px((x(s.end_us) - x(s.start_us)).max(1.0)))
                        height="9" fill=(s.kind.colour()) {
                        title { (s.label) ": " (super::duration(s.start_us as f64 / 1000.0)) " + "
                            (super::duration(s.end_us.saturating_sub(s.start_us) as f64 / 1000.0)) }
                    }
                }
                text x=(LABEL) y=(height - 4.0) { "0" }
                text x=(LABEL + W - 40.0) y=(height - 4.0) { (super::duration(total / 1000.0)) }
            }
            p.ref { "Grey: the agent's request and reply. Blue: answered. Amber: a tool error. Red: refused (unknown tool, bad arguments, over budget)." }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breakdown_reads_out_every_group() {
        let groups = [
            Group {
                name: "filesystem".into(),
                rate: Some(0.75),
                ci: [0.41, 0.93],
                passed: 6,
                runs: 8,
            },
            Group {
                name: "git".into(),
                rate: None,
                ci: [0.0, 0.0],
                passed: 0,
                runs: 0,
            },
        ];
        let svg = breakdown("By server", &groups).into_string();
        assert!(svg.contains("aria-label=\"By server: filesystem 0.75 (6 of 8, interval 0.41 to 0.93); git no runs\""), "{svg}");
        assert_eq!(svg.matches("<rect").count(), 2 + 1, "a track each, one bar");
        assert_eq!(svg.matches("<line").count(), 3, "the interval and its ends");
    }

    #[test]
    fn a_timeline_keeps_every_bar_visible_and_on_the_axis() {
        let spans = [
            Span {
                start_us: 0,
                end_us: 10,
                label: "agent".into(),
                kind: SpanKind::Agent,
            },
            Span {
                start_us: 5,
                end_us: 5,
                label: "#1 tools/list".into(),
                kind: SpanKind::Ok,
            },
        ];
        let svg = timeline(&spans, 10).into_string();
        assert!(
            svg.contains("width=\"400\""),
            "the agent spans the run: {svg}"
        );
        assert!(svg.contains("x=\"350\" y=\"17\" width=\"1\""), "{svg}");
    }
}
