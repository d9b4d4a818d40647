//! One run of a task in process: the task's world with its tool list and faults enforced.
//! The checker replays references through it; the gateway wraps the same rules in MCP.

use crate::task::Task;
use mcpbench_sim::ToolError;
use mcpbench_sim::verify::Run;
use mcpbench_world::{World, WorldError, check_arguments, tool_spec};
use serde_json::Value;
use std::collections::BTreeMap;

pub struct TaskRun<'a> {
    task: &'a Task,
    world: World,
    calls_per_tool: BTreeMap<String, u32>,
}

impl<'a> TaskRun<'a> {
    pub fn new(task: &'a Task) -> Result<Self, WorldError> {
        Ok(Self {
            task,
            world: World::new(&task.initial_state, &task.servers)?,
            calls_per_tool: BTreeMap::new(),
        })
    }

    pub fn world(&self) -> &World {
        &self.world
    }
}

impl Run for TaskRun<'_> {
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError> {
        if !self.task.available_tools.iter().any(|t| t == tool) {
            return Err(ToolError::not_found(format!(
                "tool {tool} is not available in this task"
            )));
        }
        let n = self.calls_per_tool.entry(tool.to_string()).or_default();
        *n += 1;
        if let Some(f) = self.task.faults.iter().find(|f| f.hits(tool, *n)) {
            return Err(ToolError::new(f.error, f.message.clone()));
        }
        self.world.call(tool, args)
    }

    fn passes(&self, answer: Option<&str>) -> bool {
        self.task
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
