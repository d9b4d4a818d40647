//! One run of a task in process: the task's world with its rules of a call (step budget,
//! listed tools, input schemas, injected faults). This is the one place those rules are
//! decided: the checker replays references through it, and the gateway records what it says.

use crate::task::Task;
use mcpbench_scoring::RunCounts;
use mcpbench_sim::verify::Run;
use mcpbench_sim::{Effect, ToolError};
use mcpbench_world::{World, WorldError, check_arguments, split_tool, tool_spec};
use serde_json::Value;
use std::borrow::Borrow;
use std::collections::BTreeMap;

/// The most bytes of JSON one call's arguments may take. No task's call needs more than a few
/// KiB; larger arguments are invalid, and a trace keeps them [`cut`], which replays the same.
pub const MAX_ARGUMENT_BYTES: usize = 64 * 1024;

/// The key of what a trace keeps of a value too large to keep ([`cut`]).
pub const CUT: &str = "$cut";

/// What a trace keeps of `value` when it is larger than a run keeps: `{"$cut": {"bytes",
/// "sha256"}}`, its size and the digest of its JSON text. A run takes a cut call's arguments
/// as their size says ([`argument_bytes`]), so a trace's replay decides them as the live run
/// did.
pub fn cut(value: &Value) -> Value {
    use sha2::{Digest, Sha256};
    let text = value.to_string();
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    serde_json::json!({ CUT: {"bytes": text.len(), "sha256": digest} })
}

/// The bytes of JSON `args` take as sent: a [`cut`] value's recorded size, else its text's.
pub fn argument_bytes(args: &Value) -> usize {
    let recorded = (args.as_object())
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get(CUT)?.get("bytes")?.as_u64());
    match recorded {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => args.to_string().len(),
    }
}

/// What became of one tool call. The rules apply in this order: the call is counted; past the
/// step budget it is refused; a tool not among the task's is unlisted; arguments over
/// [`MAX_ARGUMENT_BYTES`] or that do not fit the input schema are invalid; a fault due on this
/// call of the tool answers in its place (after running it, for a fault that `landed`);
/// otherwise the tool runs. Neither of the first two reads the arguments, so a trace need not
/// keep them whole for its replay to agree.
#[derive(Clone, Debug, PartialEq)]
pub enum CallOutcome {
    /// The call came after the task's `max_steps` calls (`call` is its 1-based number).
    OverBudget { max_steps: u32, call: u32 },
    /// The tool is not among the task's tools.
    Unlisted,
    /// The arguments do not fit the tool's input schema.
    InvalidArguments(ToolError),
    /// One of the task's faults answered in the tool's place.
    InjectedFault(ToolError),
    /// The tool ran and answered with an error.
    ToolError(ToolError),
    /// The tool ran and answered.
    Ok(Value),
}

impl CallOutcome {
    /// The error the checker's replay sees (the gateway words its own answers).
    fn into_result(self, tool: &str) -> Result<Value, ToolError> {
        match self {
            Self::Ok(v) => Ok(v),
            Self::OverBudget { max_steps, call } => Err(ToolError::denied(format!(
                "budget exceeded: this task allows {max_steps} tool calls and this was call {call}"
            ))),
            Self::Unlisted => Err(ToolError::not_found(format!(
                "tool {tool} is not available in this task"
            ))),
            Self::InvalidArguments(e) | Self::InjectedFault(e) | Self::ToolError(e) => Err(e),
        }
    }
}

/// `T` is how the run holds its task: `&Task` for a check, `Arc<Task>` for a live run.
pub struct TaskRun<T: Borrow<Task>> {
    task: T,
    world: World,
    counts: RunCounts,
    /// Per tool, the calls that reached it (listed, in budget, schema-valid): the number the
    /// task's faults are keyed on.
    reached: BTreeMap<String, u32>,
}

impl<T: Borrow<Task>> TaskRun<T> {
    pub fn new(task: T) -> Result<Self, WorldError> {
        let servers = task.borrow().offered_servers();
        Self::on(task, &servers)
    }

    /// A run whose world holds only `servers` (of those the task offers): calls to any other
    /// server's tools fail. For judging what cannot touch the rest, without building it.
    pub(crate) fn on(task: T, servers: &[String]) -> Result<Self, WorldError> {
        let world = World::new(&task.borrow().initial_state, servers)?;
        Ok(Self {
            task,
            world,
            counts: RunCounts::default(),
            reached: BTreeMap::new(),
        })
    }

    pub fn task(&self) -> &Task {
        self.task.borrow()
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// The counts so far.
    pub fn counts(&self) -> RunCounts {
        self.counts
    }

    /// Applies one call of a qualified tool (`server.tool`) under the task's rules, and counts
    /// it.
    pub fn attempt(&mut self, tool: &str, args: &Value) -> CallOutcome {
        let outcome = self.decide(tool, args);
        let c = &mut self.counts;
        match &outcome {
            CallOutcome::Ok(_) => {}
            CallOutcome::OverBudget { .. } => c.budget_exceeded = true,
            CallOutcome::Unlisted => c.hallucinated_calls += 1,
            CallOutcome::InvalidArguments(_) => c.invalid_calls += 1,
            CallOutcome::InjectedFault(_) | CallOutcome::ToolError(_) => {}
        }
        if !matches!(outcome, CallOutcome::Ok(_)) {
            c.errors_observed += 1;
        }
        outcome
    }

    fn decide(&mut self, tool: &str, args: &Value) -> CallOutcome {
        self.counts.tool_calls += 1;
        let task = self.task.borrow();
        if self.counts.tool_calls > task.max_steps {
            return CallOutcome::OverBudget {
                max_steps: task.max_steps,
                call: self.counts.tool_calls,
            };
        }
        if !task.available_tools.iter().any(|t| t == tool) {
            return CallOutcome::Unlisted;
        }
        let bytes = argument_bytes(args);
        if bytes > MAX_ARGUMENT_BYTES {
            return CallOutcome::InvalidArguments(ToolError::invalid(format!(
                "the arguments take {bytes} bytes of JSON; a call may send at most \
                 {MAX_ARGUMENT_BYTES}"
            )));
        }
        if let Err(e) = check_arguments(tool, args) {
            return CallOutcome::InvalidArguments(e);
        }
        let n = self.reached.entry(tool.to_string()).or_default();
        *n += 1;
        if let Some(f) = task.faults.iter().find(|f| f.hits(tool, *n)) {
            if f.landed {
                // The change is made and the agent told it failed: whatever the tool answered
                // is lost, as a timeout's answer is.
                let _ = self.world.call(tool, args);
            }
            return CallOutcome::InjectedFault(ToolError::new(f.error, f.message.clone()));
        }
        match self.world.call(tool, args) {
            Ok(v) => CallOutcome::Ok(v),
            Err(e) => CallOutcome::ToolError(e),
        }
    }

    /// Why the task's predicate fails on the final state, given the agent's answer (`None`
    /// when it holds). As private as the task.
    pub fn unmet(&self, answer: Option<&str>) -> Option<String> {
        self.task()
            .success_predicate
            .unmet(answer, &mut |a| self.world.holds(a))
    }
}

impl<T: Borrow<Task>> TaskRun<T> {
    /// Whether the attacker's goal holds on the final state, given the agent's answer; `None`
    /// for a task without an attack.
    pub fn attack_met(&self, answer: Option<&str>) -> Option<bool> {
        let attack = self.task().attack.as_ref()?;
        Some(attack.goal.eval(answer, &mut |a| self.world.holds(a)))
    }
}

impl<T: Borrow<Task>> Run for TaskRun<T> {
    fn call(&mut self, tool: &str, args: &Value) -> Result<Value, ToolError> {
        self.attempt(tool, args).into_result(tool)
    }

    fn passes(&self, answer: Option<&str>) -> bool {
        self.task()
            .success_predicate
            .eval(answer, &mut |a| self.world.holds(a))
    }

    fn snapshot(&self) -> Value {
        self.world.snapshot()
    }

    fn server_snapshot(&self, tool: &str) -> Value {
        split_tool(tool)
            .and_then(|(server, _)| self.world.server_snapshot(server))
            .unwrap_or(Value::Null)
    }

    fn reads_only(&self, tool: &str) -> bool {
        tool_spec(tool).is_some_and(|t| t.effect == Effect::Read)
    }

    fn input_schema(&self, tool: &str) -> Option<Value> {
        tool_spec(tool).map(|t| t.input_schema.clone())
    }

    fn check_arguments(&self, tool: &str, args: &Value) -> Result<(), ToolError> {
        check_arguments(tool, args)
    }
}
