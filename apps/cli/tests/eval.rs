//! `mcpbench eval` and `mcpbench agent serve` as a user runs them.

use std::process::{Child, Command, Output};
use std::time::Duration;

fn mcpbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(args)
        .output()
        .expect("run mcpbench")
}

/// A directory with the first `n` dev tasks of one server (no attacked twin, which would be
/// there without its task).
fn some_tasks(n: usize, prefix: &str) -> tempfile::TempDir {
    let dev = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks/dev");
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(dev)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files
        .iter()
        .filter(|f| {
            let name = f.file_name().unwrap().to_str().unwrap();
            name.starts_with(prefix) && !name.ends_with("-attacked.json")
        })
        .take(n)
    {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn eval_json_report_has_the_documented_fields_and_traces() {
    let tasks = some_tasks(6, "gh-");
    let out = tempfile::tempdir().unwrap();
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.path().to_str().unwrap(),
        "--agent",
        "oracle",
        "--json",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("--json prints only the report on stdout");
    for key in [
        "tasks",
        "passed",
        "success_rate",
        "success_ci95",
        "efficiency",
        "hallucinated_tool_rate",
        "recovery_rate",
        "by_server",
        "by_category",
        "by_difficulty",
        "runs",
    ] {
        assert!(report.get(key).is_some(), "report.{key} is missing");
    }
    assert_eq!(report["tasks"], 6);
    assert_eq!(report["passed"], 6);
    assert_eq!(report["success_ci95"].as_array().unwrap().len(), 2);
    for run in report["runs"].as_array().unwrap() {
        for key in [
            "task_id",
            "passed",
            "reason",
            "tool_calls",
            "hallucinated_calls",
        ] {
            assert!(run.get(key).is_some(), "runs[].{key} is missing");
        }
        let trace = out
            .path()
            .join("traces")
            .join(format!("{}.jsonl", run["task_id"].as_str().unwrap()));
        let text = std::fs::read_to_string(&trace).expect("one trace per run");
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["format"], "mcpbench-trace/1");
    }
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("[6/6]") && stderr.contains("success rate"),
        "plain progress lines and a summary: {stderr}"
    );
    assert!(out.path().join("report.json").exists());
}

struct Served(Child);
impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mcpbench agent serve --kind <kind>` on a free loopback port; its URL.
fn serve_agent(kind: &str) -> (Served, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let agent = Served(
        Command::new(env!("CARGO_BIN_EXE_mcpbench"))
            .args(["agent", "serve", "--kind", kind, "--addr", &addr])
            .spawn()
            .unwrap(),
    );
    let up = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        std::net::TcpStream::connect(&addr).is_ok()
    });
    assert!(up, "the agent listens");
    (agent, format!("http://{addr}/"))
}

#[test]
fn a_served_agent_is_evaluated_by_url() {
    let (_agent, url) = serve_agent("null");
    let tasks = some_tasks(3, "pg-");
    let out = tempfile::tempdir().unwrap();
    let o = mcpbench(&[
        "eval",
        "--tasks",
        tasks.path().to_str().unwrap(),
        "--agent",
        &url,
        "--json",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["passed"], 0, "the null agent passes nothing");
    assert!(
        report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["reason"] == "predicate_false")
    );
}

#[test]
fn the_heuristic_agent_is_served_and_named_like_the_others_and_passes_what_stats_counts() {
    let tasks = some_tasks(8, "fs-");
    let loaded = mcpbench_tasks::load_dir(tasks.path()).unwrap();
    let (_agent, url) = serve_agent("heuristic");
    for agent in [url.as_str(), "heuristic"] {
        let out = tempfile::tempdir().unwrap();
        let o = mcpbench(&[
            "eval",
            "--tasks",
            tasks.path().to_str().unwrap(),
            "--agent",
            agent,
            "--json",
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for run in report["runs"].as_array().unwrap() {
            let task = loaded.iter().find(|t| t.id == run["task_id"]).unwrap();
            assert_eq!(
                run["passed"],
                mcpbench_tasks::heuristic_passes(task),
                "{agent}: {run}"
            );
            assert_eq!(run["hallucinated_calls"], 0, "{run}");
        }
    }
}

#[test]
fn eval_refuses_what_it_cannot_run() {
    let o = mcpbench(&["eval", "--tasks", "/nowhere", "--agent", "oracle"]);
    assert_eq!(o.status.code(), Some(2));
    let o = mcpbench(&[
        "eval",
        "--tasks",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks/dev"),
        "--agent",
        "telepathy",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("oracle, null, random, heuristic"));
}

/// `--task` and `--filter` run part of a set, as the service's filters narrow it: the report
/// holds exactly the tasks asked for; a task id that is not in the set, or a filter nothing
/// matches, is an error that says so.
#[test]
fn eval_runs_the_tasks_and_the_filter_asked_for() {
    let tasks = some_tasks(30, "");
    let loaded = mcpbench_tasks::load_dir(tasks.path()).unwrap();
    let run = |extra: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let dir = tasks.path().to_str().unwrap();
        let o = mcpbench(
            &[
                &["eval", "--tasks", dir, "--agent", "oracle", "--json"],
                extra,
                &["--out", out.path().to_str().unwrap()],
            ]
            .concat(),
        );
        let ran: Option<Vec<String>> = o.status.success().then(|| {
            let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let runs = report["runs"].as_array().unwrap();
            runs.iter()
                .map(|r| r["task_id"].as_str().unwrap().to_string())
                .collect()
        });
        (ran, String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (a, b) = (&loaded[0].id, &loaded[7].id);
    let (ran, err) = run(&["--task", &format!("{a},{b}")]);
    let mut ran = ran.unwrap_or_else(|| panic!("{err}"));
    ran.sort();
    let mut asked = vec![a.clone(), b.clone()];
    asked.sort();
    assert_eq!(ran, asked);

    let server = loaded[0].servers[0].clone();
    let difficulty = loaded[0].difficulty;
    let expected: Vec<&str> = (loaded.iter())
        .filter(|t| t.servers.contains(&server) && t.difficulty == difficulty)
        .map(|t| t.id.as_str())
        .collect();
    assert!(expected.len() < loaded.len(), "the filter narrows the set");
    let filter = format!("server={server},difficulty={}", difficulty.as_str());
    let (ran, err) = run(&["--filter", &filter]);
    let mut ran = ran.unwrap_or_else(|| panic!("{err}"));
    ran.sort();
    let mut expected: Vec<String> = expected.into_iter().map(String::from).collect();
    expected.sort();
    assert_eq!(ran, expected);

    let (ran, err) = run(&["--task", "no-such-task"]);
    assert!(
        ran.is_none() && err.contains("there is no task \"no-such-task\""),
        "{err}"
    );
    let other = (mcpbench_tasks::Difficulty::ALL.into_iter())
        .find(|d| *d != loaded[0].difficulty)
        .unwrap();
    let filter = format!("difficulty={}", other.as_str());
    let (ran, err) = run(&["--task", a, "--filter", &filter]);
    assert!(
        ran.is_none() && err.contains("no task of the set matches"),
        "{err}"
    );
    let (ran, err) = run(&["--filter", "server=gitlab"]);
    assert!(
        ran.is_none() && err.contains("server must be one of"),
        "{err}"
    );
}

#[test]
fn eval_runs_each_task_its_trials_and_reports_pass_hat_k() {
    let tasks = some_tasks(30, "");
    let loaded = mcpbench_tasks::load_dir(tasks.path()).unwrap();
    let (a, b) = (&loaded[0].id, &loaded[7].id);
    let dir = tasks.path().to_str().unwrap();
    for (agent, rate) in [("oracle", 1.0), ("null", 0.0)] {
        let out = tempfile::tempdir().unwrap();
        let o = mcpbench(&[
            "eval",
            "--tasks",
            dir,
            "--agent",
            agent,
            "--json",
            "--trials",
            "3",
            "--task",
            &format!("{a},{b}"),
            "--out",
            out.path().to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let ran: Vec<&str> = (report["runs"].as_array().unwrap().iter())
            .map(|r| r["task_id"].as_str().unwrap())
            .collect();
        let mut expected = vec![a.as_str(); 3];
        expected.extend([b.as_str(); 3]);
        assert_eq!(ran, expected, "each task's trials together, in set order");
        assert_eq!(report["tasks"], 6);
        let repeated = &report["repeated"];
        assert_eq!(repeated["k_max"], 3, "{report}");
        assert_eq!(
            repeated["pass_hat_k"],
            serde_json::json!([rate, rate, rate])
        );
        assert_eq!(repeated["pass_at_k"], serde_json::json!([rate, rate, rate]));
        assert_eq!(repeated["by_task"][a]["trials"], 3, "{repeated}");
        assert!(err.contains("pass^k, k = 1..3"), "{err}");
        if agent == "oracle" {
            for id in [a, b] {
                for n in 1..=3 {
                    let trace = out.path().join(format!("traces/{id}.trial-{n}.jsonl"));
                    assert!(trace.exists(), "{}", trace.display());
                }
            }
        }
    }
    for bad in [
        &["--trials", "0"][..],
        &["--trials", "11"],
        &["--trials", "2", "--distractors", "0,5"],
    ] {
        let o = mcpbench(&[&["eval", "--tasks", dir, "--agent", "null"], bad].concat());
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
}
