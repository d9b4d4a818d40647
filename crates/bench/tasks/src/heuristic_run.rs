//! The heuristic reference agent ([`mcpbench_heuristic`]) on one task, in process, under the
//! rules agents meet: it is shown the task's tools as the gateway lists them, its calls go
//! through [`TaskRun::attempt`], and it passes as the runner would judge it (the budget kept
//! and the predicate holding on its answer). [`agent_passes`] plays any such agent the same way
//! (the `script` baseline's crate uses it).

use crate::run::TaskRun;
use crate::task::Task;
use mcpbench_heuristic::{ToolInfo, Tools, solve};
use mcpbench_sim::verify::Run;
use mcpbench_world::catalog;
use serde_json::Value;
use std::borrow::Borrow;

/// The tools an agent is shown for `task`, qualified (`server.tool`): the task's tools of each
/// server it offers, in catalogue order, with their descriptions and input schemas.
pub fn shown_tools(task: &Task) -> Vec<ToolInfo> {
    task.offered_servers()
        .iter()
        .flat_map(|server| {
            catalog(server)
                .unwrap_or_default()
                .into_iter()
                .map(move |t| (format!("{server}.{}", t.name), t))
        })
        .filter(|(name, _)| task.available_tools.contains(name))
        .map(|(name, t)| ToolInfo {
            name,
            description: t.description.to_string(),
            input_schema: t.input_schema.clone(),
        })
        .collect()
}

/// A run's tools for the heuristic: each call under the task's rules, an error as its text.
struct Attempts<'r, T: Borrow<Task>>(&'r mut TaskRun<T>);

impl<T: Borrow<Task>> Tools for Attempts<'_, T> {
    fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, String> {
        self.0.call(tool, arguments).map_err(|e| e.to_string())
    }
}

/// Whether the heuristic agent passes `task`.
pub fn heuristic_passes(task: &Task) -> bool {
    agent_passes(task, |goal, tools, budget, env| {
        solve(goal, tools, budget, env)
    })
}

/// Whether an agent without a model passes `task`: `play` is given the goal, the tools shown,
/// the budget and the run's tools, and gives the final answer.
pub fn agent_passes(
    task: &Task,
    play: impl FnOnce(&str, &[ToolInfo], u32, &mut dyn Tools) -> Option<String>,
) -> bool {
    let Ok(mut run) = TaskRun::new(task) else {
        return false;
    };
    let tools = shown_tools(task);
    let answer = play(&task.goal, &tools, task.max_steps, &mut Attempts(&mut run));
    !run.counts().budget_exceeded && run.unmet(answer.as_deref()).is_none()
}
