//! `cargo bench -p mcpbench-agents --bench flood`: what the largest thing an agent can send
//! costs the process that runs it, against an oracle run of the same task. Each agent runs the
//! same dev task three times against a harness process of its own (this bench started again
//! with `FLOOD_AGENT`), the agent itself served from a third (`FLOOD_SERVE`), as a hosted agent
//! is, so that only the harness is measured: its peak resident memory and what it holds after
//! the runs (from `/proc/self/status`), and the most heap it held live and what is live after
//! the runs (its allocator counting what it hands out, sampled every millisecond: what mimalloc
//! keeps of freed memory is in the first two, not in these); the two agents alternate, and the
//! medians and their ratio are printed. The flooding agent, on every server of its run: 200 `initialize` requests with a
//! 100 KB client name (a session each, had the gateway no bound) and 200 calls of an unlisted
//! tool with 1 MB of arguments; then tool listings until the run's request cap. `FLOOD_RUNS=N` runs
//! the task N times per process instead, to see whether what a process holds grows with runs.
//! Prints; asserts nothing.

#[path = "../../runner/tests/common/mod.rs"]
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
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// The allocator of the binaries that run agents (`mcpbench`, `mcpbench-worker`), counting the
/// bytes it has handed out and not had back.
#[global_allocator]
static ALLOCATOR: cap::Cap<mimalloc::MiMalloc> = cap::Cap::new(mimalloc::MiMalloc, usize::MAX);

/// The most heap live at once, as [`sample`] sees it.
static PEAK_HEAP: AtomicUsize = AtomicUsize::new(0);

/// Reads the live heap every millisecond into [`PEAK_HEAP`].
fn sample() {
    std::thread::spawn(|| {
        loop {
            PEAK_HEAP.fetch_max(ALLOCATOR.allocated(), Relaxed);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Runs of the task in one process, unless `FLOOD_RUNS` says otherwise.
const RUNS: usize = 3;
/// Processes of each agent, alternating.
const ROUNDS: usize = 3;
const INITIALIZES: usize = 200;
const HUGE_CALLS: usize = 200;

fn main() {
    if let Ok(agent) = std::env::var("FLOOD_SERVE") {
        return serve(&agent);
    }
    match std::env::var("FLOOD_AGENT").ok().as_deref() {
        Some(agent) => one(agent),
        None => compare(),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Serves `agent` on loopback, prints `listening <url>`, and serves until stdin closes.
fn serve(agent: &str) {
    runtime().block_on(async {
        let app = match agent {
            "oracle" => mcpbench_agents::router(AgentKind::Oracle, &common::dev_tasks(), b""),
            _ => flood(),
        };
        println!("listening {}", common::serve(app).await);
        // The harness holds our stdin: its end is ours.
        let _ =
            tokio::task::spawn_blocking(|| std::io::Read::read(&mut std::io::stdin(), &mut [0]))
                .await;
    });
}

/// The agent's process (see [`serve`]) and its URL.
fn agent_process(agent: &str) -> (std::process::Child, String) {
    use std::io::BufRead;
    use std::process::Stdio;
    let exe = std::env::current_exe().expect("the bench's own path");
    let mut child = Command::new(exe)
        .env("FLOOD_SERVE", agent)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the agent's process starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("its stdout"))
        .read_line(&mut line)
        .expect("the agent says where it listens");
    let url = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the agent said {line:?}"))
        .to_string();
    (child, url)
}

/// Starts this bench once per agent and round; prints the medians side by side.
fn compare() {
    let exe = std::env::current_exe().expect("the bench's own path");
    let runs = runs();
    let mut figures: [Vec<Vec<u64>>; 2] = [Vec::new(), Vec::new()];
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
            let kib: Vec<u64> = line.split(' ').map(|n| n.parse().expect("KiB")).collect();
            figures[i].push(kib);
        }
    }
    let median = |v: &[Vec<u64>], pick: usize| {
        let mut xs: Vec<u64> = v.iter().map(|f| f[pick]).collect();
        xs.sort_unstable();
        xs[xs.len() / 2]
    };
    println!("{runs} runs of one dev task per process, median of {ROUNDS} processes each");
    for (pick, what) in [
        "peak resident",
        "resident after the runs",
        "most heap live",
        "heap live after the runs",
    ]
    .into_iter()
    .enumerate()
    {
        let (oracle, flood) = (median(&figures[0], pick), median(&figures[1], pick));
        println!(
            "{what:<26} oracle {:>7.1} MiB   flooding agent {:>7.1} MiB   ratio {:.2}",
            oracle as f64 / 1024.0,
            flood as f64 / 1024.0,
            flood as f64 / oracle as f64
        );
    }
}

/// Runs the task `runs()` times with `agent`, served from a process of its own; prints
/// `memory <peak KiB> <held KiB> <most heap KiB> <heap after KiB>` of this one.
fn one(agent: &str) {
    sample();
    let (mut child, url) = agent_process(agent);
    let rt = runtime();
    rt.block_on(async {
        let tasks = common::dev_tasks();
        // A task of three servers, so the flood meets every bound more than once.
        let task = tasks
            .iter()
            .find(|t| t.servers.len() >= 3)
            .unwrap_or(&tasks[0])
            .clone();
        let (_gateway, runner) = common::runner(Duration::from_secs(300)).await;
        let target = common::target(&url, b"");
        for _ in 0..runs() {
            let r = runner.run(task.clone(), &target).await;
            eprintln!("{agent}: {:?} {:?}", r.reason, r.counts);
        }
    });
    drop(rt);
    println!(
        "memory {} {} {} {}",
        status_kib("VmHWM:"),
        status_kib("VmRSS:"),
        PEAK_HEAP.load(Relaxed) / 1024,
        ALLOCATOR.allocated() / 1024
    );
    drop(child.stdin.take());
    let _ = child.wait();
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
