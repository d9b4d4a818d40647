//! A database with a set of dev tasks and one submission whose agent is the given router,
//! and a worker to run it.

#![allow(dead_code)]

use mcpbench_db::PgPool;
use mcpbench_storage::TraceStore;
use mcpbench_testkit::seed::{Submit, dev_tasks, put_dev_set, vendor};
use std::time::Duration;
use uuid::Uuid;

pub struct Setup {
    pub pool: PgPool,
    pub submission: Uuid,
    pub vendor: i64,
    pub traces: tempfile::TempDir,
}

pub async fn setup(agent: axum::Router, tasks: usize) -> Setup {
    let pool = mcpbench_testkit::fresh("worker", 8).await.pool;
    put_dev_set(&pool, &dev_tasks(tasks)).await;
    let vendor = vendor(&pool, "acme").await;
    let endpoint = mcpbench_testkit::loopback::serve(agent).await;
    let submission = Submit::new(vendor, &endpoint).create(&pool).await;
    Setup {
        pool,
        submission,
        vendor,
        traces: tempfile::tempdir().unwrap(),
    }
}

/// Starts a worker on loopback; send `true` to stop it.
pub async fn worker(
    s: &Setup,
    drain: Duration,
) -> (
    tokio::task::JoinHandle<Result<(), String>>,
    tokio::sync::watch::Sender<bool>,
) {
    let mut config = mcpbench_worker::Config::new("test");
    config.drain = drain;
    worker_with(s, config).await
}

/// Starts a worker with `config` (on loopback, polling often); send `true` to stop it.
pub async fn worker_with(
    s: &Setup,
    mut config: mcpbench_worker::Config,
) -> (
    tokio::task::JoinHandle<Result<(), String>>,
    tokio::sync::watch::Sender<bool>,
) {
    config.egress = mcpbench_egress::Policy::local();
    config.poll = Duration::from_millis(100);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let store = TraceStore::local(s.traces.path()).unwrap();
    let handle = mcpbench_testkit::loopback::worker(
        s.pool.clone(),
        store,
        mcpbench_telemetry::Metrics::new(),
        config,
        stopped,
    )
    .await;
    (handle, stop)
}

/// Waits until the submission completes (panics if it fails on our side, or takes over 120 s).
pub async fn completed(s: &Setup) {
    mcpbench_testkit::seed::completed(&s.pool, s.submission, Duration::from_secs(120)).await
}
