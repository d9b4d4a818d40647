//! Whether a task's calls depend on each other: `serial` when a call of its shortest reference
//! needs a value only an earlier call's answer gives, `parallel` when every call could be made
//! from the goal alone (one call is parallel too). Decided by replaying the reference.

use crate::run::{CallOutcome, TaskRun};
use crate::task::Task;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Serial,
    Parallel,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Serial => "serial",
            Shape::Parallel => "parallel",
        }
    }
}

/// The first call of the shortest reference that uses an earlier answer, as
/// `(call index, the value)`; `None` when the calls are independent.
pub fn first_dependence(task: &Task) -> Option<(usize, String)> {
    let mut run = TaskRun::new(task).ok()?;
    let goal = task.goal.to_lowercase();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (i, call) in task
        .shortest_reference()
        .iter()
        .filter_map(|s| s.as_call())
        .enumerate()
    {
        let mut args = Vec::new();
        leaves(&call.arguments, &mut args);
        if let Some(v) = args
            .into_iter()
            .find(|v| seen.contains(v) && !in_goal(&goal, v))
        {
            return Some((i, v));
        }
        if let CallOutcome::Ok(answer) = run.attempt(&call.tool, &call.arguments) {
            leaves(&answer, &mut seen);
        }
    }
    None
}

/// The task's shape (see the module's comment).
pub fn shape(task: &Task) -> Shape {
    match first_dependence(task) {
        Some(_) => Shape::Serial,
        None => Shape::Parallel,
    }
}

/// The values an argument can carry from an answer: strings of three characters or more and
/// numbers other than 0 and 1 (which every answer holds), as text.
fn leaves<C: Extend<String>>(v: &Value, out: &mut C) {
    match v {
        Value::String(s) if s.trim().chars().count() >= 3 => out.extend([s.trim().to_lowercase()]),
        Value::Number(n) if n.as_f64().is_some_and(|x| x != 0.0 && x != 1.0) => {
            out.extend([n.to_string()])
        }
        Value::Array(items) => items.iter().for_each(|i| leaves(i, out)),
        Value::Object(map) => map.values().for_each(|i| leaves(i, out)),
        _ => {}
    }
}

/// Whether the goal gives the value itself (a number as a whole word).
fn in_goal(goal: &str, value: &str) -> bool {
    if value.parse::<f64>().is_ok() {
        return goal
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .any(|w| w.trim_end_matches('.') == value);
    }
    goal.contains(value)
}
