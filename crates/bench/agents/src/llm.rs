//! `llm`: the standard scaffold. It drives any OpenAI-compatible chat-completions endpoint with
//! tool calling: every tool of every server it is given becomes a function
//! (`<server>__<tool>`), the model's calls are made on the MCP sessions in order and their
//! results sent back, until the model answers in text. It keeps within the step budget (past
//! it, calls are answered with an error and the model is asked for its final text) and the
//! deadline (each model call is bounded by the time left), retries the model's transient
//! failures (429 after `Retry-After`, 5xx, timeouts, a malformed body), and tells the model
//! what was wrong with a malformed call (unknown tool, arguments that are not a JSON object)
//! instead of failing. The Python template's `llm_policy` behaves the same.

use crate::chat::{Chat, ChatError, Usage};
use crate::client::{Revision, Session, connect_all};
use mcpbench_runner::AgentRequest;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use crate::chat::LlmConfig;

const SYSTEM_PROMPT: &str = "You are an agent that completes the user's goal by calling the \
    provided tools. Call as few tools as needed. When done, reply with a short final answer.";
/// Kept back from the deadline to send the answer.
const DEADLINE_MARGIN: Duration = Duration::from_secs(3);
/// Model turns past the step budget: room for the final answer and a few refused calls.
const EXTRA_TURNS: u32 = 3;
/// A tool's result is cut to this many characters before the model sees it.
const MAX_RESULT_CHARS: usize = 20_000;

/// What a run of the scaffold gives: the answer and the tokens it spent.
pub(crate) struct Outcome {
    pub answer: String,
    pub usage: Usage,
}

/// The tools offered to the model, and the way back from a function name to the MCP tool.
struct Functions {
    specs: Vec<Value>,
    route: HashMap<String, (usize, String)>,
}

/// `<server>__<tool>` in the characters function names may use (`^[A-Za-z0-9_-]{1,64}$`),
/// made unique with a numeric suffix when two tools would collide.
fn function_name(server: &str, tool: &str, taken: &HashMap<String, (usize, String)>) -> String {
    let clean: String = format!("{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let mut name = clean.clone();
    let mut n = 2;
    while taken.contains_key(&name) {
        let suffix = format!("_{n}");
        let keep = 64 - suffix.len();
        name = format!("{}{suffix}", &clean[..clean.len().min(keep)]);
        n += 1;
    }
    name
}

async fn functions(sessions: &[(String, Session)]) -> Functions {
    let mut f = Functions {
        specs: Vec::new(),
        route: HashMap::new(),
    };
    for (i, (server, session)) in sessions.iter().enumerate() {
        for tool in session.tools().await.unwrap_or_default() {
            let name = function_name(server, &tool.name, &f.route);
            f.specs.push(json!({"type": "function", "function": {
                "name": name,
                "description": tool.description.as_deref().unwrap_or_default(),
                "parameters": Value::Object((*tool.input_schema).clone()),
            }}));
            f.route.insert(name, (i, tool.name.to_string()));
        }
    }
    f
}

/// When to stop: the request's deadline less the margin, as an instant of this clock.
fn stop_at(deadline: &str) -> Instant {
    let left = humantime::parse_rfc3339(deadline)
        .ok()
        .and_then(|d| d.duration_since(SystemTime::now()).ok())
        .unwrap_or_default();
    Instant::now() + left.saturating_sub(DEADLINE_MARGIN)
}

/// Runs the scaffold on one request.
pub(crate) async fn run(
    http: &reqwest::Client,
    revision: Revision,
    model_http: &reqwest::Client,
    config: &LlmConfig,
    request: &AgentRequest,
) -> Outcome {
    let stop = stop_at(&request.deadline);
    let sessions = connect_all(http, &request.mcp_servers, revision).await;
    let functions = functions(&sessions).await;
    let chat = Chat::new(model_http, config, stop);
    let mut state = Loop {
        messages: vec![
            json!({"role": "system", "content": SYSTEM_PROMPT}),
            json!({"role": "user", "content": request.goal}),
        ],
        steps: 0,
        usage: Usage::default(),
    };
    let answer = match tokio::time::timeout_at(
        stop.into(),
        state.drive(&chat, &sessions, &functions, request.max_steps),
    )
    .await
    {
        Ok(answer) => answer,
        Err(_) => format!("stopped at the deadline after {} steps", state.steps),
    };
    for (_, s) in sessions {
        s.close().await;
    }
    Outcome {
        answer,
        usage: state.usage,
    }
}

struct Loop {
    messages: Vec<Value>,
    steps: u32,
    usage: Usage,
}

impl Loop {
    async fn drive(
        &mut self,
        chat: &Chat<'_>,
        sessions: &[(String, Session)],
        functions: &Functions,
        max_steps: u32,
    ) -> String {
        for _ in 0..max_steps.saturating_add(EXTRA_TURNS) {
            let mut body = json!({"model": chat.model(), "messages": self.messages});
            if !functions.specs.is_empty() {
                // Once the budget is spent the model is asked for its final text only.
                let choice = if self.steps < max_steps {
                    "auto"
                } else {
                    "none"
                };
                body["tools"] = Value::Array(functions.specs.clone());
                body["tool_choice"] = json!(choice);
            }
            let message = match chat.complete(&body).await {
                Ok((message, usage)) => {
                    self.usage.add(usage);
                    message
                }
                Err(ChatError(why)) => {
                    return format!("model error after {} steps: {why}", self.steps);
                }
            };
            let calls: Vec<Value> = message
                .get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            self.messages.push(message.clone());
            if calls.is_empty() {
                return message
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
            }
            // Every call gets its tool message, in order, so the conversation stays valid.
            for call in &calls {
                let text = self.call(call, sessions, functions, max_steps).await;
                let id = call.get("id").cloned().unwrap_or(Value::Null);
                self.messages
                    .push(json!({"role": "tool", "tool_call_id": id, "content": text}));
            }
        }
        "stopped: model turn limit reached".into()
    }

    /// One tool call of the model: made when it is well formed and the budget allows, else
    /// the reason as the tool's answer.
    async fn call(
        &mut self,
        call: &Value,
        sessions: &[(String, Session)],
        functions: &Functions,
        max_steps: u32,
    ) -> String {
        let name = call["function"]["name"].as_str().unwrap_or_default();
        let Some((server, tool)) = functions.route.get(name) else {
            return format!("error: unknown tool {name:?}");
        };
        if self.steps >= max_steps {
            return "error: the step budget is spent; give your final answer".into();
        }
        // Arguments come as a JSON string; some servers send an object.
        let raw = &call["function"]["arguments"];
        let arguments = match raw {
            Value::String(s) if s.trim().is_empty() => json!({}),
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(v) => v,
                Err(e) => return format!("error: the arguments are not valid JSON: {e}"),
            },
            Value::Null => json!({}),
            other => other.clone(),
        };
        if !arguments.is_object() {
            return "error: the arguments must be a JSON object".into();
        }
        self.steps += 1;
        match sessions[*server].1.call(tool, &arguments).await {
            Ok(result) => result_text(&result),
            Err(e) => format!("error: {e}"),
        }
    }
}

/// A tool result as the model reads it: its text parts (structured content as JSON), marked
/// as an error when the tool said so, cut to [`MAX_RESULT_CHARS`].
fn result_text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap_or(Value::Null);
    let mut parts: Vec<String> = value["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str().map(String::from))
        .collect();
    if parts.is_empty()
        && let Some(structured) = value.get("structuredContent")
    {
        parts.push(structured.to_string());
    }
    let mut text = parts.join("\n");
    if result.is_error == Some(true) {
        text = format!("error: {text}");
    }
    if text.chars().count() > MAX_RESULT_CHARS {
        text = text.chars().take(MAX_RESULT_CHARS).collect::<String>() + " [cut]";
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_are_valid_and_unique() {
        let mut taken = HashMap::new();
        let a = function_name("shop", "refund.order", &taken);
        assert_eq!(a, "shop__refund_order");
        taken.insert(a, (0, String::new()));
        let b = function_name("shop", "refund/order", &taken);
        assert_eq!(b, "shop__refund_order_2");
        let long = function_name(&"s".repeat(40), &"t".repeat(40), &taken);
        assert_eq!(long.len(), 64);
        taken.insert(long.clone(), (0, String::new()));
        let again = function_name(&"s".repeat(40), &"t".repeat(40), &taken);
        assert_eq!(again.len(), 64);
        assert!(again.ends_with("_2") && again != long);
    }
}
