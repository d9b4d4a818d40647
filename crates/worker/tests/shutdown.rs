//! Graceful shutdown: a worker asked to stop gives its running job back, uncounted, so the
//! next worker takes it at once instead of waiting for the lease to run out.

use axum::Json;
use axum::routing::post;
use mcpbench_db::{queue, sets, submissions, vendors};
use mcpbench_pgcluster::Cluster;
use mcpbench_storage::TraceStore;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_worker_gives_its_job_back() {
    let cluster = Cluster::start_temp().expect("a throwaway PostgreSQL starts");
    let url = cluster.create_database("shutdown").unwrap();
    let pool = mcpbench_db::connect(&url, 8).await.unwrap();
    mcpbench_db::migrate(&pool).await.unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tasks/dev");
    let mut tasks = mcpbench_tasks::load_dir(&dir).unwrap();
    tasks.truncate(1);
    let set: Vec<sets::SetTask> = tasks.iter().map(sets::SetTask::from_task).collect();
    sets::put_set(&pool, "dev", true, &set).await.unwrap();
    let (vendor, _) = vendors::create(&pool, "acme", false, false).await.unwrap();

    // An agent that thinks for a long time.
    let app = axum::Router::new().route(
        "/",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Json(serde_json::json!({ "answer": "late" }))
        }),
    );
    let agent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/", agent.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(agent, app).await });
    let id = submissions::create(
        &pool,
        &submissions::NewSubmission {
            vendor_id: vendor.id,
            set_id: "dev",
            name: "slow",
            model: "slow",
            endpoint_url: &endpoint,
            signing_secret: b"k",
            trials: 1,
            max_attempts: 3,
            monthly_quota: None,
        },
    )
    .await
    .unwrap();

    let traces = tempfile::tempdir().unwrap();
    let mut config = mcpbench_worker::Config::new("stopping");
    config.egress = mcpbench_egress::Policy::local();
    config.poll = Duration::from_millis(100);
    config.drain = Duration::from_millis(300);
    let gateway = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway_url = format!("http://{}", gateway.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let worker = tokio::spawn({
        let pool = pool.clone();
        let store = TraceStore::local(traces.path()).unwrap();
        async move {
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
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while queue::depth(&pool).await.unwrap() != (0, 1) {
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
        queue::depth(&pool).await.unwrap(),
        (1, 0),
        "the job is queued again"
    );
    let claim = queue::claim(&pool, "next", Duration::from_secs(30))
        .await
        .unwrap()
        .expect("the next worker takes it at once");
    assert_eq!(claim.attempt, 1, "the interrupted try is not counted");
    assert_eq!(claim.submission_id, id);
}
