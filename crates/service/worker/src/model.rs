//! Runs of the standard track: our own `llm` agent, served on loopback for one run, driving the
//! vendor's model. The agent's calls to the model go through the worker's egress policy (the
//! base URL's text is checked before every run, every name it resolves is checked as it
//! connects); its MCP calls go to this worker's gateway on loopback.

use crate::Worker;
use mcpbench_agents::{LlmConfig, Prices};
use mcpbench_db::submissions::{Target, model_key_place};
use mcpbench_egress::check_url;
use mcpbench_runner::{AgentTarget, RunResult};
use mcpbench_tasks::Task;
use mcpbench_vault::Sealed;
use std::sync::Arc;

/// A model to drive, with what the agent needs to take the runner's requests.
pub(crate) struct ModelAgent {
    config: LlmConfig,
    label: String,
    signing_secret: Vec<u8>,
}

impl Worker {
    /// The standard track's agent for `target`: its URL checked, its key opened. The errors
    /// are ours or the submission's to fix, and name neither the key nor the task.
    pub(crate) fn model_agent(&self, target: Target) -> Result<ModelAgent, String> {
        Ok(ModelAgent {
            config: self.open_model(&target)?,
            label: target.vendor,
            signing_secret: target.signing_secret,
        })
    }

    /// The model `target` names (on the standard track, or called by an image): its URL
    /// checked against the egress policy, its key opened, its prices.
    pub(crate) fn open_model(&self, target: &Target) -> Result<LlmConfig, String> {
        let (Some(base_url), Some(model)) = (&target.model_base_url, &target.model_id) else {
            return Err("the submission has no model endpoint".into());
        };
        check_url(base_url, &self.config.egress)
            .map_err(|refusal| format!("the model's URL is refused: {refusal}"))?;
        let api_key = match (&target.model_key_id, &target.model_key) {
            (Some(key_id), Some(bytes)) => {
                let Some(keyring) = self.config.keyring.as_deref() else {
                    tracing::error!(
                        "a worker without the keyring (MCPBENCH_TASK_KEYS) took a job with a \
                         model key; it cannot open it"
                    );
                    return Err(
                        "a worker without the keys to open the model's key took the \
                                run; the operators have been told"
                            .into(),
                    );
                };
                let place = model_key_place(target.vendor_id, base_url);
                let sealed = Sealed {
                    key_id: key_id.clone(),
                    bytes: bytes.clone(),
                };
                let opened = keyring.open(&place, &sealed).map_err(|e| {
                    tracing::error!(error = %e, "a model key does not open");
                    "the model's key could not be opened on our side".to_string()
                })?;
                Some(String::from_utf8(opened).map_err(|_| "the model's key is damaged")?)
            }
            _ => None,
        };
        // The deployment's table first: the standard track's cost is the service's own
        // measure, priced alike for every entry; the submission's stated prices otherwise.
        let prices = match self.config.prices.get(model) {
            Some(p) => Some(Prices {
                input_per_mtok: p.input_per_mtok,
                output_per_mtok: p.output_per_mtok,
            }),
            None => target.price_input.zip(target.price_output).map(
                |(input_per_mtok, output_per_mtok)| Prices {
                    input_per_mtok,
                    output_per_mtok,
                },
            ),
        };
        Ok(LlmConfig {
            base_url: base_url.clone(),
            model: model.clone(),
            api_key,
            prices,
        })
    }

    /// One run of `task` with the model's agent, served on loopback for the run alone.
    pub(crate) async fn run_model(
        &self,
        task: Arc<Task>,
        set: &str,
        agent: ModelAgent,
    ) -> Result<RunResult, String> {
        let app = mcpbench_agents::llm_router_with(
            agent.config,
            self.model_http.clone(),
            &agent.signing_secret,
        );
        let own = OwnAgent {
            app,
            label: agent.label,
            signing_secret: agent.signing_secret,
        };
        self.run_own_agent(task, set, own).await
    }

    /// One run of `task` with one of our own agents (the standard track's, a baseline),
    /// served on loopback for the run alone.
    pub(crate) async fn run_own_agent(
        &self,
        task: Arc<Task>,
        set: &str,
        agent: OwnAgent,
    ) -> Result<RunResult, String> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("could not start our agent: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("could not start our agent: {e}"))?;
        let app = agent.app;
        let server = AbortOnDrop(tokio::spawn(async move {
            if let Err(e) = mcpbench_agents::serve(listener, app).await {
                tracing::warn!(error = %e, "our agent's server stopped");
            }
        }));
        // Our own agent on loopback: the runner reaches it without the egress policy (as a
        // sandbox's forward), and it reaches the gateway on loopback.
        let target = AgentTarget {
            label: agent.label,
            url: format!("http://{addr}/"),
            signing_secret: agent.signing_secret,
            sandbox_gateway: Some(self.local_gateway.clone()),
        };
        let result = self.runner.run_in_set(task, &target, set).await;
        drop(server);
        Ok(result)
    }
}

/// One of our own agents for one run: its routes, and who it runs for.
pub(crate) struct OwnAgent {
    pub app: axum::Router,
    pub label: String,
    pub signing_secret: Vec<u8>,
}

/// Stops a server of one run (our agent, an image's model relay) when the run ends, or when
/// the job is dropped mid-run.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
