//! What a run's stored trace shows beyond its verdict ([`RunAnalysis`]; the formulas and rules
//! are in docs/metrics.md): the claims of the task's check that hold, how the run's calls fared,
//! the reference solution closest to them, and why a failed run failed.
//!
//! [`analyze`] needs only the task and the trace. It replays the trace's `tools/call` requests,
//! in order, through [`TaskRun`], the one place the rules of a call are decided, so it sees
//! exactly the final state the agent left (the servers are deterministic), and refuses a trace
//! whose counts the replay does not reproduce: the trace is not of this task. Everything here
//! is therefore recomputable from stored traces, which is what `mcpbench admin rescore` does.
//! A worker that has just run the task holds that final state already and skips the replay
//! ([`analyze_final`]); the rescore test holds the two to the same analysis.

mod claims;
mod diagnose;
mod reference;

use mcpbench_gateway::trace::{Event, Line, Outcome, RunSummary};
use mcpbench_scoring::{CallTally, RunAnalysis, RunCounts};
use mcpbench_tasks::{CallOutcome, Shape, Task, TaskRun};
use serde_json::{Map, Value};
use std::borrow::Borrow;

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
        "the trace's calls give other counts than it records ({found:?} against {recorded:?}): it is not a run of this task as it stands"
    )]
    Mismatch {
        found: RunCounts,
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

/// One `tools/call` of the trace, with the fate the rules gave it.
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
    let summary = checked(task, facts, trace)?;
    let mut run = TaskRun::new(task).map_err(|e| AnalysisError::World(e.to_string()))?;
    let calls = calls_of(trace, |tool, arguments, _| {
        match run.attempt(tool, arguments) {
            CallOutcome::OverBudget { .. } => Fate::OverBudget,
            CallOutcome::Unlisted => Fate::Unlisted,
            CallOutcome::InvalidArguments(_) => Fate::Invalid,
            CallOutcome::InjectedFault(_) => Fate::Fault,
            CallOutcome::ToolError(_) => Fate::ToolError,
            CallOutcome::Ok(_) => Fate::Ok,
        }
    });
    finish(task, facts, trace, summary, &run, calls)
}

/// [`analyze_with`] for a run whose final state is at hand: the gateway's, as the run's calls
/// left it. The same analysis without the replay (most of its cost): each call's fate is the
/// one the gateway recorded in the trace, where the replay decides it again. For a trace the
/// gateway wrote beside `run` the two agree (the rules of a call are decided in one place,
/// and the servers are deterministic); only the replay can tell a trace that is not of this
/// task, so stored traces are analysed with [`analyze_with`].
///
/// # Panics
/// When `facts` or `run` are not of `task` (a caller's mistake, never the trace's).
pub fn analyze_final<T: Borrow<Task>>(
    task: &Task,
    facts: &TaskFacts,
    trace: &[Line],
    run: &TaskRun<T>,
) -> Result<RunAnalysis, AnalysisError> {
    assert_eq!(run.task().id, task.id, "the final state is of another task");
    let summary = checked(task, facts, trace)?;
    // In the order the rules decide them (`TaskRun::attempt`).
    let calls = calls_of(trace, |_, _, e| {
        if e.over_budget {
            Fate::OverBudget
        } else if e.hallucinated {
            Fate::Unlisted
        } else if e.invalid_arguments {
            Fate::Invalid
        } else if e.injected_fault {
            Fate::Fault
        } else if e.outcome == Outcome::Ok {
            Fate::Ok
        } else {
            Fate::ToolError
        }
    });
    finish(task, facts, trace, summary, run, calls)
}

/// The trace's summary, once the facts and the trace are found to be of `task`.
fn checked<'t>(
    task: &Task,
    facts: &TaskFacts,
    trace: &'t [Line],
) -> Result<&'t RunSummary, AnalysisError> {
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
    Ok(summary)
}

/// The trace's `tools/call` requests, in order, each with the fate `decide` gives it (from the
/// qualified tool, the arguments and the event).
fn calls_of<'t>(
    trace: &'t [Line],
    mut decide: impl FnMut(&str, &Value, &Event) -> Fate,
) -> Vec<Replayed<'t>> {
    static EMPTY: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| Value::Object(Map::new()));
    trace
        .iter()
        .filter_map(|l| match l {
            Line::Event(e) if e.method == "tools/call" => Some(e),
            _ => None,
        })
        .map(|e| {
            let tool = format!("{}.{}", e.server, e.tool.as_deref().unwrap_or_default());
            let arguments = e.arguments.as_ref().unwrap_or(&EMPTY);
            let fate = decide(&tool, arguments, e);
            Replayed {
                seq: e.seq,
                tool,
                arguments,
                fate,
            }
        })
        .collect()
}

/// The analysis of `calls`, which left `run`.
fn finish<T: Borrow<Task>>(
    task: &Task,
    facts: &TaskFacts,
    trace: &[Line],
    summary: &RunSummary,
    run: &TaskRun<T>,
    calls: Vec<Replayed<'_>>,
) -> Result<RunAnalysis, AnalysisError> {
    if run.counts() != summary.counts {
        return Err(AnalysisError::Mismatch {
            found: run.counts(),
            recorded: summary.counts,
        });
    }
    let answer = trace.iter().find_map(|l| match l {
        Line::Agent(a) => a.answer.as_deref(),
        _ => None,
    });
    let verdicts = claims::judge(run, &facts.guards, answer);
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
            task_run: run,
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
