//! Graceful shutdown: a worker asked to stop gives its running job back, uncounted, so the
//! next worker takes it at once instead of waiting for the lease to run out.

mod support;

use axum::Json;
use axum::routing::post;
use mcpbench_db::queue;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_worker_gives_its_job_back() {
    // An agent that thinks for a long time.
    let agent = axum::Router::new().route(
        "/",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Json(serde_json::json!({ "answer": "late" }))
        }),
    );
    let s = support::setup(agent, 1).await;
    let (worker, stop) = support::worker(&s, Duration::from_millis(300)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while queue::depth(&s.pool).await.unwrap() != (0, 1) {
        assert!(Instant::now() < deadline, "the job was never claimed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), worker)
        .await
        .expect("the worker stops within its drain time")
        .unwrap()
        .unwrap();
    assert_eq!(
        queue::depth(&s.pool).await.unwrap(),
        (1, 0),
        "the job is queued again"
    );
    let claim = queue::claim(&s.pool, "next", Duration::from_secs(30))
        .await
        .unwrap()
        .expect("the next worker takes it at once");
    assert_eq!(claim.attempt, 1, "the interrupted try is not counted");
    assert_eq!(claim.submission_id, s.submission);
}
