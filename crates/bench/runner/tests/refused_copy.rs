//! A run whose call found a server unavailable on our side (the memory the process's postgres
//! engines share was full when the run first called postgres) ends as a harness error, which
//! is retried and never scored; with memory back, the same run is the agent's again. Its own
//! test binary: it fills the process's engine memory on purpose.

mod common;

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use mcpbench_runner::{AgentRequest, Reason};
use mcpbench_world::World;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use std::time::Duration;

/// An agent that lists postgres's tables once and answers.
fn lister() -> axum::Router {
    axum::Router::new().route(
        "/",
        post(|body: Bytes| async move {
            let request: AgentRequest = serde_json::from_slice(&body).unwrap();
            let pg = request
                .mcp_servers
                .iter()
                .find(|s| s.name == "postgres")
                .expect("a postgres task offers postgres");
            let client = common::connect(pg).await;
            let _ = client
                .call_tool(CallToolRequestParams::new("list_tables"))
                .await;
            let _ = client.cancel().await;
            Json(json!({ "answer": "done" }))
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_refused_for_our_memory_makes_a_harness_error() {
    let task = common::dev_task("pg-");
    let (_g, runner) = common::runner(Duration::from_secs(30)).await;
    let agent = common::target(&common::serve(lister()).await, b"");
    // The first run keeps the task's world for the runs after it.
    let first = runner.run(task.clone(), &agent).await;
    assert_ne!(first.reason, Reason::HarnessError, "{:?}", first.detail);

    // Other runs' engines take the memory every engine shares, until one is refused.
    let mut hoard = Vec::new();
    while let Ok(world) = World::build(&task.initial_state, &["postgres".to_string()]) {
        hoard.push(world);
        assert!(hoard.len() < 10_000, "the engines' memory never ran out");
    }
    let spoiled = runner.run(task.clone(), &agent).await;
    assert_eq!(spoiled.reason, Reason::HarnessError, "{spoiled:?}");
    let detail = spoiled.detail.unwrap_or_default();
    assert!(detail.contains("postgres"), "{detail}");
    assert!(!spoiled.passed);

    hoard.clear();
    let again = runner.run(task.clone(), &agent).await;
    assert_eq!(again.reason, first.reason, "{:?}", again.detail);
    assert_eq!(again.counts, first.counts);
}
