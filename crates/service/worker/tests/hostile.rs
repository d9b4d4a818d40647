//! Agent replies that once could not be stored: a NUL byte in an error body is kept out of
//! PostgreSQL text, so the run is recorded as the agent's error instead of retried forever
//! as ours.

mod support;

use axum::routing::post;
use http::StatusCode;
use mcpbench_db::runs;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_body_with_nul_bytes_is_recorded_as_the_agents_error() {
    let agent = axum::Router::new().route(
        "/",
        post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "boom\0\0 after nul") }),
    );
    let s = support::setup(agent, 2).await;
    let (_worker, _stop) = support::worker(&s, Duration::from_secs(1)).await;
    support::completed(&s).await;
    let failures = runs::failures(&s.pool, s.submission).await.unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        (failures[0].reason.as_str(), failures[0].count),
        ("agent_error", 2)
    );
    let detail = failures[0].example_detail.clone().unwrap();
    assert!(
        detail.contains("HTTP 500") && detail.contains("boom"),
        "{detail}"
    );
    assert!(!detail.contains('\0'));
}
