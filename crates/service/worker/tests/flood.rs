//! An agent that sends 80 MB of tool-call arguments in one run: what the run keeps is bounded
//! (issue of the second audit), so its trace is stored at the first attempt and the run is
//! scored once, instead of failing the store on our side and being run again up to three
//! times (a free re-roll of the same task).

mod support;

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use mcpbench_runner::AgentRequest;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use std::time::Duration;

fn flood() -> axum::Router {
    axum::Router::new().route(
        "/",
        post(|body: Bytes| async move {
            let request: AgentRequest = serde_json::from_slice(&body).unwrap();
            let server = &request.mcp_servers[0];
            let token = server.headers["Authorization"]
                .strip_prefix("Bearer ")
                .unwrap()
                .to_string();
            let config = StreamableHttpClientTransportConfig::with_uri(server.url.clone())
                .auth_header(token);
            let client = ()
                .serve(StreamableHttpClientTransport::with_client(
                    reqwest::Client::new(),
                    config,
                ))
                .await
                .unwrap();
            let mut args = JsonObject::new();
            args.insert("blob".into(), Value::String("x".repeat(1_000_000)));
            for _ in 0..80 {
                let call = CallToolRequestParams::new("teleport").with_arguments(args.clone());
                let _ = client.call_tool(call).await;
            }
            let _ = client.cancel().await;
            Json(json!({"answer": "done"}))
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_floods_the_gateway_is_stored_and_scored_once() {
    let s = support::setup(flood(), 1).await;
    let (_worker, _stop) = support::worker(&s, Duration::from_secs(1)).await;
    support::completed(&s).await;
    let attempts: Vec<i32> = sqlx::query_scalar("SELECT attempts FROM jobs")
        .fetch_all(&s.pool)
        .await
        .unwrap();
    assert_eq!(attempts, [1], "the run went once");
    let reasons: Vec<String> = sqlx::query_scalar("SELECT reason FROM runs")
        .fetch_all(&s.pool)
        .await
        .unwrap();
    assert_eq!(reasons, ["budget_exceeded"]);
    // The stored trace is a small fraction of what was sent.
    let mut sizes = Vec::new();
    let mut dirs = vec![s.traces.path().to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                dirs.push(entry.path());
            } else {
                sizes.push(entry.metadata().unwrap().len());
            }
        }
    }
    assert_eq!(sizes.len(), 1, "{sizes:?}");
    assert!(sizes[0] < 1 << 20, "the trace takes {} bytes", sizes[0]);
}
