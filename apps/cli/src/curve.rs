//! `mcpbench eval --distractors`: the curve of success against the tools offered, printed,
//! and written as curve.json and curve.svg.

use anyhow::Context;
use mcpbench_runner::{Curve, Rate, Report, point, svg};
use mcpbench_tasks::{Level, Shape, Task, shape};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The curve from each level's variants and report, in level order.
pub fn build(tasks: &[Arc<Task>], passes: &[(Level, Vec<Arc<Task>>, Report)]) -> Curve {
    let shapes: BTreeMap<String, Shape> = tasks.iter().map(|t| (t.id.clone(), shape(t))).collect();
    let mut counts: BTreeMap<Shape, usize> = BTreeMap::new();
    for s in shapes.values() {
        *counts.entry(*s).or_default() += 1;
    }
    let first = passes.first().map(|(_, _, r)| r);
    Curve {
        agent: first.map_or(String::new(), |r| r.agent.clone()),
        set: first.map_or(String::new(), |r| r.set.clone()),
        shapes: counts,
        points: passes
            .iter()
            .map(|(level, variants, report)| point(*level, variants, &shapes, report))
            .collect(),
    }
}

pub fn write(out: &Path, curve: &Curve) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(
        out.join("curve.json"),
        serde_json::to_string_pretty(curve)? + "\n",
    )?;
    std::fs::write(out.join("curve.svg"), svg(curve))?;
    Ok(())
}

fn rate(r: &Rate) -> String {
    match (r.success_rate, r.success_ci95) {
        (Some(p), Some([lo, hi])) => {
            format!("{:>5.1}% ({:.0}-{:.0}%)", p * 100.0, lo * 100.0, hi * 100.0)
        }
        _ => "n/a".into(),
    }
}

pub fn print(curve: &Curve) {
    let n = |s: Shape| curve.shapes.get(&s).copied().unwrap_or(0);
    eprintln!(
        "\nsuccess against distractors: {} on {} ({} serial, {} parallel tasks)",
        curve.agent,
        curve.set,
        n(Shape::Serial),
        n(Shape::Parallel)
    );
    eprintln!(
        "  {:<6} {:>6}  {:<20} {:<20} {:<20} distractor calls",
        "level", "tools", "all tasks", "serial", "parallel"
    );
    for p in &curve.points {
        eprintln!(
            "  {:<6} {:>6.1}  {:<20} {:<20} {:<20} {}",
            p.level,
            p.tools,
            rate(&p.overall),
            rate(&p.serial),
            rate(&p.parallel),
            p.distractor_call_share
                .map_or("n/a".into(), |s| format!("{:.1}%", s * 100.0))
        );
    }
}
