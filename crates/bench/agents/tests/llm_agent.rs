//! The `llm` agent (the standard scaffold) against a scripted OpenAI-compatible server on
//! loopback that replays tool-calling conversations as models give them: parallel tool calls,
//! arguments that are not JSON, unknown tools, rate limits and server errors, a model that
//! never stops calling tools, one that answers too slowly, and one that refuses the key. Each
//! run goes through the real gateway and runner; no model is reachable from here.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use mcpbench_agents::{LlmConfig, Prices};
use mcpbench_runner::Reason;
use mcpbench_sim::Step;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the scripted model answers to its `n`-th request (from 0), having seen `body`.
type Script = dyn Fn(usize, &Value) -> Response + Send + Sync;
/// Every request's body and its `Authorization` header.
type Seen = Arc<Mutex<Vec<(Value, Option<String>)>>>;

#[derive(Clone)]
struct Model {
    script: Arc<Script>,
    seen: Seen,
    /// How long each answer takes.
    delay: Duration,
}

impl Model {
    fn requests(&self) -> Vec<Value> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|(b, _)| b.clone())
            .collect()
    }
}

async fn completions(State(m): State<Model>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).expect("the agent sends JSON");
    let auth = headers
        .get("authorization")
        .map(|v| v.to_str().unwrap().to_string());
    let n = {
        let mut seen = m.seen.lock().unwrap();
        seen.push((body.clone(), auth));
        seen.len() - 1
    };
    tokio::time::sleep(m.delay).await;
    (m.script)(n, &body)
}

/// Serves `script` as `/v1/chat/completions`; the model and the config that reaches it.
async fn model(
    script: impl Fn(usize, &Value) -> Response + Send + Sync + 'static,
) -> (Model, LlmConfig) {
    slow_model(Duration::ZERO, script).await
}

/// As [`model`], each answer taking `delay`.
async fn slow_model(
    delay: Duration,
    script: impl Fn(usize, &Value) -> Response + Send + Sync + 'static,
) -> (Model, LlmConfig) {
    let m = Model {
        script: Arc::new(script),
        seen: Arc::new(Mutex::new(Vec::new())),
        delay,
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(m.clone());
    let url = common::serve(app).await;
    let config = LlmConfig {
        base_url: format!("{url}v1"),
        model: "scripted-1".into(),
        api_key: Some("sk-test-do-not-print".into()),
        prices: None,
    };
    (m, config)
}

/// A completion holding `message`, with the usage a real endpoint reports.
fn completion(message: Value) -> Response {
    axum::Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "scripted-1",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    }))
    .into_response()
}

fn text(content: &str) -> Response {
    completion(json!({"role": "assistant", "content": content}))
}

fn calls(calls: Vec<(String, Value)>) -> Response {
    let tool_calls: Vec<Value> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, arguments))| {
            json!({"id": format!("call_{i}"), "type": "function",
                   "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    completion(json!({"role": "assistant", "content": null, "tool_calls": tool_calls}))
}

/// The tool messages of a request, by `tool_call_id`.
fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn run_llm(
    config: LlmConfig,
    task: &Arc<mcpbench_tasks::Task>,
    budget: Duration,
) -> mcpbench_runner::RunResult {
    let secret = b"llm-secret";
    let url = common::serve(mcpbench_agents::llm_router(config, secret)).await;
    let (_g, runner) = common::runner(budget).await;
    runner
        .run(task.clone(), &common::target(&url, secret))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_calls_the_reference_in_parallel_solves_the_task() {
    let task = common::dev_task("fs-");
    let reference = task.reference_solutions[0].clone();
    let answer = reference.iter().find_map(|s| match s {
        Step::Answer { answer } => Some(answer.clone()),
        Step::Call(_) => None,
    });
    let planned: Vec<(String, Value)> = reference
        .iter()
        .filter_map(Step::as_call)
        .map(|c| {
            (
                c.tool.replace('.', "__"),
                Value::String(c.arguments.to_string()),
            )
        })
        .collect();
    let n = planned.len();
    let (model, mut config) = model(move |i, _| match i {
        // Every call of the reference at once, as one message of parallel tool calls.
        0 => calls(planned.clone()),
        _ => text(answer.as_deref().unwrap_or("done")),
    })
    .await;
    config.prices = Some(Prices {
        input_per_mtok: 2.5,
        output_per_mtok: 10.0,
    });
    let r = run_llm(config, &task, Duration::from_secs(30)).await;
    assert!(r.passed, "{:?} {:?}", r.reason, r.detail);
    assert_eq!(r.counts.tool_calls as usize, n);
    // Two completions of 100 tokens in and 20 out, at $2.50 and $10 per million: the runner
    // read the reply's usage, and the trace's agent line carries it.
    let usage = r.usage.expect("the agent reported what the run used");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(200), Some(40))
    );
    let cost = usage.cost_usd.expect("priced");
    assert!((cost - 0.0009).abs() < 1e-12, "{cost}");
    let agent_line = r.trace.iter().find_map(|l| match l {
        mcpbench_gateway::trace::Line::Agent(a) => Some(a.clone()),
        _ => None,
    });
    assert_eq!(agent_line.and_then(|a| a.usage), Some(usage));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // The first request offered the task's servers' tools as functions, `auto`.
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(offered.iter().all(|f| f.contains("__")), "{offered:?}");
    assert_eq!(requests[0]["tool_choice"], "auto");
    assert_eq!(requests[0]["messages"][1]["content"], task.goal.as_str());
    // The second answered every call, in order, by its id.
    let answered: Vec<String> = tool_messages(&requests[1])
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let ids: Vec<String> = (0..n).map(|i| format!("call_{i}")).collect();
    assert_eq!(answered, ids);
    // The key went to the model as a bearer credential, and nowhere else.
    let auth = model.seen.lock().unwrap()[0].1.clone();
    assert_eq!(auth.as_deref(), Some("Bearer sk-test-do-not-print"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_calls_are_told_to_the_model_and_cost_no_step() {
    let task = common::dev_task("fs-");
    let (model, config) = model(|i, body| match i {
        0 => {
            let real = body["tools"][0]["function"]["name"]
                .as_str()
                .unwrap()
                .to_string();
            calls(vec![
                ("nope__teleport".into(), json!("{}")),
                (real.clone(), json!("{\"path\": ")),
                (real, json!("[1, 2]")),
            ])
        }
        _ => text("I could not do it."),
    })
    .await;
    let r = run_llm(config, &task, Duration::from_secs(30)).await;
    assert_eq!(r.reason, Reason::PredicateFalse, "{:?}", r.detail);
    assert_eq!(r.counts.tool_calls, 0, "no malformed call reached a server");
    assert_eq!(r.answer.as_deref(), Some("I could not do it."));
    let told = tool_messages(&model.requests()[1]);
    assert_eq!(told.len(), 3);
    assert!(
        told[0].1.contains("unknown tool \"nope__teleport\""),
        "{told:?}"
    );
    assert!(told[1].1.contains("not valid JSON"), "{told:?}");
    assert!(told[2].1.contains("must be a JSON object"), "{told:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_server_errors_and_broken_bodies_are_retried() {
    let task = common::dev_task("fs-");
    let (model, config) = model(|i, _| match i {
        0 => (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "1")],
            "slow down",
        )
            .into_response(),
        1 => (StatusCode::BAD_GATEWAY, "upstream").into_response(),
        2 => (StatusCode::OK, "{\"choices\": [").into_response(),
        3 => axum::Json(json!({"choices": []})).into_response(),
        _ => text("done after four failures"),
    })
    .await;
    let r = run_llm(config, &task, Duration::from_secs(40)).await;
    assert_eq!(
        r.answer.as_deref(),
        Some("done after four failures"),
        "{:?}",
        r.detail
    );
    assert_eq!(model.requests().len(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_never_stops_calling_tools_is_held_to_the_budget() {
    let task = common::dev_task("fs-");
    let max = task.max_steps;
    let (model, config) = model(|_, body| {
        let first = body["tools"][0]["function"]["name"]
            .as_str()
            .unwrap()
            .to_string();
        calls(vec![(first, json!("{}"))])
    })
    .await;
    let r = run_llm(config, &task, Duration::from_secs(60)).await;
    assert_ne!(r.reason, Reason::BudgetExceeded, "{:?}", r.detail);
    assert_eq!(r.counts.tool_calls, max, "every step spent, none more");
    assert_eq!(
        r.answer.as_deref(),
        Some("stopped: model turn limit reached")
    );
    let requests = model.requests();
    assert_eq!(requests.len() as u32, max + 3, "turns are bounded");
    assert_eq!(requests.last().unwrap()["tool_choice"], "none");
    let told = tool_messages(requests.last().unwrap());
    let last = &told.last().unwrap().1;
    assert!(last.contains("step budget is spent"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_model_is_cut_off_before_the_deadline_and_a_refused_key_is_not_printed() {
    let task = common::dev_task("fs-");
    // Each answer takes longer than the whole run may.
    let (_, config) = slow_model(Duration::from_secs(20), |_, _| text("too late")).await;
    let r = run_llm(config, &task, Duration::from_secs(6)).await;
    assert_ne!(
        r.reason,
        Reason::Timeout,
        "the agent answered in time: {:?}",
        r.detail
    );
    let answer = r.answer.unwrap_or_default();
    assert!(
        answer.contains("deadline") || answer.contains("timed out") || answer.contains("no time"),
        "{answer}"
    );

    let (model, config) = model(|_, _| {
        (
            StatusCode::UNAUTHORIZED,
            // As a provider may: the key echoed back, and the prompt quoted.
            "{\"error\": {\"message\": \"Incorrect API key provided: sk-test-do-not-print \
             for the prompt 'SECRET GOAL'\"}}",
        )
            .into_response()
    })
    .await;
    let r = run_llm(config, &task, Duration::from_secs(30)).await;
    let answer = r.answer.unwrap_or_default();
    assert!(
        answer.starts_with("model error after 0 steps: HTTP 401"),
        "{answer}"
    );
    assert!(
        !answer.contains("sk-test") && !answer.contains("SECRET GOAL"),
        "{answer}"
    );
    assert_eq!(
        model.requests().len(),
        1,
        "a refused key is not asked again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_keeps_failing_is_named_by_the_kind_of_failure_not_its_words() {
    let task = common::dev_task("fs-");
    let (model, config) = model(|_, _| {
        (
            StatusCode::BAD_GATEWAY,
            "upstream said: key sk-test-do-not-print, prompt 'SECRET GOAL'",
        )
            .into_response()
    })
    .await;
    let r = run_llm(config, &task, Duration::from_secs(30)).await;
    let answer = r.answer.unwrap_or_default();
    assert!(answer.contains("HTTP 502"), "{answer}");
    assert!(
        !answer.contains("sk-test") && !answer.contains("SECRET GOAL"),
        "{answer}"
    );
    assert!(model.requests().len() > 1, "a 502 is tried again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reply_carries_the_tokens_the_model_reported() {
    let (_, config) = model(|_, _| text("nothing to do")).await;
    let url = common::serve(mcpbench_agents::llm_router(config, b"")).await;
    let deadline =
        humantime::format_rfc3339_seconds(std::time::SystemTime::now() + Duration::from_secs(30))
            .to_string();
    let reply: Value = reqwest::Client::new()
        .post(&url)
        .json(
            &json!({"protocol": "mcpbench/1", "run_id": "run_1", "goal": "say hi",
                      "max_steps": 3, "deadline": deadline, "mcp_servers": []}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        reply,
        json!({"answer": "nothing to do", "usage": {"input_tokens": 100, "output_tokens": 20}})
    );
}
