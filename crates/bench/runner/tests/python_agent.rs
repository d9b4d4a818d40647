//! A real third-party MCP client against the gateway: the Python example agent, with the
//! official `mcp` SDK at both majors (1.x speaks 2025-11-25, 2.x speaks 2026-07-28). Its
//! calls must appear in the traces.
//!
//! The interpreters come from `MCPBENCH_PYTHON_MCP1` and `MCPBENCH_PYTHON_MCP2`, which
//! `./scripts/test` sets after preparing a virtualenv for each pinned SDK. Without them the
//! test says so and fails under CI; a developer's plain `cargo test` skips it.

mod common;

use mcpbench_gateway::trace::Line;
use mcpbench_runner::{EvalOptions, Reason, evaluate};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Agent(Child);

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the agent with its standard error in `log`.
async fn start_agent(python: &str, secret: &str, log: &Path) -> (Agent, String) {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/python-agent/agent.py");
    let child = Command::new(python)
        .arg(script)
        .args(["--port", &port.to_string()])
        .env("MCPBENCH_SIGNING_SECRET", secret)
        .env_remove("OPENAI_BASE_URL")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("start the Python agent");
    let agent = Agent(child);
    let url = format!("http://127.0.0.1:{port}/");
    for _ in 0..100 {
        if reqwest::get(format!("{url}healthz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return (agent, url);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the Python agent did not come up on port {port}");
}

async fn check_major(env: &str, revision: &str) {
    let Ok(python) = std::env::var(env) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{env} is not set: run ./scripts/test, which prepares it"
        );
        eprintln!("skipped: {env} is not set (./scripts/test prepares it)");
        return;
    };
    let secret = "python-agent-secret";
    let log = tempfile::NamedTempFile::new().unwrap();
    let (agent, url) = start_agent(&python, secret, log.path()).await;
    let tasks: Vec<_> = common::dev_tasks().into_iter().step_by(17).collect();
    let (_g, runner) = common::runner(Duration::from_secs(60)).await;
    let options = EvalOptions {
        concurrency: 2,
        retries: 0,
    };
    let (report, results) = evaluate(
        runner,
        tasks.clone(),
        common::target(&url, secret.as_bytes()),
        &options,
        |_, _, _| {},
    )
    .await;
    for ((r, entry), task) in results.iter().zip(&report.runs).zip(&tasks) {
        assert_ne!(
            entry.reason,
            Reason::AgentError,
            "{}: {:?}",
            entry.task_id,
            entry.detail
        );
        assert_ne!(entry.reason, Reason::Timeout, "{}", entry.task_id);
        let Some(Line::Header(header)) = r.trace.first() else {
            panic!("a trace starts with its header")
        };
        assert!(
            header.protocol_revisions.iter().any(|v| v == revision),
            "{}: revisions {:?}",
            r.task_id,
            header.protocol_revisions
        );
        let lists = r
            .trace
            .iter()
            .filter(|l| matches!(l, Line::Event(e) if e.method == "tools/list"))
            .count();
        assert!(
            lists >= 1,
            "{}: the agent's tools/list is in the trace",
            r.task_id
        );
        assert!(
            r.counts.tool_calls <= task.max_steps,
            "{}: the agent keeps to its budget",
            r.task_id
        );
    }
    let calls: u32 = results.iter().map(|r| r.counts.tool_calls).sum();
    assert!(
        calls > 0,
        "the survey policy made tool calls, and they were counted"
    );
    assert_eq!(report.scores.overall.hallucinated_calls, 0);
    drop(agent);
    // Every session it opened ended cleanly in the SDK's eyes (a 202 to its DELETE made it
    // warn "Session termination failed" at the end of every run).
    let stderr = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        !stderr.contains("Session termination failed"),
        "the SDK complained: {stderr}"
    );
    eprint!("{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_agent_with_mcp_1x_speaks_2025_11_25() {
    check_major("MCPBENCH_PYTHON_MCP1", "2025-11-25").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_agent_with_mcp_2x_speaks_2026_07_28() {
    check_major("MCPBENCH_PYTHON_MCP2", "2026-07-28").await;
}
