//! One run of a task in process: the task's world with its tool list and faults enforced.
//! The checker replays references through it; the gateway wraps the same rules in MCP.

use crate::task::Task;
use mcpbench_sim::ToolError;
use mcpbench_sim::verify::Run;
use mcpbench_world::{World, WorldError, check_arguments, tool_spec};
use serde_json::Value;
use std::borrow::Borrow;
use std::collections::BTreeMap;

/// `T` is how the run holds its task: `&Task` for a check, `Arc<Task>` for a live run.
pub struct TaskRun<T: Borrow<Task>> {
    task: T,
    world: World,
    calls_per_tool: BTreeMap<String, u32>,
}

impl<T: Borrow<Task>> TaskRun<T> {
    pub fn new(task: T) -> Result<Self, WorldError> {
        let world = World::new(&task.borrow().initial_state, &task.borrow().servers)?;
        Ok(Self {
            task,
            world,
            calls_per_tool: BTreeMap::new(),
        })
    }

    pub fn task(&self) -> &Task {
        self.task.borrow()
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// Why the task's predicate fails on the final state, given the agent's answer (`None`
    /// when it holds). As private as the task.
    pub fn unmet(&self, answer: Option<&str>) -> Option<String> {
        self.task()
            .success_predicate
            .unmet(answer, &mut |a| self.world.holds(a))
    }
}

impl<T: Borrow<Task>> Run for TaskRun<T> {
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError> {
        if !self.task().available_tools.iter().any(|t| t == tool) {
            return Err(ToolError::not_found(format!(
                "tool {tool} is not available in this task"
            )));
        }
        let n = self.calls_per_tool.entry(tool.to_string()).or_default();
        *n += 1;
        let n = *n;
        if let Some(f) = self.task.borrow().faults.iter().find(|f| f.hits(tool, n)) {
            return Err(ToolError::new(f.error, f.message.clone()));
        }
        self.world.call(tool, args)
    }

    fn passes(&self, answer: Option<&str>) -> bool {
        self.task()
            .success_predicate
            .eval(answer, &mut |a| self.world.holds(a))
    }

    fn snapshot(&self) -> Value {
        self.world.snapshot()
    }

    fn input_schema(&self, tool: &str) -> Option<Value> {
        tool_spec(tool).map(|t| t.input_schema.clone())
    }

    fn check_arguments(&self, tool: &str, args: &Value) -> Result<(), ToolError> {
        check_arguments(tool, args)
    }
}
