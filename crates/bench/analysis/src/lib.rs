//! What a run's stored trace shows beyond its verdict ([`RunAnalysis`]; the formulas and rules
//! are in docs/metrics.md): the claims of the task's check that hold, how the run's calls fared,
//! the reference solution closest to them, and why a failed run failed.
//!
//! [`analyze`] needs only the task and the trace. It replays the trace's `tools/call` requests,
//! in order, through [`TaskRun`], the one place the rules of a call are decided, so it sees
//! exactly the final state the agent left (the servers are deterministic), and refuses a trace
//! whose counts the replay does not reproduce: the trace is not of this task. Everything here
//! is therefore recomputable from stored traces, which is what `mcpbench admin rescore` does.

mod claims;
mod diagnose;
mod reference;

use mcpbench_gateway::trace::{Line, RunSummary};
use mcpbench_scoring::{CallTally, RunAnalysis, RunCounts};
use mcpbench_tasks::{CallOutcome, Shape, Task, TaskRun};
use serde_json::{Map, Value};

use crate::reference::MadeCall;

/// Why a trace could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("the trace has no result line")]
    NoResult,
    #[error("the trace is of task {trace}, not {task}")]
    OtherTask { trace: String, task: String },
    #[error("the task's world could not be built: {0}")]
    World(String),
    #[error(
        "replaying the trace's calls gives other counts than it records ({replayed:?} against {recorded:?}): it is not a run of this task as it stands"
    )]
    Mismatch {
        replayed: RunCounts,
        recorded: RunCounts,
    },
}

/// How the rules decided one call of the run, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    OverBudget,
    Unlisted,
    Invalid,
    Fault,
    ToolError,
    Ok,
}

/// One `tools/call` of the trace as the replay decided it.
pub(crate) struct Replayed<'a> {
    pub seq: u32,
    /// Qualified: `server.tool`.
    pub tool: String,
    pub arguments: &'a Value,
    pub fate: Fate,
}

/// What the analysis needs of the task alone, the same for every run of it: its shape and
/// which parts of its check are guards (both found by running the task's world, which costs as
/// much as a run's replay). Work it out once per task with [`TaskFacts::of`] where many runs of
/// one task are analysed, and pass it to [`analyze_with`].
#[derive(Clone, Debug)]
pub struct TaskFacts {
    task_id: String,
    shape: Shape,
    guards: Vec<bool>,
}

impl TaskFacts {
    pub fn of(task: &Task) -> Result<Self, AnalysisError> {
        let initial = TaskRun::new(task).map_err(|e| AnalysisError::World(e.to_string()))?;
        Ok(Self {
            task_id: task.id.clone(),
            shape: mcpbench_tasks::shape(task),
            guards: claims::guards(task, &initial),
        })
    }
}

/// The analysis of one run of `task` from its trace.
pub fn analyze(task: &Task, trace: &[Line]) -> Result<RunAnalysis, AnalysisError> {
    analyze_with(task, &TaskFacts::of(task)?, trace)
}

/// [`analyze`] with the task's facts already worked out.
///
/// # Panics
/// When `facts` are not of `task` (a caller's mistake, never the trace's).
pub fn analyze_with(
    task: &Task,
    facts: &TaskFacts,
    trace: &[Line],
) -> Result<RunAnalysis, AnalysisError> {
    assert_eq!(facts.task_id, task.id, "the facts are of another task");
    let summary = summary(trace)?;
    if let Some(Line::Header(h)) = trace.first()
        && h.task_id != task.id
    {
        return Err(AnalysisError::OtherTask {
            trace: h.task_id.clone(),
            task: task.id.clone(),
        });
    }
    let answer = trace.iter().find_map(|l| match l {
        Line::Agent(a) => a.answer.as_deref(),
        _ => None,
    });
    let mut run = TaskRun::new(task).map_err(|e| AnalysisError::World(e.to_string()))?;
    let empty = Value::Object(Map::new());
    let calls: Vec<Replayed<'_>> = trace
        .iter()
        .filter_map(|l| match l {
            Line::Event(e) if e.method == "tools/call" => Some(e),
            _ => None,
        })
        .map(|e| {
            let tool = format!("{}.{}", e.server, e.tool.as_deref().unwrap_or_default());
            let arguments = e.arguments.as_ref().unwrap_or(&empty);
            let fate = match run.attempt(&tool, arguments) {
                CallOutcome::OverBudget { .. } => Fate::OverBudget,
                CallOutcome::Unlisted => Fate::Unlisted,
                CallOutcome::InvalidArguments(_) => Fate::Invalid,
                CallOutcome::InjectedFault(_) => Fate::Fault,
                CallOutcome::ToolError(_) => Fate::ToolError,
                CallOutcome::Ok(_) => Fate::Ok,
            };
            Replayed {
                seq: e.seq,
                tool,
                arguments,
                fate,
            }
        })
        .collect();
    if run.counts() != summary.counts {
        return Err(AnalysisError::Mismatch {
            replayed: run.counts(),
            recorded: summary.counts,
        });
    }
    let verdicts = claims::judge(&run, &facts.guards, answer);
    let made: Vec<MadeCall<'_>> = calls
        .iter()
        .filter(|c| !matches!(c.fate, Fate::OverBudget | Fate::Unlisted))
        .map(|c| MadeCall {
            tool: &c.tool,
            arguments: c.arguments,
        })
        .collect();
    let reference = reference::closest(task, &made, summary.counts.tool_calls);
    let failure = (!summary.passed).then(|| {
        diagnose::diagnose(&diagnose::Run {
            task_run: &run,
            summary,
            answer,
            agent_error: trace.iter().find_map(|l| match l {
                Line::Agent(a) => a.error.as_deref(),
                _ => None,
            }),
            calls: &calls,
            verdicts: &verdicts,
            reference: reference.as_ref(),
        })
    });
    Ok(RunAnalysis {
        claims: verdicts.claims.len() as u32,
        claims_held: verdicts.held() as u32,
        guards_broken: verdicts.broken_guards.len() as u32,
        calls: tally(task, &calls),
        reference,
        failure: failure.flatten(),
        shape: Some(facts.shape.as_str().into()),
    })
}

fn summary(trace: &[Line]) -> Result<&RunSummary, AnalysisError> {
    trace
        .iter()
        .rev()
        .find_map(|l| match l {
            Line::Result(r) => Some(r),
            _ => None,
        })
        .ok_or(AnalysisError::NoResult)
}

/// The calls' tally; see [`CallTally`] for what each number holds.
fn tally(task: &Task, calls: &[Replayed<'_>]) -> CallTally {
    let relevant = task.reference_tools();
    let mut t = CallTally::default();
    for c in calls {
        let count = |b: bool| u32::from(b);
        let named = !matches!(c.fate, Fate::OverBudget | Fate::Unlisted);
        t.judged += count(c.fate != Fate::OverBudget);
        t.named += count(named);
        t.well_formed += count(named && c.fate != Fate::Invalid);
        t.executed += count(matches!(c.fate, Fate::ToolError | Fate::Ok));
        t.succeeded += count(c.fate == Fate::Ok);
        t.relevant += count(named && relevant.contains(c.tool.as_str()));
        let server = c.tool.split_once('.').map_or("", |(s, _)| s);
        t.distractor += count(named && task.is_distractor(server));
    }
    t
}
