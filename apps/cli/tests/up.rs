//! `mcpbench up`: starts PostgreSQL, the API and a worker, loads the dev set, ranks the
//! reference agents, writes up.json with a working demo key, and stops everything on Ctrl-C.

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn up_serves_the_dev_set_and_stops_everything_on_ctrl_c() {
    let data = tempfile::tempdir().unwrap();
    let (mut up, info) = start(data.path()).await;
    let url = info["url"].as_str().unwrap().to_owned();
    assert!(
        info["database_url"]
            .as_str()
            .unwrap()
            .starts_with("postgres://")
    );
    let http = reqwest::Client::new();

    // The demo key works.
    let r = http
        .post(format!("{url}/auth/token"))
        .json(&json!({"api_key": info["demo_api_key"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    // The dev set is browsable and the reference agents reach the leaderboard, marked.
    let get = |path: String| {
        let request = http.get(format!("{url}{path}"));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let tasks = get("/tasks?limit=5".into()).await;
    assert_eq!(tasks["tasks"].as_array().unwrap().len(), 5);
    let deadline = Instant::now() + Duration::from_secs(400);
    let board = loop {
        let board = get(format!("/leaderboard?set={}", mcpbench_tasks::DEV_SET)).await;
        if board["entries"].as_array().unwrap().len() == 5 {
            break board;
        }
        assert!(
            Instant::now() < deadline,
            "the reference agents did not finish: {board}"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    let entries = board["entries"].as_array().unwrap();
    assert!(entries.iter().all(|e| e["reference"] == true));
    // The dev set is published under the id its manifest names, the default set.
    let default = get("/leaderboard".into()).await;
    assert_eq!(default["entries"], board["entries"]);
    assert_eq!(entries[0]["name"], "oracle");
    assert_eq!(entries[0]["success_rate"], 1.0);
    // The heuristic agent passes some tasks, never all: a floor above the random one.
    let heuristic = entries.iter().find(|e| e["name"] == "heuristic").unwrap();
    let rate = heuristic["success_rate"].as_f64().unwrap();
    assert!(rate > 0.0 && rate < 1.0, "{heuristic}");
    // The script, which knows the public families, passes more of the public set than the
    // heuristic agent does.
    let script = entries.iter().find(|e| e["name"] == "script").unwrap();
    let script_rate = script["success_rate"].as_f64().unwrap();
    assert!(script_rate > rate && script_rate < 1.0, "{script}");

    // Ctrl-C stops the API, the worker and PostgreSQL.
    stop(&mut up).await;
    // A calm first run: a line per finished submission, a summary, no line per run.
    let log = std::fs::read_to_string(data.path().with_extension("stderr")).unwrap();
    assert!(!log.contains("run recorded"), "one line per run: {log}");
    assert_eq!(log.matches("submission finished").count(), 5, "{log}");
    let mut printed = String::new();
    std::io::Read::read_to_string(&mut up.stdout.take().unwrap(), &mut printed).unwrap();
    let summary = printed
        .lines()
        .find(|l| l.starts_with("the reference agents on "))
        .unwrap_or_else(|| panic!("no summary: {printed}"));
    assert!(
        summary.contains("oracle 1.000") && summary.contains("heuristic 0."),
        "{summary}"
    );
    assert!(
        !data.path().join("postgres/postmaster.pid").exists(),
        "PostgreSQL is still running"
    );
    assert!(http.get(format!("{url}/healthz")).send().await.is_err());

    // Started again on the same data: a new demo key, and the earlier one no longer works.
    let (mut again, second) = start(data.path()).await;
    let url = second["url"].as_str().unwrap().to_owned();
    assert_ne!(second["demo_api_key"], info["demo_api_key"]);
    for (key, status) in [(&info["demo_api_key"], 401), (&second["demo_api_key"], 200)] {
        let r = http
            .post(format!("{url}/auth/token"))
            .json(&json!({ "api_key": key }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), status);
    }
    // The README's curl quick start, as written, against this deployment.
    readme_quick_start(&url, data.path());
    stop(&mut again).await;
    // What it printed names the database without its password (up.json, 0600, has it).
    let mut printed = String::new();
    std::io::Read::read_to_string(&mut again.stdout.take().unwrap(), &mut printed).unwrap();
    let password = std::fs::read_to_string(data.path().join("postgres/mcpbench.password")).unwrap();
    assert!(printed.contains("database: postgres://"), "{printed}");
    assert!(
        !printed.contains(password.trim()),
        "the password was printed"
    );
    let _ = std::fs::remove_file(data.path().with_extension("stderr"));
}

/// Runs the README's curl quick start as written, with `url` in place of the address `up`
/// takes by default, from a folder where `mcpbench-data` is `data`. `cargo run ... --` stands
/// for the binary under test; every request's status is noted. Each answers 2xx (the board of
/// `set=dev` with entries, as JSON and as CSV; the result matrix's CSV), but the archive of a
/// month that has not retired, which is 404.
fn readme_quick_start(url: &str, data: &std::path::Path) {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let block = (readme.split("The same with curl:").nth(1))
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the README has its curl quick start");
    let block = block.replace("http://127.0.0.1:8080", url);
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(data, dir.path().join("mcpbench-data")).unwrap();
    let statuses = dir.path().join("statuses");
    let script = format!(
        "set -euo pipefail\n\
         trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n\
         cargo() {{ while [ \"$1\" != -- ]; do shift; done; shift; \"$MCPBENCH\" \"$@\"; }}\n\
         curl() {{ command curl --write-out '%{{stderr}}%{{http_code}} %{{url_effective}}\\n' \"$@\" 2>>\"$STATUSES\"; }}\n\
         {block}"
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("MCPBENCH", env!("CARGO_BIN_EXE_mcpbench"))
        .env("STATUSES", &statuses)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    let statuses = std::fs::read_to_string(&statuses).unwrap_or_default();
    assert!(
        out.status.success(),
        "{}\n{printed}\n{statuses}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answered: Vec<(&str, &str)> = (statuses.lines())
        .filter_map(|l| l.split_once(' '))
        .collect();
    assert_eq!(answered.len(), 6, "{statuses}");
    for (status, at) in &answered {
        let fine = match at.ends_with("/sets/2026-10/traces") {
            true => *status == "404",
            false => status.starts_with('2'),
        };
        assert!(fine, "{status} from {at}: {statuses}");
    }
    // What the block printed: the submission, then the board (JSON texts one after another).
    // `set=dev` is the current public set: the reference agents' board, not an empty one.
    let printed: Vec<Value> = serde_json::Deserializer::from_str(&printed)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}: {printed}"));
    let board = (printed.iter())
        .find(|v| v.get("entries").is_some())
        .unwrap_or_else(|| panic!("no board printed: {printed:?}"));
    assert_eq!(board["set"], mcpbench_tasks::DEV_SET);
    assert!(!board["entries"].as_array().unwrap().is_empty(), "{board}");
    // The board's CSV has the reference agents' rows; the result matrix has a row per task
    // and published submission (none yet here: reference agents' runs are not published, and
    // the new submission is still running), under its documented header.
    let board = std::fs::read_to_string(dir.path().join("board.csv")).unwrap();
    assert!(board.lines().count() > 1, "board.csv has no rows: {board}");
    let results = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    assert!(results.starts_with("task_id,server,category,"), "{results}");
}

/// Starts `mcpbench up` on `data` and waits for its up.json.
async fn start(data: &std::path::Path) -> (std::process::Child, Value) {
    let mut up = Command::new(env!("CARGO_BIN_EXE_mcpbench"))
        .args(["up", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .arg("--tasks")
        .arg(repo().join("tasks/dev"))
        .env_remove("DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(data.with_extension("stderr")).unwrap())
        .spawn()
        .unwrap();
    let up_json = data.join("up.json");
    let _ = std::fs::remove_file(&up_json);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !up_json.exists() {
        assert!(Instant::now() < deadline, "up.json was not written");
        assert!(up.try_wait().unwrap().is_none(), "mcpbench up exited early");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let info = serde_json::from_str(&std::fs::read_to_string(&up_json).unwrap()).unwrap();
    (up, info)
}

/// Ctrl-C, then waits for a clean exit.
async fn stop(up: &mut std::process::Child) {
    let pid = up.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = up.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "mcpbench up did not stop");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(status.success(), "{status}");
}
