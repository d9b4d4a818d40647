//! The failure groups (docs/metrics.md, "Failure diagnosis"): a failed run's reason picks a
//! harness group (budget, timeout, agent error); a `predicate_false` run goes through five
//! rules in order, the first that applies naming the group and its evidence.

use mcpbench_gateway::trace::RunSummary;
use mcpbench_scoring::analysis::{PARAMETERS_MIN, SELECTION_MIN};
use mcpbench_scoring::{Failure, FailureGroup, ReferenceMatch, RunReason};
use mcpbench_tasks::{Task, TaskRun};
use std::borrow::Borrow;

use crate::claims::{self, Verdicts};
use crate::{Fate, Replayed};

/// What the rules look at.
pub(crate) struct Run<'a, T: Borrow<Task>> {
    pub task_run: &'a TaskRun<T>,
    pub summary: &'a RunSummary,
    pub answer: Option<&'a str>,
    pub agent_error: Option<&'a str>,
    pub calls: &'a [Replayed<'a>],
    pub verdicts: &'a Verdicts<'a>,
    pub reference: Option<&'a ReferenceMatch>,
}

fn failure(group: FailureGroup, evidence: Option<String>) -> Option<Failure> {
    Some(Failure { group, evidence })
}

/// The group of a failed run; `None` for a passed run and a harness error (never scored).
pub(crate) fn diagnose<T: Borrow<Task>>(run: &Run<'_, T>) -> Option<Failure> {
    match run.summary.reason {
        RunReason::BudgetExceeded => {
            let first = run.calls.iter().find(|c| c.fate == Fate::OverBudget);
            let max = run.task_run.task().max_steps;
            failure(
                FailureGroup::Budget,
                first.map(|c| {
                    format!(
                        "call {} ({}) came after the budget of {max} calls",
                        c.seq, c.tool
                    )
                }),
            )
        }
        RunReason::Timeout => failure(FailureGroup::Timeout, agent_words(run)),
        RunReason::AgentError => failure(FailureGroup::AgentError, agent_words(run)),
        RunReason::PredicateFalse => Some(unmet(run)),
        RunReason::Passed | RunReason::HarnessError => None,
    }
}

/// The longest evidence quoted from what the harness saw of the agent.
const AGENT_WORDS_CHARS: usize = 600;

/// What the harness saw of the agent, cut to a bounded length, NUL bytes replaced (the agent
/// wrote them; a database's text cannot hold them).
fn agent_words<T: Borrow<Task>>(run: &Run<'_, T>) -> Option<String> {
    let words = run.agent_error.or(run.summary.detail.as_deref())?;
    let mut out: String = words
        .chars()
        .take(AGENT_WORDS_CHARS)
        .map(|c| if c == '\0' { '\u{FFFD}' } else { c })
        .collect();
    if words.chars().nth(AGENT_WORDS_CHARS).is_some() {
        out.push('…');
    }
    Some(out)
}

/// The five rules for a run whose check does not hold.
fn unmet<T: Borrow<Task>>(run: &Run<'_, T>) -> Failure {
    let v = run.verdicts;
    let why = |part| claims::why(run.task_run, part, run.answer);
    let first_unmet = v.unmet().next();
    // 1. Tool usage at its plainest: nothing was called, so nothing was looked up either.
    if run.calls.is_empty() {
        return Failure {
            group: FailureGroup::ToolUsage,
            evidence: Some("no tool was called".into()),
        };
    }
    // 2. Response: the state is right, only answer facts are missing.
    if v.broken_guards.is_empty() && first_unmet.is_some() && v.unmet().all(|c| c.is_answer_fact())
    {
        return Failure {
            group: FailureGroup::Response,
            evidence: first_unmet.and_then(|c| why(c.part)),
        };
    }
    // 3. Tool usage: a wrong name, arguments outside the schema, an error left as is.
    if let Some(evidence) = tool_usage(run.calls) {
        return Failure {
            group: FailureGroup::ToolUsage,
            evidence: Some(evidence),
        };
    }
    // 4. Logic: a side effect the task forbids, or the right tools with the wrong values.
    if let Some(guard) = v.broken_guards.first() {
        return Failure {
            group: FailureGroup::Logic,
            evidence: why(guard),
        };
    }
    if let Some(r) = run.reference
        && r.selection >= SELECTION_MIN
        && r.parameters < PARAMETERS_MIN
    {
        return Failure {
            group: FailureGroup::Logic,
            evidence: Some(format!(
                "the calls are those of a reference solution, but give {:.0}% of its argument values",
                r.parameters * 100.0
            )),
        };
    }
    // 5. Task understanding: valid calls that do not do what was asked.
    Failure {
        group: FailureGroup::TaskUnderstanding,
        evidence: first_unmet.and_then(|c| why(c.part)),
    }
}

fn tool_usage(calls: &[Replayed<'_>]) -> Option<String> {
    if let Some(c) = calls.iter().find(|c| c.fate == Fate::Unlisted) {
        return Some(format!(
            "call {}: {} is not a tool of this task",
            c.seq, c.tool
        ));
    }
    if let Some(c) = calls.iter().find(|c| c.fate == Fate::Invalid) {
        return Some(format!(
            "call {}: the arguments of {} do not fit its input schema",
            c.seq, c.tool
        ));
    }
    calls.iter().enumerate().find_map(|(i, c)| {
        let failed = matches!(c.fate, Fate::Fault | Fate::ToolError);
        let recovered = calls[i + 1..]
            .iter()
            .any(|later| later.tool == c.tool && later.fate == Fate::Ok);
        (failed && !recovered).then(|| {
            format!(
                "call {}: {} answered with an error and no later call of it succeeded",
                c.seq, c.tool
            )
        })
    })
}
