//! `mcpbench eval --image REF|ARCHIVE`: the tasks run by a Docker image in the service's own
//! sandbox, before it is submitted. Each run gets a fresh pod as a worker gives it (the proxy
//! and the agent's container sharing a loopback-only network, the one way out to this
//! process's gateway, the same hardening and limits), so what passes here passes there.

use anyhow::{Context, bail};
use clap::Args;
use mcpbench_runner::{EvalOptions, Report, RunFuture, RunResult, Runner, evaluate_each};
use mcpbench_sandbox::{Sandbox, SandboxConfig};
use mcpbench_tasks::Task;
use mcpbench_worker::{PodRun, run_in_pod};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The sandbox an image runs in: the service's defaults, which a deployment may change.
#[derive(Args, Clone, Debug)]
pub struct ImageArgs {
    /// Run this Docker image in the service's sandbox instead of --agent: an image the engine
    /// has (an id, a tag, or a reference pinned by digest, pulled if missing) or a `docker
    /// save` archive, checked as the service checks an upload.
    #[arg(long, conflicts_with = "agent", value_name = "REF|ARCHIVE")]
    pub image: Option<String>,
    /// Memory of the agent's container, MiB (as MCPBENCH_AGENT_MEMORY_MIB).
    #[arg(long, env = "MCPBENCH_AGENT_MEMORY_MIB", default_value_t = 512,
          value_parser = clap::value_parser!(u64).range(16..=65536))]
    pub agent_memory_mib: u64,
    /// CPUs of the agent's container (as MCPBENCH_AGENT_CPUS).
    #[arg(long, env = "MCPBENCH_AGENT_CPUS", default_value_t = 1.0)]
    pub agent_cpus: f64,
    /// The OCI runtime of the agent's pod (`runsc` for gVisor); the engine's default when
    /// unset (as MCPBENCH_AGENT_RUNTIME).
    #[arg(long, env = "MCPBENCH_AGENT_RUNTIME")]
    pub agent_runtime: Option<String>,
}

/// The image ready to run: the sandbox, and the image as the engine names it.
pub struct ImageAgent {
    sandbox: Sandbox,
    image: String,
    label: String,
    /// Holds the pods' directories until the evaluation ends.
    _pods: tempfile::TempDir,
}

impl ImageArgs {
    /// Connects to the Docker engine and makes the image present: loaded from an archive
    /// (checked first: one linux/amd64 image, its config matching its digest) or found on the
    /// engine (pulled when pinned by digest).
    pub async fn prepare(&self, image: &str) -> anyhow::Result<ImageAgent> {
        if !(0.05..=64.0).contains(&self.agent_cpus) {
            bail!("--agent-cpus must be from 0.05 to 64");
        }
        let pods = tempfile::tempdir().context("a directory for the pods")?;
        let mut config = SandboxConfig::new(&format!("eval-{}", std::process::id()));
        config.socket_dir = pods.path().to_path_buf();
        config.deployment = format!("mcpbench-eval-{}", std::process::id());
        config.limits.memory_bytes = (self.agent_memory_mib as i64) << 20;
        config.limits.cpus = self.agent_cpus;
        config.runtime = self.agent_runtime.clone().filter(|r| !r.is_empty());
        let sandbox = Sandbox::connect(config)
            .await
            .context("--image needs the Docker engine")?;
        let path = Path::new(image);
        let id = if path.is_file() {
            let file =
                std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
            let found = mcpbench_images::inspect_archive(std::io::BufReader::new(file))
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            sandbox
                .ensure_loaded(&found.id, path)
                .await
                .map_err(|e| anyhow::anyhow!("loading {}: {e}", path.display()))?;
            found.id
        } else if sandbox.has_image(image).await {
            image.to_string()
        } else if mcpbench_images::is_pinned_reference(image) {
            sandbox
                .ensure_pulled(image)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            image.to_string()
        } else {
            bail!(
                "--image {image:?} is neither a file nor an image the Docker engine has (load \
                 it, give a `docker save` archive, or a reference pinned by digest)"
            );
        };
        Ok(ImageAgent {
            sandbox,
            image: id,
            label: image.to_string(),
            _pods: pods,
        })
    }
}

impl ImageAgent {
    /// Every task run by the image, each in a fresh pod; what the containers printed goes to
    /// `logs/` beside the traces when it is not empty.
    pub async fn evaluate(
        &self,
        runner: Arc<Runner>,
        gateway: SocketAddr,
        tasks: Vec<Arc<Task>>,
        options: &EvalOptions,
        time_budget: Duration,
        on_done: impl FnMut(usize, usize, &RunResult),
    ) -> (Report, Vec<RunResult>) {
        let (sandbox, image, label) = (
            self.sandbox.clone(),
            Arc::new(self.image.clone()),
            Arc::new(self.label.clone()),
        );
        let set = runner.set.clone();
        let run = move |task: Arc<Task>| {
            let (sandbox, runner, image, label) = (
                sandbox.clone(),
                runner.clone(),
                image.clone(),
                label.clone(),
            );
            let future: RunFuture = Box::pin(async move {
                let set = runner.set.clone();
                let pod = PodRun {
                    task: task.clone(),
                    set: &set,
                    image: &image,
                    label: &label,
                    signing_secret: &[],
                    gateway,
                    time_budget,
                    labels: vec![("mcpbench.eval".into(), std::process::id().to_string())],
                    model: None,
                    baseline: None,
                };
                match run_in_pod(&sandbox, &runner, pod).await {
                    Ok((result, _logs)) => result,
                    // The engine or the proxy failed us: a harness error, tried again.
                    Err(why) => mcpbench_runner::harness_error_result(&task, why),
                }
            });
            future
        };
        evaluate_each(&set, &self.label, tasks, options, run, on_done).await
    }
}
