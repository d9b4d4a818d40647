//! A whole set against one agent, `concurrency` runs at a time, into a scored report.

use crate::run::{AgentTarget, Reason, RunResult, Runner};
use mcpbench_analysis::TaskFacts;
use mcpbench_scoring::{
    AttackOutcome, JudgeSummary, Judgement, Outcome, RunAnalysis, RunCounts, Scores, score,
};
use mcpbench_tasks::Task;
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Runs at a time (at least 1).
    pub concurrency: usize,
    /// Extra tries of a run that ended in a harness error.
    pub retries: u32,
}

impl Default for EvalOptions {
    fn default() -> Self {
        Self {
            concurrency: 4,
            retries: 2,
        }
    }
}

/// One task's line in the report.
#[derive(Clone, Debug, Serialize)]
pub struct RunEntry {
    pub task_id: String,
    pub run_id: String,
    pub server: String,
    pub category: String,
    pub difficulty: String,
    pub passed: bool,
    pub reason: Reason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub counts: RunCounts,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// What the trace shows beyond the verdict (docs/metrics.md); absent for a harness error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<RunAnalysis>,
    /// The optional rubric judge's reading (`eval --judge-url`), apart from every score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<Judgement>,
}

/// `report.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub agent: String,
    pub set: String,
    #[serde(flatten)]
    pub scores: Scores,
    /// Runs that failed on our side even after retries; left out of every score.
    pub harness_errors: usize,
    pub duration_s: f64,
    /// The rubric judge's summary when one ran; never part of `scores`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSummary>,
    pub runs: Vec<RunEntry>,
}

/// What the run's trace shows beyond its verdict; `None` for a harness error (never scored).
/// A trace the task cannot replay (which the runner never writes) is logged and left out.
///
/// It takes the run's final state when the result holds it ([`crate::FinalState`]): the
/// analysis then reads the state the gateway judged instead of replaying the trace's calls.
pub fn analysis(task: &Task, r: &RunResult) -> Option<RunAnalysis> {
    let facts = match TaskFacts::of(task) {
        Ok(facts) => facts,
        Err(e) => return analysed(r, || Err(e)),
    };
    analysis_with(task, &facts, r)
}

/// [`analysis`] with the task's facts worked out already (see [`TaskFacts`]).
pub fn analysis_with(task: &Task, facts: &TaskFacts, r: &RunResult) -> Option<RunAnalysis> {
    let last = r.final_state.as_ref().and_then(|s| s.take());
    analysed(r, || match &last {
        Some(run) => mcpbench_analysis::analyze_final(task, facts, &r.trace, run),
        None => mcpbench_analysis::analyze_with(task, facts, &r.trace),
    })
}

fn analysed(
    r: &RunResult,
    analyze: impl FnOnce() -> Result<RunAnalysis, mcpbench_analysis::AnalysisError>,
) -> Option<RunAnalysis> {
    if r.reason == Reason::HarnessError {
        return None;
    }
    analyze()
        .inspect_err(|e| tracing::warn!(error = %e, "a run's trace could not be analysed"))
        .ok()
}

/// What scoring needs of one run.
pub fn outcome(task: &Task, r: &RunResult, analysis: Option<RunAnalysis>) -> Outcome {
    Outcome {
        task_id: task.id.clone(),
        server: task.server.clone(),
        category: task.category.as_str().into(),
        difficulty: task.difficulty.as_str().into(),
        max_steps: task.max_steps,
        passed: r.passed,
        counts: r.counts,
        analysis,
        duration_ms: Some(r.duration.as_millis() as u64),
        usage: r.usage,
        usage_measured: false,
        attack: attack_outcome(task, r.attack_met),
    }
}

/// What scoring needs of a run of a task under attack: where the attack stood and whether
/// the run met its goal (a run that left no verdict on it met nothing).
pub fn attack_outcome(task: &Task, met: Option<bool>) -> Option<AttackOutcome> {
    let attack = task.attack.as_ref()?;
    Some(AttackOutcome {
        kind: attack.kind.as_str().into(),
        server: attack.server.clone(),
        twin: attack.twin.clone(),
        met: met.unwrap_or(false),
    })
}

/// Runs every task; `on_done(done, total, result)` is called as each finishes.
pub async fn evaluate(
    runner: Arc<Runner>,
    tasks: Vec<Arc<Task>>,
    agent: AgentTarget,
    options: &EvalOptions,
    on_done: impl FnMut(usize, usize, &RunResult),
) -> (Report, Vec<RunResult>) {
    let (set, label) = (runner.set.clone(), agent.label.clone());
    let agent = Arc::new(agent);
    let run = move |task: Arc<Task>| {
        let (runner, agent) = (runner.clone(), agent.clone());
        let run: RunFuture = Box::pin(async move { runner.run(task, &agent).await });
        run
    };
    evaluate_each(&set, &label, tasks, options, run, on_done).await
}

/// One run, as [`evaluate_each`] is given it.
pub type RunFuture = std::pin::Pin<Box<dyn std::future::Future<Output = RunResult> + Send>>;

/// [`evaluate`] with each run made by `run` (an image needs a fresh pod for each): every task
/// of `set` against the agent `label`, `concurrency` at a time, a harness error tried again.
pub async fn evaluate_each(
    set: &str,
    label: &str,
    tasks: Vec<Arc<Task>>,
    options: &EvalOptions,
    run: impl Fn(Arc<Task>) -> RunFuture + Clone + Send + 'static,
    mut on_done: impl FnMut(usize, usize, &RunResult),
) -> (Report, Vec<RunResult>) {
    let started = Instant::now();
    let permits = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut set_of_runs = JoinSet::new();
    for (i, task) in tasks.iter().cloned().enumerate() {
        let (run, permits, retries) = (run.clone(), permits.clone(), options.retries);
        set_of_runs.spawn(async move {
            let _permit = permits
                .acquire_owned()
                .await
                .expect("the semaphore is never closed");
            let mut result = run(task.clone()).await;
            for _ in 0..retries {
                if result.reason != Reason::HarnessError {
                    break;
                }
                result = run(task.clone()).await;
            }
            (i, result)
        });
    }
    let mut results: Vec<Option<RunResult>> = (0..tasks.len()).map(|_| None).collect();
    let mut analyses: Vec<Option<RunAnalysis>> = vec![None; tasks.len()];
    let mut done = 0;
    while let Some(joined) = set_of_runs.join_next().await {
        let (i, mut result) = joined.expect("a run panicked");
        done += 1;
        on_done(done, tasks.len(), &result);
        // Analysed as it comes (a millisecond or so of CPU beside the runs still going), so
        // that each run's final state is released at once, analysed or not.
        analyses[i] = analysis(&tasks[i], &result);
        result.final_state = None;
        results[i] = Some(result);
    }
    let results: Vec<RunResult> = results
        .into_iter()
        .map(|r| r.expect("every run reported"))
        .collect();
    let counted: Vec<Outcome> = tasks
        .iter()
        .zip(&results)
        .zip(&analyses)
        .filter(|((_, r), _)| r.reason != Reason::HarnessError)
        .map(|((t, r), a)| outcome(t, r, a.clone()))
        .collect();
    let runs = tasks
        .iter()
        .zip(&results)
        .zip(analyses)
        .map(|((t, r), analysis)| RunEntry {
            task_id: t.id.clone(),
            run_id: r.run_id.clone(),
            server: t.server.clone(),
            category: t.category.as_str().into(),
            difficulty: t.difficulty.as_str().into(),
            passed: r.passed,
            reason: r.reason,
            detail: r.detail.clone(),
            counts: r.counts,
            duration_ms: r.duration.as_millis() as u64,
            answer: r.answer.clone(),
            analysis,
            judgement: None,
        })
        .collect();
    let report = Report {
        agent: label.to_string(),
        set: set.to_string(),
        scores: score(&counted),
        harness_errors: results
            .iter()
            .filter(|r| r.reason == Reason::HarnessError)
            .count(),
        duration_s: started.elapsed().as_secs_f64(),
        judge: None,
        runs,
    };
    (report, results)
}
