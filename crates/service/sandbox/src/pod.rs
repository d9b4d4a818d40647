//! One pod: the proxy and agent containers of one task run, the worker's ends of their Unix
//! sockets, readiness, and teardown on every path.

use crate::image::PROXY_PATH;
use crate::{
    AGENT_PORT, LABEL, LABEL_DEPLOYMENT, LABEL_EXPIRES, LABEL_OWNER, LABEL_POD, LABEL_ROLE,
    MCP_PORT, MODEL_PORT, Sandbox, SandboxError,
};
use bollard::Docker;
use bollard::models::{
    ContainerCreateBody, HealthConfig, HostConfig, HostConfigLogConfig, ResourcesUlimits,
};
use bollard::query_parameters::{
    CreateContainerOptionsBuilder, KillContainerOptionsBuilder, LogsOptionsBuilder,
    RemoveContainerOptionsBuilder, WaitContainerOptions,
};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// Where the proxy container sees the pod directory.
const POD_DIR_IN_PROXY: &str = "/run/mcpbench";
/// The uid the proxy runs as when the worker is root (the pod directory is given to it).
const PROXY_UID: u32 = 65532;
/// The uid every agent runs as.
const AGENT_USER: &str = "65534:65534";

/// What to run.
#[derive(Clone, Debug)]
pub struct PodSpec {
    /// An image id or a digest-pinned reference already on the engine.
    pub image: String,
    /// Wall-clock life: both containers are killed this long after the pod starts, whatever
    /// the worker is doing.
    pub lifetime: Duration,
    /// Where the worker's MCP gateway listens.
    pub gateway: SocketAddr,
    /// Extra labels (submission, task) for operators.
    pub labels: Vec<(String, String)>,
    /// The vendor's model, when the submission named one: a second way out of the pod.
    pub model: Option<ModelRoute>,
    /// The reference agent a baseline's image serves, given to it as `MCPBENCH_AGENT_KIND`
    /// (`mcpbench agent serve` reads it); `None` for a vendor's image.
    pub baseline: Option<String>,
}

/// A model the agent may call: the pod's `127.0.0.1:MODEL_PORT` reaches `relay`, where the
/// worker relays chat-completions requests to the vendor's model. The agent finds it in the
/// variables OpenAI's SDKs read (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, a placeholder: the
/// relay adds the real key) and the model's name in `MCPBENCH_MODEL`.
#[derive(Clone, Debug)]
pub struct ModelRoute {
    pub relay: SocketAddr,
    pub model: String,
}

/// The placeholder key an agent with a model is given: the worker's relay drops it.
pub const MODEL_KEY_PLACEHOLDER: &str = "sandbox";

/// Why an agent never became ready; the text is for the vendor.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotReady(pub String);

/// What a pod left when it was torn down.
#[derive(Clone, Debug, Default)]
pub struct Finished {
    /// The agent's stdout and stderr, at most `Limits::log_bytes`.
    pub logs: Vec<u8>,
    pub logs_truncated: bool,
    /// The kernel killed the agent for exceeding its memory limit.
    pub oom_killed: bool,
    /// The agent's exit code, when it had exited before the teardown killed it.
    pub exited: Option<i64>,
}

/// A running pod. [`Pod::stop`] tears it down and returns its logs; a pod dropped without
/// `stop` is removed in the background.
pub struct Pod {
    docker: Docker,
    pub id: String,
    proxy: String,
    agent: String,
    dir: PathBuf,
    agent_url: String,
    log_bytes: usize,
    tasks: Vec<JoinHandle<()>>,
    stopped: bool,
}

impl Sandbox {
    /// Starts a pod: the proxy, then the agent sharing its network namespace.
    pub async fn start(&self, spec: &PodSpec) -> Result<Pod, SandboxError> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let dir = self.pods_dir().join(&self.config.owner).join(&id);
        let mut pod = Pod {
            docker: self.docker.clone(),
            id: id.clone(),
            proxy: format!("mcpbench-{id}-proxy"),
            agent: format!("mcpbench-{id}-agent"),
            dir: dir.clone(),
            agent_url: String::new(),
            log_bytes: self.config.limits.log_bytes,
            tasks: Vec::new(),
            stopped: false,
        };
        match self.start_in(&mut pod, spec).await {
            Ok(()) => Ok(pod),
            Err(e) => {
                // Whatever was made goes now, before the error is reported (if this future is
                // dropped meanwhile, `Drop` still removes it: `stopped` is set only after).
                remove(&pod.docker, &pod.agent, &pod.proxy, &pod.dir).await;
                pod.stopped = true;
                Err(e)
            }
        }
    }

    async fn start_in(&self, pod: &mut Pod, spec: &PodSpec) -> Result<(), SandboxError> {
        let (id, dir) = (pod.id.clone(), pod.dir.clone());
        let proxy_user = prepare_dir(&dir)?;
        let mcp = UnixListener::bind(dir.join("mcp.sock"))?;
        std::fs::set_permissions(dir.join("mcp.sock"), std::fs::Permissions::from_mode(0o777))?;
        pod.tasks.push(tokio::spawn(forward_out(mcp, spec.gateway)));
        let mut proxy_args = vec![
            POD_DIR_IN_PROXY.to_string(),
            MCP_PORT.to_string(),
            AGENT_PORT.to_string(),
        ];
        let mut env = vec![format!("PORT={AGENT_PORT}")];
        if let Some(kind) = &spec.baseline {
            env.push(format!("MCPBENCH_AGENT_KIND={kind}"));
        }
        if let Some(model) = &spec.model {
            let sock = dir.join("model.sock");
            let listener = UnixListener::bind(&sock)?;
            std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o777))?;
            pod.tasks
                .push(tokio::spawn(forward_out(listener, model.relay)));
            proxy_args.push(MODEL_PORT.to_string());
            env.extend([
                format!("OPENAI_BASE_URL=http://127.0.0.1:{MODEL_PORT}/v1"),
                format!("OPENAI_API_KEY={MODEL_KEY_PLACEHOLDER}"),
                format!("MCPBENCH_MODEL={}", model.model),
            ]);
        }

        let expires = SystemTime::now() + spec.lifetime;
        let expires = expires
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let labels = |role: &str| -> HashMap<String, String> {
            let mut l: HashMap<String, String> = spec.labels.iter().cloned().collect();
            l.insert(LABEL.into(), "1".into());
            l.insert(LABEL_OWNER.into(), self.config.owner.clone());
            l.insert(LABEL_DEPLOYMENT.into(), self.config.deployment.clone());
            l.insert(LABEL_EXPIRES.into(), expires.to_string());
            l.insert(LABEL_POD.into(), id.clone());
            l.insert(LABEL_ROLE.into(), role.into());
            l
        };

        // Two threads per carried connection (at most 128 of them) and a few more.
        let mut proxy_host = self.hardened(64 << 20, 0.5, 320, &[]);
        proxy_host.network_mode = Some("none".into());
        // Our own static binary stays on the engine's default runtime: it must use the pod
        // directory's Unix sockets, which gVisor keeps from a sandbox by default. The
        // configured runtime is for the vendor's code.
        proxy_host.runtime = None;
        proxy_host.binds = Some(vec![format!("{}:{POD_DIR_IN_PROXY}", dir.display())]);
        let proxy = ContainerCreateBody {
            image: Some(self.proxy_image.clone()),
            entrypoint: Some(vec![PROXY_PATH.into()]),
            cmd: Some(proxy_args),
            user: Some(proxy_user),
            labels: Some(labels("proxy")),
            host_config: Some(proxy_host),
            ..Default::default()
        };
        self.create(&pod.proxy, proxy).await?;
        self.docker.start_container(&pod.proxy, None).await?;
        wait_for_socket(&dir.join("agent.sock")).await?;

        let volumes = self.declared_volumes(&spec.image).await?;
        let limits = &self.config.limits;
        let mut agent_host = self.hardened(limits.memory_bytes, limits.cpus, limits.pids, &volumes);
        agent_host.network_mode = Some(format!("container:{}", pod.proxy));
        let agent = ContainerCreateBody {
            image: Some(spec.image.clone()),
            env: Some(env),
            user: Some(AGENT_USER.into()),
            // An image's HEALTHCHECK makes the engine exec into the container (the path of
            // runc's CVE-2024-21626); we check readiness ourselves.
            healthcheck: Some(HealthConfig {
                test: Some(vec!["NONE".into()]),
                ..Default::default()
            }),
            labels: Some(labels("agent")),
            host_config: Some(agent_host),
            ..Default::default()
        };
        // The engine refusing the vendor's image (a bad entrypoint, say) is the image's fault;
        // the same refusal for the proxy above is ours.
        self.create(&pod.agent, agent)
            .await
            .map_err(image_refusal)?;
        self.docker
            .start_container(&pod.agent, None)
            .await
            .map_err(|e| image_refusal(e.into()))?;
        pod.tasks.push(tokio::spawn(kill_at(
            self.docker.clone(),
            [pod.agent.clone(), pod.proxy.clone()],
            spec.lifetime,
        )));

        let listener = TcpListener::bind("127.0.0.1:0").await?;
        pod.agent_url = format!("http://{}", listener.local_addr()?);
        pod.tasks.push(tokio::spawn(forward_agent(
            listener,
            dir.join("agent.sock"),
        )));
        Ok(())
    }

    async fn create(&self, name: &str, body: ContainerCreateBody) -> Result<(), SandboxError> {
        let options = CreateContainerOptionsBuilder::default().name(name).build();
        self.docker.create_container(Some(options), body).await?;
        Ok(())
    }

    /// The host settings every sandbox container gets (see the crate's threat model).
    fn hardened(&self, memory: i64, cpus: f64, pids: i64, volumes: &[String]) -> HostConfig {
        let tmpfs_options = format!("rw,nosuid,nodev,size={}", self.config.limits.tmp_bytes);
        let mut tmpfs = HashMap::from([("/tmp".to_string(), tmpfs_options.clone())]);
        for volume in volumes {
            tmpfs.insert(volume.clone(), tmpfs_options.clone());
        }
        HostConfig {
            cap_drop: Some(vec!["ALL".into()]),
            security_opt: Some(vec!["no-new-privileges:true".into()]),
            readonly_rootfs: Some(true),
            privileged: Some(false),
            tmpfs: Some(tmpfs),
            pids_limit: Some(pids),
            memory: Some(memory),
            memory_swap: Some(memory),
            nano_cpus: Some((cpus * 1e9) as i64),
            ipc_mode: Some("private".into()),
            ulimits: Some(vec![ResourcesUlimits {
                name: Some("nofile".into()),
                soft: Some(1024),
                hard: Some(1024),
            }]),
            log_config: Some(HostConfigLogConfig {
                typ: Some("json-file".into()),
                config: Some(HashMap::from([
                    ("max-size".into(), "4m".into()),
                    ("max-file".into(), "1".into()),
                ])),
            }),
            runtime: self.config.runtime.clone(),
            ..Default::default()
        }
    }
}

impl Pod {
    /// Where the worker posts `mcpbench/1`: a loopback port carried into the pod.
    pub fn agent_url(&self) -> &str {
        &self.agent_url
    }

    /// Where the agent reaches the run's MCP endpoints, from inside the pod.
    pub fn gateway_url(&self) -> String {
        format!("http://127.0.0.1:{MCP_PORT}")
    }

    /// Waits until the agent accepts connections on `$PORT`.
    pub async fn ready(&self, timeout: Duration) -> Result<(), NotReady> {
        let deadline = tokio::time::Instant::now() + timeout;
        let sock = self.dir.join("agent.sock");
        loop {
            if probe(&sock).await {
                return Ok(());
            }
            if let Ok(c) = self.docker.inspect_container(&self.agent, None).await {
                let state = c.state.unwrap_or_default();
                if state.running == Some(false) {
                    let why = if state.oom_killed == Some(true) {
                        "was killed for exceeding its memory limit".to_string()
                    } else {
                        format!("exited with code {}", state.exit_code.unwrap_or(-1))
                    };
                    return Err(NotReady(format!(
                        "the agent {why} before it listened on $PORT ({AGENT_PORT})"
                    )));
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(NotReady(format!(
                    "the agent did not listen on $PORT ({AGENT_PORT}) within {} s",
                    timeout.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits up to `within` for the agent's container to stop on its own: after the agent's
    /// connection dropped, the process may be dead (killed for its memory, say) while the engine
    /// has not yet seen it exit, and `stop` must not take our own kill for the agent's end.
    pub async fn settle(&self, within: Duration) {
        let wait = self
            .docker
            .wait_container(&self.agent, None::<WaitContainerOptions>);
        let _ = tokio::time::timeout(within, wait.collect::<Vec<_>>()).await;
    }

    /// Kills both containers, keeps the agent's logs and exit state, removes everything.
    pub async fn stop(mut self) -> Finished {
        let mut finished = Finished::default();
        // Read before the kill below, so only an exit of the agent's own is reported.
        if let Ok(c) = self.docker.inspect_container(&self.agent, None).await {
            let state = c.state.unwrap_or_default();
            if state.running == Some(false) {
                finished.exited = state.exit_code;
            }
        }
        let kill = KillContainerOptionsBuilder::default()
            .signal("KILL")
            .build();
        let _ = self.docker.kill_container(&self.agent, Some(kill)).await;
        // The engine records an out-of-memory kill when it reaps the process, which can come
        // after the agent's connection dropped: wait for the container to stop, then read.
        let wait = self
            .docker
            .wait_container(&self.agent, None::<WaitContainerOptions>);
        let _ = tokio::time::timeout(Duration::from_secs(5), wait.collect::<Vec<_>>()).await;
        if let Ok(c) = self.docker.inspect_container(&self.agent, None).await {
            finished.oom_killed = c.state.unwrap_or_default().oom_killed == Some(true);
        }
        (finished.logs, finished.logs_truncated) = self.logs().await;
        remove(&self.docker, &self.agent, &self.proxy, &self.dir).await;
        // Only now: a teardown cancelled half-way leaves `Drop` to finish it.
        self.stopped = true;
        for task in &self.tasks {
            task.abort();
        }
        finished
    }

    async fn logs(&self) -> (Vec<u8>, bool) {
        let options = LogsOptionsBuilder::default()
            .stdout(true)
            .stderr(true)
            .build();
        let mut stream = self.docker.logs(&self.agent, Some(options));
        let mut out = Vec::new();
        while let Some(Ok(chunk)) = stream.next().await {
            let bytes = chunk.into_bytes();
            let room = self.log_bytes.saturating_sub(out.len());
            if bytes.len() > room {
                out.extend_from_slice(&bytes[..room]);
                return (out, true);
            }
            out.extend_from_slice(&bytes);
        }
        (out, false)
    }
}

impl Drop for Pod {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        if self.stopped {
            return;
        }
        let (docker, agent, proxy, dir) = (
            self.docker.clone(),
            self.agent.clone(),
            self.proxy.clone(),
            self.dir.clone(),
        );
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move { remove(&docker, &agent, &proxy, &dir).await });
        } else {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// A 400 from the engine about the agent's container, as the image's fault.
fn image_refusal(e: SandboxError) -> SandboxError {
    match e {
        SandboxError::Docker(bollard::errors::Error::DockerResponseServerError {
            status_code: 400,
            message,
        }) => SandboxError::Image(format!(
            "the engine could not start the image: {}",
            message.chars().take(300).collect::<String>()
        )),
        e => e,
    }
}

/// Removes both containers (with any anonymous volume) and the pod directory.
async fn remove(docker: &Docker, agent: &str, proxy: &str, dir: &Path) {
    let options = RemoveContainerOptionsBuilder::default()
        .force(true)
        .v(true)
        .build();
    for name in [agent, proxy] {
        match docker.remove_container(name, Some(options.clone())).await {
            Ok(()) => {}
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            }) => {}
            Err(e) => {
                tracing::warn!(container = name, error = %e, "removing a sandbox container failed; the reaper will retry")
            }
        }
    }
    if let Err(e) = tokio::fs::remove_dir_all(dir).await
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(dir = %dir.display(), error = %e, "removing a pod directory failed");
    }
}

/// Makes the pod directory, private to the worker and the proxy; returns the proxy's `user`.
fn prepare_dir(dir: &Path) -> Result<String, SandboxError> {
    // Inside the worker's private home (`dir::pods_home`): nobody else can plant anything
    // here, and nothing is followed all the same.
    std::fs::create_dir_all(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(SandboxError::Pod(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    if meta.uid() == 0 {
        // A root worker hands the directory to an unprivileged uid for the proxy; root keeps
        // access anyway.
        std::os::unix::fs::lchown(dir, Some(PROXY_UID), Some(PROXY_UID))?;
        Ok(format!("{PROXY_UID}:{PROXY_UID}"))
    } else {
        Ok(format!("{}:{}", meta.uid(), meta.gid()))
    }
}

async fn wait_for_socket(path: &Path) -> Result<(), SandboxError> {
    for _ in 0..500 {
        if tokio::fs::try_exists(path).await.unwrap_or(false) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Err(SandboxError::Pod(
        "the sandbox proxy did not start within 5 s".into(),
    ))
}

/// One connection through the proxy to `$PORT`: true when the agent accepted it.
async fn probe(sock: &Path) -> bool {
    let Ok(mut conn) = UnixStream::connect(sock).await else {
        return false;
    };
    let mut answer = [0u8; 1];
    matches!(
        tokio::time::timeout(Duration::from_secs(3), conn.read_exact(&mut answer)).await,
        Ok(Ok(_)) if answer == *b"+"
    )
}

/// The worker's end of one of the agent's ways out: `mcp.sock` to the gateway, `model.sock`
/// to the model's relay.
async fn forward_out(listener: UnixListener, to: SocketAddr) {
    let mut conns = tokio::task::JoinSet::new();
    while let Ok((mut inside, _)) = listener.accept().await {
        conns.spawn(async move {
            if let Ok(mut outside) = TcpStream::connect(to).await {
                let _ = outside.set_nodelay(true);
                let _ = tokio::io::copy_bidirectional(&mut inside, &mut outside).await;
            }
        });
        while conns.try_join_next().is_some() {}
    }
}

/// The worker's way in: a loopback port whose connections go through `agent.sock`.
async fn forward_agent(listener: TcpListener, sock: PathBuf) {
    let mut conns = tokio::task::JoinSet::new();
    while let Ok((mut outside, _)) = listener.accept().await {
        let sock = sock.clone();
        conns.spawn(async move {
            let _ = outside.set_nodelay(true);
            let Ok(mut inside) = UnixStream::connect(&sock).await else {
                return;
            };
            let mut answer = [0u8; 1];
            if inside.read_exact(&mut answer).await.is_ok() && answer == *b"+" {
                let _ = tokio::io::copy_bidirectional(&mut outside, &mut inside).await;
            }
        });
        while conns.try_join_next().is_some() {}
    }
}

/// The wall-clock kill: runs beside the pod and kills its containers at the end of its life.
async fn kill_at(docker: Docker, containers: [String; 2], after: Duration) {
    tokio::time::sleep(after).await;
    tracing::info!("a sandbox pod reached its wall-clock limit; killing it");
    let kill = KillContainerOptionsBuilder::default()
        .signal("KILL")
        .build();
    for name in containers {
        let _ = docker.kill_container(&name, Some(kill.clone())).await;
    }
}
