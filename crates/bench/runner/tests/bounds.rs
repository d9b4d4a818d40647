//! What one run keeps is bounded whatever its agent sends: an agent that floods the gateway
//! with calls of megabyte arguments and endless listings leaves a trace of a few hundred KiB,
//! and the trace still replays to the run's own counts and analysis.

mod common;

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use mcpbench_gateway::MAX_EVENTS;
use mcpbench_gateway::trace::{Line, to_jsonl};
use mcpbench_runner::AgentRequest;
use rmcp::model::{CallToolRequestParams, JsonObject};
use serde_json::{Value, json};
use std::time::Duration;

/// Arguments of one string of `bytes` bytes.
fn blob(bytes: usize) -> JsonObject {
    let mut args = JsonObject::new();
    args.insert("blob".into(), Value::String("x".repeat(bytes)));
    args
}

/// An agent that makes a listed call with 100 KB of arguments, 30 calls of an unlisted tool
/// with 900 KB, then lists the tools until past the gateway's cap; it answers with how many
/// listings were refused.
fn flood() -> axum::Router {
    axum::Router::new().route(
        "/",
        post(|body: Bytes| async move {
            let request: AgentRequest = serde_json::from_slice(&body).unwrap();
            let client = common::connect(&request.mcp_servers[0]).await;
            let tools = client.list_all_tools().await.unwrap();
            let big =
                CallToolRequestParams::new(tools[0].name.to_string()).with_arguments(blob(100_000));
            let _ = client.call_tool(big).await;
            for _ in 0..30 {
                let call = CallToolRequestParams::new("teleport").with_arguments(blob(900_000));
                // Unlisted, then past the budget too: refused either way.
                let _ = client.call_tool(call).await;
            }
            let mut refused = 0;
            for _ in 0..MAX_EVENTS {
                if client.list_all_tools().await.is_err() {
                    refused += 1;
                }
            }
            let _ = client.cancel().await;
            Json(json!({ "answer": format!("refused {refused}") }))
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_agent_leaves_a_bounded_trace_that_still_replays() {
    let task = common::dev_task("fs-");
    let (_g, runner) = common::runner(Duration::from_secs(120)).await;
    let url = common::serve(flood()).await;
    let r = runner.run(task.clone(), &common::target(&url, b"")).await;

    let events: Vec<_> = (r.trace.iter())
        .filter_map(|l| match l {
            Line::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(
        events.len(),
        MAX_EVENTS,
        "requests past the cap are not kept"
    );
    // The agent's own count: its loop made MAX_EVENTS listings, so as many were refused as
    // requests were kept before the loop (up to its last call).
    let before = 1 + events
        .iter()
        .rposition(|e| e.method == "tools/call")
        .unwrap();
    let said = format!("refused {before}");
    assert_eq!(r.answer.as_deref(), Some(said.as_str()), "{:?}", r.detail);

    // Every call is measured as sent; what was too large to keep is kept as its size and
    // digest.
    let calls: Vec<_> = events.iter().filter(|e| e.method == "tools/call").collect();
    assert_eq!(calls.len(), 31);
    for call in &calls {
        assert!(call.request_bytes > 100_000, "{}", call.request_bytes);
        let cut = &call.arguments.as_ref().unwrap()[mcpbench_tasks::CUT];
        assert_eq!(cut["bytes"], call.request_bytes, "{call:?}");
        assert_eq!(cut["sha256"].as_str().map(str::len), Some(64));
    }
    assert!(calls[0].invalid_arguments, "a call over 64 KiB is invalid");
    assert!(calls[1..].iter().all(|c| c.hallucinated || c.over_budget));
    assert_eq!(r.counts.tool_calls, 31);
    assert!(r.counts.budget_exceeded);

    // About 27 MB were sent; the trace is a small fraction of it.
    let size = to_jsonl(&r.trace).len();
    assert!(size < 1 << 20, "the trace takes {size} bytes");

    // The replay of the trace decides each cut call as the run did.
    let replayed = mcpbench_analysis::analyze(&task, &r.trace).expect("the trace replays");
    let analysis = mcpbench_runner::analysis(&task, &r).expect("a live run is analysed");
    assert_eq!(analysis, replayed);
}
