//! Vendor images run in hardened, network-isolated Docker containers: one fresh pod per task
//! run, removed when the run ends, whatever way it ends.
//!
//! # A pod
//!
//! Two containers share one network namespace that has nothing in it but loopback
//! (`network_mode: none` for the first, `container:<first>` for the second):
//!
//! - the **proxy** container runs our static `mcpbench-sandbox-proxy` (see `proxy/main.rs`) from
//!   an image the worker makes itself. It is the only container with a mount: a private
//!   directory holding two Unix sockets. It listens on `127.0.0.1:MCP_PORT` inside the pod and
//!   carries those connections to `mcp.sock`, which the worker forwards to its MCP gateway; and
//!   it listens on `agent.sock`, carrying the worker's requests to the agent's `$PORT`.
//! - the **agent** container runs the vendor's image, pinned by id or digest, with `PORT` in
//!   its environment and the run's MCP endpoints given as `http://127.0.0.1:MCP_PORT/...`.
//!
//! A submission that names a model (an image that calls the vendor's own model) gets one more
//! port: the proxy listens on `127.0.0.1:MODEL_PORT` too and carries it to `model.sock`, where
//! the worker relays chat-completions requests to that model alone ([`ModelRoute`]).
//!
//! # Threat model
//!
//! The image is hostile code that sees a task (a private one, on a live set) and wants to send
//! it somewhere, or to harm the host or other runs. What it gets:
//!
//! - **Network**: a namespace with loopback only; no interface, route, gateway or DNS server
//!   exists in it, so the internet, the host (the Docker bridge gateway included: there is no
//!   bridge), sibling containers and name resolution are all unreachable by construction, not
//!   by a filter that could be misconfigured. The one way out is the proxy's MCP port, which
//!   reaches nothing but the worker's gateway, and the gateway serves only this run's endpoints
//!   (each run has its own 256-bit token). The agent cannot reach the Unix sockets: they are
//!   mounted into the proxy container only. With a model there is a second way out, on
//!   purpose: the model port reaches the worker's relay, which posts to the one URL the vendor
//!   named and nothing else; what the image sends its model leaves our hands, so such runs
//!   count as hosted (the goals are recorded as exposed, and a deployment that keeps private
//!   sets sandboxed refuses them).
//! - **Privileges**: uid 65534, every capability dropped, `no-new-privileges`, a read-only root,
//!   `/tmp` and every volume the image declares as size-capped `tmpfs` (`nosuid,nodev`), private
//!   IPC, no Docker socket and no host path.
//! - **Resources**: memory equal to memory+swap (no swap), a CPU quota, a pids limit, an open
//!   files limit, a log size cap, and a wall-clock kill at the run's deadline (`lifetime`).
//! - **Leftovers**: everything carries `mcpbench.*` labels with its owner and expiry, and
//!   [`Sandbox::reap`] removes what a crashed worker left.
//!
//! - **Known runtime escapes**: an image whose `WORKDIR` points into `/proc` (runc's
//!   CVE-2024-21626) is refused at upload and again before it runs; [`Sandbox::connect`] warns
//!   when the engine's runc predates that fix. CVE-2019-5736 (overwriting runc through
//!   `/proc/self/exe`) needs root in the container and write access to the binary: agents run
//!   as uid 65534 without capabilities.
//!
//! Not covered, and known:
//! - kernel exploits (containers share the host kernel) and timing side channels;
//! - on a runc older than 1.1.12, a WORKDIR that reaches /proc through a symlink inside a layer
//!   (only the WORKDIR string is checked): run a patched runc, or `runsc`;
//! - pulls of pinned references: the API checks the registry's name and addresses once, but
//!   the engine resolves it again and follows the registry's redirects itself; an operator who
//!   takes references from untrusted vendors should give the engine an egress proxy;
//! - what the vendor sees of a run while its task is sealed (its set is live and private, or a
//!   retired set withholds it because a live set holds it) is a channel out of the sandbox: an
//!   image that saw the task can spell bits of it in what it does. The free-text detail and the
//!   trace are withheld there, and the duration is shown only as one of eleven buckets (under
//!   3.5 bits; in milliseconds it carried about 16). Still visible: pass or fail and the reason
//!   (about 3 bits), the counts of tool calls, hallucinated and invalid calls and errors seen
//!   (each bounded by the step budget: up to 6 bits each), and when the submission's progress
//!   moves, which a vendor polling `GET /submissions/{id}` times to a second or so while other
//!   runs run beside it. A few tens of bits per run: enough to leak a task's id or a choice
//!   among its candidates, not its text; the rotation keeps tasks for months, so a vendor who
//!   runs many submissions gains more, which the monthly quota on private sets bounds.
//!
//! A deployment that needs more runs the agent's container on a stronger runtime
//! ([`SandboxConfig::runtime`], the worker's `MCPBENCH_AGENT_RUNTIME`: gVisor's `runsc`); the
//! proxy, our own code, stays on the engine's default.

mod dir;
mod image;
mod pod;
mod reaper;

pub use pod::{Finished, MODEL_KEY_PLACEHOLDER, ModelRoute, NotReady, Pod, PodSpec};
pub use reaper::Owners;

use bollard::Docker;
use std::path::PathBuf;
use std::time::Duration;

/// The port an agent listens on unless told otherwise (docs/protocol.md: `$PORT`, default 8080).
pub const AGENT_PORT: u16 = 8080;
/// The port the proxy takes inside the pod for the run's MCP endpoints.
pub const MCP_PORT: u16 = 9199;
/// The port the proxy takes inside the pod for the vendor's model, when the submission named
/// one (docs/protocol.md, section 6).
pub const MODEL_PORT: u16 = 9198;
/// Labels on everything the sandbox creates.
pub const LABEL: &str = "mcpbench.sandbox";
pub const LABEL_OWNER: &str = "mcpbench.owner";
pub const LABEL_DEPLOYMENT: &str = "mcpbench.deployment";
pub const LABEL_EXPIRES: &str = "mcpbench.expires";
pub const LABEL_POD: &str = "mcpbench.pod";
pub const LABEL_ROLE: &str = "mcpbench.role";

/// What one agent container may use.
#[derive(Clone, Debug)]
pub struct Limits {
    pub memory_bytes: i64,
    /// CPUs, as a fraction (1.0 = one core).
    pub cpus: f64,
    pub pids: i64,
    /// Size of `/tmp` (and of each volume the image declares).
    pub tmp_bytes: u64,
    /// Container output kept, stdout and stderr together.
    pub log_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: 512 << 20,
            cpus: 1.0,
            pids: 128,
            tmp_bytes: 64 << 20,
            log_bytes: 1 << 20,
        }
    }
}

#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// Where pod directories (the proxy's Unix sockets) are made. The Docker engine must see
    /// it at the same path: a worker in a container mounts it from the host at that path.
    pub socket_dir: PathBuf,
    /// This worker's id, on every label, so the reaper knows whose leftovers it sees.
    pub owner: String,
    /// The deployment (one database) this worker belongs to, on every label: the reaper only
    /// judges pods of its own deployment, since the owners it knows are those of its
    /// database. Workers derive it from their database unless told one.
    pub deployment: String,
    pub limits: Limits,
    /// How long an agent has to listen on `$PORT` after its container starts.
    pub readiness: Duration,
    /// The OCI runtime of agents' pods (the engine's default, runc, when `None`; `runsc` for
    /// gVisor where installed). [`Sandbox::connect`] refuses one the engine does not have.
    pub runtime: Option<String>,
}

impl SandboxConfig {
    pub fn new(owner: &str) -> Self {
        Self {
            socket_dir: std::env::temp_dir().join("mcpbench-sandbox"),
            owner: owner.into(),
            deployment: "mcpbench".into(),
            limits: Limits::default(),
            readiness: Duration::from_secs(30),
            runtime: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the Docker engine is not reachable: {0}")]
    Unreachable(String),
    #[error("docker: {0}")]
    Docker(#[from] bollard::errors::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The image is not on this engine and could not be brought here.
    #[error("{0}")]
    Image(String),
    #[error("{0}")]
    Pod(String),
    /// The configured OCI runtime is not one the engine has: a setting to fix, not an engine
    /// that is missing.
    #[error("{0}")]
    Runtime(String),
}

impl SandboxError {
    /// The reason when the fault is the image's (it declares what we refuse, or the engine
    /// refused to create or start the agent's container from it): the vendor's to fix, not
    /// ours to retry. Everything else, the proxy's container included, is ours.
    pub fn image_fault(&self) -> Option<String> {
        match self {
            SandboxError::Image(reason) => Some(reason.clone()),
            _ => None,
        }
    }
}

/// A connection to the Docker engine with the proxy image in place.
#[derive(Clone)]
pub struct Sandbox {
    docker: Docker,
    config: std::sync::Arc<SandboxConfig>,
    proxy_image: String,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("config", &self.config)
            .field("proxy_image", &self.proxy_image)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Connects to the local engine (`DOCKER_HOST` or the default socket), agrees on an API
    /// version, and loads the proxy image when it is missing.
    pub async fn connect(config: SandboxConfig) -> Result<Self, SandboxError> {
        let docker = Docker::connect_with_local_defaults()
            .map_err(|e| SandboxError::Unreachable(e.to_string()))?;
        let docker = tokio::time::timeout(Duration::from_secs(10), docker.negotiate_version())
            .await
            .map_err(|_| SandboxError::Unreachable("no answer within 10 s".into()))?
            .map_err(|e| SandboxError::Unreachable(e.to_string()))?;
        dir::pods_home(&config.socket_dir, &config.deployment)?;
        image::check_runtime(&docker).await;
        if let Some(runtime) = &config.runtime {
            image::require_runtime(&docker, runtime).await?;
        }
        let proxy_image = image::ensure_proxy(&docker).await?;
        Ok(Self {
            docker,
            config: std::sync::Arc::new(config),
            proxy_image,
        })
    }

    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// Where this deployment's pod directories are, one folder per owner.
    pub fn pods_dir(&self) -> PathBuf {
        self.config.socket_dir.join(&self.config.deployment)
    }

    /// The engine itself, for tests and tools.
    pub fn docker(&self) -> &Docker {
        &self.docker
    }
}
