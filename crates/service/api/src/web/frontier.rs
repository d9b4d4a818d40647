//! The leaderboard's plot of success rate against cost per task, with the cost frontier: the
//! entries no other entry beats on both (docs/metrics.md, "Cost and time").

use super::charts::{INK, MARK, TRACK, px};
use maud::{Markup, html};
use mcpbench_core::board::BoardEntry;
use mcpbench_scoring::CostBasis;

/// The frontier's colour (Okabe-Ito vermilion, 3:1 against white and against [`INK`]).
const FRONTIER: &str = "#d55e00";

/// One entry of known cost.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Point {
    pub name: String,
    pub success: f64,
    pub cost: f64,
    /// The cost rests on only some of the entry's runs.
    pub partial: bool,
    /// The service measured the usage the cost rests on (the standard track); the agents
    /// reported it otherwise.
    pub measured: bool,
}

/// The indices of the points on the frontier, cheapest first: those for which no other point
/// has a success rate at least as high for a cost at most as low, one of the two strictly
/// better. Equal points are all on it.
pub(crate) fn frontier(points: &[Point]) -> Vec<usize> {
    let beats = |a: &Point, b: &Point| {
        a.cost <= b.cost && a.success >= b.success && (a.cost < b.cost || a.success > b.success)
    };
    let mut on: Vec<usize> = (0..points.len())
        .filter(|&i| !points.iter().any(|p| beats(p, &points[i])))
        .collect();
    on.sort_by(|&a, &b| points[a].cost.total_cmp(&points[b].cost));
    on
}

/// The board's entries split into points of known cost and the names of those of unknown cost.
pub(crate) fn points(entries: &[&BoardEntry]) -> (Vec<Point>, Vec<String>) {
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for e in entries {
        let name = e.name.clone();
        match e.spend.cost_per_task {
            Some(cost) => known.push(Point {
                name,
                success: e.success_rate,
                cost,
                partial: i64::try_from(e.spend.cost_runs).unwrap_or(i64::MAX) < e.tasks,
                measured: e.spend.cost_basis == Some(CostBasis::Measured),
            }),
            None => unknown.push(name),
        }
    }
    (known, unknown)
}

/// Dollars as people read them: `$0.012`, `$1.5`, `$0` (two significant figures at most).
pub(crate) fn dollars(v: f64) -> String {
    if v == 0.0 {
        return "$0".into();
    }
    let digits = (1 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.digits$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("${text}")
}

/// The plot, or nothing when no entry's cost is known.
pub(crate) fn plot(entries: &[&BoardEntry]) -> Markup {
    const W: f64 = 520.0;
    const H: f64 = 240.0;
    const LEFT: f64 = 40.0;
    const RIGHT: f64 = 20.0;
    const TOP: f64 = 10.0;
    const BOTTOM: f64 = 36.0;
    let (points, unknown) = points(entries);
    if points.is_empty() {
        return html! {};
    }
    // A logarithmic cost axis; a free entry sits at the left edge (a log axis has no 0).
    let positive: Vec<f64> = points.iter().map(|p| p.cost).filter(|c| *c > 0.0).collect();
    // Whole decades around the known costs, with room on either side.
    let (lo, hi) = if positive.is_empty() {
        (-3.0, 0.0)
    } else {
        let least = positive.iter().copied().fold(f64::INFINITY, f64::min);
        let most = positive.iter().copied().fold(0.0, f64::max);
        ((least / 2.0).log10().floor(), (most * 2.0).log10().ceil())
    };
    let x = |c: f64| {
        let l = if c > 0.0 { c.log10().max(lo) } else { lo };
        LEFT + (l - lo) / (hi - lo) * (W - LEFT - RIGHT)
    };
    let y = |s: f64| TOP + (1.0 - s.clamp(0.0, 1.0)) * (H - TOP - BOTTOM);
    let on = frontier(&points);
    let line: Vec<String> = on
        .iter()
        .map(|&i| format!("{},{}", px(x(points[i].cost)), px(y(points[i].success))))
        .collect();
    let described: Vec<String> = on
        .iter()
        .map(|&i| {
            let p = &points[i];
            format!("{} ({:.2} for {})", p.name, p.success, dollars(p.cost))
        })
        .collect();
    let label = format!(
        "Success rate against cost per task for {} entries; the cost frontier: {}",
        points.len(),
        described.join(", ")
    );
    let decades = (lo as i32)..=(hi as i32);
    html! {
        figure.frontier {
            figcaption { "Success rate against cost per task (logarithmic). "
                span style=(format!("color:{FRONTIER}")) { "The cost frontier" }
                " joins the entries no other beats on both. Circles are costs the service measured \
                  (its own agent counted the model's tokens, priced by one table); squares are \
                  costs the agents reported; hollow marks rest on only some runs." }
            svg width=(W) height=(H) viewBox=(format!("0 0 {W} {H}")) role="img" aria-label=(label) {
                @for v in [0.0, 0.5, 1.0] {
                    line x1=(LEFT) x2=(W - RIGHT) y1=(px(y(v))) y2=(px(y(v))) stroke=(TRACK) {}
                    text x="4" y=(px(y(v) + 4.0)) { (format!("{v:.1}")) }
                }
                @for d in decades {
                    @let at = x(10f64.powi(d));
                    line x1=(px(at)) x2=(px(at)) y1=(TOP) y2=(H - BOTTOM) stroke=(TRACK) {}
                    text x=(px(at - 14.0)) y=(H - BOTTOM + 16.0) { (dollars(10f64.powi(d))) }
                }
                text x=(W / 2.0 - 40.0) y=(H - 4.0) { "cost per task" }
                polyline points=(line.join(" ")) fill="none" stroke=(FRONTIER) stroke-width="2" {}
                @for (i, p) in points.iter().enumerate() {
                    @let edge = if on.contains(&i) { FRONTIER } else { INK };
                    @let r = if on.contains(&i) { 5.0 } else { 4.0 };
                    @let fill = if p.partial { "#fff" } else { edge };
                    @let (cx, cy) = (x(p.cost), y(p.success));
                    @let frontier = on.contains(&i).then_some("yes");
                    @let title = html! { title { (p.name) ": " (format!("{:.2}", p.success)) " for " (dollars(p.cost)) " per task"
                        (if p.measured { " (measured)" } else { " (reported by the agent)" })
                        @if p.partial { " (not every run has a cost)" } } };
                    @if p.measured {
                        circle cx=(px(cx)) cy=(px(cy)) r=(r) fill=(fill) stroke=(edge) stroke-width="2"
                            data-frontier=[frontier] data-cost="measured" { (title) }
                    } @else {
                        rect x=(px(cx - r)) y=(px(cy - r)) width=(2.0 * r) height=(2.0 * r) fill=(fill)
                            stroke=(edge) stroke-width="2" data-frontier=[frontier] data-cost="reported" { (title) }
                    }
                }
                line x1=(LEFT) x2=(LEFT) y1=(TOP) y2=(H - BOTTOM) stroke=(MARK) {}
            }
            @if !unknown.is_empty() {
                p.ref { "Not plotted, cost unknown: " (unknown.join(", ")) "." }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, success: f64, cost: f64) -> Point {
        Point {
            name: name.into(),
            success,
            cost,
            partial: false,
            measured: false,
        }
    }

    #[test]
    fn the_frontier_is_the_entries_nothing_beats_on_both() {
        let points = [
            p("cheap", 0.40, 0.001),
            p("dear and worse", 0.35, 0.05),
            p("middle", 0.60, 0.01),
            p("best", 0.80, 0.20),
            p("same cost, worse", 0.55, 0.01),
            p("same rate, dearer", 0.60, 0.02),
            p("free", 0.10, 0.0),
        ];
        let names: Vec<&str> = frontier(&points)
            .into_iter()
            .map(|i| points[i].name.as_str())
            .collect();
        assert_eq!(names, ["free", "cheap", "middle", "best"]);
        // Two equal points are both on it.
        let twins = [p("a", 0.5, 0.1), p("b", 0.5, 0.1)];
        assert_eq!(frontier(&twins).len(), 2);
    }

    #[test]
    fn unknown_cost_is_named_and_not_plotted_as_zero() {
        let entry = |name: &str, rate: f64, cost: Option<f64>, cost_runs: usize| {
            let mut e = mcpbench_core::board::line(rate, [0.0, 1.0], None);
            e.name = name.into();
            e.tasks = 10;
            e.spend.cost_per_task = cost;
            e.spend.cost_runs = cost_runs;
            e
        };
        let entries = [
            entry("priced", 0.5, Some(0.012), 10),
            entry("some runs", 0.7, Some(0.03), 4),
            entry("silent", 0.9, None, 0),
        ];
        let refs: Vec<&BoardEntry> = entries.iter().collect();
        let (known, unknown) = points(&refs);
        assert_eq!(known.len(), 2);
        assert!(!known[0].partial && known[1].partial);
        assert_eq!(unknown, ["silent"]);
        let svg = plot(&refs).into_string();
        assert_eq!(svg.matches("data-cost=\"reported\"").count(), 2);
        assert!(svg.contains("Not plotted, cost unknown: silent."));
        assert!(svg.contains("fill=\"#fff\""), "the partial one is hollow");
        assert!(plot(&refs[2..]).into_string().is_empty());
    }

    #[test]
    fn a_measured_cost_is_drawn_apart_from_a_reported_one() {
        let mut measured = mcpbench_core::board::line(0.6, [0.5, 0.7], None);
        measured.name = "standard".into();
        measured.spend.cost_per_task = Some(0.02);
        measured.spend.cost_runs = 100;
        measured.spend.cost_basis = Some(CostBasis::Measured);
        let mut reported = mcpbench_core::board::line(0.7, [0.6, 0.8], None);
        reported.name = "own".into();
        reported.spend.cost_per_task = Some(0.01);
        reported.spend.cost_runs = 100;
        reported.spend.cost_basis = Some(CostBasis::Reported);
        let svg = plot(&[&measured, &reported]).into_string();
        assert_eq!(svg.matches("<circle").count(), 1);
        assert_eq!(svg.matches("<rect").count(), 1);
        assert!(svg.contains("standard: 0.60 for $0.02 per task (measured)"));
        assert!(svg.contains("own: 0.70 for $0.01 per task (reported by the agent)"));
    }

    #[test]
    fn dollars_read_plainly() {
        assert_eq!(dollars(0.012), "$0.012");
        assert_eq!(dollars(0.0015), "$0.0015");
        assert_eq!(dollars(1.5), "$1.5");
        assert_eq!(dollars(10.0), "$10");
        assert_eq!(dollars(120.0), "$120");
        assert_eq!(dollars(0.0), "$0");
        assert_eq!(dollars(0.1), "$0.1");
    }
}
