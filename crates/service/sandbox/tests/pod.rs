//! The sandbox on the real Docker engine of this machine: the hardening of every container,
//! network isolation proved with canaries, readiness, teardown and the reaper.

#[path = "support/images.rs"]
mod images;

use mcpbench_sandbox::{LABEL_OWNER, Owners, PodSpec, Sandbox, SandboxConfig};
use serde_json::Value;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

async fn sandbox(owner: &str) -> Sandbox {
    sandbox_in(owner, "sandbox-tests").await
}

async fn sandbox_in(owner: &str, deployment: &str) -> Sandbox {
    let mut config = SandboxConfig::new(owner);
    config.deployment = format!("{deployment}-{}", std::process::id());
    config.readiness = Duration::from_secs(10);
    Sandbox::connect(config)
        .await
        .expect("the Docker engine answers")
}

/// A TCP listener that counts the connections it accepts (and answers nothing).
async fn canary(addr: &str) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let local = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((_conn, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    (local, count)
}

fn inspect(name: &str) -> Value {
    let out = Command::new("docker")
        .args(["inspect", name])
        .output()
        .unwrap();
    assert!(out.status.success(), "docker inspect {name}");
    serde_json::from_slice::<Value>(&out.stdout).unwrap()[0].clone()
}

fn spec(image: &str, gateway: SocketAddr) -> PodSpec {
    PodSpec {
        image: image.into(),
        lifetime: Duration::from_secs(60),
        gateway,
        labels: vec![("mcpbench.test".into(), "pod".into())],
        model: None,
        baseline: None,
    }
}

async fn post(url: &str) -> reqwest::Result<String> {
    reqwest::Client::new()
        .post(url)
        .body("{}")
        .timeout(Duration::from_secs(10))
        .send()
        .await?
        .text()
        .await
}

#[tokio::test]
async fn every_container_is_hardened_and_removed() {
    let sandbox = sandbox("test-hardening").await;
    let image = images::hostile_image("mcpbench-test-null:1", &["null"]);
    let (gateway, _) = canary("127.0.0.1:0").await;
    let pod = sandbox.start(&spec(&image, gateway)).await.unwrap();
    pod.ready(Duration::from_secs(10)).await.unwrap();
    assert_eq!(post(pod.agent_url()).await.unwrap(), r#"{"answer": ""}"#);

    let agent = inspect(&format!("mcpbench-{}-agent", pod.id));
    let host = &agent["HostConfig"];
    let proxy_name = format!("mcpbench-{}-proxy", pod.id);
    assert_eq!(host["CapDrop"], serde_json::json!(["ALL"]), "{host}");
    assert_eq!(host["CapAdd"], Value::Null);
    assert_eq!(host["Privileged"], false);
    assert_eq!(
        host["SecurityOpt"],
        serde_json::json!(["no-new-privileges:true"])
    );
    assert_eq!(host["ReadonlyRootfs"], true);
    let tmp = host["Tmpfs"]["/tmp"].as_str().unwrap();
    assert!(
        tmp.contains("size=67108864") && tmp.contains("nosuid"),
        "{tmp}"
    );
    assert_eq!(host["PidsLimit"], 128);
    assert_eq!(host["Memory"], 512i64 << 20);
    assert_eq!(host["MemorySwap"], host["Memory"], "no swap beyond memory");
    assert_eq!(host["NanoCpus"], 1_000_000_000i64);
    assert_eq!(host["IpcMode"], "private");
    let proxy = inspect(&proxy_name);
    let proxy_id = proxy["Id"].as_str().unwrap();
    assert_eq!(host["NetworkMode"], format!("container:{proxy_id}"));
    assert_eq!(host["Binds"], Value::Null, "no host path in the agent");
    assert_eq!(
        agent["Mounts"].as_array().map(Vec::len).unwrap_or(0),
        0,
        "{}",
        agent["Mounts"]
    );
    assert_eq!(agent["Config"]["User"], "65534:65534");
    assert!(
        agent["Config"]["Env"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == "PORT=8080")
    );
    let labels = &agent["Config"]["Labels"];
    for label in [
        "mcpbench.sandbox",
        "mcpbench.owner",
        "mcpbench.expires",
        "mcpbench.pod",
    ] {
        assert!(labels[label].is_string(), "label {label} missing: {labels}");
    }
    assert_eq!(host["LogConfig"]["Config"]["max-size"], "4m");
    assert_eq!(host["Ulimits"][0]["Name"], "nofile");
    assert_eq!(
        agent["Config"]["Healthcheck"]["Test"],
        serde_json::json!(["NONE"])
    );
    // The proxy: no network at all, and its one mount is the pod directory (no Docker socket).
    assert_eq!(proxy["HostConfig"]["NetworkMode"], "none");
    assert_eq!(proxy["HostConfig"]["CapDrop"], serde_json::json!(["ALL"]));
    assert_eq!(proxy["HostConfig"]["ReadonlyRootfs"], true);
    let binds = proxy["HostConfig"]["Binds"].as_array().unwrap();
    assert_eq!(binds.len(), 1);
    assert!(
        binds[0].as_str().unwrap().ends_with(":/run/mcpbench"),
        "{binds:?}"
    );
    assert!(!binds[0].as_str().unwrap().contains("docker.sock"));
    // The pod's only interface is loopback.
    let networks = proxy["NetworkSettings"]["Networks"].as_object().unwrap();
    assert!(networks.keys().all(|n| n == "none"), "{networks:?}");

    let id = pod.id.clone();
    let pod_dir = sandbox.pods_dir().join("test-hardening").join(&id);
    assert!(pod_dir.join("agent.sock").exists());
    let finished = pod.stop().await;
    assert!(String::from_utf8_lossy(&finished.logs).contains("listening on 8080"));
    assert!(images::containers_with_label(&format!("mcpbench.pod={id}")).is_empty());
    assert!(!pod_dir.exists(), "the pod directory is removed");
}

#[tokio::test]
async fn only_the_mcp_port_is_reachable_from_inside() {
    let sandbox = sandbox("test-network").await;
    let (gateway, gateway_hits) = canary("127.0.0.1:0").await;
    let (loopback, loopback_hits) = canary("127.0.0.1:0").await;
    let (any, any_hits) = canary("0.0.0.0:0").await;
    let bridge_gateway = docker_bridge_gateway();

    // A sibling on the default bridge, listening; the host can reach it (the canary works).
    let sibling_image = images::hostile_image("mcpbench-test-canary:1", &["canary", "7777"]);
    let sibling = format!("mcpbench-test-sibling-{}", std::process::id());
    let run = Command::new("docker")
        .args([
            "run",
            "-d",
            "--rm",
            "--name",
            &sibling,
            "--label",
            "mcpbench.test=sibling",
        ])
        .arg(&sibling_image)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let sibling_ip = inspect(&sibling)["NetworkSettings"]["IPAddress"]
        .as_str()
        .unwrap()
        .to_string();
    let mut reached = false;
    for _ in 0..50 {
        if std::net::TcpStream::connect((sibling_ip.as_str(), 7777)).is_ok() {
            reached = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        reached,
        "the host reaches the sibling canary at {sibling_ip}:7777"
    );

    let targets = [
        format!("tcp:127.0.0.1:{}", mcpbench_sandbox::MCP_PORT), // the one way out: must connect
        // No model was named: its port is closed.
        format!("tcp:127.0.0.1:{}", mcpbench_sandbox::MODEL_PORT),
        format!("tcp:127.0.0.1:{}", loopback.port()),
        format!("tcp:{bridge_gateway}:{}", any.port()),
        format!("tcp:{bridge_gateway}:{}", loopback.port()),
        format!("tcp:{sibling_ip}:7777"),
        "tcp:1.1.1.1:443".into(),
        "tcp:[2606:4700:4700::1111]:443".into(),
        format!("dns:{bridge_gateway}"),
        "dns:8.8.8.8".into(),
        "dns:127.0.0.11".into(),
        "resolv".into(),
        "name:example.com".into(),
    ];
    let mut args = vec!["probe"];
    args.extend(targets.iter().map(String::as_str));
    let image = images::hostile_image("mcpbench-test-probe:1", &args);
    let pod = sandbox.start(&spec(&image, gateway)).await.unwrap();
    pod.ready(Duration::from_secs(30)).await.unwrap();
    let finished = pod.stop().await;
    let logs = String::from_utf8_lossy(&finished.logs).to_string();
    let sibling_logs = docker_logs(&sibling);
    let _ = Command::new("docker").args(["rm", "-f", &sibling]).output();

    let results: Vec<&str> = logs.lines().filter(|l| l.starts_with("probe ")).collect();
    assert_eq!(results.len(), targets.len(), "every probe ran:\n{logs}");
    assert!(
        results[0].ends_with("-> CONNECTED"),
        "the MCP port is reachable: {}",
        results[0]
    );
    for line in &results[1..] {
        assert!(
            line.contains("-> blocked"),
            "escaped the sandbox: {line}\n{logs}"
        );
    }
    assert!(
        gateway_hits.load(Ordering::SeqCst) >= 1,
        "the MCP probe reached the gateway"
    );
    assert_eq!(
        loopback_hits.load(Ordering::SeqCst),
        0,
        "host loopback canary"
    );
    assert_eq!(
        any_hits.load(Ordering::SeqCst),
        0,
        "host canary on every interface"
    );
    let sibling_connections = sibling_logs.matches("CANARY CONNECTION").count();
    assert_eq!(
        sibling_connections, 1,
        "only the host's own check reached the sibling:\n{sibling_logs}"
    );
}

#[tokio::test]
async fn a_named_model_opens_one_more_port_to_the_relay_alone() {
    let sandbox = sandbox("test-model").await;
    let (gateway, gateway_hits) = canary("127.0.0.1:0").await;
    let (relay, relay_hits) = canary("127.0.0.1:0").await;
    let (loopback, loopback_hits) = canary("127.0.0.1:0").await;
    let targets = [
        format!("tcp:127.0.0.1:{}", mcpbench_sandbox::MODEL_PORT),
        format!("tcp:127.0.0.1:{}", mcpbench_sandbox::MCP_PORT),
        format!("tcp:127.0.0.1:{}", loopback.port()),
        "tcp:1.1.1.1:443".into(),
    ];
    let mut args = vec!["probe"];
    args.extend(targets.iter().map(String::as_str));
    let image = images::hostile_image("mcpbench-test-probe:1", &args);
    let mut with_model = spec(&image, gateway);
    with_model.model = Some(mcpbench_sandbox::ModelRoute {
        relay,
        model: "acme-3".into(),
    });
    let pod = sandbox.start(&with_model).await.unwrap();
    pod.ready(Duration::from_secs(30)).await.unwrap();
    // What the agent is told: the OpenAI SDKs' variables, the placeholder key, the model.
    let env = inspect(&format!("mcpbench-{}-agent", pod.id))["Config"]["Env"].clone();
    let env: Vec<&str> = env
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for expected in [
        "PORT=8080",
        "OPENAI_BASE_URL=http://127.0.0.1:9198/v1",
        "OPENAI_API_KEY=sandbox",
        "MCPBENCH_MODEL=acme-3",
    ] {
        assert!(env.contains(&expected), "{expected} in {env:?}");
    }
    let finished = pod.stop().await;
    let logs = String::from_utf8_lossy(&finished.logs).to_string();
    let results: Vec<&str> = logs.lines().filter(|l| l.starts_with("probe ")).collect();
    assert_eq!(results.len(), targets.len(), "every probe ran:\n{logs}");
    assert!(results[0].ends_with("-> CONNECTED"), "{}", results[0]);
    assert!(results[1].ends_with("-> CONNECTED"), "{}", results[1]);
    for line in &results[2..] {
        assert!(line.contains("-> blocked"), "escaped the sandbox: {line}");
    }
    assert_eq!(
        relay_hits.load(Ordering::SeqCst),
        1,
        "the model port reached the relay"
    );
    assert_eq!(
        gateway_hits.load(Ordering::SeqCst),
        1,
        "the MCP port reached the gateway"
    );
    assert_eq!(
        loopback_hits.load(Ordering::SeqCst),
        0,
        "host loopback canary"
    );
}

#[tokio::test]
async fn an_agent_that_never_listens_is_named_and_a_dropped_pod_is_removed() {
    let sandbox = sandbox("test-readiness").await;
    let (gateway, _) = canary("127.0.0.1:0").await;
    let image = images::hostile_image("mcpbench-test-silent:1", &["silent"]);
    let pod = sandbox.start(&spec(&image, gateway)).await.unwrap();
    let err = pod.ready(Duration::from_secs(2)).await.unwrap_err();
    assert_eq!(err.0, "the agent did not listen on $PORT (8080) within 2 s");
    let id = pod.id.clone();
    drop(pod);
    for _ in 0..100 {
        if images::containers_with_label(&format!("mcpbench.pod={id}")).is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("a dropped pod's containers were not removed");
}

#[tokio::test]
async fn an_image_with_a_workdir_in_proc_never_starts() {
    let sandbox = sandbox("test-workdir").await;
    let (gateway, _) = canary("127.0.0.1:0").await;
    let bin = images::hostile_binary();
    let image = images::build_image_with(
        "mcpbench-test-leaky-vessels:1",
        &[(&bin, "/agent")],
        &["/agent", "null"],
        "WORKDIR /proc/self/fd/8\n",
    );
    let err = sandbox
        .start(&spec(&image, gateway))
        .await
        .err()
        .expect("refused");
    assert!(err.to_string().contains("CVE-2024-21626"), "{err}");
    let left = images::containers_with_label(&format!("{LABEL_OWNER}=test-workdir"));
    assert!(left.is_empty(), "a failed start leaves nothing: {left:?}");
    images::remove_image(&image);
}

#[tokio::test]
async fn the_wall_clock_kills_an_agent_that_ignores_sigterm() {
    let sandbox = sandbox("test-wall-clock").await;
    let (gateway, _) = canary("127.0.0.1:0").await;
    let image = images::hostile_image("mcpbench-test-ignoreterm:1", &["ignoreterm"]);
    let mut spec = spec(&image, gateway);
    spec.lifetime = Duration::from_secs(3);
    let pod = sandbox.start(&spec).await.unwrap();
    pod.ready(Duration::from_secs(10)).await.unwrap();
    let agent = format!("mcpbench-{}-agent", pod.id);
    // Nobody calls stop: the pod's own clock must end it.
    let started = std::time::Instant::now();
    while inspect(&agent)["State"]["Running"] == true {
        assert!(
            started.elapsed() < Duration::from_secs(3 + 5),
            "still running past its limit"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        inspect(&agent)["State"]["ExitCode"],
        137,
        "killed, not exited"
    );
    let finished = pod.stop().await;
    assert!(String::from_utf8_lossy(&finished.logs).contains("SIGTERM ignored"));
}

#[tokio::test]
async fn the_reaper_removes_what_a_dead_worker_left() {
    let (gateway, _) = canary("127.0.0.1:0").await;
    let image = images::hostile_image("mcpbench-test-sleep:1", &["sleep"]);
    // A worker starts a pod and "crashes": its pod is forgotten, never stopped.
    // Its own deployment, so the reap below judges no other test's pods.
    let dead = sandbox_in("test-dead-worker", "reaper-test").await;
    let pod = dead.start(&spec(&image, gateway)).await.unwrap();
    std::mem::forget(pod);
    let label = format!("{LABEL_OWNER}=test-dead-worker");
    assert_eq!(images::containers_with_label(&label).len(), 2);
    // A live pod of another deployment that, by mistake, shares this one's name: its owner
    // is a worker this deployment's database never saw.
    let stranger = sandbox_in("test-stranger", "reaper-test").await;
    let theirs = stranger.start(&spec(&image, gateway)).await.unwrap();
    let stranger_label = format!("{LABEL_OWNER}=test-stranger");
    // Another worker reaps: the dead one is known to its database but not among the live.
    let reaper = sandbox_in("test-reaper", "reaper-test").await;
    let owners = Owners {
        known: ["test-dead-worker".to_string(), "someone-else".to_string()].into(),
        live: ["someone-else".to_string()].into(),
    };
    assert_eq!(reaper.reap(&owners).await.unwrap(), 2);
    assert!(images::containers_with_label(&label).is_empty());
    assert!(!reaper.pods_dir().join("test-dead-worker").exists());
    assert_eq!(
        images::containers_with_label(&stranger_label).len(),
        2,
        "a pod of a worker this database does not know is left alone"
    );
    assert!(reaper.pods_dir().join("test-stranger").exists());
    theirs.stop().await;
}

fn docker_bridge_gateway() -> String {
    let out = Command::new("docker")
        .args([
            "network",
            "inspect",
            "bridge",
            "--format",
            "{{(index .IPAM.Config 0).Gateway}}",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn docker_logs(name: &str) -> String {
    let out = Command::new("docker")
        .args(["logs", name])
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[tokio::test]
async fn the_named_runtime_runs_the_agent_and_one_the_engine_lacks_is_refused_at_start() {
    let mut config = SandboxConfig::new("test-runtime");
    config.deployment = format!("sandbox-tests-{}", std::process::id());
    config.runtime = Some("mcpbench-no-such-runtime".into());
    let err = Sandbox::connect(config.clone()).await.unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, mcpbench_sandbox::SandboxError::Runtime(_)),
        "{err:?}"
    );
    assert!(
        text.contains("\"mcpbench-no-such-runtime\"") && text.contains("runc"),
        "names the runtime asked for and those the engine has: {text}"
    );

    config.runtime = Some("runc".into());
    config.readiness = Duration::from_secs(10);
    let sandbox = Sandbox::connect(config)
        .await
        .expect("runc is on every engine");
    let image = images::hostile_image("mcpbench-test-null:1", &["null"]);
    let (gateway, _) = canary("127.0.0.1:0").await;
    let pod = sandbox.start(&spec(&image, gateway)).await.unwrap();
    let agent = inspect(&format!("mcpbench-{}-agent", pod.id));
    assert_eq!(agent["HostConfig"]["Runtime"], "runc");
    pod.stop().await;
}
