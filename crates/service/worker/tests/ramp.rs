//! A worker with many slots and a backlog fills them over its ramp, not at once: 16 jobs
//! start at once, then more, evenly, until every slot is full at the ramp's end. Checked as
//! an upper bound at every moment (a slow machine only claims later), and every slot fills.

mod support;

use axum::Json;
use axum::routing::post;
use mcpbench_db::queue;
use std::time::{Duration, Instant};

const SLOTS: usize = 48;
const FIRST: usize = 16;
const RAMP: Duration = Duration::from_secs(3);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backlog_fills_the_slots_over_the_ramp() {
    // Agents that think for longer than the test: every claimed job stays running.
    let agent = axum::Router::new().route(
        "/",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Json(serde_json::json!({ "answer": "late" }))
        }),
    );
    let s = support::setup(agent, SLOTS).await;
    assert_eq!(queue::depth(&s.pool).await.unwrap(), (SLOTS as i64, 0));
    let mut config = mcpbench_worker::Config::new("ramping");
    config.concurrency = SLOTS;
    config.ramp = RAMP;
    config.drain = Duration::from_millis(300);
    let started = Instant::now();
    let (worker, stop) = support::worker_with(&s, config).await;

    let deadline = started + Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        let (_, running) = queue::depth(&s.pool).await.unwrap();
        // Taken after the count, so the bound is the ramp's at a later moment than the count's.
        let elapsed = started.elapsed();
        let grown = (SLOTS - FIRST) as f64 * (elapsed.as_secs_f64() / RAMP.as_secs_f64());
        let allowed = (FIRST + grown.ceil() as usize).min(SLOTS);
        assert!(
            running as usize <= allowed,
            "{running} jobs running {elapsed:?} after the start; the ramp allows {allowed}"
        );
        seen.push((elapsed, running));
        if running as usize == SLOTS {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the slots never filled: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        seen.iter()
            .any(|&(_, r)| r as usize > FIRST && (r as usize) < SLOTS),
        "the jobs came in between the first sixteen and all of them: {seen:?}"
    );
    stop.send(true).unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(10), worker).await;
}
