//! A database with a set of dev tasks and one submission whose agent is the given router,
//! and a worker to run it.

#![allow(dead_code)]

use mcpbench_db::{PgPool, sets, submissions, vendors};
use mcpbench_pgcluster::Cluster;
use mcpbench_storage::TraceStore;
use std::path::PathBuf;
use std::time::Duration;
use uuid::Uuid;

pub struct Setup {
    pub pool: PgPool,
    pub submission: Uuid,
    pub vendor: i64,
    pub traces: tempfile::TempDir,
    _cluster: Cluster,
}

pub async fn setup(agent: axum::Router, tasks: usize) -> Setup {
    let cluster = Cluster::start_temp().expect("a throwaway PostgreSQL starts");
    let url = cluster.create_database("worker").unwrap();
    let pool = mcpbench_db::connect(&url, 8).await.unwrap();
    mcpbench_db::migrate(&pool).await.unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let mut all = mcpbench_tasks::load_dir(&dir).unwrap();
    all.truncate(tasks);
    let set: Vec<sets::SetTask> = all.iter().map(mcpbench_sets::set_task).collect();
    sets::put_public_set(&pool, "dev", &set).await.unwrap();
    let (vendor, _) = vendors::create(&pool, "acme", false, false).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, agent).await });
    let submission = submissions::create(
        &pool,
        &submissions::NewSubmission {
            vendor_id: vendor.id,
            set_id: "dev",
            name: "agent",
            model: "model",
            agent: submissions::Agent::Endpoint(&endpoint),
            signing_secret: b"k",
            trials: 1,
            max_attempts: 3,
            monthly_quota: None,
            max_open: None,
            distractors: None,
            about: &Default::default(),
        },
    )
    .await
    .unwrap();
    Setup {
        pool,
        submission,
        vendor: vendor.id,
        traces: tempfile::tempdir().unwrap(),
        _cluster: cluster,
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
    let gateway = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway_url = format!("http://{}", gateway.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let pool = s.pool.clone();
    let store = TraceStore::local(s.traces.path()).unwrap();
    let handle = tokio::spawn(async move {
        mcpbench_worker::run_with_gateway(
            pool,
            store,
            mcpbench_telemetry::Metrics::new(),
            gateway,
            &gateway_url,
            config,
            stopped,
        )
        .await
    });
    (handle, stop)
}

/// Waits until the submission completes (panics if it fails on our side, or takes over 120 s).
pub async fn completed(s: &Setup) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (status, _, _) = submissions::progress(&s.pool, s.submission).await.unwrap();
        match status {
            mcpbench_db::SubmissionStatus::Completed => return,
            mcpbench_db::SubmissionStatus::Failed => panic!("the submission failed on our side"),
            _ => {}
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the submission did not complete"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
