//! The tool surface of benchmark version 2: an agent is offered the servers its task needs and
//! servers it does not (nothing in the request tells them apart), and calls to the latter are
//! recorded as distractor calls.

mod common;

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use mcpbench_gateway::trace::Line;
use mcpbench_runner::AgentRequest;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An agent that, on every server it is given, lists the tools, calls the first one with no
/// arguments and calls a tool that does not exist; it keeps the names of the servers given.
fn everywhere(seen: Arc<Mutex<Vec<String>>>) -> axum::Router {
    axum::Router::new().route(
        "/",
        post(move |body: Bytes| {
            let seen = seen.clone();
            async move {
                let request: AgentRequest = serde_json::from_slice(&body).unwrap();
                for server in &request.mcp_servers {
                    seen.lock().unwrap().push(server.name.clone());
                    let client = common::connect(server).await;
                    let tools = client.list_all_tools().await.unwrap();
                    let _ = client
                        .call_tool(CallToolRequestParams::new(tools[0].name.to_string()))
                        .await;
                    let _ = client
                        .call_tool(CallToolRequestParams::new("teleport"))
                        .await;
                    let _ = client.cancel().await;
                }
                Json(json!({ "answer": "done" }))
            }
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_to_servers_the_task_does_not_need_are_distractor_calls() {
    let task = common::dev_tasks()
        .into_iter()
        .find(|t| t.servers.len() > 1 && t.distractor_servers.len() > 1)
        .expect("a dev task on two servers with two distractors");
    let (_g, runner) = common::runner(Duration::from_secs(60)).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let url = common::serve(everywhere(seen.clone())).await;
    let r = runner.run(task.clone(), &common::target(&url, b"")).await;

    let offered = seen.lock().unwrap().clone();
    assert_eq!(
        offered,
        task.offered_servers(),
        "every server, in catalogue order"
    );
    for s in task.servers.iter().chain(&task.distractor_servers) {
        assert!(offered.contains(s), "{s} is offered");
    }
    let Line::Header(header) = &r.trace[0] else {
        panic!("a trace starts with its header")
    };
    assert_eq!(header.servers, task.servers);
    assert_eq!(header.distractor_servers, task.distractor_servers);

    let calls: Vec<_> = r
        .trace
        .iter()
        .filter_map(|l| match l {
            Line::Event(e) if e.method == "tools/call" => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2 * offered.len());
    for e in &calls {
        let expected = task.is_distractor(&e.server) && e.tool.as_deref() != Some("teleport");
        assert_eq!(
            e.distractor, expected,
            "{}.{:?}: a listed tool of a server the task does not need",
            e.server, e.tool
        );
    }
    let distractor_calls = calls.iter().filter(|e| e.distractor).count();
    assert_eq!(distractor_calls, task.distractor_servers.len());
    assert!(
        calls
            .iter()
            .filter(|e| e.tool.as_deref() == Some("teleport"))
            .all(|e| !e.distractor),
        "an unknown tool is not a distractor call, on any server"
    );
}
