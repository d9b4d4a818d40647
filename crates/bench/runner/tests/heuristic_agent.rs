//! The heuristic reference agent served over HTTP on the dev set: through mcpbench/1, the
//! gateway's MCP endpoints and the runner, it passes exactly the tasks it passes in process
//! (`tasks stats`), keeps to the budget and calls only listed tools.

mod common;

use mcpbench_agents::AgentKind;
use mcpbench_runner::{EvalOptions, Reason, evaluate};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_heuristic_passes_what_it_passes_in_process() {
    let tasks = common::dev_tasks();
    let (_gateway, runner) = common::runner(Duration::from_secs(60)).await;
    let secret = b"heuristic-secret";
    let agent = common::serve(mcpbench_agents::router(AgentKind::Heuristic, &[], secret)).await;
    let options = EvalOptions {
        concurrency: 4,
        retries: 0,
    };
    let (report, _) = evaluate(
        runner,
        tasks.clone(),
        common::target(&agent, secret),
        &options,
        |_, _, _| {},
    )
    .await;
    assert_eq!(report.runs.len(), tasks.len());
    let mut differ = Vec::new();
    for run in &report.runs {
        let task = tasks.iter().find(|t| t.id == run.task_id).unwrap();
        assert!(
            matches!(run.reason, Reason::Passed | Reason::PredicateFalse),
            "{}: {:?} {:?}",
            run.task_id,
            run.reason,
            run.detail
        );
        assert_eq!(run.counts.hallucinated_calls, 0, "{}", run.task_id);
        if run.passed != mcpbench_tasks::heuristic_passes(task) {
            differ.push(format!("{} served {}", run.task_id, run.passed));
        }
    }
    assert!(
        differ.is_empty(),
        "served and in-process differ: {differ:?}"
    );
    let s = &report.scores.overall;
    assert!(
        s.passed > 0 && s.passed < s.tasks,
        "{} of {}",
        s.passed,
        s.tasks
    );
}
