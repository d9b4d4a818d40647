//! Scaling out: three worker processes behind one gateway address (the routing layer the API
//! mounts, `mcpbench-route`), every agent told that one URL. One worker is killed with
//! `kill -9` while it holds runs: its jobs are taken over by the other two, every task passes
//! exactly once, and the runs of the surviving workers never notice.

mod support;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::spawn_worker;

const TASKS: usize = 24;

/// Job ids `worker` holds now.
async fn held_by(pool: &mcpbench_db::PgPool, worker: &str) -> Vec<i64> {
    sqlx::query_scalar("SELECT id FROM jobs WHERE state = 'running' AND worker = $1")
        .bind(worker)
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_workers_behind_one_address_survive_a_kill_9() {
    let s = support::setup("scale", TASKS).await;
    let pool = &s.pool;

    // The one address: the routing layer, counting what it carries.
    let carried = Arc::new(AtomicUsize::new(0));
    let counter = carried.clone();
    let routes = mcpbench_route::router(mcpbench_route::Routes::new(pool.clone())).layer(
        axum::middleware::from_fn(move |req, next: axum::middleware::Next| {
            counter.fetch_add(1, Ordering::SeqCst);
            async move { next.run(req).await }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, routes).await });

    let traces = tempfile::tempdir().unwrap();
    let mut workers: Vec<_> = ["w1", "w2", "w3"]
        .iter()
        .map(|id| {
            // What agents are told: the one public address, not the worker's own.
            let env = [
                ("MCPBENCH_WORKER_ID", *id),
                ("MCPBENCH_GATEWAY_URL", gateway.as_str()),
                ("MCPBENCH_DOCKER", "off"),
            ];
            spawn_worker(&s.url, traces.path(), &env)
        })
        .collect();
    // The oracle, slowed down so that the kill lands while runs are open.
    let id = s.submit_slow_oracle(Duration::from_millis(1500), 3).await;

    // Kill w1 as soon as it holds runs (the others hold theirs at the same time).
    let deadline = Instant::now() + Duration::from_secs(60);
    let taken_over = loop {
        let held = held_by(pool, "w1").await;
        if !held.is_empty() {
            break held;
        }
        assert!(Instant::now() < deadline, "w1 never claimed a job");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut w1 = workers.remove(0);
    w1.kill().unwrap(); // SIGKILL
    w1.wait().unwrap();

    s.wait_completed(id, Duration::from_secs(180)).await;
    for mut worker in workers {
        worker.kill().unwrap();
        worker.wait().unwrap();
    }

    let runs = mcpbench_db::runs::for_scoring(pool, id).await.unwrap();
    let distinct: HashSet<_> = runs.iter().map(|r| (r.task_id.clone(), r.trial)).collect();
    assert_eq!(runs.len(), TASKS, "one run per task");
    assert_eq!(distinct.len(), TASKS, "no task scored twice");
    // Every run passed: the agents of w2 and w3 met no error while w1 died beside them, and
    // those of w1's runs got new runs on the others.
    assert!(
        runs.iter().all(|r| r.passed),
        "the oracle passes every task"
    );
    // w1's jobs were taken over: run again by another worker, and done.
    let (done, attempts): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE state = 'done'), min(attempts)::bigint FROM jobs
         WHERE id = ANY($1)",
    )
    .bind(&taken_over)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(done as usize, taken_over.len());
    assert!(attempts >= 2, "a job of w1 was run again: {attempts}");
    // Every MCP request went through the one address (an oracle run makes several).
    assert!(
        carried.load(Ordering::SeqCst) >= TASKS,
        "{} requests carried",
        carried.load(Ordering::SeqCst)
    );
    // Each worker announced where its gateway is; all three differ.
    let gateways: Vec<String> =
        sqlx::query_scalar("SELECT gateway FROM workers WHERE gateway IS NOT NULL")
            .fetch_all(pool)
            .await
            .unwrap();
    assert_eq!(gateways.iter().collect::<HashSet<_>>().len(), 3);
}
