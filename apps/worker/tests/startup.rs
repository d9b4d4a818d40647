//! What the worker binary says about itself as it starts: its probes (`/healthz`, `/readyz`,
//! which the deployments' health checks call), and its refusal of an agent runtime its Docker
//! engine lacks (`MCPBENCH_AGENT_RUNTIME`) rather than running images on the engine's default
//! runtime, a weaker sandbox than the operator asked for; its word when its open-file limit is
//! short of what its slots need; and its metrics of where each job's own time goes.

mod support;

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_runtime_the_engine_lacks_stops_the_worker_at_start_even_on_auto() {
    let s = support::setup("runtime", 1).await;
    let traces = tempfile::tempdir().unwrap();
    let sockets = tempfile::tempdir().unwrap();
    let mut command = support::worker_command(
        &s.url,
        traces.path(),
        &[
            ("MCPBENCH_DOCKER", "auto"),
            ("MCPBENCH_AGENT_RUNTIME", "mcpbench-no-such-runtime"),
            ("MCPBENCH_SANDBOX_DIR", sockets.path().to_str().unwrap()),
        ],
    );
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the worker was still running after 60 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("no runtime named \"mcpbench-no-such-runtime\"")
            && stderr.contains("MCPBENCH_AGENT_RUNTIME"),
        "{stderr}"
    );
}

async fn get(url: &str) -> Option<(u16, String)> {
    let response = reqwest::get(url).await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.text().await.ok()?))
}

/// Polls `url` until it answers, for at most 60 s.
async fn first_answer(url: &str) -> (u16, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(answer) = get(url).await {
            return answer;
        }
        assert!(Instant::now() < deadline, "{url} never answered");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A worker started with `env`: what its `/readyz` first answers, and its `/healthz` then.
async fn probes(url: &str, env: &[(&str, &str)]) -> ((u16, String), Option<(u16, String)>) {
    let traces = tempfile::tempdir().unwrap();
    let metrics = format!("127.0.0.1:{}", support::free_port());
    let mut all = vec![
        ("MCPBENCH_METRICS_ADDR", metrics.as_str()),
        ("MCPBENCH_DOCKER", "off"),
    ];
    all.extend_from_slice(env);
    let mut worker = support::spawn_worker(url, traces.path(), &all);
    let ready = first_answer(&format!("http://{metrics}/readyz")).await;
    let alive = get(&format!("http://{metrics}/healthz")).await;
    worker.kill().unwrap();
    worker.wait().unwrap();
    (ready, alive)
}

#[tokio::test]
async fn ready_when_the_database_and_the_trace_store_answer_and_only_then() {
    let s = support::setup("probes", 1).await;
    let (ready, alive) = probes(&s.url, &[]).await;
    assert_eq!(ready, (200, "ready".to_string()));
    assert_eq!(alive, Some((200, "ok".to_string())));

    // A trace store that does not answer (nothing listens on its port): alive, not ready.
    let closed = format!("http://127.0.0.1:{}", support::free_port());
    let (not_ready, alive) = probes(
        &s.url,
        &[
            ("MCPBENCH_TRACES", "s3://mcpbench-traces"),
            ("MCPBENCH_S3_ENDPOINT", &closed),
            ("MCPBENCH_S3_ACCESS_KEY", "test"),
            ("MCPBENCH_S3_SECRET_KEY", "test-secret"),
        ],
    )
    .await;
    assert_eq!(
        not_ready,
        (503, "the trace store does not answer".to_string())
    );
    assert_eq!(alive, Some((200, "ok".to_string())));
}

/// A worker whose open-file limit cannot hold its slots' sockets (a hard limit of 512 for 1,000
/// slots, as `prlimit` sets it here) says so as it starts, naming both figures, and runs on.
#[tokio::test]
async fn a_worker_says_when_its_open_file_limit_is_short_of_its_slots() {
    use std::io::BufRead;
    let s = support::setup("nofile", 1).await;
    let traces = tempfile::tempdir().unwrap();
    let worker = support::worker_command(
        &s.url,
        traces.path(),
        &[
            ("MCPBENCH_WORKER_CONCURRENCY", "1000"),
            ("MCPBENCH_DOCKER", "off"),
        ],
    );
    let mut command = std::process::Command::new("prlimit");
    command
        .arg("--nofile=512:512")
        .arg("--")
        .arg(worker.get_program());
    for (name, value) in worker.get_envs() {
        if let Some(value) = value {
            command.env(name, value);
        }
    }
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit (util-linux) starts the worker");
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let (lines, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = String::new();
    let warning = loop {
        match said.recv_timeout(Duration::from_millis(200)) {
            Ok(line) if line.contains("open-file limit") => break Some(line),
            Ok(line) => seen.push_str(&line),
            Err(_) if Instant::now() > deadline => break None,
            Err(_) => {}
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the worker stopped ({status}): {seen}");
        }
    };
    let running = child.try_wait().unwrap().is_none();
    child.kill().ok();
    child.wait().ok();
    let warning = warning.unwrap_or_else(|| panic!("no word of the limit: {seen}"));
    assert!(
        warning.contains("is 512") && warning.contains("1000 slots") && warning.contains("8256"),
        "{warning}"
    );
    assert!(running, "a short limit is said, not fatal");
}

/// After a submission, the worker's `/metrics` say where each job's own time went: one
/// observation per run in each stage outside the run (claim, prepare, store, analyse, record),
/// as many as the runs it recorded.
#[tokio::test]
async fn its_metrics_count_each_job_s_own_stages() {
    const TASKS: usize = 3;
    let s = support::setup("stages", TASKS).await;
    let traces = tempfile::tempdir().unwrap();
    let metrics = format!("127.0.0.1:{}", support::free_port());
    let mut worker = support::spawn_worker(
        &s.url,
        traces.path(),
        &[
            ("MCPBENCH_METRICS_ADDR", metrics.as_str()),
            ("MCPBENCH_DOCKER", "off"),
        ],
    );
    let id = s.submit_slow_oracle(Duration::ZERO, 1).await;
    s.wait_completed(id, Duration::from_secs(120)).await;
    // A run's last stage is counted just after its row is written: read until all are in.
    let counts = |text: &str| {
        support::STAGES.map(|stage| support::stage_metric(text, "count", stage).unwrap_or(0.0))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let text = loop {
        let (status, text) = first_answer(&format!("http://{metrics}/metrics")).await;
        assert_eq!(status, 200);
        if counts(&text) == [TASKS as f64; 5] || Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    worker.kill().unwrap();
    worker.wait().unwrap();
    assert_eq!(counts(&text), [TASKS as f64; 5], "{text}");
}
