//! Shared by the command-line tests: a real `mcpbench up` in a temporary directory, and the
//! `mcpbench` binary run with its own configuration directory.
#![allow(dead_code)] // each test binary uses its own part

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub struct Up {
    child: Child,
    pub url: String,
    pub demo_key: String,
    /// `mcpbench up`'s data directory (its keys are in `keys/`).
    pub dir: PathBuf,
    pub database_url: String,
}

impl Drop for Up {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// `mcpbench up` on the first `n` dev tasks (the attacked twins aside: a twin without its
/// task is no pair), with the reference agents' runs or without.
pub async fn up(data: &Path, n: usize, reference: bool) -> (Up, Vec<mcpbench_tasks::Task>) {
    let tasks_dir = data.join("tasks");
    std::fs::create_dir_all(&tasks_dir).unwrap();
    let mut tasks = mcpbench_tasks::load_dir(&repo().join("tasks/dev")).unwrap();
    tasks.retain(|t| t.attack.is_none());
    tasks.truncate(n);
    for t in &tasks {
        std::fs::write(
            tasks_dir.join(format!("{}.json", t.id)),
            serde_json::to_string(t).unwrap(),
        )
        .unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(["up", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data.join("up"))
        .args(if reference {
            None
        } else {
            Some("--no-reference")
        })
        .arg("--tasks")
        .arg(&tasks_dir)
        .env_remove("DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let up_json = data.join("up/up.json");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !up_json.exists() {
        assert!(Instant::now() < deadline, "up.json was not written");
        assert!(
            child.try_wait().unwrap().is_none(),
            "mcpbench up exited early"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let info: Value = serde_json::from_str(&std::fs::read_to_string(&up_json).unwrap()).unwrap();
    let up = Up {
        child,
        url: info["url"].as_str().unwrap().into(),
        demo_key: info["demo_api_key"].as_str().unwrap().into(),
        dir: data.join("up"),
        database_url: info["database_url"].as_str().unwrap().into(),
    };
    (up, tasks)
}

/// `mcpbench <args>` with its own config directory, optionally fed `stdin`.
pub fn mcpbench(config: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(args)
        .env("MCPBENCH_CONFIG_DIR", config)
        .env_remove("MCPBENCH_API_KEY")
        .env_remove("MCPBENCH_SERVER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Serves a reference agent that knows `tasks` on a free loopback port; its URL.
pub async fn serve_agent(
    kind: mcpbench_agents::AgentKind,
    tasks: &[mcpbench_tasks::Task],
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let known: Vec<std::sync::Arc<_>> = tasks.iter().cloned().map(std::sync::Arc::new).collect();
    let app = mcpbench_agents::router(kind, &known, b"");
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    url
}
