//! Open runs: each holds its task, its live world, its counters and its events. The rules of
//! a call (budget, listed tools, schema, faults) are applied here, apart from HTTP, so they
//! can be tested directly.

use crate::guard::GatewayConfig;
use crate::trace::{Event, Outcome};
use mcpbench_sim::verify::Run;
use mcpbench_tasks::{Task, TaskRun};
use mcpbench_world::{WorldError, catalog, check_arguments};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Counts that scores are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunCounters {
    /// Every `tools/call`, listed tool or not, within budget or not.
    pub tool_calls: u32,
    pub hallucinated_calls: u32,
    pub invalid_calls: u32,
    /// Calls answered with an error the agent could see (tool errors and refusals).
    pub errors_observed: u32,
    pub budget_exceeded: bool,
}

pub(crate) struct LiveRun {
    pub(crate) token: String,
    pub(crate) task: Arc<Task>,
    started: Instant,
    state: Mutex<RunState>,
}

struct RunState {
    run: TaskRun<Arc<Task>>,
    events: Vec<Event>,
    counters: RunCounters,
    revisions: Vec<String>,
}

impl RunState {
    fn note_revision(&mut self, revision: Option<&str>) {
        if let Some(rev) = revision.filter(|r| !self.revisions.iter().any(|x| x == r)) {
            self.revisions.push(rev.to_string());
        }
    }
}

/// What an agent gets back from a call.
pub(crate) enum Answer {
    /// The tool's result.
    Result(Value),
    /// An error the agent reads as the tool's result (`isError: true`).
    ToolError(String),
    /// A protocol-level refusal (JSON-RPC error).
    Refused(String),
}

/// A run that was opened: its id, token, and servers (one endpoint each).
#[derive(Clone, Debug)]
pub struct OpenRun {
    pub run_id: String,
    pub token: String,
    pub servers: Vec<String>,
}

/// A closed run: what happened, and the final state to judge.
pub struct ClosedRun {
    pub events: Vec<Event>,
    pub counters: RunCounters,
    pub revisions: Vec<String>,
    run: TaskRun<Arc<Task>>,
}

impl ClosedRun {
    /// Whether the task's predicate holds on the final state, given the agent's answer.
    pub fn predicate_holds(&self, answer: Option<&str>) -> bool {
        self.run.passes(answer)
    }

    /// Which part of the predicate fails, when it does (quotes the task: as private as it).
    pub fn predicate_unmet(&self, answer: Option<&str>) -> Option<String> {
        self.run.unmet(answer)
    }
}

/// Every open run of this process.
pub struct Gateway {
    runs: Mutex<HashMap<String, Arc<LiveRun>>>,
    pub(crate) config: GatewayConfig,
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system's random source works");
    hex::encode(buf)
}

impl Gateway {
    pub fn new(config: GatewayConfig) -> Arc<Self> {
        Arc::new(Self {
            runs: Mutex::new(HashMap::new()),
            config,
        })
    }

    /// Opens a run of `task`: a fresh world from its initial state, a new id and token.
    pub fn open_run(&self, task: Arc<Task>) -> Result<OpenRun, WorldError> {
        let run = TaskRun::new(task.clone())?;
        let open = OpenRun {
            run_id: format!("run_{}", random_hex(12)),
            token: random_hex(32),
            servers: task.servers.clone(),
        };
        let live = LiveRun {
            token: open.token.clone(),
            task,
            started: Instant::now(),
            state: Mutex::new(RunState {
                run,
                events: Vec::new(),
                counters: RunCounters::default(),
                revisions: Vec::new(),
            }),
        };
        self.runs
            .lock()
            .expect("runs lock")
            .insert(open.run_id.clone(), Arc::new(live));
        Ok(open)
    }

    /// Closes a run: its endpoints stop answering at once; its state is handed back once.
    pub fn close_run(&self, run_id: &str) -> Option<ClosedRun> {
        let live = self.runs.lock().expect("runs lock").remove(run_id)?;
        // Requests in flight hold a clone of the Arc; take the state out from under them.
        let mut state = live.state.lock().expect("run lock");
        let run = TaskRun::new(live.task.clone()).expect("the world was built once already");
        let state = std::mem::replace(
            &mut *state,
            RunState {
                run,
                events: Vec::new(),
                counters: RunCounters::default(),
                revisions: Vec::new(),
            },
        );
        Some(ClosedRun {
            events: state.events,
            counters: state.counters,
            revisions: state.revisions,
            run: state.run,
        })
    }

    pub fn open_runs(&self) -> usize {
        self.runs.lock().expect("runs lock").len()
    }

    pub(crate) fn get(&self, run_id: &str) -> Option<Arc<LiveRun>> {
        self.runs.lock().expect("runs lock").get(run_id).cloned()
    }
}

/// A request in progress, to be recorded when answered.
pub(crate) struct Pending {
    pub(crate) server: String,
    pub(crate) method: &'static str,
    pub(crate) protocol: Option<String>,
    pub(crate) tool: Option<String>,
    pub(crate) start_us: u64,
}

impl LiveRun {
    fn now_us(&self) -> u64 {
        self.started.elapsed().as_micros() as u64
    }

    pub(crate) fn begin(
        &self,
        server: &str,
        method: &'static str,
        protocol: Option<String>,
    ) -> Pending {
        Pending {
            server: server.into(),
            method,
            protocol,
            tool: None,
            start_us: self.now_us(),
        }
    }

    /// The task's tools of `server`, in catalogue order.
    pub(crate) fn tools(&self, server: &str) -> Vec<mcpbench_sim::ToolSpec<'static>> {
        catalog(server)
            .unwrap_or_default()
            .into_iter()
            .filter(|t| {
                self.task
                    .available_tools
                    .iter()
                    .any(|a| a.split_once('.') == Some((server, t.name)))
            })
            .collect()
    }

    /// Records a request that is not a tool call (`initialize`, `tools/list`, ...).
    pub(crate) fn record(&self, p: Pending, result: Option<Value>) {
        let end_us = self.now_us();
        let response_bytes = result.as_ref().map_or(0, |r| r.to_string().len() as u64);
        let mut state = self.state.lock().expect("run lock");
        state.note_revision(p.protocol.as_deref());
        let seq = state.events.len() as u32 + 1;
        state.events.push(Event {
            seq,
            start_us: p.start_us,
            end_us,
            server: p.server,
            method: p.method.into(),
            protocol: p.protocol,
            tool: None,
            arguments: None,
            outcome: Outcome::Ok,
            result,
            error: None,
            hallucinated: false,
            invalid_arguments: false,
            over_budget: false,
            injected_fault: false,
            request_bytes: 0,
            response_bytes,
        });
    }

    /// Applies one `tools/call`, in this order: count it; refuse it past the budget; refuse an
    /// unlisted tool; answer schema-invalid arguments with a tool error; apply faults; run it.
    pub(crate) fn call(&self, mut p: Pending, tool: &str, args: Value) -> Answer {
        let qualified = format!("{}.{tool}", p.server);
        let request_bytes = args.to_string().len() as u64;
        p.tool = Some(tool.to_string());
        let mut state = self.state.lock().expect("run lock");
        state.note_revision(p.protocol.as_deref());
        state.counters.tool_calls += 1;
        let (mut hallucinated, mut invalid, mut over_budget, mut injected) =
            (false, false, false, false);
        let answer = if state.counters.tool_calls > self.task.max_steps {
            state.counters.budget_exceeded = true;
            over_budget = true;
            Answer::ToolError(format!(
                "budget exceeded: this task allows {} tool calls and this was call {}; the run has failed its budget",
                self.task.max_steps, state.counters.tool_calls
            ))
        } else if !self.task.available_tools.contains(&qualified) {
            hallucinated = true;
            state.counters.hallucinated_calls += 1;
            Answer::Refused(format!(
                "tool {tool} is not available on this server; call tools/list for the tools you may use"
            ))
        } else if let Err(e) = check_arguments(&qualified, &args) {
            invalid = true;
            state.counters.invalid_calls += 1;
            Answer::ToolError(e.to_string())
        } else {
            let faults_before = fault_hits(&self.task, &qualified, &state.events);
            match state.run.call(&qualified, &args) {
                Ok(v) => Answer::Result(v),
                Err(e) => {
                    injected = faults_before;
                    Answer::ToolError(e.to_string())
                }
            }
        };
        if !matches!(answer, Answer::Result(_)) {
            state.counters.errors_observed += 1;
        }
        let (outcome, result, error, response) = match &answer {
            Answer::Result(v) => (Outcome::Ok, Some(v.clone()), None, v.to_string()),
            Answer::ToolError(m) => (Outcome::ToolError, None, Some(m.clone()), m.clone()),
            Answer::Refused(m) => (Outcome::ProtocolError, None, Some(m.clone()), m.clone()),
        };
        let seq = state.events.len() as u32 + 1;
        state.events.push(Event {
            seq,
            start_us: p.start_us,
            end_us: self.now_us(),
            server: p.server,
            method: p.method.into(),
            protocol: p.protocol,
            tool: p.tool,
            arguments: Some(args),
            outcome,
            result,
            error,
            hallucinated,
            invalid_arguments: invalid,
            over_budget,
            injected_fault: injected,
            request_bytes,
            response_bytes: response.len() as u64,
        });
        answer
    }
}

/// Whether the next call of `tool` is hit by one of the task's faults: counts the earlier
/// calls of it that reached the world (listed, in budget, schema-valid).
fn fault_hits(task: &Task, tool: &str, events: &[Event]) -> bool {
    let n = events
        .iter()
        .filter(|e| {
            e.method == "tools/call" && !e.hallucinated && !e.invalid_arguments && !e.over_budget
        })
        .filter(|e| {
            e.tool
                .as_deref()
                .map(|t| format!("{}.{t}", e.server))
                .as_deref()
                == Some(tool)
        })
        .count() as u32
        + 1;
    task.faults.iter().any(|f| f.hits(tool, n))
}
