//! `mcpbench agent serve`: a reference agent on an address, for trying the protocol.

use anyhow::Context;
use clap::Subcommand;
use mcpbench_agents::{AgentKind, LlmConfig};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Subcommand)]
pub enum AgentCommand {
    /// Serve a reference agent over mcpbench/1.
    Serve {
        /// oracle, null, random, heuristic, script, or llm: the standard scaffold driving the model
        /// named by MCPBENCH_MODEL at OPENAI_BASE_URL (an OpenAI-compatible chat-completions
        /// API; OPENAI_API_KEY when it needs a key).
        #[arg(long, env = "MCPBENCH_AGENT_KIND")]
        kind: String,
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
        /// The tasks the oracle knows (it recognises a task by its goal).
        #[arg(long, default_value = "tasks/dev")]
        tasks: PathBuf,
        /// Refuse requests not signed with this secret.
        #[arg(
            long,
            env = "MCPBENCH_SIGNING_SECRET",
            hide_env_values = true,
            default_value = ""
        )]
        signing_secret: String,
    },
}

pub fn run(cmd: AgentCommand) -> anyhow::Result<ExitCode> {
    let AgentCommand::Serve {
        kind,
        addr,
        tasks,
        signing_secret,
    } = cmd;
    let app = if kind == "llm" {
        let config = LlmConfig::from_env().map_err(|e| anyhow::anyhow!("--kind llm: {e}"))?;
        eprintln!(
            "the llm agent drives {} at {}",
            config.model, config.base_url
        );
        mcpbench_agents::llm_router(config, signing_secret.as_bytes())
    } else {
        let kind: AgentKind = kind.parse().map_err(|e: String| {
            anyhow::anyhow!("{e}; or llm, the standard scaffold over a model")
        })?;
        reference(kind, &tasks, signing_secret.as_bytes())?
    };
    serve(&addr, &kind, app)
}

fn reference(
    kind: AgentKind,
    tasks: &std::path::Path,
    secret: &[u8],
) -> anyhow::Result<axum::Router> {
    let tasks: Vec<_> = if kind == AgentKind::Oracle {
        mcpbench_tasks::load_dir(tasks)
            .map_err(|e| anyhow::anyhow!("the oracle's tasks do not load: {}", e[0]))?
            .into_iter()
            .map(Arc::new)
            .collect()
    } else {
        Vec::new()
    };
    Ok(mcpbench_agents::router(kind, &tasks, secret))
}

fn serve(addr: &str, kind: &str, app: axum::Router) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        // A host name is resolved first; the first address it gives is bound, with the accept
        // queue of the service's own listeners (a harness may send a burst of runs at once).
        let resolved = tokio::net::lookup_host(addr)
            .await
            .with_context(|| format!("resolving {addr}"))?
            .next()
            .with_context(|| format!("{addr} resolves to no address"))?;
        let listener =
            mcpbench_config::bind(resolved).with_context(|| format!("binding {addr}"))?;
        eprintln!(
            "{kind} agent listening on http://{}/",
            listener.local_addr()?
        );
        mcpbench_agents::serve(listener, app)
            .await
            .context("serving")
    })?;
    Ok(ExitCode::SUCCESS)
}
