//! Hostile images, uploaded and run like any vendor's, each with the failure reason it must
//! get and no harm done: canaries on the host (loopback and every interface, reached through
//! the Docker bridge gateway), in a sibling container and on DNS servers see no connection;
//! every container is gone within its wall-clock limit plus 5 s; the API answers throughout;
//! nothing is left behind.

#[path = "../../sandbox/tests/support/images.rs"]
mod images;
mod support;

use serde_json::json;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::{Options, Service};

const READINESS: Duration = Duration::from_secs(5);
const TIME_BUDGET: Duration = Duration::from_secs(6);
/// readiness + time budget + the worker's kill grace (3 s).
const LIFETIME: Duration = Duration::from_secs(5 + 6 + 3);

struct Case {
    name: &'static str,
    args: Vec<String>,
    reason: &'static str,
    /// In the run's detail.
    detail: Option<&'static str>,
    /// In the container's logs (proves the abuse was tried).
    logs: Option<&'static str>,
}

async fn counting_listener(addr: &str) -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while listener.accept().await.is_ok() {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, count)
}

/// The engine's events about the containers carrying a label, from a live subscription (the
/// engine replays only its last 256 events, too few to ask for them afterwards).
struct ContainerEvents {
    child: std::process::Child,
    lines: std::thread::JoinHandle<Vec<String>>,
}

impl ContainerEvents {
    fn watch(label: &str) -> Self {
        // From a second back: events before the subscription is up are replayed.
        let since = std::time::SystemTime::now() - Duration::from_secs(1);
        let since = since.duration_since(std::time::UNIX_EPOCH).unwrap();
        let mut child = Command::new("docker")
            .args(["events", "--since", &since.as_secs().to_string()])
            .args(["--filter", "type=container", "--filter"])
            .arg(format!("label={label}"))
            .args(["--format", "{{json .}}"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("docker events runs");
        let stdout = child.stdout.take().unwrap();
        let lines = std::thread::spawn(move || {
            use std::io::BufRead;
            std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .collect()
        });
        Self { child, lines }
    }

    /// Each container's name with how long it lived from its creation to its removal
    /// (`None`: not removed).
    fn lifetimes(mut self) -> BTreeMap<String, Option<Duration>> {
        // Let the last removals arrive, then end the subscription.
        std::thread::sleep(Duration::from_secs(1));
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut created = BTreeMap::new();
        let mut lifetimes = BTreeMap::new();
        for line in self.lines.join().unwrap() {
            let event: serde_json::Value = serde_json::from_str(&line).expect("an event is JSON");
            let (Some(action), Some(id), Some(at)) = (
                event["Action"].as_str(),
                event["Actor"]["ID"].as_str(),
                event["timeNano"].as_u64(),
            ) else {
                continue;
            };
            let name = event["Actor"]["Attributes"]["name"]
                .as_str()
                .unwrap_or(id)
                .to_string();
            match action {
                "create" => {
                    created.insert(id.to_string(), at);
                    lifetimes.insert(name, None);
                }
                "destroy" => {
                    let start = created
                        .get(id)
                        .copied()
                        .expect("a removed container was created");
                    lifetimes.insert(name, Some(Duration::from_nanos(at.saturating_sub(start))));
                }
                _ => {}
            }
        }
        lifetimes
    }
}

fn docker_out(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hostile_images_fail_with_their_reasons_and_do_no_harm() {
    let mut config = support::sandbox_config("hostile");
    let deployment = config.deployment.clone();
    config.readiness = READINESS;
    config.limits.memory_bytes = 128 << 20;
    let sandbox = support::sandbox(config).await;
    let networks_before = images::docker_lines(&["network", "ls", "-q"]).len();
    let volumes_before = images::docker_lines(&["volume", "ls", "-q"]).len();
    let svc = Service::start(Options {
        tasks: 1,
        sandbox: Some(sandbox),
        time_budget: TIME_BUDGET,
        concurrency: 4,
        ..Default::default()
    })
    .await;
    let token = svc.token("mallory").await;

    // Canaries: on host loopback, on every host interface (reached at the bridge gateway), and
    // in a sibling container on the default bridge.
    let (loopback_port, loopback_hits) = counting_listener("127.0.0.1:0").await;
    let (any_port, any_hits) = counting_listener("0.0.0.0:0").await;
    let gateway = docker_out(&[
        "network",
        "inspect",
        "bridge",
        "--format",
        "{{(index .IPAM.Config 0).Gateway}}",
    ]);
    let sibling = format!("mcpbench-test-hostile-sibling-{}", std::process::id());
    let sibling_image = images::hostile_image("mcpbench-test-canary:2", &["canary", "7777"]);
    let run = Command::new("docker")
        .args(["run", "-d", "--rm", "--name", &sibling])
        .arg(&sibling_image)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let sibling_ip = docker_out(&[
        "inspect",
        "--format",
        "{{.NetworkSettings.IPAddress}}",
        &sibling,
    ]);

    let probes: Vec<String> = vec![
        format!("tcp:127.0.0.1:{}", mcpbench_sandbox::MCP_PORT),
        format!("tcp:127.0.0.1:{loopback_port}"),
        format!("tcp:{gateway}:{any_port}"),
        format!("tcp:{gateway}:{loopback_port}"),
        format!("tcp:{gateway}:22"),
        format!("tcp:{sibling_ip}:7777"),
        "tcp:1.1.1.1:443".into(),
        format!("dns:{gateway}"),
        "dns:8.8.8.8".into(),
        "resolv".into(),
        "name:example.com".into(),
    ];
    let mut probe_args = vec!["probe".to_string()];
    probe_args.extend(probes.iter().cloned());
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let cases = vec![
        Case {
            name: "network",
            args: probe_args,
            reason: "predicate_false",
            detail: None,
            logs: Some("probe "),
        },
        Case {
            name: "forkbomb",
            args: args(&["forkbomb"]),
            reason: "timeout",
            detail: None,
            logs: Some("forkbomb: fork failed"),
        },
        Case {
            name: "balloon",
            args: args(&["balloon"]),
            reason: "agent_error",
            detail: Some("memory limit (128 MiB)"),
            logs: Some("balloon: 16 MiB"),
        },
        Case {
            name: "filltmp",
            args: args(&["filltmp"]),
            reason: "predicate_false",
            detail: None,
            logs: Some("No space left on device"),
        },
        Case {
            name: "writeroot",
            args: args(&["writeroot"]),
            reason: "predicate_false",
            detail: None,
            logs: Some("writeroot: refused: Read-only file system"),
        },
        Case {
            name: "ignoreterm",
            args: args(&["ignoreterm"]),
            reason: "timeout",
            detail: None,
            logs: Some("SIGTERM ignored"),
        },
        Case {
            name: "silent",
            args: args(&["silent"]),
            reason: "agent_error",
            detail: Some("the agent did not listen on $PORT (8080) within 5 s"),
            logs: None,
        },
        Case {
            name: "garbage",
            args: args(&["garbage"]),
            reason: "agent_error",
            detail: Some("malformed reply"),
            logs: None,
        },
        Case {
            name: "sleep",
            args: args(&["sleep"]),
            reason: "timeout",
            detail: Some("no reply within"),
            logs: None,
        },
    ];

    // The engine's own record of the deployment's containers (their create and destroy
    // events) is read at the end; meanwhile the API is watched.
    let events = ContainerEvents::watch(&format!("mcpbench.deployment={deployment}"));
    let watching = Arc::new(AtomicBool::new(true));
    let health_failures = Arc::new(AtomicUsize::new(0));
    let health_checks = Arc::new(AtomicUsize::new(0));
    let health = {
        let (url, failures, checks, watching) = (
            svc.at("/healthz"),
            health_failures.clone(),
            health_checks.clone(),
            watching.clone(),
        );
        tokio::spawn(async move {
            let http = reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap();
            while watching.load(Ordering::SeqCst) {
                checks.fetch_add(1, Ordering::SeqCst);
                if !http.get(&url).send().await.is_ok_and(|r| r.status() == 200) {
                    failures.fetch_add(1, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        })
    };

    let mut submitted = Vec::new();
    for case in &cases {
        let tag = format!("mcpbench-test-hostile-{}:{}", case.name, std::process::id());
        let argv: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let image = images::hostile_image(&tag, &argv);
        let archive = std::fs::read(images::save(&tag)).unwrap();
        let (status, created) = svc
            .upload(
                &token,
                &json!({"name": case.name, "model": "hostile", "kind": "docker"}),
                archive,
            )
            .await;
        assert_eq!(status, 202, "{}: {created}", case.name);
        submitted.push((created["id"].as_str().unwrap().to_string(), image));
    }

    let mut problems = Vec::new();
    for (case, (id, _)) in cases.iter().zip(&submitted) {
        let done = svc.wait(id, &token, Duration::from_secs(300)).await;
        if done["status"] != "completed" {
            problems.push(format!("{}: {done}", case.name));
            continue;
        }
        let (_, runs) = svc
            .get(&format!("/submissions/{id}/runs"), Some(&token))
            .await;
        let run = &runs["runs"][0];
        let detail = run["detail"].as_str().unwrap_or("");
        if run["reason"] != case.reason || !case.detail.is_none_or(|d| detail.contains(d)) {
            problems.push(format!(
                "{}: expected {} ({:?}), got {run}",
                case.name, case.reason, case.detail
            ));
        }
        let logs = svc
            .http
            .get(svc.at(&format!("/runs/{}/logs", run["id"].as_str().unwrap())))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if let Some(expected) = case.logs
            && !logs.contains(expected)
        {
            problems.push(format!("{}: logs lack {expected:?}:\n{logs}", case.name));
        }
        if case.name == "network" {
            let results: Vec<&str> = logs.lines().filter(|l| l.starts_with("probe ")).collect();
            if results.len() != probes.len() {
                problems.push(format!(
                    "network: {} of {} probes ran:\n{logs}",
                    results.len(),
                    probes.len()
                ));
            }
            if !results.first().is_some_and(|l| l.ends_with("-> CONNECTED")) {
                problems.push(format!("network: the MCP port was not reachable:\n{logs}"));
            }
            for line in results.iter().skip(1) {
                if !line.contains("-> blocked") {
                    problems.push(format!("network: escaped: {line}"));
                }
            }
        }
        if case.name == "filltmp" {
            let wrote: u64 = logs
                .split("filltmp: wrote ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(u64::MAX);
            if wrote > 64 << 20 {
                problems.push(format!("filltmp: wrote {wrote} bytes into a 64 MiB /tmp"));
            }
        }
    }

    // Give the last teardown a moment, then stop watching.
    let deadline = Instant::now() + Duration::from_secs(15);
    let label = format!("mcpbench.deployment={deployment}");
    while !images::containers_with_label(&label).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    watching.store(false, Ordering::SeqCst);
    health.await.unwrap();
    let lifetimes = events.lifetimes();
    let sibling_logs = Command::new("docker")
        .args(["logs", &sibling])
        .output()
        .unwrap();
    let _ = Command::new("docker").args(["rm", "-f", &sibling]).output();
    for (_, image) in &submitted {
        images::remove_image(image);
    }

    let limit = LIFETIME + Duration::from_secs(5);
    for (name, lived) in &lifetimes {
        match lived {
            Some(lived) if *lived > limit => {
                problems.push(format!("{name} lived {lived:?}, past {limit:?}"))
            }
            Some(_) => {}
            None => problems.push(format!("{name} was never removed")),
        }
    }
    assert!(
        lifetimes.len() >= 2 * cases.len(),
        "every case ran in a pod: {} containers for {} cases",
        lifetimes.len(),
        cases.len()
    );
    assert_eq!(
        loopback_hits.load(Ordering::SeqCst),
        0,
        "the host loopback canary was reached"
    );
    assert_eq!(
        any_hits.load(Ordering::SeqCst),
        0,
        "the host canary on every interface was reached"
    );
    assert!(
        !String::from_utf8_lossy(&sibling_logs.stdout).contains("CANARY CONNECTION"),
        "the sibling container was reached"
    );
    assert_eq!(
        health_failures.load(Ordering::SeqCst),
        0,
        "the API stopped answering"
    );
    assert!(health_checks.load(Ordering::SeqCst) > 5);
    assert!(
        images::containers_with_label(&label).is_empty(),
        "containers left behind"
    );
    assert_eq!(
        images::docker_lines(&["network", "ls", "-q"]).len(),
        networks_before,
        "networks left behind"
    );
    assert_eq!(
        images::docker_lines(&["volume", "ls", "-q"]).len(),
        volumes_before,
        "volumes left behind"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
