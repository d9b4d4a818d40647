//! Settings shared by `mcpbench-api`, `mcpbench-worker` and `mcpbench up`: each is a flag
//! and an environment variable of the same name (`--traces` / `MCPBENCH_TRACES`), parsed by
//! clap and validated once at start. Secrets are read from the environment only and never
//! printed (clap is told to hide their values).
//!
//! This crate parses and validates settings only. The crates that own the objects build them
//! from these: `TraceStore::from_args`, `Custody::from_args`, `mcpbench_sets::keyring_from_args`,
//! the API's and the worker's `Config::from_args`; the binaries call them. Two things more are
//! shared by the same binaries: how they listen ([`bind`], with an accept queue long enough
//! for a burst of agents) and the open-file limit they raise at start ([`raise_open_files`]).

mod baselines;
mod calendar;
mod limits;
mod listen;
mod prices;

pub use baselines::{
    BASELINE_AGENTS, BaselineArgs, BaselineModel, BaselineModels, Baselines, ModelKeys,
    baseline_models, baselines, model_keys,
};
pub use calendar::{CalendarArgs, Schedule};
pub use limits::{OpenFiles, open_files_for, raise_open_files};
pub use listen::{BACKLOG, LOOPBACK, bind};
pub use prices::{ModelPrice, PriceTable, price_table};

use clap::Args;

/// Where traces go.
#[derive(Args, Clone, Debug)]
pub struct StoreArgs {
    /// A directory, or `s3://BUCKET` for an S3-compatible store.
    #[arg(long = "traces", env = "MCPBENCH_TRACES", default_value = "traces")]
    pub traces: String,
    /// The S3 endpoint, `http(s)://host[:port]`; AWS itself when absent.
    #[arg(long, env = "MCPBENCH_S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,
    #[arg(long, env = "MCPBENCH_S3_REGION", default_value = "us-east-1")]
    pub s3_region: String,
    #[arg(long, env = "MCPBENCH_S3_ACCESS_KEY", default_value = "")]
    pub s3_access_key: String,
    #[arg(
        long,
        env = "MCPBENCH_S3_SECRET_KEY",
        hide_env_values = true,
        default_value = ""
    )]
    pub s3_secret_key: String,
    /// Path-style bucket addressing (most self-hosted stores need it).
    #[arg(long, env = "MCPBENCH_S3_PATH_STYLE", default_value_t = true, action = clap::ArgAction::Set)]
    pub s3_path_style: bool,
}

/// How the process logs.
#[derive(Args, Clone, Debug)]
pub struct LogArgs {
    /// One JSON object per log line.
    #[arg(long, env = "MCPBENCH_LOG_JSON", default_value_t = false, action = clap::ArgAction::Set)]
    pub log_json: bool,
    /// A tracing filter such as `info` or `info,mcpbench_worker=debug` (rmcp logs every MCP
    /// session at info, hence its default of warn).
    #[arg(long, env = "MCPBENCH_LOG", default_value = "info,rmcp=warn")]
    pub log: String,
}

/// Whether a worker runs Docker-image submissions (`MCPBENCH_DOCKER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DockerMode {
    /// When a Docker engine answers; endpoint submissions only when none does.
    Auto,
    /// Refuses to start without a Docker engine.
    On,
    /// Endpoint submissions only.
    Off,
}

/// What a worker does (the worker binary and `mcpbench up`).
#[derive(Args, Clone, Debug)]
pub struct WorkerArgs {
    /// Jobs run at once.
    #[arg(long, env = "MCPBENCH_WORKER_CONCURRENCY", default_value_t = 4,
          value_parser = whole::<usize>("MCPBENCH_WORKER_CONCURRENCY", 1, Some(4096)))]
    pub concurrency: usize,
    /// Seconds a worker takes to fill its slots when it starts, or finds work after being
    /// idle: up to 16 jobs run at once, then more, evenly, until every slot may be full (0: all
    /// at once). It spares the agents already running a latency spike when a worker with many
    /// slots meets a backlog.
    #[arg(long, env = "MCPBENCH_WORKER_RAMP_SECS", default_value_t = 10,
          value_parser = whole::<u64>("MCPBENCH_WORKER_RAMP_SECS", 0, Some(600)))]
    pub ramp_secs: u64,
    /// Seconds a claim lasts without a heartbeat.
    #[arg(long, env = "MCPBENCH_LEASE_SECS", default_value_t = 30,
          value_parser = whole::<u64>("MCPBENCH_LEASE_SECS", 3, Some(3600)))]
    pub lease_secs: u64,
    /// Seconds an agent has for one task.
    #[arg(long, env = "MCPBENCH_TIME_BUDGET_SECS", default_value_t = 120,
          value_parser = whole::<u64>("MCPBENCH_TIME_BUDGET_SECS", 1, Some(3600)))]
    pub time_budget_secs: u64,
    /// Names this worker in job rows and logs; the host name and process id when absent.
    #[arg(long, env = "MCPBENCH_WORKER_ID")]
    pub worker_id: Option<String>,
    /// Where the routing layer (the API's `/mcp/...`) reaches this worker's gateway from
    /// inside the deployment, e.g. `http://10.1.2.3:9090` (a pod's IP). Absent:
    /// `http://<host name>:<port>` when the gateway listens on every address, its own
    /// address otherwise.
    #[arg(long, env = "MCPBENCH_GATEWAY_INTERNAL_URL", value_parser = http_url)]
    pub gateway_internal_url: Option<String>,
    /// Run Docker-image submissions: `auto` when a Docker engine answers, `on` (refuse to
    /// start without one) or `off`.
    #[arg(long, env = "MCPBENCH_DOCKER", value_enum, default_value_t = DockerMode::Auto)]
    pub docker: DockerMode,
    /// The OCI runtime agents' pods run on, as the Docker engine names it (`runsc` for
    /// gVisor); the engine's default (runc) when unset. A worker whose engine does not have it
    /// refuses to start.
    #[arg(long, env = "MCPBENCH_AGENT_RUNTIME")]
    pub agent_runtime: Option<String>,
    /// Where pod directories (Unix sockets) go; the Docker engine must see the same path.
    #[arg(long, env = "MCPBENCH_SANDBOX_DIR")]
    pub sandbox_dir: Option<std::path::PathBuf>,
    /// Names this deployment on every sandbox container, so that deployments sharing one
    /// Docker engine (staging beside production) never reap each other's pods. Unset, it is
    /// derived from the database (`mcpbench-` and 12 hex digits of its random id).
    #[arg(long, env = "MCPBENCH_SANDBOX_DEPLOYMENT", value_parser = deployment_name)]
    pub sandbox_deployment: Option<String>,
    /// Seconds an agent container has to listen on $PORT.
    #[arg(long, env = "MCPBENCH_AGENT_READINESS_SECS", default_value_t = 30,
          value_parser = whole::<u64>("MCPBENCH_AGENT_READINESS_SECS", 1, Some(600)))]
    pub agent_readiness_secs: u64,
    /// Memory of one agent container, MiB (swap is not allowed).
    #[arg(long, env = "MCPBENCH_AGENT_MEMORY_MIB", default_value_t = 512,
          value_parser = whole::<u64>("MCPBENCH_AGENT_MEMORY_MIB", 16, Some(65536)))]
    pub agent_memory_mib: u64,
    /// CPUs of one agent container.
    #[arg(long, env = "MCPBENCH_AGENT_CPUS", default_value_t = 1.0, value_parser = cpus)]
    pub agent_cpus: f64,
    /// The most jobs one vendor runs at once, across every worker (0: no cap). Workers are
    /// shared fairly between vendors; this also bounds what one vendor's slow agent can hold.
    #[arg(long, env = "MCPBENCH_VENDOR_MAX_RUNNING", default_value_t = 32,
          value_parser = whole::<i64>("MCPBENCH_VENDOR_MAX_RUNNING", 0, None))]
    pub vendor_max_running: i64,
    /// The deployment's price table: `MODEL=INPUT:OUTPUT` entries, comma-separated, in US
    /// dollars per million tokens. The standard track's token counts, which our own agent
    /// measures, are priced by it (a model it does not name by the prices its submission
    /// states, if any).
    #[arg(long, env = "MCPBENCH_PRICES", default_value = "", value_parser = price_table)]
    pub prices: PriceTable,
    #[command(flatten)]
    pub baselines: BaselineArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// The optional rubric judge (docs/metrics.md, "The rubric judge"): off unless a URL and a
/// model are given. Its scores are stored and shown apart from every deterministic score.
#[derive(Args, Clone, Debug, Default)]
pub struct JudgeArgs {
    /// An OpenAI-compatible API's base URL (`https://host/v1`) whose model judges each run
    /// against its task's rubric.
    #[arg(long, env = "MCPBENCH_JUDGE_URL")]
    pub judge_url: Option<String>,
    /// The judge model's name at that endpoint.
    #[arg(long, env = "MCPBENCH_JUDGE_MODEL")]
    pub judge_model: Option<String>,
    /// Sent to the judge endpoint as a bearer token.
    #[arg(long, env = "MCPBENCH_JUDGE_API_KEY", hide_env_values = true)]
    pub judge_api_key: Option<String>,
    /// Orderings of the rubric asked for per run; their scores are averaged.
    #[arg(long, env = "MCPBENCH_JUDGE_SHUFFLES", default_value_t = 5,
          value_parser = whole::<u32>("MCPBENCH_JUDGE_SHUFFLES", 1, Some(20)))]
    pub judge_shuffles: u32,
    /// Also judge runs of live private sets (the judge model then reads private tasks).
    #[arg(long, env = "MCPBENCH_JUDGE_PRIVATE_SETS")]
    pub judge_private_sets: bool,
}

impl JudgeArgs {
    /// Whether a judge is set; an error when only half of it is.
    pub fn enabled(&self) -> Result<bool, String> {
        match (&self.judge_url, &self.judge_model) {
            (None, None) => Ok(false),
            (Some(_), Some(_)) => Ok(true),
            _ => Err("the judge needs both MCPBENCH_JUDGE_URL and MCPBENCH_JUDGE_MODEL".into()),
        }
    }
}

/// A whole number from `min` to `max` (no bound above when `None`). The refusal names the
/// variable as well: clap names only the flag, and a deployment sets the variable.
fn whole<T>(
    var: &'static str,
    min: i64,
    max: Option<i64>,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<i64> + Clone + Send + Sync + 'static,
{
    move |text| {
        let refusal = || match max {
            Some(max) => format!("{var} must be a whole number from {min} to {max}"),
            None => format!("{var} must be a whole number, {min} or more"),
        };
        let n: i64 = text.trim().parse().map_err(|_| refusal())?;
        if n < min || max.is_some_and(|max| n > max) {
            return Err(refusal());
        }
        T::try_from(n).map_err(|_| refusal())
    }
}

/// `MCPBENCH_AGENT_CPUS`: 0.05 to 64.
fn cpus(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(n) if (0.05..=64.0).contains(&n) => Ok(n),
        _ => Err("MCPBENCH_AGENT_CPUS must be a number of CPUs from 0.05 to 64".into()),
    }
}

/// `MCPBENCH_SANDBOX_DEPLOYMENT`: a name Docker labels take.
fn deployment_name(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text.len() <= 64
        && !text.starts_with('.')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(text.to_string())
    } else {
        Err(
            "MCPBENCH_SANDBOX_DEPLOYMENT must be 1 to 64 letters, digits, '.', '_' or '-', not \
             starting with '.'"
                .into(),
        )
    }
}

/// An `http://` or `https://` URL.
fn http_url(text: &str) -> Result<String, String> {
    if text.starts_with("http://") || text.starts_with("https://") {
        Ok(text.to_string())
    } else {
        Err("MCPBENCH_GATEWAY_INTERNAL_URL must be an http:// or https:// URL".into())
    }
}

impl WorkerArgs {
    pub fn id(&self) -> String {
        self.worker_id
            .clone()
            .unwrap_or_else(|| format!("{}-{}", host_name(), std::process::id()))
    }
}

/// This machine's (or container's) host name; `worker` when it cannot be read.
pub fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".into())
}

/// What the API does (the API binary and `mcpbench up`).
#[derive(Args, Clone, Debug)]
pub struct ApiArgs {
    /// Signs the API's tokens; at least 32 characters.
    #[arg(long, env = "MCPBENCH_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// Let submitted endpoints point at loopback and private networks (local use only).
    #[arg(long, env = "MCPBENCH_ALLOW_PRIVATE_AGENTS", default_value_t = false, action = clap::ArgAction::Set)]
    pub allow_private_agents: bool,
    /// Submissions per vendor, private set and month (0 is unlimited); public sets are never
    /// limited.
    #[arg(long, env = "MCPBENCH_SUBMISSION_QUOTA", default_value_t = 10,
          value_parser = whole::<i64>("MCPBENCH_SUBMISSION_QUOTA", 0, None))]
    pub submission_quota: i64,
    /// The set shown when a request names none; by default the one `MCPBENCH_DEV_TASKS` loads,
    /// else `dev-v2`.
    #[arg(long, env = "MCPBENCH_DEV_SET")]
    pub dev_set: Option<String>,
    /// Attempts a job gets before it fails on our side.
    #[arg(long, env = "MCPBENCH_MAX_ATTEMPTS", default_value_t = 3,
          value_parser = whole::<i32>("MCPBENCH_MAX_ATTEMPTS", 1, Some(20)))]
    pub max_attempts: i32,
    /// The largest `docker save` archive accepted as a submission, in bytes (2 GiB).
    #[arg(long, env = "MCPBENCH_IMAGE_UPLOAD_MAX_BYTES", default_value_t = 2 << 30)]
    pub image_upload_max_bytes: u64,
    /// Where people reach the service (`https://bench.example.org`): the website's forms take
    /// posts from this origin only, its session cookie is `Secure` when it is https, and the
    /// commands its pages show use it. Unset, the request's `Host` stands in (local use).
    #[arg(long, env = "MCPBENCH_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Connections open at once; past it new ones wait until one closes (one address holds
    /// at most 64).
    #[arg(long, env = "MCPBENCH_MAX_CONNECTIONS", default_value_t = 1024,
          value_parser = whole::<usize>("MCPBENCH_MAX_CONNECTIONS", 1, Some(1_000_000)))]
    pub max_connections: usize,
    /// Submissions one vendor may have queued or running on one set at once (0: unlimited).
    #[arg(long, env = "MCPBENCH_MAX_OPEN_SUBMISSIONS", default_value_t = 4,
          value_parser = whole::<i64>("MCPBENCH_MAX_OPEN_SUBMISSIONS", 0, None))]
    pub max_open_submissions: i64,
    /// Behind a proxy of ours: count clients by the last address of `X-Forwarded-For` (which
    /// that proxy sets) rather than the connection's peer, for the rate limits and the 64
    /// requests one client may hold open; the proxy's own connections are then capped only by
    /// `MCPBENCH_MAX_CONNECTIONS`.
    #[arg(long, env = "MCPBENCH_TRUST_FORWARDED_FOR", default_value_t = false, action = clap::ArgAction::Set)]
    pub trust_forwarded_for: bool,
    /// Let hosted endpoints run private sets. A hosted endpoint receives every goal it runs,
    /// so on a live private set it sees the month's sealed tasks (a sandboxed image cannot send
    /// them home). The same holds for models: the standard track's, and one an image names.
    /// Off, private sets take Docker images without a model only, and anything else submitted
    /// to one is refused with the reason.
    #[arg(long, env = "MCPBENCH_HOSTED_PRIVATE_SETS", default_value_t = false, action = clap::ArgAction::Set)]
    pub hosted_private_sets: bool,
    /// Seconds a vendor's old API keys keep working after it rotates them (`POST
    /// /auth/keys/rotate`), at most 30 days; 0 ends them at once.
    #[arg(long, env = "MCPBENCH_KEY_GRACE_SECS", default_value_t = 86_400,
          value_parser = whole::<u64>("MCPBENCH_KEY_GRACE_SECS", 0, Some(30 * 86_400)))]
    pub key_grace_secs: u64,
    #[command(flatten)]
    pub calendar: CalendarArgs,
}

/// The keys that seal private tasks at rest (the worker opens them). Not `Debug`: nothing
/// here is ever printed.
#[derive(Args, Clone, Default)]
pub struct TaskKeyArgs {
    /// Keys that seal private tasks at rest: `id:key` (32 bytes, hex or base64), comma-separated; the
    /// first seals, all open (put a new key first to rotate).
    #[arg(long, env = "MCPBENCH_TASK_KEYS", hide_env_values = true)]
    pub task_keys: Option<String>,
}

/// The secrets of private sets (the API, `mcpbench admin set` and `up`). Not `Debug`.
#[derive(Args, Clone, Default)]
pub struct CustodyArgs {
    #[command(flatten)]
    pub keys: TaskKeyArgs,
    /// The Ed25519 key (its 32-byte seed: 64 hex digits or base64) that signs set checkpoints.
    #[arg(long, env = "MCPBENCH_SIGNING_KEY", hide_env_values = true)]
    pub signing_key: Option<String>,
    /// The service's name: checkpoints' origin (`<name>/sets/<id>`) and the signing key's name.
    #[arg(long, env = "MCPBENCH_SERVICE_NAME", default_value = "mcpbench.local")]
    pub service_name: String,
}

/// Resolves on Ctrl-C or SIGTERM (what Docker and Kubernetes send to stop a container).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Worker {
        #[command(flatten)]
        worker: WorkerArgs,
    }

    #[test]
    fn the_docker_mode_is_one_of_three_and_auto_by_default() {
        let parse = |args: &[&str]| Worker::try_parse_from([&["worker"], args].concat());
        assert_eq!(parse(&[]).unwrap().worker.docker, DockerMode::Auto);
        assert_eq!(
            parse(&["--docker", "off"]).unwrap().worker.docker,
            DockerMode::Off
        );
        assert_eq!(
            parse(&["--docker", "on"]).unwrap().worker.docker,
            DockerMode::On
        );
        let refused = parse(&["--docker", "maybe"]).err().unwrap().to_string();
        assert!(
            refused.contains("maybe") && refused.contains("auto, on, off"),
            "{refused}"
        );
    }

    #[derive(Parser)]
    struct Api {
        #[command(flatten)]
        api: ApiArgs,
    }

    #[test]
    fn a_setting_out_of_its_range_is_refused_at_start_naming_the_range() {
        let worker = |args: &[&str]| Worker::try_parse_from([&["worker"], args].concat());
        for (flag, bad, range) in [
            (
                "--concurrency",
                "0",
                "MCPBENCH_WORKER_CONCURRENCY must be a whole number from 1 to 4096",
            ),
            (
                "--concurrency",
                "4097",
                "MCPBENCH_WORKER_CONCURRENCY must be a whole number from 1 to 4096",
            ),
            (
                "--ramp-secs",
                "601",
                "MCPBENCH_WORKER_RAMP_SECS must be a whole number from 0 to 600",
            ),
            (
                "--lease-secs",
                "2",
                "MCPBENCH_LEASE_SECS must be a whole number from 3 to 3600",
            ),
            (
                "--time-budget-secs",
                "0",
                "MCPBENCH_TIME_BUDGET_SECS must be a whole number from 1 to 3600",
            ),
            (
                "--agent-readiness-secs",
                "601",
                "MCPBENCH_AGENT_READINESS_SECS must be a whole number from 1 to 600",
            ),
            (
                "--agent-memory-mib",
                "15",
                "MCPBENCH_AGENT_MEMORY_MIB must be a whole number from 16 to 65536",
            ),
            (
                "--vendor-max-running",
                "-1",
                "MCPBENCH_VENDOR_MAX_RUNNING must be a whole number, 0 or more",
            ),
            (
                "--judge-shuffles",
                "21",
                "MCPBENCH_JUDGE_SHUFFLES must be a whole number from 1 to 20",
            ),
        ] {
            let refused = worker(&[&format!("{flag}={bad}")])
                .err()
                .unwrap()
                .to_string();
            assert!(
                refused.contains(flag) && refused.contains(range),
                "{flag} {bad}: {refused}"
            );
        }
        for (flag, bad, why) in [
            ("--agent-cpus", "0.01", "MCPBENCH_AGENT_CPUS must be"),
            ("--agent-cpus", "many", "MCPBENCH_AGENT_CPUS must be"),
            (
                "--sandbox-deployment",
                ".hidden",
                "MCPBENCH_SANDBOX_DEPLOYMENT must be",
            ),
            (
                "--sandbox-deployment",
                "a b",
                "MCPBENCH_SANDBOX_DEPLOYMENT must be",
            ),
            (
                "--gateway-internal-url",
                "10.1.2.3:9090",
                "MCPBENCH_GATEWAY_INTERNAL_URL must be",
            ),
        ] {
            let refused = worker(&[flag, bad]).err().unwrap().to_string();
            assert!(refused.contains(why), "{flag} {bad}: {refused}");
        }
        let edges = worker(&[
            "--concurrency",
            "4096",
            "--lease-secs",
            "3",
            "--agent-cpus",
            "0.05",
            "--sandbox-deployment",
            "staging_2-b.x",
        ])
        .unwrap()
        .worker;
        assert_eq!((edges.concurrency, edges.lease_secs), (4096, 3));
        assert_eq!(edges.sandbox_deployment.as_deref(), Some("staging_2-b.x"));

        let api = |args: &[&str]| Api::try_parse_from([&["api"], args].concat());
        for (flag, bad, range) in [
            (
                "--max-attempts",
                "0",
                "MCPBENCH_MAX_ATTEMPTS must be a whole number from 1 to 20",
            ),
            (
                "--max-connections",
                "0",
                "MCPBENCH_MAX_CONNECTIONS must be a whole number from 1 to 1000000",
            ),
            (
                "--max-open-submissions",
                "-1",
                "MCPBENCH_MAX_OPEN_SUBMISSIONS must be a whole number, 0 or more",
            ),
            (
                "--submission-quota",
                "-5",
                "MCPBENCH_SUBMISSION_QUOTA must be a whole number, 0 or more",
            ),
        ] {
            let refused = api(&[&format!("{flag}={bad}")]).err().unwrap().to_string();
            assert!(
                refused.contains(flag) && refused.contains(range),
                "{flag} {bad}: {refused}"
            );
        }
        assert_eq!(api(&[]).unwrap().api.max_attempts, 3);
    }
}
