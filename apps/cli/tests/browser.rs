//! The website in a real browser, as a newcomer meets it: `mcpbench up` with its reference
//! agents, a vendor who signs in on the command line and submits an oracle and a null agent,
//! an operator who takes a private month live, runs it, retires and rotates it; then headless
//! Chromium (Debian's `chromium`, driven by Python Playwright) loads every page and checks what
//! a person would: the ranking, a filter, the history, a submission's failures and charts, a
//! trace, the sets and their verification, the task browser. Screenshots are kept as CI
//! artifacts in `$MCPBENCH_ARTIFACTS/screenshots` (default `target/artifacts`).
//!
//! Needs `MCPBENCH_PLAYWRIGHT_PYTHON` (a Python with `playwright`) and `MCPBENCH_CHROMIUM`;
//! `scripts/test` prepares both.

mod support;

use mcpbench_agents::AgentKind;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{Up, mcpbench, repo, serve_agent, text, up};

/// `mcpbench submit ... --watch` to the end; the submission's id.
async fn submit(config: &Path, name: &str, model: &str, agent: &str, set: &str) -> String {
    let args: Vec<String> = [
        "submit",
        "--name",
        name,
        "--model",
        model,
        "--endpoint",
        agent,
        "--set",
        set,
        "--watch",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let config = config.to_path_buf();
    let o = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mcpbench(&config, &args, None)
    })
    .await
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.contains("/web/submissions/"),
        "submit links its page: {out}"
    );
    out.split_whitespace().nth(1).unwrap().to_string()
}

/// `mcpbench admin set <args>` against `up`'s database with its keys.
fn admin_set(up: &Up, args: &[&str]) {
    let key = |name: &str| std::fs::read_to_string(up.dir.join("keys").join(name)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(["admin", "set"])
        .args(args)
        .env("DATABASE_URL", &up.database_url)
        .env("MCPBENCH_TASK_KEYS", key("task-keys").trim())
        .env("MCPBENCH_SIGNING_KEY", key("signing-key").trim())
        .output()
        .unwrap();
    assert!(o.status.success(), "admin set {args:?}: {}", text(&o));
}

/// Waits until the board of `set` lists `n` entries (the reference agents run in the background).
async fn board_with(url: &str, set: &str, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let board: Value = reqwest::get(format!("{url}/leaderboard?set={set}"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if board["entries"].as_array().map_or(0, Vec::len) >= n {
            return;
        }
        assert!(Instant::now() < deadline, "the board of {set}: {board}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_browses_the_board_follows_a_submission_to_its_trace_and_checks_the_sets() {
    let python = std::env::var("MCPBENCH_PLAYWRIGHT_PYTHON")
        .expect("MCPBENCH_PLAYWRIGHT_PYTHON: a Python with playwright (scripts/test makes one)");
    let chromium = std::env::var("MCPBENCH_CHROMIUM")
        .expect("MCPBENCH_CHROMIUM: the Chromium executable (Debian's chromium package)");
    let artifacts = std::env::var("MCPBENCH_ARTIFACTS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| repo().join("target/artifacts"));
    let data = tempfile::tempdir().unwrap();
    let (up, tasks) = up(data.path(), 6, true).await;
    let config = data.path().join("config");

    // The vendor signs in on the command line and submits on the dev set.
    let o = mcpbench(
        &config,
        &["login", "--server", &up.url],
        Some(&format!("{}\n", up.demo_key)),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let oracle = serve_agent(AgentKind::Oracle, &tasks).await;
    let null = serve_agent(AgentKind::Null, &tasks).await;
    let solved = submit(&config, "cli-oracle", "oracle-1", &oracle, "dev").await;
    let failed = submit(&config, "cli-null", "null-1", &null, "dev").await;
    let o = mcpbench(&config, &["publish", &solved], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The five reference agents and both submissions.
    board_with(&up.url, "dev", 7).await;

    // A private month from the same tasks: live, run by both agents, retired and revealed;
    // rotated into the next month, where fresh tasks the oracle has never seen replace some.
    let month_dir = data.path().join("month");
    std::fs::create_dir_all(&month_dir).unwrap();
    for t in &tasks {
        let file = month_dir.join(format!("{}.json", t.id));
        std::fs::write(file, serde_json::to_string(t).unwrap()).unwrap();
    }
    admin_set(
        &up,
        &["create", "2026-10", "--from", month_dir.to_str().unwrap()],
    );
    admin_set(&up, &["activate", "2026-10"]);
    submit(&config, "october", "oracle-1", &oracle, "2026-10").await;
    submit(&config, "october", "null-1", &null, "2026-10").await;
    admin_set(
        &up,
        &["rotate", "2026-10", "--to", "2026-11", "--replace", "0.5"],
    );
    admin_set(&up, &["retire", "2026-10"]);
    admin_set(&up, &["activate", "2026-11"]);
    submit(&config, "november", "oracle-1", &oracle, "2026-11").await;

    let shots = artifacts.join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let script = repo().join("apps/cli/tests/browser/pages.py");
    let o = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(script)
            .env("MCPBENCH_URL", &up.url)
            .env("MCPBENCH_API_KEY", &up.demo_key)
            .env("MCPBENCH_SOLVED", &solved)
            .env("MCPBENCH_FAILED", &failed)
            .env("MCPBENCH_CHROMIUM", chromium)
            .env("MCPBENCH_SCREENSHOTS", &shots)
            .output()
            .map(|o| (o, up))
    })
    .await
    .unwrap()
    .unwrap();
    let (o, _up) = o;
    let out = text(&o);
    println!("{out}");
    assert!(o.status.success(), "the browser checks failed:\n{out}");
    assert!(out.contains("all pages checked"), "{out}");
}
