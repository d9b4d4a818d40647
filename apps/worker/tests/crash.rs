//! Crash safety: `kill -9` the worker process at random points of a submission, restart it,
//! repeat; every task of the submission is then scored exactly once and none is lost.

use mcpbench_agents::AgentKind;
use mcpbench_db::{queue, sets, submissions, vendors};
use mcpbench_pgcluster::Cluster;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn random_ms(lo: u64, hi: u64) -> u64 {
    lo + RandomState::new().hash_one(Instant::now()) % (hi - lo)
}

fn spawn_worker(database_url: &str, traces: &std::path::Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_mcpbench-worker"))
        .env("DATABASE_URL", database_url)
        .env("MCPBENCH_TRACES", traces)
        .env(
            "MCPBENCH_GATEWAY_ADDR",
            format!("127.0.0.1:{}", free_port()),
        )
        .env(
            "MCPBENCH_METRICS_ADDR",
            format!("127.0.0.1:{}", free_port()),
        )
        .env("MCPBENCH_ALLOW_PRIVATE_AGENTS", "true")
        .env("MCPBENCH_LEASE_SECS", "3")
        .env("MCPBENCH_WORKER_CONCURRENCY", "4")
        .env("MCPBENCH_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the worker binary starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_points_loses_and_duplicates_nothing() {
    let cluster = Cluster::start_temp().expect("a throwaway PostgreSQL starts");
    let url = cluster.create_database("crash").unwrap();
    let pool = mcpbench_db::connect(&url, 4).await.unwrap();
    mcpbench_db::migrate(&pool).await.unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tasks/dev");
    let mut tasks = mcpbench_tasks::load_dir(&dir).unwrap();
    tasks.truncate(24);
    let set: Vec<sets::SetTask> = tasks.iter().map(mcpbench_sets::set_task).collect();
    sets::put_public_set(&pool, "dev", &set).await.unwrap();
    let (vendor, _) = vendors::create(&pool, "acme", false, false).await.unwrap();

    // The oracle, slowed down so that kills land while jobs run.
    let secret = [7u8; 32];
    let shared: Vec<Arc<_>> = tasks.iter().cloned().map(Arc::new).collect();
    let app = mcpbench_agents::router(AgentKind::Oracle, &shared, &secret).layer(
        axum::middleware::from_fn(|req, next: axum::middleware::Next| async move {
            tokio::time::sleep(Duration::from_millis(700)).await;
            next.run(req).await
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    let id = submissions::create(
        &pool,
        &submissions::NewSubmission {
            vendor_id: vendor.id,
            set_id: "dev",
            name: "oracle",
            model: "oracle",
            agent: submissions::Agent::Endpoint(&endpoint),
            signing_secret: &secret,
            trials: 1,
            // Enough attempts that repeated kills never exhaust a job.
            max_attempts: 20,
            monthly_quota: None,
            max_open: None,
            distractors: None,
            about: &Default::default(),
        },
    )
    .await
    .unwrap();
    let traces = tempfile::tempdir().unwrap();

    // 24 tasks of 0.7 s each on 4 slots take over 4 s: each round ends mid-submission.
    let mut interrupted = 0;
    for _ in 0..6 {
        let mut worker = spawn_worker(&url, traces.path());
        tokio::time::sleep(Duration::from_millis(random_ms(300, 1500))).await;
        worker.kill().unwrap(); // SIGKILL
        worker.wait().unwrap();
        let (status, done, _) = submissions::progress(&pool, id).await.unwrap();
        if status == mcpbench_db::SubmissionStatus::Completed {
            break;
        }
        interrupted += 1;
        assert!(done <= 24);
    }
    assert!(
        interrupted >= 3,
        "the kills should land before the submission completes"
    );

    let mut worker = spawn_worker(&url, traces.path());
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let (status, _, _) = submissions::progress(&pool, id).await.unwrap();
        if status == mcpbench_db::SubmissionStatus::Completed {
            break;
        }
        assert!(status.is_open(), "status {status}");
        assert!(Instant::now() < deadline, "the submission did not complete");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    worker.kill().unwrap();
    worker.wait().unwrap();

    let runs = mcpbench_db::runs::for_scoring(&pool, id).await.unwrap();
    let distinct: HashSet<_> = runs.iter().map(|r| (r.task_id.clone(), r.trial)).collect();
    assert_eq!(runs.len(), 24, "one run per task");
    assert_eq!(distinct.len(), 24, "no task scored twice");
    assert!(
        runs.iter().all(|r| r.passed),
        "the oracle passes every task"
    );
    let (status, done, total) = submissions::progress(&pool, id).await.unwrap();
    assert_eq!(
        (status, done, total),
        (mcpbench_db::SubmissionStatus::Completed, 24, 24)
    );
    let board = mcpbench_db::leaderboard::entries(&pool, "dev")
        .await
        .unwrap();
    assert_eq!(board.len(), 1, "ranked exactly once");
    assert_eq!((board[0].tasks, board[0].passed), (24, 24));
    assert_eq!(queue::depth(&pool).await.unwrap(), (0, 0));
    // Every trace the runs point to is stored.
    let mut stored = 0;
    for run in mcpbench_db::runs::list(&pool, id, None, 100).await.unwrap() {
        let key = run.trace_key.expect("a trace key");
        assert!(
            key.starts_with(&format!("runs/{id}/{}-0-e", run.task_id)),
            "{key}"
        );
        assert!(traces.path().join(&key).exists(), "{key} is missing");
        stored += 1;
    }
    assert_eq!(stored, 24);
}
