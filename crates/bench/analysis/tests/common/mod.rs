//! Hand-made traces of dev-set tasks: calls given by hand, the counts and verdict worked out
//! the way the gateway and the runner work them out.

#![allow(dead_code)]

use mcpbench_gateway::trace::{AgentExchange, Event, Header, Line, Outcome, RunSummary};
use mcpbench_scoring::RunReason;
use mcpbench_tasks::{CallOutcome, Task, TaskRun, load_task};
use serde_json::Value;
use std::path::Path;

/// A task of `tests/fixtures`: copies of dev-v2-7 tasks, kept as they were so that the values
/// worked out by hand for them stay true whatever the dev set becomes.
pub fn task(id: &str) -> Task {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{id}.json"));
    load_task(&path).expect("a fixture task")
}

/// How the run ended, when not by its check.
#[derive(Clone, Copy)]
pub enum End {
    Checked,
    Timeout,
    AgentError,
}

/// The trace of `calls` (`server.tool`, arguments) on `task`, then `answer`.
pub fn trace(task: &Task, calls: &[(&str, Value)], answer: Option<&str>, end: End) -> Vec<Line> {
    traced(task, calls, answer, end).0
}

/// [`trace`], and the state the calls left.
pub fn traced<'t>(
    task: &'t Task,
    calls: &[(&str, Value)],
    answer: Option<&str>,
    end: End,
) -> (Vec<Line>, TaskRun<&'t Task>) {
    let mut run = TaskRun::new(task).expect("the task's world");
    let mut lines = vec![Line::Header(Header::of(
        task,
        "run-test".into(),
        "dev",
        "hand",
        "2026-11-27T00:00:00Z".into(),
        vec!["2025-11-25".into()],
    ))];
    for (seq, (tool, arguments)) in calls.iter().enumerate() {
        let (server, name) = tool.split_once('.').expect("a qualified tool");
        let decided = run.attempt(tool, arguments);
        let outcome = match decided {
            CallOutcome::Ok(_) => Outcome::Ok,
            CallOutcome::Unlisted => Outcome::ProtocolError,
            _ => Outcome::ToolError,
        };
        lines.push(Line::Event(Event {
            seq: seq as u32 + 1,
            start_us: 10 * seq as u64,
            end_us: 10 * seq as u64 + 5,
            server: server.into(),
            method: "tools/call".into(),
            protocol: Some("2025-11-25".into()),
            tool: Some(name.into()),
            arguments: Some(arguments.clone()),
            outcome,
            result: None,
            error: None,
            hallucinated: decided == CallOutcome::Unlisted,
            invalid_arguments: matches!(decided, CallOutcome::InvalidArguments(_)),
            over_budget: matches!(decided, CallOutcome::OverBudget { .. }),
            injected_fault: matches!(decided, CallOutcome::InjectedFault(_)),
            distractor: task.is_distractor(server),
            request_bytes: 0,
            response_bytes: 0,
        }));
    }
    let counts = run.counts();
    let (passed, reason, error) = match end {
        End::Timeout => (false, RunReason::Timeout, Some("no reply within 300 s")),
        End::AgentError => (false, RunReason::AgentError, Some("the agent answered 500")),
        End::Checked if counts.budget_exceeded => (false, RunReason::BudgetExceeded, None),
        End::Checked => match run.unmet(answer) {
            None => (true, RunReason::Passed, None),
            Some(_) => (false, RunReason::PredicateFalse, None),
        },
    };
    lines.push(Line::Agent(AgentExchange {
        start_us: 0,
        end_us: 1000,
        status: error.is_none().then_some(200),
        answer: answer.map(str::to_string),
        usage: None,
        usage_error: None,
        error: error.map(str::to_string),
    }));
    lines.push(Line::Result(RunSummary {
        passed,
        reason,
        detail: None,
        counts,
        duration_ms: 1,
        attack_met: None,
    }));
    (lines, run)
}

/// The calls of the task's reference solution `i`, and its answer.
pub fn reference(task: &Task, i: usize) -> (Vec<(&str, Value)>, Option<&str>) {
    let mut calls = Vec::new();
    let mut answer = None;
    for step in &task.reference_solutions[i] {
        match step {
            mcpbench_tasks::Step::Call(c) => calls.push((c.tool.as_str(), c.arguments.clone())),
            mcpbench_tasks::Step::Answer { answer: a } => answer = Some(a.as_str()),
        }
    }
    (calls, answer)
}
