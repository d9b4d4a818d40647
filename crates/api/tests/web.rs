//! The website as a person meets it, without a browser: the leaderboard page ranks what the
//! API ranks, filters and sorts, draws intervals accessibly, and stays small.

mod support;

use mcpbench_agents::AgentKind;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use support::{Options, Service};

async fn submit(svc: &Service, token: &str, kind: AgentKind, name: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let body = json!({"name": name, "model": format!("{name}-model"), "kind": "endpoint", "endpoint_url": url});
    let (status, created) = svc.post("/submissions", Some(token), &body).await;
    assert_eq!(status, 202, "{created}");
    let secret = created["signing_secret"]
        .as_str()
        .unwrap()
        .as_bytes()
        .to_vec();
    let tasks: Vec<Arc<_>> = svc.tasks.iter().cloned().map(Arc::new).collect();
    let app = mcpbench_agents::router(kind, &tasks, &secret);
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    let id = created["id"].as_str().unwrap().to_string();
    svc.wait(&id, token, Duration::from_secs(120)).await;
    id
}

async fn page(svc: &Service, path: &str) -> (u16, String, String) {
    let r = svc.http.get(svc.at(path)).send().await.unwrap();
    let status = r.status().as_u16();
    let kind = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, kind, r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_leaderboard_page_ranks_filters_sorts_and_stays_small() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    submit(&svc, &token, AgentKind::Oracle, "oracle-agent").await;
    submit(&svc, &token, AgentKind::Null, "null-agent").await;

    let (status, kind, html) = page(&svc, "/").await;
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(html.len() < 100_000, "{} bytes", html.len());
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<html lang=\"en\">"));
    assert!(html.contains("name=\"viewport\""));
    assert!(!html.contains("<script"), "pages work without JavaScript");
    // The oracle ranks above the null agent, each rate with an accessible interval bar.
    let (oracle, null) = (
        html.find("oracle-agent").unwrap(),
        html.find("null-agent").unwrap(),
    );
    assert!(oracle < null, "ranked by success rate");
    assert!(html.contains("aria-label=\"1.00, 95% interval"), "{html}");
    assert!(html.contains("aria-label=\"0.00, 95% interval 0.00 to"));
    // Every filter has a label; the table has a caption and column headers.
    assert_eq!(html.matches("<label>").count(), 4);
    assert!(html.contains("<caption>") && html.contains("scope=\"col\""));

    // Sorting by the hallucinated-tool rate (lower first) and filtering by a server.
    let (status, _, sorted) = page(&svc, "/?sort=hallucinated").await;
    assert_eq!(status, 200);
    assert!(sorted.contains("<option value=\"hallucinated\" selected>"));
    let server = svc.tasks[0].server.clone();
    let (status, _, filtered) = page(&svc, &format!("/?server={server}")).await;
    assert_eq!(status, 200);
    assert!(
        filtered.contains(&format!("Leaderboard of dev, {server} tasks")),
        "{filtered}"
    );
    // An empty set says so; a malformed filter is a clear error.
    svc.private_set("2026-11", &svc.tasks).await;
    let (status, _, empty) = page(&svc, "/?set=2026-11").await;
    assert_eq!(status, 200);
    assert!(empty.contains("No finished submission on this set yet."));
    let (status, _, bad) = page(&svc, "/?server=../etc").await;
    assert_eq!(status, 400, "{bad}");
}
