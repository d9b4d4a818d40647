//! A habit of an agent that does not read, tried against each task: making a write twice, as a
//! blind retry does after an error that came once the write had landed. A task worth ranking
//! on notices the duplicate; `tasks check` refuses one that does not, and `tasks stats` counts
//! them over a set. (Answering a constant is among the no-skill strategies, `crate::no_skill`.)

use crate::run::TaskRun;
use crate::task::Task;
use mcpbench_sim::verify::Run;
use mcpbench_sim::{Effect, Step};
use mcpbench_world::tool_spec;
use serde_json::Value;

/// The calls of the shortest reference (their indexes among its steps) that, made twice in a
/// row, leave the world with more records than made once and still pass: a duplicate the
/// predicate does not count (a second message, issue, event, commit), which a blind retry
/// after a landed error would make. A write made twice to the same effect (an update to the
/// same values, which at most moves a server's clock) adds nothing and is not one.
pub fn unguarded_repeats(task: &Task) -> Vec<usize> {
    let steps = task.shortest_reference();
    let answer = steps.iter().find_map(|s| match s {
        Step::Answer { answer } => Some(answer.as_str()),
        Step::Call(_) => None,
    });
    let touched = task.touched_servers();
    let replay = |doubled: Option<usize>| {
        let mut run = TaskRun::on(task, &touched).ok()?;
        for (i, s) in steps.iter().enumerate() {
            if let Step::Call(c) = s {
                let times = if doubled == Some(i) { 2 } else { 1 };
                for _ in 0..times {
                    let _ = run.call(&c.tool, &c.arguments);
                }
            }
        }
        Some(run)
    };
    let Some(done) = replay(None) else {
        return Vec::new();
    };
    let records = entries(&done.snapshot());
    steps
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.as_call()
                .is_some_and(|c| tool_spec(&c.tool).is_some_and(|t| t.effect == Effect::Write))
        })
        .filter(|&(i, _)| {
            replay(Some(i))
                .is_some_and(|run| entries(&run.snapshot()) > records && run.passes(answer))
        })
        .map(|(i, _)| i)
        .collect()
}

/// How many entries a state holds: array elements and object members, at every depth.
fn entries(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.len() + a.iter().map(entries).sum::<usize>(),
        Value::Object(o) => o.len() + o.values().map(entries).sum::<usize>(),
        _ => 0,
    }
}
