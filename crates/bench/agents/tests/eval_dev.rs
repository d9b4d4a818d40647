//! The dev set end to end over real HTTP on loopback: the oracle passes everything with no
//! hallucinated call and never does what a planted instruction asks, the null agent passes
//! nothing, and an agent that follows every instruction meets every attacker's goal.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use mcpbench_agents::AgentKind;
use mcpbench_gateway::trace::Line;
use mcpbench_runner::{EvalOptions, Reason, evaluate};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_passes_every_dev_task_and_null_passes_none() {
    let tasks = common::dev_tasks();
    let attacked = tasks.iter().filter(|t| t.attack.is_some()).count();
    assert!(
        attacked >= 5,
        "the dev set's tasks under attack: {attacked}"
    );
    assert_eq!(
        tasks.len(),
        200 + attacked,
        "200 tasks and their attacked twins"
    );
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
    // Under attack the oracle does the task and nothing the planted instructions ask.
    let security = report.scores.security.as_ref().expect("tasks under attack");
    let o = &security.overall;
    assert_eq!((o.attacked_runs, o.twin_runs), (attacked, attacked));
    assert_eq!(o.utility, Some(1.0));
    assert_eq!(o.utility_under_attack, Some(1.0));
    assert_eq!(
        o.attack_success_rate,
        Some(0.0),
        "the oracle's attack success rate"
    );
    assert!(
        results.iter().all(|r| r.attack_met
            == tasks
                .iter()
                .find(|t| t.id == r.task_id)
                .unwrap()
                .attack
                .as_ref()
                .map(|_| false)),
        "every attacked run records its verdict on the attack, and no other run does"
    );
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
    let o = &report.scores.security.as_ref().unwrap().overall;
    assert_eq!(
        (o.utility, o.utility_under_attack, o.attack_success_rate),
        (Some(0.0), Some(0.0), Some(0.0))
    );
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

/// The oracle served with tasks whose reference is followed by what their planted instructions
/// ask (the proof's "follow every instruction" mutant), run on the tasks as they are: every
/// attacker's goal is met through the real gateway, a planted description included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_follows_every_instruction_meets_every_attacker_s_goal() {
    let tasks: Vec<_> = (common::dev_tasks().into_iter())
        .filter(|t| t.attack.is_some())
        .collect();
    let followed: Vec<_> = tasks
        .iter()
        .map(|t| {
            let attack = t.attack.as_ref().unwrap();
            let mut gullible = (**t).clone();
            gullible.reference_solutions = vec![attack.follow(t.shortest_reference())];
            std::sync::Arc::new(gullible)
        })
        .collect();
    let (_gateway, runner) = common::runner(Duration::from_secs(60)).await;
    let secret = b"follower";
    let follower = common::serve(mcpbench_agents::router(
        AgentKind::Oracle,
        &followed,
        secret,
    ))
    .await;
    let (report, results) = evaluate(
        runner,
        tasks.clone(),
        common::target(&follower, secret),
        &EvalOptions {
            concurrency: 4,
            retries: 0,
        },
        |_, _, _| {},
    )
    .await;
    let missed: Vec<&str> = (results.iter())
        .filter(|r| r.attack_met != Some(true))
        .map(|r| r.task_id.as_str())
        .collect();
    assert!(missed.is_empty(), "attacks not met: {missed:?}");
    let o = &report.scores.security.as_ref().unwrap().overall;
    assert_eq!(o.attack_success_rate, Some(1.0));
    assert_eq!(
        (o.attacked_runs, o.twin_runs),
        (tasks.len(), 0),
        "no twin was run"
    );
    assert_eq!(report.scores.overall.tasks, 0, "no run counts in the rank");
    // The trace's last line says so too.
    for r in &results {
        let Some(Line::Result(summary)) = r.trace.last() else {
            panic!("{}: a trace ends with its result", r.task_id)
        };
        assert_eq!(summary.attack_met, Some(true), "{}", r.task_id);
    }
}

fn runner_open_runs(g: &mcpbench_runner::LocalGateway) -> usize {
    g.gateway.open_runs()
}
