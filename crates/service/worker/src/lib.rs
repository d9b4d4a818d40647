//! The worker pool: any number of these, on any number of hosts, share one Postgres.
//!
//! A worker keeps `concurrency` slots. Each free slot claims one job from the queue
//! ([`mcpbench_db::queue::claim`], `FOR UPDATE SKIP LOCKED`), runs it through the runner while
//! heart-beating its lease, stores the trace, then records the run under the claim's epoch.
//! The worker that records the last run of a submission scores it ([`finish`]).
//!
//! Waking: `LISTEN mcpbench_jobs` wakes idle slots when jobs arrive; a poll every
//! [`Config::poll`] covers a lost notification or a dropped listener connection.
//!
//! Crash safety rests on the queue, not on this process: a worker killed at any point leaves
//! at most a lease, which the reaper (every worker runs one) hands back to the queue when it
//! runs out; a stale completion is refused by the epoch; a run is stored once per (submission,
//! task, trial). A submission whose last job ended while its finisher died is found by the
//! periodic sweep ([`mcpbench_db::submissions::unfinished`]) and finished then.
//!
//! Shutdown: no new claims; running jobs get [`Config::drain`] to finish, then give their lease
//! back ([`mcpbench_db::queue::release`]) so another worker takes them at once.

mod baselines;
mod conditions;
mod finish;
mod job;
mod judging;
mod model;
mod ramp;
mod relay;
mod rescore;
mod sandboxed;
mod tasks;
mod webhooks;

pub use baselines::{Baselines, queue as queue_baselines};
pub use finish::{final_scores, finish};
pub use rescore::{RescoreError, Rescored, rescore_set};
pub use sandboxed::{PodRun, run_in_pod};

use axum::serve::ListenerExt;
use mcpbench_db::{PgPool, queue, submissions, workers};
use mcpbench_egress::Policy;
use mcpbench_gateway::{Gateway, GatewayConfig};
use mcpbench_runner::Runner;
use mcpbench_sandbox::Sandbox;
use mcpbench_storage::TraceStore;
use mcpbench_telemetry::Metrics;
use mcpbench_vault::Keyring;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, Semaphore, watch};
use tokio::task::JoinSet;

/// How one worker behaves.
#[derive(Clone, Debug)]
pub struct Config {
    /// Names this worker in job rows and logs.
    pub id: String,
    /// Jobs run at once.
    pub concurrency: usize,
    /// How long a worker takes to fill its slots from rest (see `ramp`); zero: at once.
    pub ramp: Duration,
    /// How long a claim lasts without a heartbeat; heartbeats come every third of it.
    pub lease: Duration,
    /// How often an idle slot looks for work when no notification came.
    pub poll: Duration,
    /// The wall-clock budget of one task.
    pub time_budget: Duration,
    /// Where agents may be called.
    pub egress: Policy,
    /// How long running jobs may take to finish after shutdown is asked for.
    pub drain: Duration,
    /// Where Docker-image submissions run; `None`: this worker runs endpoints only.
    pub sandbox: Option<Sandbox>,
    /// Opens the tasks of live private sets (MCPBENCH_TASK_KEYS); `None`: public sets only.
    pub keyring: Option<Arc<Keyring>>,
    /// The most jobs one vendor runs at once across every worker; `None` is no cap.
    pub vendor_max_running: Option<i64>,
    /// The optional rubric judge; its judgements are stored apart from the runs' scores.
    pub judge: Option<mcpbench_judge::Judge>,
    /// Whether the judge also reads runs of live private sets.
    pub judge_private_sets: bool,
    /// Where the routing layer reaches this worker's gateway (see
    /// `WorkerArgs::gateway_internal_url`); derived from the gateway's address when `None`.
    pub gateway_internal_url: Option<String>,
    /// The wait after a completion webhook's first failed attempt (six times longer after
    /// each next one).
    pub webhook_backoff: Duration,
    /// The deployment's price table (`MCPBENCH_PRICES`), by which the standard track's
    /// measured tokens are priced.
    pub prices: mcpbench_config::PriceTable,
    /// The baselines queued on every live set (`MCPBENCH_BASELINES`,
    /// `MCPBENCH_BASELINE_MODELS`); none by default here, every reference agent in a
    /// deployment's settings.
    pub baselines: Baselines,
}

impl Config {
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            concurrency: 4,
            ramp: Duration::from_secs(10),
            lease: Duration::from_secs(30),
            poll: Duration::from_secs(2),
            time_budget: Duration::from_secs(120),
            egress: Policy::hosted(),
            drain: Duration::from_secs(10),
            sandbox: None,
            keyring: None,
            vendor_max_running: None,
            judge: None,
            judge_private_sets: false,
            gateway_internal_url: None,
            webhook_backoff: Duration::from_secs(10),
            prices: mcpbench_config::PriceTable::default(),
            baselines: Baselines::default(),
        }
    }
}

/// A worker: cheap to share, one per process.
pub struct Worker {
    pool: PgPool,
    store: TraceStore,
    metrics: Arc<Metrics>,
    runner: Runner,
    config: Config,
    wake: Notify,
    /// Present when this worker can run Docker images.
    docker: Option<DockerSupport>,
    /// Where agents on this host reach the gateway (`http://127.0.0.1:<port>` when known).
    local_gateway: String,
    /// The standard track's agents call the vendors' models with this client: it connects
    /// only where the egress policy permits.
    model_http: reqwest::Client,
    /// Completion webhooks go out with this client, under the same egress policy.
    webhook_http: mcpbench_egress::GuardedClient,
    /// The tasks read so far, parsed once each (see `tasks`).
    tasks: tasks::Tasks,
}

/// A worker's Docker engine, and where pods reach its gateway.
struct DockerSupport {
    sandbox: Sandbox,
    gateway: SocketAddr,
    /// One lock per image, held while it is being brought onto the engine.
    loading: std::sync::Mutex<std::collections::HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// A worker counts as gone (its sandbox leftovers reaped) when it has not reported for this long.
const WORKER_SILENCE: Duration = Duration::from_secs(90);

impl Worker {
    /// A worker whose runs go through `gateway`, which agents reach at `gateway_url`.
    pub fn new(
        pool: PgPool,
        store: TraceStore,
        metrics: Arc<Metrics>,
        gateway: Arc<Gateway>,
        gateway_url: &str,
        config: Config,
    ) -> Arc<Self> {
        Self::with_sandbox(pool, store, metrics, gateway, gateway_url, config, None)
    }

    /// A worker whose pods (in `local.1`, when it runs Docker images) and standard-track
    /// agents reach the gateway at `local.0`, its listening address on this host; without
    /// `local` they use `gateway_url`.
    pub fn with_sandbox(
        pool: PgPool,
        store: TraceStore,
        metrics: Arc<Metrics>,
        gateway: Arc<Gateway>,
        gateway_url: &str,
        config: Config,
        local: Option<(SocketAddr, Option<Sandbox>)>,
    ) -> Arc<Self> {
        // The set name in a trace header is filled per job; the runner's own is a fallback.
        let runner = Runner::new(gateway, gateway_url, config.time_budget, "mcpbench")
            .with_egress(config.egress);
        let local_gateway = local.as_ref().map_or_else(
            || gateway_url.trim_end_matches('/').to_string(),
            |(a, _)| format!("http://{a}"),
        );
        let model_http = mcpbench_egress::client(
            config.egress,
            mcpbench_egress::Timeouts {
                connect: Duration::from_secs(10),
                request: None,
            },
        );
        let docker = local.and_then(|(gateway, sandbox)| {
            sandbox.map(|sandbox| DockerSupport {
                sandbox,
                gateway,
                loading: Default::default(),
            })
        });
        let webhook_http = webhooks::client(config.egress);
        Arc::new(Self {
            pool,
            store,
            metrics,
            runner,
            config,
            wake: Notify::new(),
            docker,
            local_gateway,
            model_http,
            webhook_http,
            tasks: Default::default(),
        })
    }

    /// Runs until `shutdown` turns true, then drains (see the crate docs).
    pub async fn run(self: Arc<Self>, shutdown: watch::Receiver<bool>) {
        tracing::info!(
            worker = %self.config.id,
            concurrency = self.config.concurrency,
            docker = self.docker.is_some(),
            traces = %self.store.describe(),
            "worker started"
        );
        let mut background = JoinSet::new();
        background.spawn(self.clone().listen(shutdown.clone()));
        background.spawn(self.clone().housekeeping(shutdown.clone()));
        self.clone().claim_loop(shutdown).await;
        background.abort_all();
        tracing::info!(worker = %self.config.id, "worker stopped");
    }

    async fn claim_loop(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let concurrency = self.config.concurrency.max(1);
        let slots = Arc::new(Semaphore::new(concurrency));
        let mut ramp = ramp::Ramp::new(concurrency, self.config.ramp);
        let mut jobs = JoinSet::new();
        loop {
            // Reap finished job tasks so the set does not grow.
            while jobs.try_join_next().is_some() {}
            // `biased`: once shutdown is asked for, no free slot claims another job.
            let permit = tokio::select! {
                biased;
                _ = stopped(&mut shutdown) => break,
                p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            };
            // The jobs running besides the one this slot may claim.
            let running = concurrency - slots.available_permits() - 1;
            if let Some(wait) = ramp.wait(running, std::time::Instant::now()) {
                tokio::select! {
                    biased;
                    _ = stopped(&mut shutdown) => break,
                    _ = tokio::time::sleep(wait) => {}
                }
            }
            let rules = queue::ClaimRules {
                docker: self.docker.is_some(),
                vendor_max_running: self.config.vendor_max_running,
            };
            let claiming = std::time::Instant::now();
            match queue::claim_as(&self.pool, &self.config.id, self.config.lease, rules).await {
                Ok(Some(claim)) => {
                    self.stage("claim", claiming);
                    let worker = self.clone();
                    let stop = shutdown.clone();
                    jobs.spawn(async move {
                        worker.execute(claim, stop).await;
                        drop(permit);
                    });
                    continue;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "claiming a job failed; retrying"),
            }
            // Few running and nothing claimed (an empty queue, or a database that does not
            // answer): a backlog met later ramps anew.
            if running < ramp::FIRST {
                ramp.rest();
            }
            drop(permit);
            tokio::select! {
                biased;
                _ = stopped(&mut shutdown) => break,
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep(self.config.poll) => {}
            }
        }
        // Running jobs see the same signal and finish or give their leases back.
        while jobs.join_next().await.is_some() {}
    }

    /// Wakes idle slots on `NOTIFY mcpbench_jobs`; reconnects after errors.
    async fn listen(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        loop {
            let attempt = async {
                let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
                listener.listen(queue::CHANNEL).await?;
                loop {
                    listener.recv().await?;
                    self.wake.notify_waiters();
                }
                #[allow(unreachable_code)]
                Ok::<(), sqlx::Error>(())
            };
            tokio::select! {
                r = attempt => {
                    if let Err(e) = r {
                        tracing::warn!(error = %e, "the queue listener failed; polling until it is back");
                    }
                }
                _ = stopped(&mut shutdown) => return,
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// Every half lease: say what this worker can run, re-queue stale leases, finish
    /// submissions whose finisher died, queue the baselines a live set lacks, send the
    /// completion webhooks due, remove sandbox leftovers, and refresh the queue gauges.
    async fn housekeeping(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let period = (self.config.lease / 2).max(Duration::from_millis(200));
        loop {
            if let Err(e) = workers::seen(&self.pool, &self.config.id, self.docker.is_some()).await
            {
                tracing::warn!(error = %e, "reporting this worker failed");
            }
            self.reap_sandbox().await;
            match queue::reap(&self.pool).await {
                Ok(r) if r.requeued + r.failed > 0 => {
                    tracing::info!(
                        requeued = r.requeued,
                        failed = r.failed,
                        "reaped stale leases"
                    );
                    if r.requeued > 0 {
                        self.wake.notify_waiters();
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "reaping failed"),
            }
            match submissions::unfinished(&self.pool, 50).await {
                Ok(ids) => {
                    for id in ids {
                        if let Err(e) = finish(&self.pool, id).await {
                            tracing::warn!(submission = %id, error = %e, "finishing failed");
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "sweeping unfinished submissions failed"),
            }
            self.queue_baselines().await;
            webhooks::send_due(
                &self.pool,
                &self.webhook_http,
                self.config.lease,
                self.config.webhook_backoff,
            )
            .await;
            if let Ok((queued, running)) = queue::depth(&self.pool).await {
                self.metrics.set_queue(queued, running);
            }
            tokio::select! {
                _ = tokio::time::sleep(period) => {}
                _ = stopped(&mut shutdown) => return,
            }
        }
    }
}

impl Worker {
    /// Removes pods that outlived their limit or whose worker is gone (first round: at start).
    async fn reap_sandbox(&self) {
        let Some(docker) = &self.docker else { return };
        let owners = match tokio::try_join!(
            workers::live(&self.pool, WORKER_SILENCE),
            workers::known(&self.pool)
        ) {
            Ok((live, known)) => mcpbench_sandbox::Owners {
                live: live.into_iter().collect(),
                known: known.into_iter().collect(),
            },
            Err(e) => {
                tracing::warn!(error = %e, "listing workers failed; not reaping this round");
                return;
            }
        };
        if let Err(e) = docker.sandbox.reap(&owners).await {
            tracing::warn!(error = %e, "reaping sandbox leftovers failed");
        }
    }
}

impl Config {
    /// A worker's settings from its flags.
    pub fn from_args(args: &mcpbench_config::WorkerArgs, egress: Policy) -> Result<Self, String> {
        Ok(Self {
            id: args.id(),
            concurrency: args.concurrency,
            ramp: Duration::from_secs(args.ramp_secs),
            lease: Duration::from_secs(args.lease_secs),
            time_budget: Duration::from_secs(args.time_budget_secs),
            egress,
            vendor_max_running: (args.vendor_max_running > 0).then_some(args.vendor_max_running),
            judge: judge_from_args(&args.judge)?,
            judge_private_sets: args.judge.judge_private_sets,
            gateway_internal_url: args.gateway_internal_url.clone(),
            prices: args.prices.clone(),
            baselines: Baselines::from_args(&args.baselines)?,
            ..Self::new("")
        })
    }
}

/// The judge the flags name, if any.
pub fn judge_from_args(
    args: &mcpbench_config::JudgeArgs,
) -> Result<Option<mcpbench_judge::Judge>, String> {
    if !args.enabled()? {
        return Ok(None);
    }
    let (Some(url), Some(model)) = (&args.judge_url, &args.judge_model) else {
        return Ok(None);
    };
    let mut config = mcpbench_judge::JudgeConfig::new(url, model);
    config.api_key = args.judge_api_key.clone().filter(|k| !k.is_empty());
    config.shuffles = args.judge_shuffles;
    mcpbench_judge::Judge::new(config)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The sandbox the flags ask for: `None` with `--docker off`, or with `auto` when no engine
/// answers (logged); an error with `on` when none does.
pub async fn connect_sandbox(
    args: &mcpbench_config::WorkerArgs,
    worker_id: &str,
    pool: &PgPool,
) -> Result<Option<Sandbox>, String> {
    if args.docker == mcpbench_config::DockerMode::Off {
        return Ok(None);
    }
    let mut config = mcpbench_sandbox::SandboxConfig::new(worker_id);
    if let Some(dir) = &args.sandbox_dir {
        config.socket_dir = dir.clone();
    }
    config.deployment = match &args.sandbox_deployment {
        Some(name) => name.clone(),
        None => workers::deployment_name(pool)
            .await
            .map_err(|e| format!("reading the deployment's identity: {e}"))?,
    };
    config.readiness = Duration::from_secs(args.agent_readiness_secs);
    config.limits.memory_bytes = (args.agent_memory_mib as i64) << 20;
    config.limits.cpus = args.agent_cpus;
    config.runtime = args.agent_runtime.clone().filter(|r| !r.is_empty());
    match Sandbox::connect(config).await {
        Ok(sandbox) => Ok(Some(sandbox)),
        // An engine that answers without the runtime asked for is a setting to fix, whatever
        // the mode: running images on runc instead would quietly weaken the sandbox.
        Err(e @ mcpbench_sandbox::SandboxError::Runtime(_)) => Err(e.to_string()),
        Err(e) if args.docker == mcpbench_config::DockerMode::Auto => {
            tracing::warn!(error = %e, "no Docker engine: this worker runs endpoint submissions only");
            Ok(None)
        }
        Err(e) => Err(format!("MCPBENCH_DOCKER=on but {e}")),
    }
}

/// Serves the MCP gateway on `listener`, where agents reach it at `gateway_url`, and runs a
/// worker through it until `shutdown` turns true. The gateway stops after the worker drained.
pub async fn run_with_gateway(
    pool: PgPool,
    store: TraceStore,
    metrics: Arc<Metrics>,
    listener: tokio::net::TcpListener,
    gateway_url: &str,
    mut config: Config,
    shutdown: watch::Receiver<bool>,
) -> Result<(), String> {
    if config.baselines.has_keys() && config.keyring.is_none() {
        return Err(
            "MCPBENCH_BASELINE_MODEL_KEYS needs the task keyring (MCPBENCH_TASK_KEYS) \
                    to seal the keys with"
                .into(),
        );
    }
    let local = listener
        .local_addr()
        .map_err(|e| format!("the gateway's address: {e}"))?;
    // Pods reach the gateway from this host: an unspecified bind address means loopback.
    let reach = if local.ip().is_unspecified() {
        SocketAddr::from(([127, 0, 0, 1], local.port()))
    } else {
        local
    };
    let host = url::Url::parse(gateway_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .ok_or_else(|| format!("the gateway URL {gateway_url:?} is not an http(s) URL"))?;
    // Runs carry this worker's route, which it announces with its gateway's inside address
    // before it opens any: the routing layer can then send them here from one public address.
    let route = mcpbench_route::new_route();
    let inside = match &config.gateway_internal_url {
        Some(url) => url.trim_end_matches('/').to_string(),
        None if local.ip().is_unspecified() => {
            format!("http://{}:{}", mcpbench_config::host_name(), local.port())
        }
        None => format!("http://{local}"),
    };
    workers::announce(&pool, &config.id, config.sandbox.is_some(), &route, &inside)
        .await
        .map_err(|e| format!("announcing this worker's gateway: {e}"))?;
    let mut gateway_config = GatewayConfig::public(host.trim_matches(['[', ']']));
    gateway_config.route = Some(route.clone());
    let gateway = Gateway::new(gateway_config);
    let app = mcpbench_gateway::router(gateway.clone());
    let server = tokio::spawn(async move {
        let listener = listener.tap_io(mcpbench_runner::no_delay);
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "the gateway's server stopped");
        }
    });
    tracing::info!(gateway = gateway_url, inside = %inside, route = %route, "gateway listening");
    let sandbox = config.sandbox.take();
    let worker = Worker::with_sandbox(
        pool,
        store,
        metrics,
        gateway,
        gateway_url,
        config,
        Some((reach, sandbox)),
    );
    worker.run(shutdown).await;
    server.abort();
    Ok(())
}

/// Resolves once `shutdown` turns true (or its sender is gone). Holds no borrow of the
/// value across the await, so futures using it stay `Send`.
pub(crate) async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|s| *s).await;
}
