//! Accuracy against distractor count: one point per level from that level's report, split by
//! the tasks' shape (serial or parallel), and the curve drawn as a standalone SVG.

use crate::eval::Report;
use crate::run::Reason;
use mcpbench_scoring::wilson;
use mcpbench_tasks::{Level, Shape, Task};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

/// Runs counted and passed, with the rate and its Wilson 95% interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Rate {
    pub tasks: usize,
    pub passed: usize,
    pub success_rate: Option<f64>,
    pub success_ci95: Option<[f64; 2]>,
}

impl Rate {
    fn of(passed: usize, tasks: usize) -> Self {
        Self {
            tasks,
            passed,
            success_rate: (tasks > 0).then(|| passed as f64 / tasks as f64),
            success_ci95: wilson(passed, tasks),
        }
    }
}

/// One level of the curve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    /// `0`, `5`, ... or `all`.
    pub level: String,
    /// Tools offered per task at this level, on average (needed ones included).
    pub tools: f64,
    #[serde(flatten)]
    pub overall: Rate,
    pub serial: Rate,
    pub parallel: Rate,
    /// The share of the agent's calls that went to servers the task does not need.
    pub distractor_call_share: Option<f64>,
}

/// `curve.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    pub agent: String,
    pub set: String,
    /// How many of the set's tasks are of each shape.
    pub shapes: BTreeMap<Shape, usize>,
    pub points: Vec<CurvePoint>,
}

/// The point of `level`, from the variants run at it and their report (harness errors left
/// out, as in every score).
pub fn point(
    level: Level,
    variants: &[Arc<Task>],
    shapes: &BTreeMap<String, Shape>,
    report: &Report,
) -> CurvePoint {
    let tools = if variants.is_empty() {
        0.0
    } else {
        variants
            .iter()
            .map(|t| t.available_tools.len())
            .sum::<usize>() as f64
            / variants.len() as f64
    };
    let counted: Vec<_> = report
        .runs
        .iter()
        .filter(|r| r.reason != Reason::HarnessError)
        .collect();
    let rate = |shape: Option<Shape>| {
        let runs: Vec<_> = counted
            .iter()
            .filter(|r| shape.is_none() || shapes.get(&r.task_id).copied() == shape)
            .collect();
        Rate::of(runs.iter().filter(|r| r.passed).count(), runs.len())
    };
    CurvePoint {
        level: level.to_string(),
        tools,
        overall: rate(None),
        serial: rate(Some(Shape::Serial)),
        parallel: rate(Some(Shape::Parallel)),
        distractor_call_share: report.scores.overall.process.distractor_call_share,
    }
}

/// Okabe-Ito colours with a dash pattern each, so colour is never the only cue.
const LINES: [(&str, &str, &str); 3] = [
    ("all tasks", "#0072b2", ""),
    ("serial", "#d55e00", "6 3"),
    ("parallel", "#009e73", "2 3"),
];

/// The curve as an SVG document: success rate against the levels, evenly spaced and labelled
/// with the tools offered (`all` is many times the others), one line for all tasks and one per
/// shape, each point titled with its numbers. The rate axis stops at the first of 0.1, 0.25,
/// 0.5 and 1 above every rate, so a weak agent's curve is not a flat line on the floor.
pub fn svg(curve: &Curve) -> String {
    const W: f64 = 560.0;
    const H: f64 = 260.0;
    const LEFT: f64 = 40.0;
    const TOP: f64 = 24.0;
    const BOTTOM: f64 = 60.0;
    let highest = curve
        .points
        .iter()
        .flat_map(|p| [&p.overall, &p.serial, &p.parallel])
        .filter_map(|r| r.success_rate)
        .fold(0.0_f64, f64::max);
    let top = [0.1, 0.25, 0.5, 1.0]
        .into_iter()
        .find(|t| highest <= *t)
        .unwrap_or(1.0);
    let step = (W - LEFT - 90.0) / (curve.points.len().max(2) - 1) as f64;
    let x = |i: usize| LEFT + 40.0 + step * i as f64;
    let y = |r: f64| TOP + (1.0 - (r / top).clamp(0.0, 1.0)) * (H - TOP - BOTTOM);
    let px = |v: f64| (v * 10.0).round() / 10.0;
    let mut s = String::new();
    let title = format!(
        "Success rate against tools offered: {} on {}",
        escape(&curve.agent),
        escape(&curve.set)
    );
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="{title}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="14" font-size="13">{title}</text>"#
    );
    for v in [0.0, 0.2, 0.4, 0.6, 0.8, 1.0].map(|f| f * top) {
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{y}" y2="{y}" stroke="#e5e7eb"/><text x="4" y="{}">{v:.2}</text>"##,
            W - 10.0,
            px(y(v) + 4.0),
            y = px(y(v))
        );
    }
    for (i, p) in curve.points.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{} ({:.0})</text>"#,
            px(x(i)),
            H - BOTTOM + 16.0,
            escape(&p.level),
            p.tools
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">distractor level (tools offered per task)</text>"#,
        W / 2.0,
        H - BOTTOM + 32.0
    );
    for (k, (name, colour, dash)) in LINES.iter().enumerate() {
        let rates: Vec<(usize, &Rate, &str)> = curve
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let r = match k {
                    0 => &p.overall,
                    1 => &p.serial,
                    _ => &p.parallel,
                };
                (i, r, p.level.as_str())
            })
            .filter(|(_, r, _)| r.success_rate.is_some())
            .collect();
        let points: Vec<String> = rates
            .iter()
            .map(|(i, r, _)| format!("{},{}", px(x(*i)), px(y(r.success_rate.unwrap_or(0.0)))))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            points.join(" ")
        );
        for (i, r, level) in &rates {
            let rate = r.success_rate.unwrap_or(0.0);
            let _ = writeln!(
                s,
                r#"<circle cx="{}" cy="{}" r="3" fill="{colour}"><title>{name}, level {}: {rate:.3} ({} of {})</title></circle>"#,
                px(x(*i)),
                px(y(rate)),
                escape(level),
                r.passed,
                r.tasks
            );
        }
        let lx = LEFT + 150.0 * k as f64;
        let ly = H - 10.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" x2="{}" y1="{}" y2="{}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{ly}">{name}</text>"#,
            lx + 24.0,
            ly - 4.0,
            ly - 4.0,
            lx + 30.0
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
