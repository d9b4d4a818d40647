//! The conditions a run is measured under, as this worker sets them (docs/metrics.md, "Run
//! conditions"): recorded with every run, so that a board can say when two entries were not
//! measured alike.

use crate::Worker;
use crate::sandboxed::Agent;
use mcpbench_gateway::trace::Line;
use mcpbench_scoring::{RunConditions, SandboxLimits};

/// The build that runs agents: the workspace's version, and the build's own name when it was
/// given one (`MCPBENCH_BUILD` at compile time, e.g. a commit).
pub fn harness() -> String {
    match option_env!("MCPBENCH_BUILD") {
        Some(build) if !build.is_empty() => {
            format!("mcpbench {} ({build})", env!("CARGO_PKG_VERSION"))
        }
        _ => format!("mcpbench {}", env!("CARGO_PKG_VERSION")),
    }
}

impl Worker {
    /// What this worker gives a run of `agent`; what the agent spoke is added from its trace.
    pub(crate) fn run_conditions(&self, agent: &Agent) -> RunConditions {
        let sandbox = match (agent, &self.docker) {
            (Agent::Docker(_), Some(docker)) => {
                let config = docker.sandbox.config();
                Some(SandboxLimits {
                    memory_mib: u64::try_from(config.limits.memory_bytes >> 20).unwrap_or(0),
                    cpus: config.limits.cpus,
                    runtime: config.runtime.clone().unwrap_or_else(|| "default".into()),
                    readiness_secs: config.readiness.as_secs(),
                })
            }
            _ => None,
        };
        RunConditions {
            harness: harness(),
            time_budget_secs: self.config.time_budget.as_secs(),
            max_requests: u32::try_from(mcpbench_gateway::MAX_EVENTS).unwrap_or(u32::MAX),
            mcp_offered: mcpbench_gateway::offered_revisions(),
            mcp_spoken: Vec::new(),
            sandbox,
        }
    }
}

/// The MCP revisions a run's agent spoke, from its trace's header.
pub(crate) fn spoken(trace: &[Line]) -> Vec<String> {
    trace
        .iter()
        .find_map(|line| match line {
            Line::Header(h) => Some(h.protocol_revisions.clone()),
            _ => None,
        })
        .unwrap_or_default()
}
