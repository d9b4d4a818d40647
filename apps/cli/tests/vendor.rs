//! The vendor command line against a running `mcpbench up`: login (refused with a wrong key,
//! kept with the right one), submit with --watch to completion, runs, publish, and the exit
//! statuses and sentences of what goes wrong.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Up {
    child: Child,
    url: String,
    demo_key: String,
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

/// `mcpbench up` on the first `n` dev tasks, without reference runs.
async fn up(data: &Path, n: usize) -> (Up, Vec<mcpbench_tasks::Task>) {
    let tasks_dir = data.join("tasks");
    std::fs::create_dir_all(&tasks_dir).unwrap();
    let mut tasks = mcpbench_tasks::load_dir(&repo().join("tasks/dev")).unwrap();
    tasks.truncate(n);
    for t in &tasks {
        std::fs::write(
            tasks_dir.join(format!("{}.json", t.id)),
            serde_json::to_string(t).unwrap(),
        )
        .unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args([
            "up",
            "--addr",
            "127.0.0.1:0",
            "--no-reference",
            "--data-dir",
        ])
        .arg(data.join("up"))
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
    };
    (up, tasks)
}

/// `mcpbench <args>` with its own config directory, optionally fed `stdin`.
fn mcpbench(config: &Path, args: &[&str], stdin: Option<&str>) -> Output {
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

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vendor_logs_in_submits_watches_lists_runs_and_publishes() {
    let data = tempfile::tempdir().unwrap();
    let (up, tasks) = up(data.path(), 4).await;
    let config = data.path().join("config");

    // Not logged in yet: the command cannot run, and says what to do.
    let o = mcpbench(
        &config,
        &["status", "00000000-0000-0000-0000-000000000000"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("mcpbench login"), "{}", text(&o));

    // A wrong key is refused by the API (exit 1) and nothing is kept.
    let o = mcpbench(
        &config,
        &["login", "--server", &up.url, "--api-key", "mcpb_wrong"],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!config.join("credentials.json").exists());
    // A server that is not there cannot be reached (exit 2).
    let o = mcpbench(
        &config,
        &["login", "--server", "http://127.0.0.1:9"],
        Some("k\n"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("cannot reach"), "{}", text(&o));

    // The right key, read from stdin, is kept for this user only.
    let o = mcpbench(
        &config,
        &["login", "--server", &format!("{}/", up.url)],
        Some(&format!("{}\n", up.demo_key)),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let creds = config.join("credentials.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&creds).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // The oracle, served here, solves every task; --watch follows it to its scores.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let agent = format!("http://{}/", listener.local_addr().unwrap());
    let known: Vec<Arc<_>> = tasks.into_iter().map(Arc::new).collect();
    let app = mcpbench_agents::router(mcpbench_agents::AgentKind::Oracle, &known, b"");
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    let config_dir = config.clone();
    let agent_url = agent.clone();
    let o = tokio::task::spawn_blocking(move || {
        mcpbench(
            &config_dir,
            &[
                "submit",
                "--name",
                "cli",
                "--model",
                "oracle-1",
                "--endpoint",
                &agent_url,
                "--watch",
            ],
            None,
        )
    })
    .await
    .unwrap();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("completed 4/4"), "{out}");
    assert!(out.contains("success rate 1.000"), "{out}");
    assert!(
        out.contains("[##############################] 4/4 completed"),
        "{out}"
    );
    let id = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();

    let o = mcpbench(&config, &["runs", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.contains("\tpass\t"))
        .count();
    assert_eq!(lines, 4, "{}", text(&o));
    let o = mcpbench(&config, &["runs", &id, "--failed"], None);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().count(),
        0,
        "{}",
        text(&o)
    );

    let o = mcpbench(&config, &["publish", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = mcpbench(&config, &["status", &id], None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("completed"), "{}", text(&o));

    // What goes wrong is said, with the API's words, and exits 1.
    let o = mcpbench(
        &config,
        &["status", "00000000-0000-0000-0000-000000000000"],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            "ftp://example.org/",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("422"), "{}", text(&o));
    // Usage errors are clap's (exit 2): no agent given, two agents given.
    let o = mcpbench(&config, &["submit", "--name", "x", "--model", "m"], None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = mcpbench(
        &config,
        &[
            "submit",
            "--name",
            "x",
            "--model",
            "m",
            "--endpoint",
            &agent,
            "--image",
            "a@sha256:00",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    drop(up);
}
