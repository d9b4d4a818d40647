//! The dev set end to end over real HTTP on loopback: the oracle passes everything with no
//! hallucinated call, the null agent passes nothing.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use mcpbench_agents::AgentKind;
use mcpbench_gateway::trace::Line;
use mcpbench_runner::{EvalOptions, Reason, evaluate};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_passes_every_dev_task_and_null_passes_none() {
    let tasks = common::dev_tasks();
    assert_eq!(tasks.len(), 200);
    let (_gateway, runner) = common::runner(Duration::from_secs(60)).await;
    let secret = b"oracle-secret";
    let oracle = common::serve(mcpbench_agents::router(AgentKind::Oracle, &tasks, secret)).await;
    let options = EvalOptions {
        concurrency: 4,
        retries: 0,
    };
    let (report, results) = evaluate(
        runner.clone(),
        tasks.clone(),
        common::target(&oracle, secret),
        &options,
        |_, _, _| {},
    )
    .await;
    let failed: Vec<String> = report
        .runs
        .iter()
        .filter(|r| !r.passed)
        .map(|r| format!("{} {:?} {:?}", r.task_id, r.reason, r.detail))
        .collect();
    assert!(failed.is_empty(), "the oracle failed: {failed:?}");
    let s = &report.scores.overall;
    assert_eq!((s.tasks, s.passed), (200, 200));
    assert_eq!(s.hallucinated_tool_rate, Some(0.0));
    assert_eq!(
        s.recovery_rate,
        Some(1.0),
        "every recovery task with an observed error passes"
    );
    assert!(s.success_ci95.unwrap()[0] > 0.98);
    // Recovery tasks show their injected faults in the trace.
    let injected = results
        .iter()
        .flat_map(|r| &r.trace)
        .filter(|l| matches!(l, Line::Event(e) if e.injected_fault))
        .count();
    assert!(injected > 0, "faults are marked in traces");
    assert_eq!(runner_open_runs(&_gateway), 0, "every run was closed");

    let null = common::serve(mcpbench_agents::router(AgentKind::Null, &[], b"")).await;
    let (report, _) = evaluate(
        runner,
        tasks,
        common::target(&null, b""),
        &options,
        |_, _, _| {},
    )
    .await;
    assert_eq!(report.scores.overall.passed, 0);
    for r in &report.runs {
        assert_eq!(r.reason, Reason::PredicateFalse, "{}", r.task_id);
        // The detail names the part of the predicate that failed, as the task file writes it.
        let detail = r.detail.as_deref().unwrap_or_default();
        assert!(
            detail.ends_with(" is false")
                || detail.contains("holds, and must not")
                || detail.starts_with("the answer ")
                || detail.starts_with("no answer was given")
                || detail.starts_with("none of these holds: "),
            "{}: {detail:?}",
            r.task_id
        );
    }
    assert_eq!(
        report.scores.overall.efficiency, None,
        "no passed task: efficiency is null, not 0"
    );
}

fn runner_open_runs(g: &mcpbench_runner::LocalGateway) -> usize {
    g.gateway.open_runs()
}
