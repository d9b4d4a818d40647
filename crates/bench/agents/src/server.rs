//! The `mcpbench/1` HTTP face shared by the reference agents.

use crate::chat::LlmConfig;
use crate::client::{Revision, connect_all};
use crate::heuristic::Solver;
use crate::random::value_for;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mcpbench_runner::{AgentRequest, McpServerRef, PROTOCOL, Verifier};
use mcpbench_sim::{Rng, Step};
use mcpbench_tasks::Task;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

/// Which reference agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentKind {
    Oracle,
    Null,
    Random,
    Heuristic,
    Script,
}

impl std::str::FromStr for AgentKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "oracle" => Ok(Self::Oracle),
            "null" => Ok(Self::Null),
            "random" => Ok(Self::Random),
            "heuristic" => Ok(Self::Heuristic),
            "script" => Ok(Self::Script),
            other => Err(format!(
                "unknown agent kind {other:?}; the kinds are oracle, null, random, heuristic, script"
            )),
        }
    }
}

/// What answers a request.
enum Policy {
    Reference(AgentKind),
    /// The standard scaffold over a chat-completions endpoint, with its own HTTP client (the
    /// model is not on loopback, and may be behind the machine's proxy).
    Llm(LlmConfig, reqwest::Client),
}

struct Agent {
    policy: Policy,
    /// The oracle's tasks, by goal.
    by_goal: HashMap<String, Arc<Task>>,
    /// Checks requests against the secret they must be signed with; `None` (an empty secret)
    /// takes any request.
    verifier: Option<Verifier>,
    http: reqwest::Client,
    /// Time the oracle waits before each call, drawn from this range: a model's think time,
    /// for load tests (`None`: none).
    think: Option<Range<Duration>>,
    /// The MCP revision it speaks to the gateway.
    revision: Revision,
}

/// The agent's routes: `POST /` takes `mcpbench/1` requests, `GET /healthz` says it is up.
pub fn router(kind: AgentKind, tasks: &[Arc<Task>], secret: &[u8]) -> Router {
    app(Policy::Reference(kind), tasks, secret)
}

/// The oracle as a model-backed agent would pace it: before each tool call it waits a time
/// drawn from `think` (a model thinking), for load tests of the harness; it speaks `revision`.
pub fn thinking_oracle(
    tasks: &[Arc<Task>],
    secret: &[u8],
    think: Range<Duration>,
    revision: Revision,
) -> Router {
    app_with(
        Policy::Reference(AgentKind::Oracle),
        tasks,
        secret,
        Some(think),
        revision,
    )
}

/// The `llm` agent's routes: the standard scaffold driving the model of `config`.
pub fn llm_router(config: LlmConfig, secret: &[u8]) -> Router {
    llm_router_with(config, reqwest::Client::new(), secret)
}

/// The same, calling the model with `model_http` (the service's, which connects only where
/// its egress policy permits).
pub fn llm_router_with(config: LlmConfig, model_http: reqwest::Client, secret: &[u8]) -> Router {
    app(Policy::Llm(config, model_http), &[], secret)
}

fn app(policy: Policy, tasks: &[Arc<Task>], secret: &[u8]) -> Router {
    app_with(policy, tasks, secret, None, Revision::default())
}

fn app_with(
    policy: Policy,
    tasks: &[Arc<Task>],
    secret: &[u8],
    think: Option<Range<Duration>>,
    revision: Revision,
) -> Router {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("the HTTP client builds");
    let by_goal = tasks.iter().map(|t| (t.goal.clone(), t.clone())).collect();
    let agent = Arc::new(Agent {
        policy,
        by_goal,
        verifier: (!secret.is_empty()).then(|| Verifier::new(secret)),
        http,
        think,
        revision,
    });
    Router::new()
        .route("/", post(handle))
        .route("/healthz", get(|| async { "ok" }))
        .with_state(agent)
}

/// Serves the agent on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    axum::serve(listener.tap_io(mcpbench_runner::no_delay), app).await
}

fn reply(status: StatusCode, body: Value) -> Response {
    (status, Json(body)).into_response()
}

async fn handle(State(agent): State<Arc<Agent>>, headers: HeaderMap, body: Bytes) -> Response {
    // Signature, freshness and first sight of the id, before anything is parsed.
    let signed_id = match &agent.verifier {
        None => None,
        Some(verifier) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            match verifier.check(&headers, &body, now) {
                Ok(id) => Some(id),
                Err(refusal) => {
                    return reply(
                        StatusCode::UNAUTHORIZED,
                        json!({ "error": refusal.to_string() }),
                    );
                }
            }
        }
    };
    let request: AgentRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return reply(
                StatusCode::BAD_REQUEST,
                json!({ "error": format!("not an mcpbench/1 request: {e}") }),
            );
        }
    };
    if signed_id.is_some_and(|id| id != request.run_id) {
        return reply(
            StatusCode::UNAUTHORIZED,
            json!({ "error": "webhook-id is not the request's run_id" }),
        );
    }
    if request.protocol != PROTOCOL {
        return reply(
            StatusCode::BAD_REQUEST,
            json!({ "error": format!("protocol {:?} is not {PROTOCOL}", request.protocol) }),
        );
    }
    let kind = match &agent.policy {
        Policy::Reference(kind) => *kind,
        Policy::Llm(config, model_http) => {
            let outcome =
                crate::llm::run(&agent.http, agent.revision, model_http, config, &request).await;
            let mut body = json!({ "answer": outcome.answer });
            if outcome.usage.reported {
                body["usage"] = json!({
                    "input_tokens": outcome.usage.input_tokens,
                    "output_tokens": outcome.usage.output_tokens,
                });
                if let Some(prices) = &config.prices {
                    body["usage"]["cost_usd"] = json!(prices.cost(&outcome.usage));
                }
            }
            return reply(StatusCode::OK, body);
        }
    };
    let answer = match kind {
        AgentKind::Null => None,
        AgentKind::Oracle => match agent.by_goal.get(&request.goal) {
            Some(task) => {
                let think = agent.think.clone();
                oracle(
                    &agent.http,
                    agent.revision,
                    task,
                    &request.mcp_servers,
                    think,
                )
                .await
            }
            None => {
                return reply(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    json!({ "error": "the oracle does not know this task" }),
                );
            }
        },
        AgentKind::Random => random(&agent.http, agent.revision, &request).await,
        AgentKind::Heuristic => {
            crate::heuristic::run(&agent.http, agent.revision, &request, Solver::Heuristic).await
        }
        AgentKind::Script => {
            crate::heuristic::run(&agent.http, agent.revision, &request, Solver::Script).await
        }
    };
    reply(StatusCode::OK, json!({ "answer": answer }))
}

/// Replays the first reference solution; a failing call does not stop it (recovery tasks
/// expect the retry that follows).
async fn oracle(
    http: &reqwest::Client,
    revision: Revision,
    task: &Task,
    servers: &[McpServerRef],
    think: Option<Range<Duration>>,
) -> Option<String> {
    let sessions = connect_all(http, servers, revision).await;
    let mut answer = None;
    for step in task.reference_solutions.first().into_iter().flatten() {
        match step {
            Step::Call(call) => {
                if let Some(think) = &think {
                    tokio::time::sleep(draw(think)).await;
                }
                let Some((server, tool)) = call.tool.split_once('.') else {
                    continue;
                };
                let Some((_, session)) = sessions.iter().find(|(name, _)| name == server) else {
                    continue;
                };
                if let Err(e) = session.call(tool, &call.arguments).await {
                    tracing::debug!(tool = %call.tool, error = %e, "reference call refused");
                }
            }
            Step::Answer { answer: a } => answer = Some(a.clone()),
        }
    }
    for (_, s) in sessions {
        s.close().await;
    }
    answer
}

async fn random(
    http: &reqwest::Client,
    revision: Revision,
    request: &AgentRequest,
) -> Option<String> {
    let seed = request.goal.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut rng = Rng::new(seed, 0);
    let sessions = connect_all(http, &request.mcp_servers, revision).await;
    let mut tools = Vec::new();
    for (i, (_, session)) in sessions.iter().enumerate() {
        for t in session.tools().await.unwrap_or_default() {
            tools.push((
                i,
                t.name.to_string(),
                Value::Object((*t.input_schema).clone()),
            ));
        }
    }
    let mut calls = 0;
    while calls < request.max_steps && !tools.is_empty() {
        let (i, name, schema) = rng.pick(&tools).clone();
        let args = value_for(&schema, &mut rng, 0);
        let _ = sessions[i].1.call(&name, &args).await;
        calls += 1;
    }
    for (_, s) in sessions {
        s.close().await;
    }
    Some(format!("made {calls} random calls"))
}

/// A time in `range`, uniformly; not reproducible, nor meant to be (a load test's pacing).
fn draw(range: &Range<Duration>) -> Duration {
    use std::hash::{BuildHasher, RandomState};
    let span = range.end.saturating_sub(range.start).as_micros() as u64;
    if span == 0 {
        return range.start;
    }
    let r = RandomState::new().hash_one(std::time::Instant::now()) % span;
    range.start + Duration::from_micros(r)
}
