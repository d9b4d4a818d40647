//! A runner under the hosted egress policy refuses agents on loopback without calling them.

mod common;

use axum::Json;
use axum::routing::post;
use mcpbench_egress::Policy;
use mcpbench_runner::Reason;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// An agent on loopback that counts the requests it receives.
async fn counting_agent() -> (String, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let app = axum::Router::new().route(
        "/",
        post(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            async { Json(json!({ "answer": "done" })) }
        }),
    );
    (common::serve(app).await, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosted_runner_refuses_a_loopback_agent_without_calling_it() {
    let (url, calls) = counting_agent().await;
    let task = common::dev_task("fs-");
    let hosted_with_http = Policy {
        allow_http: true,
        ..Policy::hosted()
    };
    let https = url.replace("http://", "https://");
    let by_name = url.replace("127.0.0.1", "localhost");
    let cases = [
        (
            Policy::hosted(),
            url.as_str(),
            "scheme \"http\" is not allowed",
        ),
        (Policy::hosted(), https.as_str(), "is a loopback address"),
        (hosted_with_http, url.as_str(), "is a loopback address"),
        (hosted_with_http, by_name.as_str(), "is a loopback address"),
    ];
    for (policy, agent_url, why) in cases {
        let (_g, runner) = common::runner(Duration::from_secs(10)).await;
        let runner = Arc::into_inner(runner).unwrap().with_egress(policy);
        let r = runner
            .run(task.clone(), &common::target(agent_url, b""))
            .await;
        assert_eq!(r.reason, Reason::AgentError, "{agent_url}: {:?}", r.detail);
        let detail = r.detail.unwrap();
        assert!(
            detail.starts_with("the agent's URL was refused: the URL's ") && detail.contains(why),
            "{agent_url}: {detail}"
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the agent was called");

    // The default runner (local policy) does reach the same agent, so the count above means
    // something.
    let (_g, local) = common::runner(Duration::from_secs(10)).await;
    let r = local.run(task, &common::target(&url, b"")).await;
    assert_ne!(r.reason, Reason::AgentError, "{:?}", r.detail);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// A run stopped half way (its future dropped, as a worker does with a cancelled job) leaves
/// no open run behind in the gateway.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_run_closes_its_gateway_run() {
    let app = axum::Router::new().route(
        "/",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Json(json!({ "answer": "late" }))
        }),
    );
    let url = common::serve(app).await;
    let (gateway, runner) = common::runner(Duration::from_secs(60)).await;
    let task = common::dev_task("fs-");
    let target = common::target(&url, b"");
    let run = runner.run(task, &target);
    let stopped = tokio::time::timeout(Duration::from_millis(500), run).await;
    assert!(stopped.is_err(), "the agent was still thinking");
    assert_eq!(gateway.gateway.open_runs(), 0);
}
