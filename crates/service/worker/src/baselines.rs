//! Baselines: what the service submits by itself on every live set (docs/metrics.md,
//! "Baselines"), and the runs of its reference agents. Every housekeeping round queues the
//! agents of `MCPBENCH_BASELINES` and the models of `MCPBENCH_BASELINE_MODELS` that a live set
//! has no submission of yet (the database keeps one live baseline of each name a set, so
//! workers racing queue each once). A reference agent runs inside the worker, served on
//! loopback for one run as the standard track's agent is: what it is sent never leaves the
//! service, so a private task is not exposed by it, and the oracle can read the references
//! only the service holds. A model baseline is a standard-track submission like a vendor's,
//! its key sealed into it, run as those are.

use crate::Worker;
use crate::model::OwnAgent;
use mcpbench_config::BaselineModel;
use mcpbench_db::submissions::{self, About, Agent, ModelEndpoint, NewSubmission};
use mcpbench_db::{DbError, PgPool, baselines};
use mcpbench_runner::RunResult;
use mcpbench_tasks::Task;
use mcpbench_vault::Keyring;
use std::sync::Arc;
use uuid::Uuid;

/// A baseline's run: which agent, and the secret its requests are signed with.
pub(crate) struct BaselineAgent {
    pub kind: mcpbench_agents::AgentKind,
    pub label: String,
    pub signing_secret: Vec<u8>,
}

/// What a deployment runs as baselines on every live set: reference agents, and models on the
/// standard track (`MCPBENCH_BASELINE_MODELS`), their keys sealed into each submission.
#[derive(Clone, Debug, Default)]
pub struct Baselines {
    pub agents: Vec<String>,
    pub models: Vec<BaselineModel>,
    /// The image the reference agents but the oracle run from, sandboxed, on private sets
    /// (`MCPBENCH_BASELINE_IMAGE`); `None`: inside the worker.
    pub image: Option<String>,
}

/// A model baseline's name in the database, which keeps one live baseline of each name a set.
fn model_name(model: &str) -> String {
    format!("llm:{model}")
}

impl Baselines {
    pub fn from_args(args: &mcpbench_config::BaselineArgs) -> Result<Self, String> {
        Ok(Self {
            agents: args.baselines.0.clone(),
            models: args.models()?,
            image: args
                .baseline_image
                .clone()
                .filter(|image| !image.trim().is_empty()),
        })
    }

    /// Reference agents only (what `mcpbench admin set baselines --agents` asks for).
    pub fn agents(agents: &[String]) -> Self {
        Self {
            agents: agents.to_vec(),
            models: Vec::new(),
            image: None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.models.is_empty()
    }

    /// Whether a model's key must be sealed, which needs the task keyring.
    pub fn has_keys(&self) -> bool {
        self.models.iter().any(|m| m.key.is_some())
    }

    /// Every baseline's name as the database keeps it.
    fn names(&self) -> Vec<String> {
        (self.agents.iter().cloned())
            .chain(self.models.iter().map(|m| model_name(&m.model)))
            .collect()
    }
}

/// What a baseline's submission says of itself: ours, this version, our harness (a model's
/// organisation is its maker's, which the setting does not say: the entry is ours).
fn about() -> About {
    About {
        organisation: Some(baselines::VENDOR.into()),
        model_version: Some(env!("CARGO_PKG_VERSION").into()),
        weights: None,
        framework: Some("mcpbench".into()),
        scaffold: Some("standard".into()),
    }
}

/// Queues a baseline of each of `plan`'s agents and models on `set` that it has none of live
/// or completed (one that failed is queued again: what an operator asks for); the ids queued,
/// by name. What a racing worker queued first is left alone. A model's key is sealed with
/// `keyring`, which it needs.
pub async fn queue(
    pool: &PgPool,
    keyring: Option<&Keyring>,
    set: &str,
    plan: &Baselines,
) -> Result<Vec<(String, Uuid)>, DbError> {
    let names = baselines::missing_on(pool, set, &plan.names()).await?;
    queue_names(pool, keyring, set, plan, names).await
}

/// Queues the baselines of `plan` named `names` on `set`.
async fn queue_names(
    pool: &PgPool,
    keyring: Option<&Keyring>,
    set: &str,
    plan: &Baselines,
    names: Vec<String>,
) -> Result<Vec<(String, Uuid)>, DbError> {
    let vendor = baselines::vendor(pool).await?;
    // On a private set the image runs the agents it can (the oracle needs the references,
    // which no image holds) when a Docker worker is there to run it.
    let image = match &plan.image {
        Some(image) if !set_is_public(pool, set).await? && docker_available(pool).await? => {
            Some(image.as_str())
        }
        _ => None,
    };
    let mut queued = Vec::new();
    for name in names {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|e| DbError::Invalid(format!("no random source for a secret: {e}")))?;
        let endpoint;
        let (agent, model) = match plan.models.iter().find(|m| model_name(&m.model) == name) {
            Some(m) => {
                let sealed_key = match (&m.key, keyring) {
                    (None, _) => None,
                    (Some(key), Some(keyring)) => {
                        let place = submissions::model_key_place(vendor, &m.base_url);
                        let sealed = keyring.seal(&place, key.as_bytes());
                        Some((sealed.key_id, sealed.bytes))
                    }
                    (Some(_), None) => {
                        return Err(DbError::Invalid(
                            "a baseline model's key cannot be sealed without the task keyring \
                             (MCPBENCH_TASK_KEYS)"
                                .into(),
                        ));
                    }
                };
                endpoint = ModelEndpoint {
                    base_url: m.base_url.clone(),
                    model_id: m.model.clone(),
                    sealed_key,
                    // The deployment's price table prices what our agent measures.
                    prices: None,
                };
                (Agent::Model(&endpoint), m.model.clone())
            }
            None => match image {
                Some(image) if name != "oracle" => (
                    Agent::Docker {
                        image,
                        archive: None,
                        model: None,
                    },
                    format!("reference-{name}"),
                ),
                _ => (Agent::Baseline(&name), format!("reference-{name}")),
            },
        };
        let created = submissions::create_baseline(
            pool,
            &NewSubmission {
                vendor_id: vendor,
                set_id: set,
                name: name.strip_prefix("llm:").unwrap_or(&name),
                model: &model,
                agent,
                signing_secret: &secret,
                trials: 1,
                max_attempts: 3,
                monthly_quota: None,
                max_open: None,
                distractors: None,
                about: &about(),
                webhook_url: None,
            },
            &name,
        )
        .await;
        match created {
            Ok(id) => queued.push((name, id)),
            Err(DbError::Sqlx(e)) if baselines::is_duplicate(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(queued)
}

/// Whether `set` is public (its tasks no secret); refused for a set that is not there.
async fn set_is_public(pool: &PgPool, set: &str) -> Result<bool, DbError> {
    let info = mcpbench_db::sets::get(pool, set).await?;
    info.map(|s| s.public).ok_or(DbError::NotFound)
}

/// Whether a worker that runs Docker images reported lately.
async fn docker_available(pool: &PgPool) -> Result<bool, DbError> {
    mcpbench_db::workers::docker_available(pool, std::time::Duration::from_secs(60)).await
}

impl Worker {
    /// Queues the configured baselines that a live set never had (one that failed waits for
    /// an operator).
    pub(crate) async fn queue_baselines(&self) {
        let plan = &self.config.baselines;
        if plan.is_empty() {
            return;
        }
        let missing = match baselines::missing(&self.pool, &plan.names()).await {
            Ok(missing) => missing,
            Err(e) => return tracing::warn!(error = %e, "looking for missing baselines failed"),
        };
        // By set, in the order the query gives (sets together).
        let mut by_set: Vec<(String, Vec<String>)> = Vec::new();
        for (set, name) in missing {
            match by_set.last_mut() {
                Some((last, names)) if *last == set => names.push(name),
                _ => by_set.push((set, vec![name])),
            }
        }
        let keyring = self.config.keyring.as_deref();
        for (set, names) in by_set {
            let set = set.as_str();
            match queue_names(&self.pool, keyring, set, plan, names).await {
                Ok(queued) if !queued.is_empty() => {
                    let names: Vec<&str> = queued.iter().map(|(a, _)| a.as_str()).collect();
                    tracing::info!(set, baselines = %names.join(", "), "queued the baselines");
                    self.wake.notify_waiters();
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(set, error = %e, "queueing the baselines failed"),
            }
        }
    }

    /// The agent a baseline's submission names.
    pub(crate) fn baseline_agent(
        &self,
        target: submissions::Target,
    ) -> Result<BaselineAgent, String> {
        let name = target.baseline.ok_or("the baseline names no agent")?;
        Ok(BaselineAgent {
            kind: name.parse()?,
            label: target.vendor,
            signing_secret: target.signing_secret,
        })
    }

    /// One run of `task` by a baseline, served on loopback for the run alone.
    pub(crate) async fn run_baseline(
        &self,
        task: Arc<Task>,
        set: &str,
        agent: BaselineAgent,
    ) -> Result<RunResult, String> {
        let app = mcpbench_agents::router(
            agent.kind,
            std::slice::from_ref(&task),
            &agent.signing_secret,
        );
        let own = OwnAgent {
            app,
            label: agent.label,
            signing_secret: agent.signing_secret,
        };
        self.run_own_agent(task, set, own).await
    }
}
