//! What the worker binary's tests share: a database with dev tasks, a slowed oracle, the
//! worker process itself, and waiting for a submission to complete.

#![allow(dead_code)]

use mcpbench_agents::AgentKind;
use mcpbench_db::PgPool;
pub use mcpbench_testkit::seed::dev_tasks;
use mcpbench_testkit::seed::{Submit, put_dev_set};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

pub const SECRET: [u8; 32] = [7u8; 32];

/// The stages of a job outside its run, as the worker's metrics name them.
pub const STAGES: [&str; 5] = ["claim", "prepare", "store", "analyse", "record"];

/// From the worker's `/metrics` text, the `_sum` or `_count` (`what`) of a stage's histogram:
/// the line `mcpbench_job_stage_duration_seconds_<what>{stage="<stage>"} <value>`.
pub fn stage_metric(metrics: &str, what: &str, stage: &str) -> Option<f64> {
    let name = format!("mcpbench_job_stage_duration_seconds_{what}{{stage=\"{stage}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&name)?.trim().parse().ok())
}

pub use mcpbench_testkit::loopback::free_port;

/// A throwaway database holding the first `n` dev tasks as the public set `dev`.
pub struct Setup {
    pub url: String,
    pub pool: PgPool,
    pub tasks: Vec<mcpbench_tasks::Task>,
    pub vendor: i64,
}

pub async fn setup(name: &str, n: usize) -> Setup {
    let db = mcpbench_testkit::fresh(name, 4).await;
    let tasks = dev_tasks(n);
    put_dev_set(&db.pool, &tasks).await;
    let vendor = mcpbench_testkit::seed::vendor(&db.pool, "acme").await;
    Setup {
        url: db.url,
        pool: db.pool,
        tasks,
        vendor,
    }
}

impl Setup {
    /// The oracle on loopback, each request held `delay` first (so that kills land while
    /// runs are open), and a submission of it over the set; its id.
    pub async fn submit_slow_oracle(&self, delay: Duration, max_attempts: i32) -> Uuid {
        let shared: Vec<Arc<_>> = self.tasks.iter().cloned().map(Arc::new).collect();
        let app = mcpbench_agents::router(AgentKind::Oracle, &shared, &SECRET).layer(
            axum::middleware::from_fn(move |req, next: axum::middleware::Next| async move {
                tokio::time::sleep(delay).await;
                next.run(req).await
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = mcpbench_agents::serve(listener, app).await;
        });
        self.submit(self.vendor, &endpoint, 1, max_attempts).await
    }

    /// A submission of `vendor`'s agent at `endpoint` over the set, `trials` runs per task.
    pub async fn submit(
        &self,
        vendor: i64,
        endpoint: &str,
        trials: i32,
        max_attempts: i32,
    ) -> Uuid {
        Submit {
            name: "oracle",
            signing_secret: &SECRET,
            trials,
            max_attempts,
            ..Submit::new(vendor, endpoint)
        }
        .create(&self.pool)
        .await
    }

    /// Waits up to `limit` for submission `id` to complete; panics if it ends otherwise.
    pub async fn wait_completed(&self, id: Uuid, limit: Duration) {
        mcpbench_testkit::seed::completed(&self.pool, id, limit).await
    }
}

/// The `mcpbench-worker` binary on loopback against `database_url`, with a short lease, four
/// slots and `env` on top.
pub fn worker_command(
    database_url: &str,
    traces: &std::path::Path,
    env: &[(&str, &str)],
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpbench-worker"));
    command
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
        // The tests here count their own jobs: no baselines beside them.
        .env("MCPBENCH_BASELINES", "off")
        .env("MCPBENCH_WORKER_CONCURRENCY", "4")
        .env("MCPBENCH_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

/// [`worker_command`], started, its log on the test's stderr.
pub fn spawn_worker(database_url: &str, traces: &std::path::Path, env: &[(&str, &str)]) -> Child {
    worker_command(database_url, traces, env)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the worker binary starts")
}
