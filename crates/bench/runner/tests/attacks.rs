//! Tasks under attack through the gateway: a planted description is what `tools/list` shows
//! on the attacked task and the catalogue's on its twin, and a run of either records its
//! verdict on the attack only where there is one.

mod common;

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use mcpbench_gateway::trace::Line;
use mcpbench_runner::AgentRequest;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

type Shown = Arc<Mutex<BTreeMap<String, String>>>;

/// An agent that lists every server's tools and keeps each description it was shown.
fn lister(shown: Shown) -> axum::Router {
    axum::Router::new().route(
        "/",
        post(move |body: Bytes| {
            let shown = shown.clone();
            async move {
                let request: AgentRequest = serde_json::from_slice(&body).unwrap();
                for server in &request.mcp_servers {
                    let client = common::connect(server).await;
                    for tool in client.list_all_tools().await.unwrap() {
                        let description = tool.description.as_deref().unwrap_or_default();
                        shown.lock().unwrap().insert(
                            format!("{}.{}", server.name, tool.name),
                            description.to_string(),
                        );
                    }
                    let _ = client.cancel().await;
                }
                Json(json!({ "answer": "done" }))
            }
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_description_is_shown_on_the_attacked_task_alone() {
    let tasks = common::dev_tasks();
    let twin = (tasks.iter())
        .find(|t| {
            t.attack
                .as_ref()
                .is_some_and(|a| !a.tool_descriptions.is_empty())
        })
        .expect("a dev task with a planted description")
        .clone();
    let attack = twin.attack.as_ref().unwrap();
    let task = (tasks.iter())
        .find(|t| Some(&t.id) == attack.twin.as_ref())
        .expect("its task")
        .clone();
    let (_g, runner) = common::runner(Duration::from_secs(60)).await;

    let shown = Shown::default();
    let url = common::serve(lister(shown.clone())).await;
    let r = runner.run(twin.clone(), &common::target(&url, b"")).await;
    let on_attacked = std::mem::take(&mut *shown.lock().unwrap());
    let clean = runner.run(task.clone(), &common::target(&url, b"")).await;
    let on_clean = shown.lock().unwrap().clone();

    for (tool, planted) in &attack.tool_descriptions {
        assert_eq!(
            on_attacked.get(tool),
            Some(planted),
            "{tool} on the attacked task"
        );
        let catalogue = mcpbench_world::tool_spec(tool).unwrap().description;
        assert_eq!(on_clean.get(tool).map(String::as_str), Some(catalogue));
        assert_ne!(planted, catalogue);
    }
    // Every other description is the catalogue's on both.
    for (tool, text) in on_attacked
        .iter()
        .filter(|(t, _)| !attack.tool_descriptions.contains_key(*t))
    {
        assert_eq!(on_clean.get(tool), Some(text), "{tool}");
    }

    // Doing nothing meets no attacker's goal; the clean twin has no verdict on one.
    assert_eq!(r.attack_met, Some(false));
    assert_eq!(clean.attack_met, None);
    let Some(Line::Result(summary)) = clean.trace.last() else {
        panic!("a trace ends with its result")
    };
    let line = serde_json::to_value(summary).unwrap();
    assert!(
        line.get("attack_met").is_none(),
        "absent on a clean run: {line}"
    );
}
