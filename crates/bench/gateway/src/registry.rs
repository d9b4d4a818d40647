//! Open runs: each holds its task, its live world (a `TaskRun`, which decides and counts every
//! call under the task's rules) and its events. Here a call's outcome is worded for the agent
//! and recorded, apart from HTTP.

use crate::guard::GatewayConfig;
use crate::trace::{Event, Outcome};
use mcpbench_scoring::RunCounts;
use mcpbench_sim::verify::Run;
use mcpbench_tasks::{CallOutcome, Task, TaskRun};
use mcpbench_world::{WorldError, catalog};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The most requests of one run that are answered and recorded; past it every request of the
/// run is refused unrecorded (and counted), so what a run keeps is bounded however long its
/// agent loops. A task's budget is at most a few dozen calls.
pub const MAX_EVENTS: usize = 2_000;
/// The arguments of a call whose fate does not read them (a tool not listed, a call past the
/// budget) are kept up to this size; beyond it they are kept [`mcpbench_tasks::cut`].
const MAX_UNREAD_ARGUMENT_BYTES: usize = 1024;
/// The most bytes kept of a text the agent chose (a tool's name, a protocol revision).
const MAX_NAME_BYTES: usize = 128;
/// The most distinct protocol revisions a run records.
const MAX_REVISIONS: usize = 4;

pub(crate) struct LiveRun {
    pub(crate) token: String,
    pub(crate) task: Arc<Task>,
    started: Instant,
    state: Mutex<RunState>,
}

struct RunState {
    /// `None` once the run is closed (its state handed back).
    run: Option<TaskRun<Arc<Task>>>,
    events: Vec<Event>,
    revisions: Vec<String>,
    /// Requests refused unrecorded, past [`MAX_EVENTS`].
    refused: u32,
    /// The MCP sessions opened on the run's servers: `(server, session id)`.
    sessions: Vec<(String, String)>,
}

impl RunState {
    fn note_revision(&mut self, revision: Option<&str>) {
        if let Some(rev) = revision.filter(|r| !self.revisions.iter().any(|x| x == r))
            && self.revisions.len() < MAX_REVISIONS
        {
            self.revisions.push(rev.to_string());
        }
    }

    /// Whether one more request may be recorded; counts it refused otherwise.
    fn room(&mut self) -> bool {
        let room = self.events.len() < MAX_EVENTS;
        if !room {
            self.refused = self.refused.saturating_add(1);
        }
        room
    }
}

/// `text` as kept: at most [`MAX_NAME_BYTES`], a longer one cut on a character boundary and
/// marked (so a cut name is never one of the task's tools).
pub(crate) fn kept_name(text: &str) -> String {
    if text.len() <= MAX_NAME_BYTES {
        return text.to_string();
    }
    let mut end = MAX_NAME_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...({} bytes)", &text[..end], text.len())
}

/// What a request past [`MAX_EVENTS`] is told.
fn too_many() -> String {
    format!("this run has made {MAX_EVENTS} requests, the most one run may; give your answer")
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
    pub counts: RunCounts,
    pub revisions: Vec<String>,
    /// Requests refused unrecorded because the run had made [`MAX_EVENTS`] already.
    pub refused_requests: u32,
    run: TaskRun<Arc<Task>>,
}

impl ClosedRun {
    /// Whether the task's predicate holds on the final state, given the agent's answer.
    pub fn predicate_holds(&self, answer: Option<&str>) -> bool {
        self.run.passes(answer)
    }

    /// Whether the attacker's goal holds on the final state, given the agent's answer; `None`
    /// for a task without an attack.
    pub fn attack_met(&self, answer: Option<&str>) -> Option<bool> {
        self.run.attack_met(answer)
    }

    /// Which part of the predicate fails, when it does (quotes the task: as private as it).
    pub fn predicate_unmet(&self, answer: Option<&str>) -> Option<String> {
        self.run.unmet(answer)
    }

    /// The server a call found unavailable on our side, if one did
    /// ([`mcpbench_world::World::refused_copy`]): the run is not the agent's to be scored on.
    pub fn refused_copy(&self) -> Option<&'static str> {
        self.run.world().refused_copy()
    }

    /// The run's final state, as its calls left it.
    pub fn into_task_run(self) -> TaskRun<Arc<Task>> {
        self.run
    }
}

/// Every open run of this process.
pub struct Gateway {
    runs: Mutex<HashMap<String, Arc<LiveRun>>>,
    pub(crate) config: GatewayConfig,
    /// The MCP sessions of every run (each run's are closed with it).
    sessions: Arc<LocalSessionManager>,
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
            sessions: crate::sessions::manager(),
        })
    }

    pub(crate) fn sessions(&self) -> &Arc<LocalSessionManager> {
        &self.sessions
    }

    /// How many MCP sessions are open, over every run.
    pub async fn open_sessions(&self) -> usize {
        self.sessions.sessions.read().await.len()
    }

    /// Notes session `id` made on `server` of `run_id`: whether the run (still open) has room
    /// for it ([`crate::sessions::MAX_SESSIONS`] on each server).
    pub(crate) fn note_session(&self, run_id: &str, server: &str, id: &str) -> bool {
        let Some(live) = self.get(run_id) else {
            return false;
        };
        let mut state = live.state.lock().expect("run lock");
        let on_server = state.sessions.iter().filter(|(s, _)| s == server).count();
        if state.run.is_none() || on_server >= crate::sessions::MAX_SESSIONS {
            return false;
        }
        state.sessions.push((server.to_string(), id.to_string()));
        true
    }

    /// Forgets session `id` of `run_id`, which its agent ended.
    pub(crate) fn forget_session(&self, run_id: &str, id: &str) {
        if let Some(live) = self.get(run_id) {
            (live.state.lock().expect("run lock").sessions).retain(|(_, s)| s != id);
        }
    }

    /// Opens a run of `task`: a fresh world from its initial state, a new id and token.
    pub fn open_run(&self, task: Arc<Task>) -> Result<OpenRun, WorldError> {
        let run = TaskRun::new(task.clone())?;
        let open = OpenRun {
            run_id: match &self.config.route {
                Some(route) => format!("run_{route}_{}", random_hex(12)),
                None => format!("run_{}", random_hex(12)),
            },
            token: random_hex(32),
            servers: task.offered_servers(),
        };
        let live = LiveRun {
            token: open.token.clone(),
            task,
            started: Instant::now(),
            state: Mutex::new(RunState {
                run: Some(run),
                events: Vec::new(),
                revisions: Vec::new(),
                refused: 0,
                sessions: Vec::new(),
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
        let run = state.run.take()?;
        // Its sessions end with it, and the streams open on them.
        let sessions = std::mem::take(&mut state.sessions);
        crate::sessions::close(
            &self.sessions,
            sessions.into_iter().map(|(_, id)| id).collect(),
        );
        Some(ClosedRun {
            events: std::mem::take(&mut state.events),
            counts: run.counts(),
            revisions: std::mem::take(&mut state.revisions),
            refused_requests: state.refused,
            run,
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
            protocol: protocol.as_deref().map(kept_name),
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

    /// The description the agent is shown of `server`'s tool: the catalogue's, or the one a
    /// task's attack planted in its place.
    pub(crate) fn description(&self, server: &str, tool: &mcpbench_sim::ToolSpec) -> String {
        let planted = (self.task.attack.as_ref())
            .and_then(|a| a.tool_descriptions.get(&format!("{server}.{}", tool.name)));
        planted.map_or_else(|| tool.description.to_string(), Clone::clone)
    }

    /// Records a request that is not a tool call (`initialize`, `tools/list`, ...); `Err`
    /// when the run has made [`MAX_EVENTS`] requests (nothing is recorded).
    pub(crate) fn record(&self, p: Pending, result: Option<Value>) -> Result<(), String> {
        let end_us = self.now_us();
        let response_bytes = result.as_ref().map_or(0, |r| r.to_string().len() as u64);
        let mut state = self.state.lock().expect("run lock");
        if !state.room() {
            return Err(too_many());
        }
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
            distractor: false,
            request_bytes: 0,
            response_bytes,
        });
        Ok(())
    }

    /// Applies one `tools/call` under the task's rules ([`TaskRun::attempt`] decides and
    /// counts) and records it with what the agent was told.
    pub(crate) fn call(&self, mut p: Pending, tool: &str, args: Value) -> Answer {
        let qualified = format!("{}.{tool}", p.server);
        let request_bytes = mcpbench_tasks::argument_bytes(&args) as u64;
        // A name longer than any tool's is kept cut: the call is unlisted either way.
        let tool = kept_name(tool);
        p.tool = Some(tool.clone());
        let mut state = self.state.lock().expect("run lock");
        if state.run.is_some() && !state.room() {
            return Answer::Refused(too_many());
        }
        state.note_revision(p.protocol.as_deref());
        let Some(run) = state.run.as_mut() else {
            // Closed while this call waited for the lock: the run's state is being judged.
            return Answer::Refused("this run has ended".into());
        };
        let outcome = run.attempt(&qualified, &args);
        let hallucinated = matches!(outcome, CallOutcome::Unlisted);
        let invalid_arguments = matches!(outcome, CallOutcome::InvalidArguments(_));
        let over_budget = matches!(outcome, CallOutcome::OverBudget { .. });
        let injected_fault = matches!(outcome, CallOutcome::InjectedFault(_));
        let distractor =
            self.task.is_distractor(&p.server) && self.task.available_tools.contains(&qualified);
        // What is kept of the arguments: whole when they decided the call; cut when they are
        // over what a call may send, or large and the call's fate never read them. The
        // replay of a trace decides a cut call as the run did (`TaskRun` reads a cut's size).
        let unread = hallucinated || over_budget;
        let arguments = if request_bytes as usize > mcpbench_tasks::MAX_ARGUMENT_BYTES
            || (unread && request_bytes as usize > MAX_UNREAD_ARGUMENT_BYTES)
        {
            mcpbench_tasks::cut(&args)
        } else {
            args
        };
        let answer = match outcome {
            CallOutcome::Ok(v) => Answer::Result(v),
            CallOutcome::OverBudget { max_steps, call } => Answer::ToolError(format!(
                "budget exceeded: this task allows {max_steps} tool calls and this was call {call}; the run has failed its budget"
            )),
            CallOutcome::Unlisted => Answer::Refused(format!(
                "tool {tool} is not available on this server; call tools/list for the tools you may use"
            )),
            CallOutcome::InvalidArguments(e)
            | CallOutcome::InjectedFault(e)
            | CallOutcome::ToolError(e) => Answer::ToolError(e.to_string()),
        };
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
            arguments: Some(arguments),
            outcome,
            result,
            error,
            hallucinated,
            invalid_arguments,
            over_budget,
            injected_fault,
            distractor,
            request_bytes,
            response_bytes: response.len() as u64,
        });
        answer
    }
}
