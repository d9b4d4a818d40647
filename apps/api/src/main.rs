//! `mcpbench-api`: config -> telemetry -> pool -> migrate -> dev set -> serve.

use anyhow::Context;
use clap::Parser;
use mcpbench_config::{ApiArgs, CustodyArgs, LogArgs, StoreArgs, shutdown_signal};
use mcpbench_sets::PublicSet;
use mcpbench_storage::TraceStore;
use std::net::SocketAddr;
use std::path::PathBuf;

/// mimalloc rather than the system's allocator: an admin's new month is drawn from the packs'
/// families in this process, and jq allocates and frees in every step.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The MCPBench HTTP API. Every flag can also be given as the environment variable shown.
#[derive(Parser)]
#[command(name = "mcpbench-api", version)]
struct Cli {
    /// The PostgreSQL database.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: String,
    /// Where to listen.
    #[arg(long, env = "MCPBENCH_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The dev set's task files, published at start under the id their manifest names (which
    /// becomes the default set unless MCPBENCH_DEV_SET names another).
    #[arg(long, env = "MCPBENCH_DEV_TASKS")]
    dev_tasks: Option<PathBuf>,
    #[command(flatten)]
    api: ApiArgs,
    #[command(flatten)]
    custody: CustodyArgs,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    log: LogArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut cli = Cli::parse();
    mcpbench_telemetry::init_logging(cli.log.log_json, &cli.log.log);
    // One descriptor per client connection (and per one it forwards to a worker), and room
    // for the rest.
    let connections = cli.api.max_connections as u64;
    if let Some(warning) = mcpbench_config::open_files_for(
        2 * connections + 256,
        &format!("{connections} connections"),
    ) {
        tracing::warn!("{warning}");
    }
    // The settings are checked before anything is touched.
    mcpbench_api::Config::from_args(&cli.api, &cli.custody).map_err(anyhow::Error::msg)?;
    let dev = match &cli.dev_tasks {
        Some(dir) => Some(PublicSet::read(dir).context("the dev set (MCPBENCH_DEV_TASKS)")?),
        None => None,
    };
    let pool = mcpbench_db::connect(&cli.database_url, 16)
        .await
        .context("connecting to the database")?;
    mcpbench_db::migrate(&pool).await.context("migrating")?;
    if let Some(dev) = dev {
        let id = dev
            .publish(&pool, None)
            .await
            .context("publishing the dev set")?;
        tracing::info!(set = %id, tasks = dev.tasks.len(), "dev set published");
        cli.api.dev_set.get_or_insert(id);
    }
    let config =
        mcpbench_api::Config::from_args(&cli.api, &cli.custody).map_err(anyhow::Error::msg)?;
    let store = TraceStore::from_args(&cli.store)
        .await
        .context("opening the trace store")?;
    if let Err(e) = store.check().await {
        tracing::warn!(error = %e, "the trace store does not answer yet");
    }
    let state =
        mcpbench_api::AppState::new(pool, store, mcpbench_telemetry::Metrics::new(), config);
    let listener =
        mcpbench_config::bind(cli.addr).with_context(|| format!("binding {}", cli.addr))?;
    tracing::info!(addr = %cli.addr, "API listening");
    mcpbench_api::serve(listener, state, shutdown_signal()).await?;
    tracing::info!("API stopped");
    Ok(())
}
