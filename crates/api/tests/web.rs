//! The website as a person meets it, without a browser: the leaderboard page ranks what the
//! API ranks, filters and sorts, draws intervals accessibly, and stays small.

mod support;

use mcpbench_agents::AgentKind;
use std::time::Duration;
use support::{Options, Service};

async fn submit(svc: &Service, token: &str, kind: AgentKind, model: &str) {
    let (id, serve) = svc
        .submit_reference(token, None, (kind, model), &svc.tasks)
        .await;
    serve();
    svc.wait(&id, token, Duration::from_secs(120)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_leaderboard_page_ranks_filters_sorts_and_stays_small() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    submit(&svc, &token, AgentKind::Oracle, "oracle").await;
    submit(&svc, &token, AgentKind::Null, "null").await;

    let (status, kind, html) = svc.get_text("/").await;
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
    let (status, _, sorted) = svc.get_text("/?sort=hallucinated").await;
    assert_eq!(status, 200);
    assert!(sorted.contains("<option value=\"hallucinated\" selected>"));
    let server = svc.tasks[0].server.clone();
    let (status, _, filtered) = svc.get_text(&format!("/?server={server}")).await;
    assert_eq!(status, 200);
    assert!(
        filtered.contains(&format!("Leaderboard of dev, {server} tasks")),
        "{filtered}"
    );
    // An empty set says so; a malformed filter is a clear error.
    svc.private_set("2026-11", &svc.tasks).await;
    let (status, _, empty) = svc.get_text("/?set=2026-11").await;
    assert_eq!(status, 200);
    assert!(empty.contains("No finished submission on this set yet."));
    let (status, _, bad) = svc.get_text("/?server=../etc").await;
    assert_eq!(status, 400, "{bad}");
}
