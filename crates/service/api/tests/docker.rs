//! Docker-image submissions end to end on this machine's Docker engine: the reference agent as
//! a static binary in a `FROM scratch` image, saved with `docker save`, uploaded through the API
//! and run in the sandbox, scores what the same agent scores as an endpoint; and every way a
//! docker submission can be wrong is refused with its reason.

#[path = "../../sandbox/tests/support/images.rs"]
mod images;
mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use support::{Options, Service};

async fn sandbox(name: &str) -> mcpbench_sandbox::Sandbox {
    support::sandbox(support::sandbox_config(name)).await
}

/// Scores without `median_seconds` anywhere in them (overall and in every breakdown), nor the
/// sandbox among their conditions.
fn without_times(scores: &Value) -> Value {
    match scores {
        Value::Object(map) => Value::Object(
            map.iter()
                // The sandbox is a condition of an image's runs alone (asserted apart).
                .filter(|(k, _)| !matches!(k.as_str(), "median_seconds" | "sandbox"))
                .map(|(k, v)| (k.clone(), without_times(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The `mcpbench` binary linked statically, which `scripts/test` builds
/// (`cargo rustc --release -p mcpbench-cli -- -C target-feature=+crt-static`).
fn static_cli() -> PathBuf {
    let path = std::env::var_os("MCPBENCH_STATIC_CLI").map(PathBuf::from).expect(
        "MCPBENCH_STATIC_CLI must name a statically linked mcpbench binary; scripts/test builds it",
    );
    assert!(path.exists(), "{} does not exist", path.display());
    path
}

/// Runs a submission's runs, keyed by task: whether each passed.
async fn outcomes(svc: &Service, token: &str, id: &str) -> Vec<(String, bool, String)> {
    let (status, body) = svc
        .get(&format!("/submissions/{id}/runs?limit=100"), Some(token))
        .await;
    assert_eq!(status, 200, "{body}");
    let mut runs: Vec<_> = body["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["task_id"].as_str().unwrap().to_string(),
                r["passed"].as_bool().unwrap(),
                r["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    runs.sort();
    runs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_uploaded_image_scores_as_the_same_agent_does_as_an_endpoint() {
    let svc = Service::start(Options {
        tasks: 4,
        sandbox: Some(sandbox("api-docker-e2e").await),
        concurrency: 2,
        ..Default::default()
    })
    .await;
    let token = svc.token("acme").await;
    let n = svc.tasks.len() as i64;

    // The oracle as an endpoint on loopback.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let tasks: Vec<Arc<_>> = svc.tasks.iter().cloned().map(Arc::new).collect();
    let app = mcpbench_agents::router(AgentKind::Oracle, &tasks, b"");
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    let (status, endpoint) = svc
        .post(
            "/submissions",
            Some(&token),
            &json!({"name": "oracle-endpoint", "model": "oracle", "kind": "endpoint", "endpoint_url": url}),
        )
        .await;
    assert_eq!(status, 202, "{endpoint}");

    // The same oracle in a FROM scratch image, as a vendor would hand it in.
    let tasks_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let tag = format!("mcpbench-test-oracle:{}", std::process::id());
    let image_id = images::build_image(
        &tag,
        &[
            (&static_cli(), "/mcpbench"),
            (&tasks_dir, "/tasks"),
            // The agent's HTTP client loads the system's CA certificates at start, as a
            // vendor's image would ship them.
            (
                std::path::Path::new("/etc/ssl/certs/ca-certificates.crt"),
                "/etc/ssl/certs/ca-certificates.crt",
            ),
        ],
        &[
            "/mcpbench",
            "agent",
            "serve",
            "--kind",
            "oracle",
            "--tasks",
            "/tasks",
            "--addr",
            "0.0.0.0:8080",
        ],
    );
    let archive = std::fs::read(images::save(&tag)).unwrap();
    // The worker must load the image from the upload, not find it on the engine already.
    images::remove_image(&tag);
    let (status, docker) = svc
        .upload(
            &token,
            &json!({"name": "oracle-image", "model": "oracle", "kind": "docker"}),
            archive,
        )
        .await;
    assert_eq!(status, 202, "{docker}");

    let endpoint_id = endpoint["id"].as_str().unwrap();
    let docker_id = docker["id"].as_str().unwrap();
    let endpoint_done = svc
        .wait(endpoint_id, &token, Duration::from_secs(300))
        .await;
    let docker_done = svc.wait(docker_id, &token, Duration::from_secs(300)).await;
    assert_eq!(endpoint_done["status"], "completed", "{endpoint_done}");
    assert_eq!(docker_done["status"], "completed", "{docker_done}");
    assert_eq!(docker_done["kind"], "docker");
    assert_eq!(
        docker_done["image"], image_id,
        "the submission records the image's digest"
    );
    assert_eq!(docker_done["scores"]["passed"], n, "{docker_done}");
    // The same scores, but for how long runs took (a measurement, not a score: the sandbox
    // adds its pod's start to each run).
    assert_eq!(
        without_times(&docker_done["scores"]),
        without_times(&endpoint_done["scores"])
    );
    assert!(docker_done["scores"]["median_seconds"].as_f64().is_some());
    // Measured under the same conditions, but for the sandbox the image ran in.
    let sandbox = &docker_done["scores"]["conditions"]["sandbox"];
    assert_eq!(sandbox["memory_mib"], 512, "{sandbox}");
    assert!(
        endpoint_done["scores"]["conditions"]
            .get("sandbox")
            .is_none()
    );
    let by_endpoint = outcomes(&svc, &token, endpoint_id).await;
    let by_image = outcomes(&svc, &token, docker_id).await;
    let strip = |runs: &[(String, bool, String)]| -> Vec<(String, bool)> {
        runs.iter().map(|(t, p, _)| (t.clone(), *p)).collect()
    };
    assert_eq!(strip(&by_image), strip(&by_endpoint));

    // The sandboxed run's trace names the submission's set, as an endpoint run's does.
    let run = &by_image[0].2;
    let (status, trace) = svc.get(&format!("/runs/{run}"), Some(&token)).await;
    assert_eq!(status, 200, "{trace}");
    assert_eq!(trace["trace"][0]["set"], "dev", "{trace}");

    // The container's output is kept with the trace; the dev set is public, so its owner
    // reads it. An endpoint run has none.
    let logs = svc
        .http
        .get(svc.at(&format!("/runs/{run}/logs")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(logs.status(), 200);
    assert!(
        logs.text()
            .await
            .unwrap()
            .contains("agent listening on http://0.0.0.0:8080/")
    );
    let endpoint_run = &by_endpoint[0].2;
    let (status, _) = svc
        .get(&format!("/runs/{endpoint_run}/logs"), Some(&token))
        .await;
    assert_eq!(status, 404);
    let (status, _) = svc.get(&format!("/runs/{run}/logs"), None).await;
    assert_eq!(status, 404, "unpublished: closed to the public");
    images::remove_image(&image_id);
}

fn problem_type(body: &Value) -> &str {
    body["type"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deployment_without_docker_refuses_images_before_reading_them() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    let digest = "a".repeat(64);
    let (status, body) = svc
        .post(
            "/submissions",
            Some(&token),
            &json!({"name": "x", "model": "m", "kind": "docker", "image": format!("acme/agent@sha256:{digest}")}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(problem_type(&body), "/problems/docker-unavailable");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("cannot run Docker images")
    );
    let (status, body) = svc
        .upload(
            &token,
            &json!({"name": "x", "model": "m", "kind": "docker"}),
            vec![0; 1 << 20],
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(problem_type(&body), "/problems/docker-unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_docker_submissions_get_their_reasons() {
    let svc = Service::start(Options {
        tasks: 1,
        sandbox: Some(sandbox("api-docker-refusals").await),
        image_upload_max_bytes: 8 << 20,
        ..Default::default()
    })
    .await;
    let token = svc.token("acme").await;
    let docker = json!({"name": "x", "model": "m", "kind": "docker"});
    let digest = "b".repeat(64);
    let with_image = |image: &str| {
        let mut body = docker.clone();
        body["image"] = json!(image);
        body
    };

    let (status, body) = svc
        .post(
            "/submissions",
            Some(&token),
            &with_image("acme/agent:latest"),
        )
        .await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/unpinned-image"),
        "{body}"
    );
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("pinned by digest")
    );
    let (status, body) = svc.post("/submissions", Some(&token), &docker).await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/invalid-submission"),
        "{body}"
    );
    let mut both = with_image(&format!("acme/agent@sha256:{digest}"));
    both["endpoint_url"] = json!("http://127.0.0.1:9/");
    let (status, body) = svc.post("/submissions", Some(&token), &both).await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/invalid-submission"),
        "{body}"
    );

    // Uploads: not an archive, an archive of two images, one too large, parts missing or extra.
    let (status, body) = svc
        .upload(&token, &docker, b"this is not a tar".repeat(100))
        .await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/invalid-image"),
        "{body}"
    );
    // Too large: refused from its Content-Length, before the body is read (the client below
    // sends the headers only and still gets its answer).
    let (status, body) = raw_upload_headers(&svc, &token, 64 << 20).await;
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("8388608"), "{body}");
    // Too large without a Content-Length (streamed): cut off at the cap, nothing kept.
    let chunks =
        futures_util::stream::iter((0..16).map(|_| Ok::<_, std::io::Error>(vec![0u8; 1 << 20])));
    let form = reqwest::multipart::Form::new()
        .text("submission", docker.to_string())
        .part(
            "image",
            reqwest::multipart::Part::stream(reqwest::Body::wrap_stream(chunks)),
        );
    let sent = svc
        .http
        .post(svc.at("/submissions"))
        .bearer_auth(&token)
        .multipart(form)
        .send()
        .await;
    if let Ok(r) = sent {
        assert_eq!(r.status(), 413);
    }

    let (status, body) = svc
        .upload(
            &token,
            &with_image(&format!("a@sha256:{digest}")),
            tiny_archive(),
        )
        .await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/invalid-submission"),
        "an image both referenced and uploaded: {body}"
    );
    let mut endpoint = docker.clone();
    endpoint["kind"] = json!("endpoint");
    let (status, body) = svc.upload(&token, &endpoint, tiny_archive()).await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/invalid-submission"),
        "{body}"
    );
    let form = reqwest::multipart::Form::new().text("submission", docker.to_string());
    let (status, body) = svc.post_form(&token, form).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("the part \\\"image\\\""), "{body}");
    let form = reqwest::multipart::Form::new()
        .text("submission", docker.to_string())
        .text("surprise", "x");
    let (status, body) = svc.post_form(&token, form).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("an unknown part"), "{body}");
    assert!(
        !body.contains("surprise"),
        "the part's name is not echoed: {body}"
    );
    let r = svc
        .http
        .post(svc.at("/submissions"))
        .bearer_auth(&token)
        .header("content-type", "multipart/form-data; boundary=zzz")
        .body("--zzz\r\nnot a part at all")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    // JSON stays bounded at 64 KiB on this route too.
    let mut huge = docker.clone();
    huge["name"] = json!("x".repeat(100_000));
    let (status, _) = svc.post("/submissions", Some(&token), &huge).await;
    assert_eq!(status, 413);
    // Nothing was queued by any of the above.
    let (_, list) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(list["submissions"], json!([]), "{list}");

    let mut no_set = docker.clone();
    no_set["set"] = json!("no-such-set");
    let (status, body) = svc.upload(&token, &no_set, tiny_archive()).await;
    assert_eq!(
        (status, problem_type(&body)),
        (422, "/problems/invalid-submission"),
        "{body}"
    );
    assert!(
        !svc.traces.path().join("images").exists(),
        "nothing of a refused upload is kept"
    );

    // On a private set that is live, the container's output (which can echo the task) is
    // closed to its owner as the trace is.
    svc.private_set("2026-11", &svc.tasks).await;
    let tag = format!("mcpbench-test-private-null:{}", std::process::id());
    let image_id = images::hostile_image(&tag, &["echo"]);
    let mut private = docker.clone();
    private["set"] = json!("2026-11");
    let (status, created) = svc
        .upload(&token, &private, std::fs::read(images::save(&tag)).unwrap())
        .await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    let done = svc.wait(id, &token, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    let run = outcomes(&svc, &token, id).await[0].2.clone();
    let stored: Vec<Vec<u8>> = std::fs::read_dir(svc.traces.path().join("runs").join(id))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(stored.len(), 2, "the trace and the logs are stored");
    assert!(
        stored.iter().all(|f| mcpbench_vault::is_sealed_file(f)),
        "the trace and the logs of a run on a live private set are sealed at rest"
    );
    for path in [format!("/runs/{run}"), format!("/runs/{run}/logs")] {
        let (status, _) = svc.get(&path, Some(&token)).await;
        assert_eq!(status, 404, "{path} is closed while the set is live");
    }
    // The agent answered HTTP 500 with the request (the goal) as its text: none of it reaches
    // the vendor through the run's detail or the submission's failures.
    let goal = &svc.tasks[0].goal;
    let (_, runs) = svc
        .get(&format!("/submissions/{id}/runs"), Some(&token))
        .await;
    let (_, view) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    assert_eq!(runs["runs"][0]["reason"], "agent_error", "{runs}");
    assert!(
        runs["runs"][0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("details withheld"),
        "{runs}"
    );
    for text in [runs.to_string(), view.to_string()] {
        assert!(!text.contains(goal.as_str()), "the goal leaked: {text}");
        assert!(!text.contains("mcpbench/1"), "the request leaked: {text}");
    }
    // A sandboxed image saw the tasks with no way out: nothing is recorded as exposed.
    let (_, set) = svc.get("/sets/2026-11", None).await;
    assert_eq!(set["exposed"], 0, "{set}");
    images::remove_image(&image_id);

    // A pinned reference the worker cannot pull (no registry here): the submission fails
    // with the engine's reason, after its attempts.
    let image = format!("127.0.0.1:9/nowhere/agent@sha256:{digest}");
    let (status, created) = svc
        .post("/submissions", Some(&token), &with_image(&image))
        .await;
    assert_eq!(status, 202, "{created}");
    let done = svc
        .wait(
            created["id"].as_str().unwrap(),
            &token,
            Duration::from_secs(120),
        )
        .await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["image"], image);
    assert!(
        done["error"]
            .as_str()
            .unwrap()
            .contains("could not be pulled"),
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reference_into_our_networks_is_refused() {
    let svc = Service::start(Options {
        tasks: 1,
        allow_private: false,
        sandbox: Some(sandbox("api-docker-registry").await),
        ..Default::default()
    })
    .await;
    let token = svc.token("acme").await;
    let digest = "c".repeat(64);
    for registry in [
        "127.0.0.1:5000",
        "localhost",
        "10.1.2.3",
        "169.254.169.254",
        "[::1]:5000",
    ] {
        let image = format!("{registry}/agent@sha256:{digest}");
        let (status, body) = svc
            .post(
                "/submissions",
                Some(&token),
                &json!({"name": "x", "model": "m", "kind": "docker", "image": image}),
            )
            .await;
        assert_eq!(status, 422, "{image}: {body}");
        assert!(
            matches!(
                problem_type(&body),
                "/problems/unsafe-registry" | "/problems/unpinned-image"
            ),
            "{image}: {body}"
        );
    }
}

/// Sends the headers of a multipart upload of `length` bytes and no body; the answer.
async fn raw_upload_headers(svc: &Service, token: &str, length: usize) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = svc.url.trim_start_matches("http://");
    let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /submissions HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {token}\r\n\
         content-type: multipart/form-data; boundary=b\r\ncontent-length: {length}\r\n\
         connection: close\r\n\r\n"
    );
    conn.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf))
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no answer without the body; got {:?}",
                    String::from_utf8_lossy(&answer)
                )
            })
            .unwrap();
        answer.extend_from_slice(&buf[..n]);
        // The whole answer (the problem's JSON ends with `}`), or the server closed.
        let header_end = answer.windows(4).position(|w| w == b"\r\n\r\n");
        if n == 0 || header_end.is_some_and(|h| answer[h..].contains(&b'}')) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// A valid one-image archive (a file and an entrypoint; never run).
fn tiny_archive() -> Vec<u8> {
    mcpbench_images::build_archive(&[("hello", 0o755, b"#!")], &["/hello"], "tiny:1")
        .unwrap()
        .1
}
