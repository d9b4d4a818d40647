//! The runner: one agent through one task ([`Runner::run`]), and a whole set with scores
//! ([`evaluate`]), and the curve of accuracy against distractor count ([`point`], [`svg`]).
//!
//! One run: the gateway opens the task's endpoints; the agent gets the `mcpbench/1` request,
//! signed with HMAC-SHA256; the runner waits for its reply or the deadline; the endpoints
//! close; the predicate is evaluated on the final state and the answer. A failure is always
//! named: `predicate_false` (with the part of the predicate that failed), `budget_exceeded`,
//! `timeout`, `agent_error` (with the HTTP status or what was wrong with the reply) or
//! `harness_error` (ours, retried, never counted).

mod curve;
mod eval;
mod protocol;
mod run;
mod signature;

pub use curve::{Curve, CurvePoint, Rate, point, svg};
pub use eval::{
    EvalOptions, Report, RunEntry, RunFuture, analysis, analysis_with, evaluate, evaluate_each,
    outcome,
};
pub use protocol::{AgentReply, AgentRequest, McpServerRef, PROTOCOL};
pub use run::{AgentTarget, FinalState, Reason, RunResult, Runner, harness_error_result};
pub use signature::{
    ID_HEADER, LEGACY_HEADER, Refusal, SIGNATURE_HEADER, Signed, TIMESTAMP_HEADER, TOLERANCE_SECS,
    Verifier, sign, sign_request,
};

use axum::serve::ListenerExt;
use mcpbench_gateway::{Gateway, GatewayConfig};
use std::sync::Arc;

/// A gateway served over HTTP on a local port, for `eval` and tests.
pub struct LocalGateway {
    pub gateway: Arc<Gateway>,
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl LocalGateway {
    /// Binds `127.0.0.1:0` and serves the gateway there until dropped.
    pub async fn start(config: GatewayConfig) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let gateway = Gateway::new(config);
        let app = mcpbench_gateway::router(gateway.clone());
        let listener = listener.tap_io(no_delay);
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!(error = %e, "the gateway's server stopped");
            }
        });
        Ok(Self {
            gateway,
            base_url,
            task,
        })
    }
}

impl Drop for LocalGateway {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Sends small writes at once: without it, a request and its answer wait out the peer's
/// delayed ACK (about 40 ms a call on Linux).
pub fn no_delay(stream: &mut tokio::net::TcpStream) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
}
