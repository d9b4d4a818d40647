//! The agents without a model over MCP, `heuristic` and `script`: each lists every server's
//! tools, then runs its solver ([`mcpbench_heuristic::solve`], [`mcpbench_script::Script`]) on
//! a blocking thread whose calls come back here, through a channel, to be made on the MCP
//! sessions.

use crate::client::Session;
use crate::client::{Revision, connect_all};
use mcpbench_heuristic::{ToolInfo, Tools, solve};
use mcpbench_runner::AgentRequest;
use mcpbench_script::Script;
use rmcp::model::CallToolResult;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

type Reply = oneshot::Sender<Result<Value, String>>;

/// The solver's side of the channel: each call is handed over and its result waited for.
struct Bridge(mpsc::Sender<(String, Value, Reply)>);

impl Tools for Bridge {
    fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, String> {
        let ended = || "the run has ended".to_string();
        let (reply, result) = oneshot::channel();
        self.0
            .blocking_send((tool.to_string(), arguments.clone(), reply))
            .map_err(|_| ended())?;
        result.blocking_recv().map_err(|_| ended())?
    }
}

/// Which solver plays.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Solver {
    Heuristic,
    Script,
}

pub(crate) async fn run(
    http: &reqwest::Client,
    revision: Revision,
    request: &AgentRequest,
    solver: Solver,
) -> Option<String> {
    let sessions = connect_all(http, &request.mcp_servers, revision).await;
    let mut tools = Vec::new();
    for (server, session) in &sessions {
        for t in session.tools().await.unwrap_or_default() {
            tools.push(ToolInfo {
                name: format!("{server}.{}", t.name),
                description: t.description.as_deref().unwrap_or_default().to_string(),
                input_schema: Value::Object((*t.input_schema).clone()),
            });
        }
    }
    let (calls, mut pending) = mpsc::channel(1);
    let goal = request.goal.clone();
    let budget = request.max_steps;
    let playing = tokio::task::spawn_blocking(move || {
        let mut bridge = Bridge(calls);
        match solver {
            Solver::Heuristic => solve(&goal, &tools, budget, &mut bridge),
            Solver::Script => Script::public().solve(&goal, &tools, budget, &mut bridge),
        }
    });
    // Ends when the solver is done and its side of the channel dropped.
    while let Some((tool, args, reply)) = pending.recv().await {
        let _ = reply.send(call(&sessions, &tool, &args).await);
    }
    let answer = playing.await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, ?solver, "the solver failed");
        None
    });
    for (_, s) in sessions {
        s.close().await;
    }
    answer
}

async fn call(sessions: &[(String, Session)], tool: &str, args: &Value) -> Result<Value, String> {
    let (server, name) = tool
        .split_once('.')
        .ok_or_else(|| format!("{tool} is not a qualified tool name"))?;
    let (_, session) = sessions
        .iter()
        .find(|(s, _)| s == server)
        .ok_or_else(|| format!("no session with {server}"))?;
    value_of(session.call(name, args).await?)
}

/// What a tool returned: its structured content, else its text (as JSON when it parses); an
/// error result is its text.
fn value_of(result: CallToolResult) -> Result<Value, String> {
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if result.is_error == Some(true) {
        return Err(text);
    }
    if let Some(v) = result.structured_content {
        return Ok(v);
    }
    Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
}
