//! `cargo bench -p mcpbench-db`: claim-and-complete cycles per second of no-op jobs with 1 and
//! 4 workers, all from one vendor and spread over ten (the claim shares workers between
//! vendors, so it looks at each), on a throwaway local PostgreSQL (durability off, as in
//! tests). Prints; asserts nothing.

use mcpbench_db::queue::{self, RunRecord};
use mcpbench_db::{sets, submissions, vendors};
use mcpbench_pgcluster::Cluster;
use std::time::{Duration, Instant};

const JOBS: usize = 4000;

fn noop() -> RunRecord {
    RunRecord {
        passed: true,
        reason: mcpbench_db::RunReason::Passed,
        detail: None,
        counts: mcpbench_scoring::RunCounts::default(),
        duration_ms: 0,
        trace_key: None,
        analysis: None,
        usage: None,
        usage_measured: false,
        conditions: None,
        attack_met: None,
    }
}

async fn round(cluster: &Cluster, workers: usize, vendors: usize) -> f64 {
    let url = cluster
        .create_database(&format!("bench_{workers}_{vendors}"))
        .expect("database");
    let pool = mcpbench_db::connect(&url, workers as u32 + 2)
        .await
        .expect("connect");
    mcpbench_db::migrate(&pool).await.expect("migrate");
    let set: Vec<sets::SetTask> = (0..JOBS / vendors)
        .map(|i| sets::SetTask {
            id: format!("t{i}"),
            server: "filesystem".into(),
            category: "single-tool".into(),
            difficulty: "easy".into(),
            max_steps: 4,
            task: serde_json::json!({}),
            attack: None,
        })
        .collect();
    sets::put_public_set(&pool, "dev", &set).await.expect("set");
    for v in 0..vendors {
        let (vendor, _) = vendors::create(&pool, &format!("bench{v}"), false, false)
            .await
            .expect("vendor");
        let s = submissions::NewSubmission {
            vendor_id: vendor.id,
            set_id: "dev",
            name: "bench",
            model: "noop",
            agent: submissions::Agent::Endpoint("http://127.0.0.1:1/"),
            signing_secret: b"k",
            trials: 1,
            max_attempts: 3,
            monthly_quota: None,
            max_open: None,
            distractors: None,
            about: &Default::default(),
            webhook_url: None,
        };
        submissions::create(&pool, &s).await.expect("submission");
    }
    let started = Instant::now();
    let mut handles = Vec::new();
    for w in 0..workers {
        let pool = pool.clone();
        handles.push(tokio::spawn(async move {
            let mut n = 0u64;
            while let Some(c) = queue::claim(&pool, &format!("w{w}"), Duration::from_secs(30))
                .await
                .expect("claim")
            {
                queue::complete(&pool, &c, &noop()).await.expect("complete");
                n += 1;
            }
            n
        }));
    }
    let mut done = 0;
    for h in handles {
        done += h.await.expect("worker");
    }
    assert_eq!(done as usize, JOBS);
    JOBS as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let cluster = Cluster::start_temp().expect("a throwaway PostgreSQL starts");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let one = round(&cluster, 1, 1).await;
        let four = round(&cluster, 4, 1).await;
        let spread = round(&cluster, 4, 10).await;
        println!(
            "claim-and-complete cycles of no-op jobs ({JOBS} jobs, local PostgreSQL, fsync off):"
        );
        println!("  1 worker,  1 vendor    {one:>8.0} cycles/s");
        println!(
            "  4 workers, 1 vendor    {four:>8.0} cycles/s   ({:.2}x one worker; target at least 1000/s)",
            four / one
        );
        println!(
            "  4 workers, 10 vendors  {spread:>8.0} cycles/s   ({:.2}x one vendor)",
            spread / four
        );
    });
}
