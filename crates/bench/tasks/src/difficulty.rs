//! Difficulty computed from what a task asks, not declared by its template (docs/tasks.md
//! states the formula): the length of its shortest reference, the servers it spans, the calls
//! that need a value an earlier call returned, the share of shown tools no reference uses, and
//! whether a fault must be recovered from.

use crate::run::TaskRun;
use crate::task::Task;
use mcpbench_sim::verify::Run;
use mcpbench_sim::{Difficulty, Step};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// The parts of a task's difficulty score, and the score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DifficultyScore {
    /// Calls of the shortest reference.
    pub calls: u32,
    pub servers: u32,
    /// Calls of the shortest reference that pass on a value an earlier call returned and the
    /// goal does not state.
    pub hops: u32,
    /// Share of the shown tools that no reference calls.
    pub unused_tools: f64,
    pub recovery: bool,
    /// `min(calls, 12) / 2 + 1.5 (servers - 1) + hops + unused_tools + 1.5 [recovery]`.
    pub score: f64,
    pub difficulty: Difficulty,
}

/// Scores below this are easy.
pub const MEDIUM_FROM: f64 = 5.0;
/// Scores from this on are hard.
pub const HARD_FROM: f64 = 9.0;

/// The computed difficulty of `task`.
pub fn computed(task: &Task) -> DifficultyScore {
    let shortest = task.shortest_reference();
    let calls = shortest.iter().filter(|s| s.as_call().is_some()).count() as u32;
    let hops = hops(task, shortest);
    let unused = task.unused_tools() as f64 / task.available_tools.len().max(1) as f64;
    let servers = task.servers.len().max(1) as u32;
    let recovery = !task.faults.is_empty();
    let score = f64::from(calls.min(12)) / 2.0
        + 1.5 * f64::from(servers - 1)
        + f64::from(hops)
        // Every task shows whole catalogues, so this share varies little between tasks: it
        // counts once, not twice (version 4 weighed it 2 with bands at 4 and 7).
        + unused
        + if recovery { 1.5 } else { 0.0 };
    let difficulty = if score >= HARD_FROM {
        Difficulty::Hard
    } else if score >= MEDIUM_FROM {
        Difficulty::Medium
    } else {
        Difficulty::Easy
    };
    DifficultyScore {
        calls,
        servers,
        hops,
        unused_tools: unused,
        recovery,
        score,
        difficulty,
    }
}

/// Replays `steps` and counts the calls that pass on a string an earlier call returned (three
/// characters or longer) and the goal does not hold.
fn hops(task: &Task, steps: &[Step]) -> u32 {
    let Ok(mut run) = TaskRun::on(task, &task.touched_servers()) else {
        return 0;
    };
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut hops = 0;
    for c in steps.iter().filter_map(Step::as_call) {
        let mut args = Vec::new();
        leaves(&c.arguments, &mut args);
        if args
            .iter()
            .any(|a| seen.contains(a) && !task.goal.contains(a.as_str()))
        {
            hops += 1;
        }
        if let Ok(result) = run.call(&c.tool, &c.arguments) {
            let mut found = Vec::new();
            leaves(&result, &mut found);
            seen.extend(found);
        }
    }
    hops
}

/// String and number leaves, as text, three characters or longer (shorter ones, like `ok` or
/// `2`, turn up everywhere by chance).
fn leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.chars().count() >= 3 => out.push(s.clone()),
        Value::Number(n) if n.to_string().len() >= 3 => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        Value::Object(o) => o.values().for_each(|x| leaves(x, out)),
        _ => {}
    }
}
