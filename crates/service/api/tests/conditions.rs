//! Run conditions: every run records what the harness gave it, a submission's scores carry
//! its runs' together, and the board marks an entry measured otherwise than most, saying how
//! (JSON, CSV and the page).

mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::time::Duration;
use support::{Options, Service};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_measured_under_another_time_budget_is_marked_with_how() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let token = svc.vendor("acme", false).await;

    // Two submissions under a budget of 30 s a task, then one under 20 s.
    let (stop, first_worker) = svc
        .worker(|c| c.time_budget = Duration::from_secs(30))
        .await;
    let first = svc
        .submit_and_wait(&token, AgentKind::Oracle, "first")
        .await;
    let second = svc.submit_and_wait(&token, AgentKind::Null, "second").await;
    stop.send(true).unwrap();
    first_worker.await.unwrap().unwrap();
    let (_stop, _second_worker) = svc
        .worker(|c| c.time_budget = Duration::from_secs(20))
        .await;
    let third = svc
        .submit_and_wait(&token, AgentKind::Oracle, "third")
        .await;

    // What the submission says it was measured under.
    let (_, shown) = svc
        .get(&format!("/submissions/{first}"), Some(&token))
        .await;
    assert_eq!(shown["status"], "completed", "{shown}");
    let c = &shown["scores"]["conditions"];
    assert!(
        c["harness"].as_str().unwrap().starts_with("mcpbench "),
        "{c}"
    );
    assert_eq!(c["time_budget_secs"], 30);
    assert_eq!(c["max_requests"], 2000);
    assert_eq!(c["mcp_offered"], json!(["2025-11-25", "2026-07-28"]));
    // What the agent spoke is recorded (it is not a condition the board compares).
    assert!(
        !c["mcp_spoken"].as_array().unwrap().is_empty(),
        "what the agent spoke: {c}"
    );
    assert!(
        c.get("sandbox").is_none() && c.get("varied").is_none(),
        "{c}"
    );

    // The board: the usual conditions, and the one entry measured otherwise, marked.
    let (status, board) = svc.get("/leaderboard?set=dev", None).await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["conditions"]["time_budget_secs"], 30, "{board}");
    let marks = |id: &str| -> Value {
        board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["submission_id"] == id)
            .unwrap_or_else(|| panic!("{id} on the board"))["condition_marks"]
            .clone()
    };
    assert_eq!(marks(&first), json!([]));
    assert_eq!(marks(&second), json!([]));
    assert_eq!(marks(&third), json!(["time budget 20 s (usual: 30 s)"]));

    // The CSV says it too.
    let (status, _, csv) = svc.get_text("/leaderboard?set=dev&format=csv").await;
    assert_eq!(status, 200);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "condition_marks").unwrap();
    let row = csv
        .lines()
        .find(|l| l.contains(&third))
        .expect("the third entry's row");
    assert_eq!(
        row.split(',').nth(column),
        Some("time budget 20 s (usual: 30 s)")
    );

    // The page: the usual conditions under the table, one entry marked, with how.
    let (status, _, page) = svc.get_text("/?set=dev").await;
    assert_eq!(status, 200);
    assert!(page.contains("Measured under: mcpbench "), "{page}");
    assert!(page.contains("30 s a task"));
    assert_eq!(
        page.matches("title=\"time budget 20 s (usual: 30 s)\"")
            .count(),
        1,
        "one entry is marked, with how"
    );
    // And the submission's own page.
    let (status, _, own) = svc.get_text(&format!("/web/submissions/{third}")).await;
    assert_eq!(status, 200);
    assert!(own.contains("Run conditions"), "{own}");
    assert!(own.contains("20 s a task"), "{own}");
}
