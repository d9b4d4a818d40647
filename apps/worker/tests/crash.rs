//! Crash safety: `kill -9` the worker process at random points of a submission, restart it,
//! repeat; every task of the submission is then scored exactly once and none is lost.

mod support;

use mcpbench_db::{queue, submissions};
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::time::{Duration, Instant};
use support::spawn_worker;

fn random_ms(lo: u64, hi: u64) -> u64 {
    lo + RandomState::new().hash_one(Instant::now()) % (hi - lo)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_random_points_loses_and_duplicates_nothing() {
    let s = support::setup("crash", 24).await;
    let (pool, url) = (&s.pool, &s.url);
    // Enough attempts that repeated kills never exhaust a job.
    let id = s.submit_slow_oracle(Duration::from_millis(700), 20).await;
    let traces = tempfile::tempdir().unwrap();

    // 24 tasks of 0.7 s each on 4 slots take over 4 s: each round ends mid-submission.
    let mut interrupted = 0;
    for _ in 0..6 {
        let mut worker = spawn_worker(url, traces.path(), &[]);
        tokio::time::sleep(Duration::from_millis(random_ms(300, 1500))).await;
        worker.kill().unwrap(); // SIGKILL
        worker.wait().unwrap();
        let (status, done, _) = submissions::progress(pool, id).await.unwrap();
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

    let mut worker = spawn_worker(url, traces.path(), &[]);
    s.wait_completed(id, Duration::from_secs(180)).await;
    worker.kill().unwrap();
    worker.wait().unwrap();

    let runs = mcpbench_db::runs::for_scoring(pool, id).await.unwrap();
    let distinct: HashSet<_> = runs.iter().map(|r| (r.task_id.clone(), r.trial)).collect();
    assert_eq!(runs.len(), 24, "one run per task");
    assert_eq!(distinct.len(), 24, "no task scored twice");
    assert!(
        runs.iter().all(|r| r.passed),
        "the oracle passes every task"
    );
    let (status, done, total) = submissions::progress(pool, id).await.unwrap();
    assert_eq!(
        (status, done, total),
        (mcpbench_db::SubmissionStatus::Completed, 24, 24)
    );
    let board = mcpbench_db::leaderboard::entries(pool, "dev")
        .await
        .unwrap();
    assert_eq!(board.len(), 1, "ranked exactly once");
    assert_eq!((board[0].tasks, board[0].passed), (24, 24));
    assert_eq!(queue::depth(pool).await.unwrap(), (0, 0));
    // Every trace the runs point to is stored.
    let mut stored = 0;
    for run in mcpbench_db::runs::list(pool, id, None, 100).await.unwrap() {
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
