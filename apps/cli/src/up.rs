//! `mcpbench up`: the whole service on one machine.
//!
//! Without `DATABASE_URL` a PostgreSQL cluster is started in `DIR/postgres` (and stopped on
//! Ctrl-C); traces go to `DIR/traces`. The API and a worker run in this process; the dev set
//! is loaded under the id its manifest names (`dev-v2`; a set without one is `dev`, benchmark
//! version 1, whose results stay on the board under that id); the worker runs the baselines on
//! it as on every live set (oracle, null, random, heuristic, script), so the leaderboard is not
//! empty, and a first start sums up how they did; a
//! `demo` vendor gets a fresh key at each start (the earlier ones are revoked). The URL, the database URL (its password masked) and the demo key are
//! printed, and written to `DIR/up.json` (mode 0600).

use anyhow::Context;
use clap::Args;
use mcpbench_config::{ApiArgs, CustodyArgs, WorkerArgs, shutdown_signal};
use mcpbench_db::{DbError, PgPool, baselines, leaderboard, submissions, vendors};
use mcpbench_egress::Policy;
use mcpbench_pgcluster::{Cluster, Options};
use mcpbench_sets::PublicSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Args)]
pub struct UpArgs {
    /// Where to serve the API.
    #[arg(long, env = "MCPBENCH_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Holds the PostgreSQL cluster, the traces and up.json.
    #[arg(long, default_value = "mcpbench-data")]
    data_dir: PathBuf,
    /// An existing database instead of the local cluster.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
    /// The dev set's task files.
    #[arg(long, default_value = "tasks/dev")]
    tasks: PathBuf,
    /// Run no baselines on the dev set (as `MCPBENCH_BASELINES=off`).
    #[arg(long)]
    no_reference: bool,
    /// Log every run (at `debug`), not only each finished submission.
    #[arg(long, short)]
    verbose: bool,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    custody: CustodyArgs,
}

/// The keys of private sets: those given, else the ones kept in `<data dir>/keys/` (made on
/// the first start, readable by this user only), so a local deployment can commit and reveal.
fn local_custody(data_dir: &Path, given: &CustodyArgs) -> anyhow::Result<CustodyArgs> {
    let dir = data_dir.join("keys");
    let keep = |name: &str, make: &dyn Fn() -> String| -> anyhow::Result<String> {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(text.trim().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                use std::io::Write;
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::create_dir_all(&dir)?;
                let value = make();
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path)
                    .and_then(|mut f| f.write_all(value.as_bytes()))
                    .with_context(|| format!("writing {}", path.display()))?;
                Ok(value)
            }
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    };
    let mut custody = given.clone();
    if custody.keys.task_keys.is_none() {
        let made = keep("task-keys", &|| {
            mcpbench_vault::Keyring::generate("local1").1
        })?;
        custody.keys.task_keys = Some(made);
    }
    if custody.signing_key.is_none() {
        let made = keep("signing-key", &|| {
            use base64::Engine;
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed).expect("the operating system's random generator");
            base64::engine::general_purpose::STANDARD.encode(seed)
        })?;
        custody.signing_key = Some(made);
    }
    Ok(custody)
}

pub fn run(args: UpArgs) -> anyhow::Result<ExitCode> {
    // One line per finished submission; each run's line only when asked for.
    mcpbench_telemetry::init_logging(
        false,
        if args.verbose {
            "info,sqlx=warn,rmcp=warn,mcpbench_worker=debug"
        } else {
            "info,sqlx=warn,rmcp=warn"
        },
    );
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating {}", args.data_dir.display()))?;
    let set = mcpbench_sets::PublicSet::read(&args.tasks).map_err(|e| {
        anyhow::anyhow!(
            "the dev set does not load (run from the repository root or pass --tasks): {e}"
        )
    })?;
    let cluster = match &args.database_url {
        Some(_) => None,
        None => {
            eprintln!(
                "starting PostgreSQL in {}",
                args.data_dir.join("postgres").display()
            );
            Some(
                Cluster::start(&args.data_dir.join("postgres"), &Options::default())
                    .context("starting the local PostgreSQL cluster")?,
            )
        }
    };
    let database_url = match (&args.database_url, &cluster) {
        (Some(url), _) => url.clone(),
        (None, Some(c)) => c.url(),
        (None, None) => unreachable!("a cluster is started when no URL is given"),
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let result = runtime.block_on(serve(&args, &database_url, &set));
    drop(runtime);
    if let Some(cluster) = cluster {
        eprintln!("stopping PostgreSQL");
        cluster.stop().context("stopping PostgreSQL")?;
    }
    result.map(|()| ExitCode::SUCCESS)
}

async fn serve(args: &UpArgs, database_url: &str, dev: &PublicSet) -> anyhow::Result<()> {
    let pool = mcpbench_db::connect(database_url, 24)
        .await
        .context("connecting to the database")?;
    mcpbench_db::migrate(&pool).await.context("migrating")?;
    let set = dev
        .publish(&pool, None)
        .await
        .with_context(|| format!("loading the dev set as {:?}", dev.id))?;
    let set = set.as_str();
    let store = mcpbench_storage::TraceStore::local(args.data_dir.join("traces"))?;
    let metrics = mcpbench_telemetry::Metrics::new();
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| anyhow::anyhow!("random source: {e}"))?;
    let api_args = ApiArgs {
        jwt_secret: Some(hex::encode(secret)),
        allow_private_agents: true,
        submission_quota: 10,
        dev_set: Some(set.into()),
        max_attempts: 3,
        image_upload_max_bytes: mcpbench_api::DEFAULT_IMAGE_UPLOAD_MAX_BYTES,
        public_url: None,
        max_connections: mcpbench_api::DEFAULT_MAX_CONNECTIONS,
        max_open_submissions: 4,
        trust_forwarded_for: false,
        // On this machine the agents are the user's own loopback services.
        hosted_private_sets: true,
        key_grace_secs: 86_400,
        // Months are turned by hand here (`mcpbench admin set`), if at all.
        calendar: Default::default(),
    };
    let custody = local_custody(&args.data_dir, &args.custody)?;
    let api_config =
        mcpbench_api::Config::from_args(&api_args, &custody).map_err(anyhow::Error::msg)?;
    let fingerprint = api_config.custody.signer.as_ref().map(|s| s.fingerprint());
    let mut worker_config = mcpbench_worker::Config::from_args(&args.worker, Policy::local())
        .map_err(anyhow::Error::msg)?;
    if args.no_reference {
        worker_config.baselines = Default::default();
    }
    let worker_baselines =
        worker_config.baselines.agents.len() + worker_config.baselines.models.len();
    worker_config.keyring = mcpbench_sets::keyring_from_args(&custody.keys)
        .map_err(anyhow::Error::msg)?
        .map(Arc::new);
    let demo_key = demo_key(&pool).await?;
    worker_config.sandbox =
        mcpbench_worker::connect_sandbox(&args.worker, &worker_config.id, &pool)
            .await
            .map_err(anyhow::Error::msg)?;

    let (stop, stopped) = tokio::sync::watch::channel(false);
    let gateway = mcpbench_config::bind(mcpbench_config::LOOPBACK)?;
    let gateway_url = format!("http://{}", gateway.local_addr()?);
    let worker = tokio::spawn({
        let (pool, store, metrics) = (pool.clone(), store.clone(), metrics.clone());
        let stopped = stopped.clone();
        async move {
            mcpbench_worker::run_with_gateway(
                pool,
                store,
                metrics,
                gateway,
                &gateway_url,
                worker_config,
                stopped,
            )
            .await
        }
    });
    let listener =
        mcpbench_config::bind(args.addr).with_context(|| format!("binding {}", args.addr))?;
    let url = format!("http://{}", listener.local_addr()?);
    let state = mcpbench_api::AppState::new(pool.clone(), store, metrics, api_config);
    let mut api_stopped = stopped.clone();
    let api = tokio::spawn(mcpbench_api::serve(listener, state, async move {
        let _ = api_stopped.wait_for(|s| *s).await;
    }));
    // The worker queues the baselines on the dev set as on every live set; a first start
    // says how they did once they all ended.
    let summarized = Arc::new(AtomicBool::new(false));
    let baselines = worker_baselines;
    let summary = if baselines == 0 || baselines_ran(&pool, set).await? {
        None
    } else {
        Some(tokio::spawn(summarize_references(
            pool.clone(),
            set.to_string(),
            baselines,
            url.clone(),
            summarized.clone(),
        )))
    };

    write_up_json(&args.data_dir, &url, database_url, &demo_key)?;
    println!("MCPBench is up at {url}");
    println!("  the leaderboard: open {url}/ in a browser (sign in there with the key below)");
    println!("  private addresses are allowed for submitted endpoints (local use only)");
    println!("  demo vendor API key: {demo_key}");
    println!("  database: {}", masked(database_url));
    if let Some(fingerprint) = fingerprint {
        println!(
            "  checkpoints signed by key {fingerprint} ({url}/.well-known/mcpbench-checkpoint-key)"
        );
    }
    println!("  written to {}", args.data_dir.join("up.json").display());
    println!("Press Ctrl-C to stop.");

    shutdown_signal().await;
    if let Some(task) = summary {
        task.abort();
        // Stopped between the last finish and the next look: say it now, if it can be said.
        if !summarized.load(Ordering::SeqCst)
            && let Some(line) = reference_summary(&pool, set, baselines, &url).await
        {
            println!("{line}");
        }
    }
    eprintln!("stopping: the API drains, the worker finishes or gives back its jobs");
    let _ = stop.send(true);
    api.await?.context("the API server")?;
    worker.await?.map_err(anyhow::Error::msg)?;
    pool.close().await;
    Ok(())
}

/// The demo vendor's key: the vendor is made at the first start, a new key at each, and the
/// keys of earlier starts are revoked (a key printed to a terminal once stays good no longer
/// than the run that printed it).
async fn demo_key(pool: &PgPool) -> anyhow::Result<String> {
    match vendors::create(pool, "demo", false, false).await {
        Ok((_, key)) => Ok(key),
        Err(DbError::Conflict(_)) => {
            vendors::revoke_keys(pool, "demo").await?;
            Ok(vendors::new_key(pool, "demo").await?)
        }
        Err(e) => Err(e.into()),
    }
}

/// A database URL as it may be printed: its password, if any, masked.
fn masked(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// The line that sums up the `n` baselines on the dev set (which the worker queues as on every
/// live set), once they all ended.
async fn reference_summary(pool: &PgPool, set: &str, n: usize, url: &str) -> Option<String> {
    let vendor = vendors::id_by_name(pool, baselines::VENDOR).await.ok()??;
    let all: Vec<_> = submissions::list(pool, vendor, None, 100)
        .await
        .ok()?
        .into_iter()
        .filter(|s| s.set_id == set)
        .collect();
    if all.len() < n || all.iter().any(|s| s.status.is_open()) {
        return None;
    }
    let rates: Vec<String> = all
        .iter()
        .rev()
        .map(|s| match s.scores().and_then(|x| x.overall.success_rate) {
            Some(r) => format!("{} {r:.3}", s.name),
            None => format!("{} {}", s.name, s.status),
        })
        .collect();
    Some(format!(
        "the reference agents on {set}: {} (the board: {url}/)",
        rates.join(", ")
    ))
}

/// Prints the reference summary once it can be made: what a first start has to show.
async fn summarize_references(
    pool: PgPool,
    set: String,
    n: usize,
    url: String,
    printed: Arc<AtomicBool>,
) {
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        if let Some(line) = reference_summary(&pool, &set, n, &url).await {
            println!("{line}");
            printed.store(true, Ordering::SeqCst);
            return;
        }
    }
}

/// Whether the baselines ran on `set` already (on an earlier start): nothing to sum up then.
async fn baselines_ran(pool: &PgPool, set: &str) -> anyhow::Result<bool> {
    let entries = leaderboard::entries(pool, set).await?;
    Ok(entries.iter().any(|e| e.is_reference))
}

fn write_up_json(dir: &Path, url: &str, database_url: &str, key: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join("up.json");
    let body = serde_json::json!({
        "url": url,
        "database_url": database_url,
        "demo_api_key": key,
    });
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("writing {}", path.display()))?;
    writeln!(file, "{}", serde_json::to_string_pretty(&body)?)?;
    Ok(())
}
