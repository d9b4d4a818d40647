//! The hosted API publishes the dev set it ships (`MCPBENCH_DEV_TASKS`) at start, under the id
//! its manifest names, and shows it when a request names no set; a set id that has results
//! never takes other tasks, so a changed dev set under an id with results stops the start with
//! a reason.

use mcpbench_testkit::loopback::free_port;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn dev_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tasks/dev")
}

fn spawn_api(database_url: &str, tasks: &Path, traces: &Path, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_mcpbench-api"))
        .env("DATABASE_URL", database_url)
        .env("MCPBENCH_DEV_TASKS", tasks)
        .env_remove("MCPBENCH_DEV_SET")
        .env("MCPBENCH_ADDR", format!("127.0.0.1:{port}"))
        .env("MCPBENCH_TRACES", traces)
        .env("MCPBENCH_JWT_SECRET", "x".repeat(40))
        .env("MCPBENCH_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the api binary starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_publishes_its_dev_set_under_the_manifests_id() {
    let url = mcpbench_testkit::database_url("api");
    let traces = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut api = spawn_api(&url, &dev_dir(), traces.path(), port);
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while http.get(format!("{base}/healthz")).send().await.is_err() {
        assert!(Instant::now() < deadline, "the API did not come up");
        assert!(api.try_wait().unwrap().is_none(), "the API exited early");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let get = |path: &str| {
        let request = http.get(format!("{base}{path}"));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let default = get("/tasks?limit=3").await;
    let named = get(&format!("/tasks?limit=3&set={}", mcpbench_tasks_id())).await;
    assert_eq!(default["tasks"].as_array().unwrap().len(), 3, "{default}");
    assert_eq!(default, named, "the dev set is the default set");
    api.kill().unwrap();
    api.wait().unwrap();

    // A directory without a manifest is version 1's `dev`: published beside, not over, it.
    let v1 = tempfile::tempdir().unwrap();
    let first = std::fs::read_dir(dev_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "manifest.json")
        .unwrap();
    std::fs::copy(&first, v1.path().join(first.file_name().unwrap())).unwrap();
    let port = free_port();
    let mut api = spawn_api(&url, v1.path(), traces.path(), port);
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while http.get(format!("{base}/healthz")).send().await.is_err() {
        assert!(Instant::now() < deadline, "the API did not come up");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let get = |path: &str| {
        let request = http.get(format!("{base}{path}"));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let old = get("/tasks?set=dev&limit=5").await;
    assert_eq!(old["tasks"].as_array().unwrap().len(), 1, "{old}");
    let still = get(&format!("/tasks?limit=3&set={}", mcpbench_tasks_id())).await;
    assert_eq!(still, named, "the dev-v2 set is untouched");
    api.kill().unwrap();
    api.wait().unwrap();

    // Once the set has a submission, a changed dev set under its id does not start the API.
    let pool = mcpbench_db::connect(&url, 2).await.unwrap();
    let (vendor, _) = mcpbench_db::vendors::create(&pool, "acme", false, false)
        .await
        .unwrap();
    let id = mcpbench_tasks_id();
    mcpbench_db::submissions::create(
        &pool,
        &mcpbench_db::submissions::NewSubmission {
            vendor_id: vendor.id,
            set_id: &id,
            name: "s",
            model: "m",
            agent: mcpbench_db::submissions::Agent::Endpoint("http://127.0.0.1:1/"),
            signing_secret: b"k",
            trials: 1,
            max_attempts: 1,
            monthly_quota: None,
            max_open: None,
            distractors: None,
            about: &Default::default(),
            webhook_url: None,
        },
    )
    .await
    .unwrap();
    let changed = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dev_dir()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, changed.path().join(path.file_name().unwrap())).unwrap();
    }
    let target = changed.path().join(first.file_name().unwrap());
    let mut task: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    task["goal"] = format!("{} Please.", task["goal"].as_str().unwrap()).into();
    std::fs::write(&target, serde_json::to_string_pretty(&task).unwrap()).unwrap();
    let refused = spawn_api(&url, changed.path(), traces.path(), free_port())
        .wait_with_output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(stderr.contains("new set id"), "{stderr}");
    assert!(
        !stderr.contains("Please."),
        "no task content in the reason: {stderr}"
    );
}

/// The dev set's id as its manifest names it.
fn mcpbench_tasks_id() -> String {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dev_dir().join("manifest.json")).unwrap())
            .unwrap();
    manifest["set"].as_str().unwrap().to_string()
}
