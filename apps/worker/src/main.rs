//! `mcpbench-worker`: config -> telemetry -> pool -> run the queue.

use anyhow::Context;
use axum::routing::get;
use clap::Parser;
use mcpbench_config::{LogArgs, StoreArgs, TaskKeyArgs, WorkerArgs, shutdown_signal};
use mcpbench_egress::Policy;
use mcpbench_storage::TraceStore;
use mcpbench_telemetry::Metrics;
use std::net::SocketAddr;
use std::sync::Arc;

/// mimalloc rather than the system's allocator: a worker builds and drops a world of simulated
/// servers for every run, from many threads at once, and glibc's malloc spent more than half
/// of the worker's time in its own arenas and their locks at 1,000 runs in flight (the month
/// benchmark, `cargo bench -p mcpbench-worker-app --bench month`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// An MCPBench worker. Every flag can also be given as the environment variable shown.
#[derive(Parser)]
#[command(name = "mcpbench-worker", version)]
struct Cli {
    /// The PostgreSQL database.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: String,
    /// Where the MCP gateway listens.
    #[arg(long, env = "MCPBENCH_GATEWAY_ADDR", default_value = "127.0.0.1:9090")]
    gateway_addr: SocketAddr,
    /// The URL agents reach the gateway at; `http://<gateway-addr>` when absent.
    #[arg(long, env = "MCPBENCH_GATEWAY_URL")]
    gateway_url: Option<String>,
    /// Where `/metrics` and `/healthz` are served.
    #[arg(long, env = "MCPBENCH_METRICS_ADDR", default_value = "127.0.0.1:9091")]
    metrics_addr: SocketAddr,
    /// Let agents be called on loopback and private networks (local use only).
    #[arg(long, env = "MCPBENCH_ALLOW_PRIVATE_AGENTS", default_value_t = false, action = clap::ArgAction::Set)]
    allow_private_agents: bool,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    keys: TaskKeyArgs,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    log: LogArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    mcpbench_telemetry::init_logging(cli.log.log_json, &cli.log.log);
    // About seven sockets per run in flight (the agent's request, its MCP connections, the
    // database's share), and room for the rest.
    let slots = cli.worker.concurrency as u64;
    if let Some(warning) =
        mcpbench_config::open_files_for(8 * slots + 256, &format!("{slots} slots"))
    {
        tracing::warn!("{warning}");
    }
    let egress = if cli.allow_private_agents {
        Policy::local()
    } else {
        Policy::hosted()
    };
    let mut config =
        mcpbench_worker::Config::from_args(&cli.worker, egress).map_err(anyhow::Error::msg)?;
    config.keyring = mcpbench_sets::keyring_from_args(&cli.keys)
        .map_err(anyhow::Error::msg)?
        .map(Arc::new);
    if config.keyring.is_none() {
        tracing::warn!(
            "MCPBENCH_TASK_KEYS is not set: this worker can run public sets only and fails the \
             jobs of private ones it claims; give every worker the keys"
        );
    }
    let pool = mcpbench_db::connect(
        &cli.database_url,
        (cli.worker.concurrency as u32 + 4).min(64),
    )
    .await
    .context("connecting to the database")?;
    mcpbench_db::migrate(&pool).await.context("migrating")?;
    let store = TraceStore::from_args(&cli.store)
        .await
        .context("opening the trace store")?;
    if let Err(e) = store.check().await {
        tracing::warn!(error = %e, "the trace store does not answer yet");
    }
    let metrics = Metrics::new();
    serve_metrics(
        cli.metrics_addr,
        metrics.clone(),
        pool.clone(),
        store.clone(),
    )
    .await?;
    let gateway = mcpbench_config::bind(cli.gateway_addr)
        .with_context(|| format!("binding {}", cli.gateway_addr))?;
    let gateway_url = cli
        .gateway_url
        .clone()
        .unwrap_or_else(|| format!("http://{}", cli.gateway_addr));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("shutting down: finishing or giving back running jobs");
        let _ = stop.send(true);
    });
    config.sandbox = mcpbench_worker::connect_sandbox(&cli.worker, &config.id, &pool)
        .await
        .map_err(anyhow::Error::msg)?;
    mcpbench_worker::run_with_gateway(pool, store, metrics, gateway, &gateway_url, config, stopped)
        .await
        .map_err(anyhow::Error::msg)
}

/// `/metrics`, `/healthz` (the process answers) and `/readyz` (the database and the trace
/// store answer: what a worker needs to take and record jobs), on the metrics port.
async fn serve_metrics(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    pool: mcpbench_db::PgPool,
    store: TraceStore,
) -> anyhow::Result<()> {
    let listener = mcpbench_config::bind(addr).with_context(|| format!("binding {addr}"))?;
    let app = axum::Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/readyz",
            get(move || {
                let (pool, store) = (pool.clone(), store.clone());
                async move { readiness(&pool, &store).await }
            }),
        )
        .route(
            "/metrics",
            get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [("content-type", mcpbench_telemetry::CONTENT_TYPE)],
                        metrics.render(),
                    )
                }
            }),
        );
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "the metrics server stopped");
        }
    });
    Ok(())
}

async fn readiness(
    pool: &mcpbench_db::PgPool,
    store: &TraceStore,
) -> (axum::http::StatusCode, &'static str) {
    let unavailable = axum::http::StatusCode::SERVICE_UNAVAILABLE;
    let ping = mcpbench_db::ping(pool);
    if !matches!(
        tokio::time::timeout(std::time::Duration::from_secs(3), ping).await,
        Ok(Ok(()))
    ) {
        return (unavailable, "the database does not answer");
    }
    if store.check().await.is_err() {
        return (unavailable, "the trace store does not answer");
    }
    (axum::http::StatusCode::OK, "ready")
}
