//! Runs of Docker-image submissions: the image brought onto the engine once, then one fresh
//! pod per run (see `mcpbench_sandbox`), torn down whatever way the run ends; with the model
//! relay (`relay.rs`) beside it when the submission named a model.

use crate::Worker;
use mcpbench_db::queue::Claim;
use mcpbench_gateway::trace::{Header, Line, RunSummary};
use mcpbench_runner::{AgentTarget, Reason, RunResult, Runner};
use mcpbench_sandbox::{Finished, ModelRoute, PodSpec, Sandbox};
use mcpbench_scoring::RunCounts;
use mcpbench_tasks::Task;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// What a job runs.
pub(crate) enum Agent {
    Endpoint(AgentTarget),
    Docker(DockerAgent),
    /// The standard track: our own agent driving the vendor's model.
    Model(crate::model::ModelAgent),
    /// One of our reference agents, run in the worker.
    Baseline(crate::baselines::BaselineAgent),
}

pub(crate) struct DockerAgent {
    /// An image id (uploaded) or a digest-pinned reference.
    pub image: String,
    /// The uploaded archive's key in trace storage.
    pub archive: Option<String>,
    pub label: String,
    pub signing_secret: Vec<u8>,
    /// The set is private and live: the run's detail must not carry the agent's own words.
    pub withhold_details: bool,
    /// The model the image calls through the relay, when the submission named one.
    pub model: Option<mcpbench_agents::LlmConfig>,
    /// The reference agent the image serves, when it is a baseline of ours.
    pub baseline: Option<String>,
}

/// How long loading or pulling one image may take.
const IMAGE_TIMEOUT: Duration = Duration::from_secs(600);

/// Past the deadline and readiness, how long a pod may live before its wall-clock kill.
const KILL_GRACE: Duration = Duration::from_secs(3);

/// How long an agent whose connection failed is given to be seen exiting before it is killed.
const SETTLE: Duration = Duration::from_secs(1);

impl Worker {
    /// One run in a fresh pod: the result and the container's logs, or why it could not run
    /// (ours, retried).
    pub(crate) async fn run_in_sandbox(
        &self,
        claim: &Claim,
        task: Arc<Task>,
        set: &str,
        agent: DockerAgent,
    ) -> Result<(RunResult, Vec<u8>), String> {
        let Some(docker) = &self.docker else {
            return Err("this worker cannot run Docker images".into());
        };
        self.ensure_image(&agent).await?;
        // The relay lives as long as this run: dropped with it, whatever way it ends.
        let (model, _relay) = match &agent.model {
            None => (None, None),
            Some(config) => {
                let relay = crate::relay::Relay {
                    completions_url: mcpbench_openai::completions_url(&config.base_url),
                    api_key: config.api_key.clone(),
                };
                let (addr, guard) = crate::relay::start(relay, self.model_http.clone())
                    .await
                    .map_err(|e| {
                        tracing::warn!(error = %e, "starting a model relay failed");
                        "the relay to the agent's model could not be started on our side"
                            .to_string()
                    })?;
                let route = ModelRoute {
                    relay: addr,
                    model: config.model.clone(),
                };
                (Some(route), Some(guard))
            }
        };
        let pod = PodRun {
            task,
            set,
            image: &agent.image,
            label: &agent.label,
            signing_secret: &agent.signing_secret,
            gateway: docker.gateway,
            time_budget: self.config.time_budget,
            labels: vec![
                (
                    "mcpbench.submission".into(),
                    claim.submission_id.to_string(),
                ),
                ("mcpbench.job".into(), claim.job_id.to_string()),
            ],
            model,
            baseline: agent.baseline.clone(),
        };
        run_in_pod(&docker.sandbox, &self.runner, pod).await
    }

    /// Loads or pulls the submission's image unless the engine has it.
    async fn ensure_image(&self, agent: &DockerAgent) -> Result<(), String> {
        let docker = self.docker.as_ref().expect("checked by the caller");
        // One load per image at a time: concurrent slots of one submission wait for the first
        // instead of loading the same archive several times; other images go on.
        let lock = docker
            .loading
            .lock()
            .expect("the lock map is never poisoned")
            .entry(agent.image.clone())
            .or_default()
            .clone();
        let _guard = lock.lock().await;
        match tokio::time::timeout(IMAGE_TIMEOUT, self.bring_image(agent)).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "the image could not be brought onto the engine within {} minutes",
                IMAGE_TIMEOUT.as_secs() / 60
            )),
        }
    }

    async fn bring_image(&self, agent: &DockerAgent) -> Result<(), String> {
        let docker = self.docker.as_ref().expect("checked by the caller");
        if docker.sandbox.has_image(&agent.image).await {
            return Ok(());
        }
        match &agent.archive {
            Some(key) => {
                let dir = tempfile::tempdir().map_err(|e| {
                    tracing::warn!(error = %e, "no temporary directory for an image archive");
                    "the image could not be prepared on our side".to_string()
                })?;
                let path = dir.path().join("image.tar");
                match self.store.get_file(key, &path).await {
                    Ok(true) => {}
                    Ok(false) => {
                        return Err("the uploaded image archive is missing from storage".into());
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "reading an image archive failed");
                        return Err("the image archive could not be read on our side".into());
                    }
                }
                docker
                    .sandbox
                    .ensure_loaded(&agent.image, &path)
                    .await
                    .map_err(|e| {
                        tracing::warn!(error = %e, "loading an image failed");
                        "the image archive could not be loaded into the Docker engine".to_string()
                    })
            }
            // The vendor's own reference: the engine's answer (about their registry) is theirs
            // to read, shortened.
            None => docker
                .sandbox
                .ensure_pulled(&agent.image)
                .await
                .map_err(|e| {
                    let e: String = e.to_string().chars().take(300).collect();
                    format!("the image could not be pulled: {e}")
                }),
        }
    }
}

/// One run in a fresh pod, as the worker makes it and `mcpbench eval --image` too.
pub struct PodRun<'a> {
    pub task: Arc<Task>,
    pub set: &'a str,
    /// An image id or a reference the engine has.
    pub image: &'a str,
    pub label: &'a str,
    pub signing_secret: &'a [u8],
    /// Where the gateway the pod's MCP requests go to listens (on this host).
    pub gateway: std::net::SocketAddr,
    pub time_budget: Duration,
    /// Labels for operators (submission, job).
    pub labels: Vec<(String, String)>,
    /// The model relay the pod may reach, when the agent names a model.
    pub model: Option<ModelRoute>,
    /// The reference agent a baseline's image serves.
    pub baseline: Option<String>,
}

/// Runs `run.task` by `run.image` in a fresh pod of `sandbox`, the runner's gateway reached
/// through the pod's proxy, and tears the pod down however the run ends: the result (an image
/// that never became ready, or died, says so in it) and the container's output; an error only
/// when the fault is ours (the engine, the proxy).
pub async fn run_in_pod(
    sandbox: &Sandbox,
    runner: &Runner,
    run: PodRun<'_>,
) -> Result<(RunResult, Vec<u8>), String> {
    let readiness = sandbox.config().readiness;
    let spec = PodSpec {
        image: run.image.to_string(),
        lifetime: readiness + run.time_budget + KILL_GRACE,
        gateway: run.gateway,
        labels: run.labels,
        model: run.model,
        baseline: run.baseline,
    };
    let (task, set, label) = (run.task, run.set, run.label);
    let started = Instant::now();
    let pod = match sandbox.start(&spec).await {
        Ok(pod) => pod,
        Err(e) => match e.image_fault() {
            // The image's own fault: a result for the vendor, not a retry for us.
            Some(reason) => {
                let result = not_run(&task, label, set, reason, started);
                return Ok((result, Vec::new()));
            }
            None => {
                tracing::warn!(error = %e, "starting a sandbox pod failed");
                return Err("the agent's container could not be started on our side".into());
            }
        },
    };
    let ready = pod.ready(readiness).await;
    let result = match &ready {
        Err(not_ready) => not_run(&task, label, set, not_ready.0.clone(), started),
        Ok(()) => {
            let target = AgentTarget {
                label: label.to_string(),
                url: pod.agent_url().to_string(),
                signing_secret: run.signing_secret.to_vec(),
                sandbox_gateway: Some(pod.gateway_url()),
            };
            runner.run_in_set(task, &target, set).await
        }
    };
    if ready.is_ok() && result.reason == Reason::AgentError {
        // The agent's connection failed: give its container a moment to be seen exiting,
        // so that an out-of-memory kill is told from our own kill below.
        pod.settle(SETTLE).await;
    }
    let finished = pod.stop().await;
    // A readiness failure already says how the agent ended.
    let result = match ready {
        Ok(()) => explain(result, &finished, &sandbox.config().limits),
        Err(_) => result,
    };
    Ok((result, finished.logs))
}

/// Adds what the sandbox saw to the run's reason: an out-of-memory kill or an early exit
/// explain an agent that stopped answering.
fn explain(
    mut result: RunResult,
    finished: &Finished,
    limits: &mcpbench_sandbox::Limits,
) -> RunResult {
    if result.passed {
        return result;
    }
    let note = if finished.oom_killed {
        Some(format!(
            "the agent's container was killed for exceeding its memory limit ({} MiB)",
            limits.memory_bytes >> 20
        ))
    } else if finished.exited == Some(137) {
        // SIGKILL before we stopped it: the engine does not always record the kernel's
        // out-of-memory kill (it learns of it from an event that can come late), and nothing
        // else of ours kills an agent before its deadline.
        Some(format!(
            "the agent's container was killed (SIGKILL, exit code 137), most likely for \
             exceeding its memory limit ({} MiB)",
            limits.memory_bytes >> 20
        ))
    } else {
        finished
            .exited
            .map(|code| format!("the agent's container exited with code {code}"))
    };
    if let Some(note) = note {
        result.detail = Some(match result.detail.take() {
            Some(detail) => format!("{note}; {detail}"),
            None => note,
        });
        if let Some(Line::Result(summary)) = result.trace.last_mut() {
            summary.detail = result.detail.clone();
        }
    }
    result
}

/// The result of a run whose agent never became ready: the agent's failure, with a trace that
/// says so.
fn not_run(task: &Task, agent: &str, set: &str, detail: String, started: Instant) -> RunResult {
    let duration = started.elapsed();
    let trace = vec![
        Line::Header(Header::of(
            task,
            String::new(),
            set,
            agent,
            humantime::format_rfc3339_seconds(SystemTime::now() - duration).to_string(),
            Vec::new(),
        )),
        Line::Result(RunSummary {
            passed: false,
            reason: Reason::AgentError,
            detail: Some(detail.clone()),
            counts: RunCounts::default(),
            duration_ms: duration.as_millis() as u64,
            attack_met: not_met(task),
        }),
    ];
    RunResult {
        task_id: task.id.clone(),
        run_id: String::new(),
        passed: false,
        reason: Reason::AgentError,
        detail: Some(detail),
        counts: RunCounts::default(),
        duration,
        answer: None,
        usage: None,
        attack_met: not_met(task),
        trace,
        final_state: None,
    }
}

/// An agent that never ran met no attacker's goal.
fn not_met(task: &Task) -> Option<bool> {
    task.attack.as_ref().map(|_| false)
}
