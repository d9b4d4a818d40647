//! Agents that misbehave get exactly the verdict and counts a reader would expect.

#[path = "../../runner/tests/common/mod.rs"]
mod common;

use axum::Json;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::routing::post;
use mcpbench_runner::{AgentRequest, Reason};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use std::time::Duration;

/// An agent that connects to the first server, makes `unlisted` calls of a tool that does not
/// exist, then `listed` calls of the first listed tool with no arguments.
fn scripted(unlisted: u32, listed: u32) -> axum::Router {
    axum::Router::new().route(
        "/",
        post(move |body: Bytes| async move {
            let request: AgentRequest = serde_json::from_slice(&body).unwrap();
            let client = common::connect(&request.mcp_servers[0]).await;
            for _ in 0..unlisted {
                let refused = client
                    .call_tool(CallToolRequestParams::new("teleport"))
                    .await;
                assert!(refused.is_err(), "an unlisted tool is a protocol error");
            }
            let tools = client.list_all_tools().await.unwrap();
            for _ in 0..listed {
                let _ = client
                    .call_tool(CallToolRequestParams::new(tools[0].name.to_string()))
                    .await;
            }
            let _ = client.cancel().await;
            Json(json!({ "answer": "done" }))
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlisted_tool_calls_are_counted_exactly() {
    let task = common::dev_task("fs-");
    let (_g, runner) = common::runner(Duration::from_secs(30)).await;
    let url = common::serve(scripted(2, 1)).await;
    let r = runner.run(task.clone(), &common::target(&url, b"")).await;
    assert_eq!(
        r.counts.tool_calls, 3,
        "every tools/call counts, listed or not"
    );
    assert_eq!(r.counts.hallucinated_calls, 2);
    assert!(r.counts.errors_observed >= 2);
    let replayed = mcpbench_analysis::analyze(&task, &r.trace).expect("a live run's trace replays");
    let analysis = mcpbench_runner::analysis(&task, &r).expect("a live run is analysed");
    assert_eq!(
        analysis, replayed,
        "the final state the gateway left and the replay of its trace agree"
    );
    let report =
        mcpbench_scoring::metrics(&[mcpbench_runner::outcome(&task, &r, Some(analysis.clone()))]);
    assert_eq!(report.hallucinated_tool_rate, Some(2.0 / 3.0));
    // The analysis of the live trace agrees: one call of three named a listed tool, and the
    // failed run is a tool-usage failure pointing at the first unlisted call.
    assert_eq!((analysis.calls.judged, analysis.calls.named), (3, 1));
    assert_eq!(report.process.tool_name_validity, Some(1.0 / 3.0));
    assert!(!r.passed, "two unlisted calls and one empty one do no task");
    let failure = analysis.failure.expect("a failed run has a group");
    assert_eq!(failure.group, mcpbench_scoring::FailureGroup::ToolUsage);
    assert!(
        failure
            .evidence
            .unwrap()
            .contains("is not a tool of this task")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_past_the_budget_fail_the_run() {
    let task = common::dev_task("fs-");
    let (_g, runner) = common::runner(Duration::from_secs(30)).await;
    let url = common::serve(scripted(0, task.max_steps + 2)).await;
    let r = runner.run(task.clone(), &common::target(&url, b"")).await;
    assert_eq!(r.reason, Reason::BudgetExceeded);
    assert!(r.counts.budget_exceeded);
    assert_eq!(
        r.counts.tool_calls,
        task.max_steps + 2,
        "calls past the budget still count"
    );
    let detail = r.detail.clone().unwrap();
    assert!(
        detail.contains(&format!("budget of {}", task.max_steps)),
        "{detail}"
    );
    // The analysis of the final state agrees with the replay of the trace past the budget.
    let replayed = mcpbench_analysis::analyze(&task, &r.trace).expect("a live run's trace replays");
    let analysis = mcpbench_runner::analysis(&task, &r).expect("a live run is analysed");
    assert_eq!(analysis, replayed);
    assert_eq!(
        analysis.calls.judged, task.max_steps,
        "the calls past it are not judged"
    );
}

async fn verdict_of(app: axum::Router, budget: Duration) -> (Reason, String) {
    let (_g, runner) = common::runner(budget).await;
    let url = common::serve(app).await;
    let r = runner
        .run(common::dev_task("fs-"), &common::target(&url, b""))
        .await;
    assert!(!r.passed);
    (r.reason, r.detail.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_replies_are_agent_errors_that_say_what_was_wrong() {
    let cases: Vec<(axum::Router, &str)> = vec![
        (
            axum::Router::new().route(
                "/",
                post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "boom") }),
            ),
            "HTTP 500",
        ),
        (
            axum::Router::new().route("/", post(|| async { "not json at all" })),
            "malformed reply",
        ),
        (
            axum::Router::new().route("/", post(|| async { Json(json!({ "answer": 5 })) })),
            "malformed reply",
        ),
        (
            axum::Router::new().route("/", post(|| async { Json(json!([1, 2])) })),
            "malformed reply",
        ),
        (
            // serde would read a struct from an array; the protocol asks for an object.
            axum::Router::new().route("/", post(|| async { Json(json!(["the answer"])) })),
            "not a JSON object",
        ),
        (
            axum::Router::new().route("/", post(|| async { "x".repeat(2 << 20) })),
            "larger than",
        ),
        (
            axum::Router::new().route("/elsewhere", post(|| async { "" })),
            "HTTP 404",
        ),
    ];
    for (app, expected) in cases {
        let (reason, detail) = verdict_of(app, Duration::from_secs(10)).await;
        assert_eq!(reason, Reason::AgentError, "{detail}");
        assert!(
            detail.contains(expected),
            "expected {expected:?} in {detail:?}"
        );
    }
}

/// The agent line of a run's trace.
fn agent_line(r: &mcpbench_runner::RunResult) -> mcpbench_gateway::trace::AgentExchange {
    r.trace
        .iter()
        .find_map(|l| match l {
            mcpbench_gateway::trace::Line::Agent(a) => Some(a.clone()),
            _ => None,
        })
        .expect("every run traces its exchange with the agent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_is_recorded_as_reported_and_a_broken_report_costs_the_run_nothing() {
    let (_g, runner) = common::runner(Duration::from_secs(10)).await;
    let answering = |usage: Value| {
        axum::Router::new().route(
            "/",
            post(move || {
                let usage = usage.clone();
                async move { Json(json!({ "answer": "done", "usage": usage })) }
            }),
        )
    };
    let run = |app: axum::Router| {
        let runner = runner.clone();
        async move {
            let url = common::serve(app).await;
            runner
                .run(common::dev_task("fs-"), &common::target(&url, b""))
                .await
        }
    };

    let reported = run(answering(
        json!({"input_tokens": 1500, "output_tokens": 300, "cost_usd": 0.0123}),
    ))
    .await;
    assert_eq!(reported.reason, Reason::PredicateFalse);
    let usage = reported.usage.expect("reported");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cost_usd),
        (Some(1500), Some(300), Some(0.0123))
    );
    assert_eq!(agent_line(&reported).usage, Some(usage));
    // The trace line round-trips with it.
    let line = serde_json::to_value(agent_line(&reported)).unwrap();
    assert_eq!(line["usage"]["cost_usd"], 0.0123);

    // A broken report: the verdict is the same as without one, the usage unknown, the trace
    // says why.
    for (bad, says) in [
        (json!({"cost_usd": -3}), "usage.cost_usd"),
        (json!({"input_tokens": "many"}), "usage.input_tokens"),
        (json!("free"), "not a JSON object"),
    ] {
        let r = run(answering(bad.clone())).await;
        assert_eq!(r.reason, Reason::PredicateFalse, "{bad}: {:?}", r.detail);
        assert_eq!(r.usage, None, "{bad}");
        let line = agent_line(&r);
        assert!(
            line.usage_error
                .as_deref()
                .is_some_and(|e| e.contains(says)),
            "{bad}: {:?}",
            line.usage_error
        );
    }

    // No report, and a failed exchange: unknown, not zero.
    let silent = run(answering(Value::Null)).await;
    assert_eq!(silent.usage, None);
    assert_eq!(agent_line(&silent).usage_error, None);
    let failed = run(axum::Router::new().route(
        "/",
        post(|| async {
            (
                StatusCode::BAD_GATEWAY,
                Json(json!({"usage": {"cost_usd": 1}})),
            )
        }),
    ))
    .await;
    assert_eq!(failed.reason, Reason::AgentError);
    assert_eq!(failed.usage, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_agent_times_out_and_an_absent_one_is_unreachable() {
    let slow = axum::Router::new().route(
        "/",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Json(json!({ "answer": null }))
        }),
    );
    let (reason, detail) = verdict_of(slow, Duration::from_millis(500)).await;
    assert_eq!(reason, Reason::Timeout, "{detail}");

    let (_g, runner) = common::runner(Duration::from_secs(5)).await;
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let r = runner
        .run(common::dev_task("fs-"), &common::target(&url, b""))
        .await;
    assert_eq!(r.reason, Reason::AgentError);
    assert!(r.detail.unwrap().contains("could not reach the agent"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_signed_so_agents_can_refuse_forgeries() {
    let tasks = common::dev_tasks();
    let (_g, runner) = common::runner(Duration::from_secs(10)).await;
    let url = common::serve(mcpbench_agents::router(
        mcpbench_agents::AgentKind::Oracle,
        &tasks,
        b"right",
    ))
    .await;
    let good = runner
        .run(tasks[0].clone(), &common::target(&url, b"right"))
        .await;
    assert!(good.passed, "{:?}", good.detail);
    let forged = runner
        .run(tasks[0].clone(), &common::target(&url, b"wrong"))
        .await;
    assert_eq!(forged.reason, Reason::AgentError);
    assert!(forged.detail.unwrap().contains("HTTP 401"));
}

#[test]
fn trace_lines_round_trip() {
    let line: Value = json!({"type": "result", "passed": true, "reason": "passed", "tool_calls": 1,
        "hallucinated_calls": 0, "invalid_calls": 0, "errors_observed": 0, "budget_exceeded": false, "duration_ms": 3});
    let parsed: mcpbench_gateway::trace::Line = serde_json::from_value(line.clone()).unwrap();
    assert_eq!(serde_json::to_value(parsed).unwrap(), line);
}

/// A reference agent checks what the harness signs: a request it took is refused when sent
/// again, as is one signed too long ago, one with the first version's header alone, and one
/// whose id is not its run's; the runner's own requests pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reference_agent_refuses_replayed_stale_and_unbound_requests() {
    let task = common::dev_task("fs-");
    let secret = b"reference-secret";
    let app = mcpbench_agents::router(
        mcpbench_agents::AgentKind::Null,
        std::slice::from_ref(&task),
        secret,
    );
    let url = common::serve(app).await;
    let (_g, runner) = common::runner(Duration::from_secs(30)).await;
    let r = runner
        .run(task.clone(), &common::target(&url, secret))
        .await;
    assert_ne!(
        r.reason,
        Reason::AgentError,
        "the runner's request is taken: {r:?}"
    );

    let body = serde_json::to_vec(&json!({
        "protocol": "mcpbench/1", "run_id": "run_000000000000000000000001", "goal": "g",
        "max_steps": 1, "deadline": "2999-01-01T00:00:00Z", "mcp_servers": []
    }))
    .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let http = reqwest::Client::new();
    let send = |signed: mcpbench_runner::Signed, only_legacy: bool| {
        let mut post = http.post(&url).header("content-type", "application/json");
        for (name, value) in signed.headers() {
            if !only_legacy || name == mcpbench_runner::LEGACY_HEADER {
                post = post.header(name, value);
            }
        }
        let body = body.clone();
        async move {
            let r = post.body(body).send().await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    let sign = |id: &str, at: i64| mcpbench_runner::sign_request(secret, id, at, &body);
    let fresh = sign("run_000000000000000000000001", now);
    let (status, text) = send(fresh.clone(), false).await;
    assert_ne!(status, 401, "a fresh request is taken: {text}");
    let (status, text) = send(fresh, false).await;
    assert_eq!((status, text.contains("replay")), (401, true), "{text}");
    let stale = sign(
        "run_000000000000000000000002",
        now - mcpbench_runner::TOLERANCE_SECS - 5,
    );
    let (status, text) = send(stale, false).await;
    assert_eq!((status, text.contains("stale")), (401, true), "{text}");
    let (status, text) = send(sign("run_000000000000000000000003", now), true).await;
    assert_eq!((status, text.contains("webhook-id")), (401, true), "{text}");
    let (status, text) = send(sign("run_000000000000000000000004", now), false).await;
    assert_eq!((status, text.contains("run_id")), (401, true), "{text}");
}

/// The paced oracle of the load bench speaks either MCP revision and passes in both: with
/// 2025-11-25 it opens sessions (`initialize`), with 2026-07-28 it only discovers, and the
/// trace says which it spoke.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paced_oracle_passes_in_either_revision() {
    use mcpbench_agents::Revision;
    use mcpbench_gateway::trace::Line;
    let tasks = common::dev_tasks();
    let task = tasks
        .iter()
        .find(|t| t.servers.len() > 1)
        .expect("a dev task needing two servers")
        .clone();
    let (_g, runner) = common::runner(Duration::from_secs(30)).await;
    let pace = Duration::from_millis(1)..Duration::from_millis(2);
    for (revision, spoken, opening) in [
        (Revision::Sessions, "2025-11-25", "initialize"),
        (Revision::Stateless, "2026-07-28", "server/discover"),
    ] {
        let app = mcpbench_agents::thinking_oracle(&tasks, b"s", pace.clone(), revision);
        let url = common::serve(app).await;
        let r = runner.run(task.clone(), &common::target(&url, b"s")).await;
        assert!(r.passed, "{spoken}: {:?}", r.detail);
        let Some(Line::Header(header)) = r.trace.first() else {
            panic!("a trace opens with its header");
        };
        assert_eq!(header.protocol_revisions, [spoken]);
        let openings: Vec<&str> = r
            .trace
            .iter()
            .filter_map(|l| match l {
                Line::Event(e) if e.tool.is_none() => Some(e.method.as_str()),
                _ => None,
            })
            .collect();
        let offered = header.servers.len() + header.distractor_servers.len();
        assert_eq!(
            openings,
            vec![opening; offered],
            "{spoken}: one opening per server offered and nothing else outside the calls"
        );
    }
}
