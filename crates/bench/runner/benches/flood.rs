//! `cargo bench -p mcpbench-runner --bench flood`: what the largest thing an agent can send
//! costs the process that runs it, against an oracle run of the same task. Each agent runs the
//! same dev task three times in a process of its own (this bench started again with
//! `FLOOD_AGENT`), and the process's peak resident memory and what it holds after the runs are
//! read from `/proc/self/status`; the two agents alternate, and the medians and their ratio are
//! printed. The flooding agent, on every server of its run: 200 `initialize` requests with a
//! 100 KB client name (a session each, had the gateway no bound) and 200 calls of an unlisted
//! tool with 1 MB of arguments; then tool listings until the run's request cap. `FLOOD_RUNS=N` runs
//! the task N times per process instead, to see whether what a process holds grows with runs.
//! Prints; asserts nothing.

#[path = "../tests/common/mod.rs"]
mod common;

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use mcpbench_agents::AgentKind;
use mcpbench_gateway::MAX_EVENTS;
use mcpbench_runner::{AgentRequest, McpServerRef};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

/// The allocator of the binaries that run agents (`mcpbench`, `mcpbench-worker`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs of the task in one process, unless `FLOOD_RUNS` says otherwise.
const RUNS: usize = 3;
/// Processes of each agent, alternating.
const ROUNDS: usize = 3;
const INITIALIZES: usize = 200;
const HUGE_CALLS: usize = 200;

fn main() {
    match std::env::var("FLOOD_AGENT").ok().as_deref() {
        Some(agent) => one(agent),
        None => compare(),
    }
}

/// Starts this bench once per agent and round; prints the medians side by side.
fn compare() {
    let exe = std::env::current_exe().expect("the bench's own path");
    let runs = runs();
    let mut figures: [Vec<(u64, u64)>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        for (i, agent) in ["oracle", "flood"].iter().enumerate() {
            let out = Command::new(&exe)
                .env("FLOOD_AGENT", agent)
                .output()
                .expect("the bench runs again");
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix("memory "))
                .unwrap_or_else(|| panic!("{agent} printed no figures: {text}"));
            let mut kib = line.split(' ').map(|n| n.parse::<u64>().expect("KiB"));
            figures[i].push((kib.next().expect("peak"), kib.next().expect("held")));
        }
    }
    let median = |v: &[(u64, u64)], pick: fn(&(u64, u64)) -> u64| {
        let mut xs: Vec<u64> = v.iter().map(pick).collect();
        xs.sort_unstable();
        xs[xs.len() / 2]
    };
    println!("{runs} runs of one dev task per process, median of {ROUNDS} processes each");
    for (what, pick) in [
        (
            "peak resident",
            (|f: &(u64, u64)| f.0) as fn(&(u64, u64)) -> u64,
        ),
        ("resident after the runs", |f| f.1),
    ] {
        let (oracle, flood) = (median(&figures[0], pick), median(&figures[1], pick));
        println!(
            "{what:<26} oracle {:>7.1} MiB   flooding agent {:>7.1} MiB   ratio {:.2}",
            oracle as f64 / 1024.0,
            flood as f64 / 1024.0,
            flood as f64 / oracle as f64
        );
    }
}

/// Runs the task `runs()` times with `agent`; prints `memory <peak KiB> <held KiB>`.
fn one(agent: &str) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let tasks = common::dev_tasks();
        // A task of three servers, so the flood meets every bound more than once.
        let task = tasks
            .iter()
            .find(|t| t.servers.len() >= 3)
            .unwrap_or(&tasks[0])
            .clone();
        let (_gateway, runner) = common::runner(Duration::from_secs(300)).await;
        let app = match agent {
            "oracle" => mcpbench_agents::router(AgentKind::Oracle, &tasks, b""),
            _ => flood(),
        };
        let target = common::target(&common::serve(app).await, b"");
        for _ in 0..runs() {
            let r = runner.run(task.clone(), &target).await;
            eprintln!("{agent}: {:?} {:?}", r.reason, r.counts);
        }
    });
    drop(rt);
    println!("memory {} {}", status_kib("VmHWM:"), status_kib("VmRSS:"));
}

fn runs() -> usize {
    std::env::var("FLOOD_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(RUNS)
}

/// A figure of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .expect("/proc/self/status")
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("the field is there")
}

/// The flooding agent (see the module's comment).
fn flood() -> axum::Router {
    axum::Router::new().route(
        "/",
        post(|body: Bytes| async move {
            let request: AgentRequest = serde_json::from_slice(&body).expect("mcpbench/1");
            let mut last = None;
            for server in &request.mcp_servers {
                last = Some(flood_server(server).await);
            }
            // Then listings on the last session until the run's request cap refuses them.
            if let Some(client) = last {
                for _ in 0..MAX_EVENTS {
                    if client.list_all_tools().await.is_err() {
                        break;
                    }
                }
                let _ = client.cancel().await;
            }
            Json(json!({ "answer": "done" }))
        }),
    )
}

/// Opens a session on `server` (first, so the initializes after it take the rest of the run's
/// sessions), sends the initializes and the calls of 1 MB, and hands the session back.
async fn flood_server(server: &McpServerRef) -> RunningService<RoleClient, ()> {
    let client = common::connect(server).await;
    let http = reqwest::Client::new();
    let mut hello = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "", "version": "1"}}});
    hello["params"]["clientInfo"]["name"] = json!("n".repeat(100_000));
    for _ in 0..INITIALIZES {
        let _ = http
            .post(&server.url)
            .header("authorization", &server.headers["Authorization"])
            .header("accept", "application/json, text/event-stream")
            .json(&hello)
            .send()
            .await;
    }
    let mut blob = JsonObject::new();
    blob.insert("blob".into(), Value::String("x".repeat(1_000_000)));
    for _ in 0..HUGE_CALLS {
        let call = CallToolRequestParams::new("teleport").with_arguments(blob.clone());
        let _ = client.call_tool(call).await;
    }
    client
}
