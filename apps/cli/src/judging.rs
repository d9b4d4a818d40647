//! `mcpbench eval --judge-url … --judge-model …`: every counted run read by the rubric judge,
//! a few at a time, into the report beside (never inside) its scores.

use mcpbench_judge::Judge;
use mcpbench_runner::{Reason, Report, RunResult};
use mcpbench_scoring::judge_summary;
use mcpbench_tasks::Task;
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

pub async fn judge_report(
    judge: &Judge,
    tasks: &[Arc<Task>],
    results: &[RunResult],
    report: &mut Report,
    concurrency: usize,
) {
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut set = JoinSet::new();
    for (i, (task, r)) in tasks.iter().zip(results).enumerate() {
        if r.reason == Reason::HarnessError {
            continue;
        }
        let (judge, task, trace, permits) = (
            judge.clone(),
            task.clone(),
            r.trace.clone(),
            permits.clone(),
        );
        set.spawn(async move {
            let _permit = permits.acquire_owned().await.expect("never closed");
            (i, judge.judge(&task, &trace).await)
        });
    }
    let mut failed = Vec::new();
    while let Some(joined) = set.join_next().await {
        let (i, judged) = joined.expect("a judgement panicked");
        match judged {
            Ok(j) => report.runs[i].judgement = Some(j),
            Err(e) => failed.push(format!("{}: {e}", report.runs[i].task_id)),
        }
    }
    let summary = judge_summary(
        report
            .runs
            .iter()
            .filter_map(|r| r.judgement.as_ref().map(|j| (r.passed, j))),
    );
    let score = |x: Option<f64>| x.map_or("n/a".into(), |v| format!("{v:.2}"));
    eprintln!(
        "rubric judge {}: {} runs judged, mean {} (passed runs {}, failed runs {}); not part of the scores",
        judge.model(),
        summary.runs,
        score(summary.mean_score),
        score(summary.mean_passed),
        score(summary.mean_failed)
    );
    if let Some(first) = failed.first() {
        eprintln!(
            "  {} runs have no judgement; the first: {first}",
            failed.len()
        );
    }
    report.judge = Some(summary);
}
