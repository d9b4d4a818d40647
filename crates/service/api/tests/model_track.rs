//! The standard track: a vendor submits a model (an OpenAI-compatible endpoint, the model's
//! name, a key, prices) and the service's own `llm` agent drives it through the real worker,
//! gateway and egress client. The model here is a scripted server on loopback that calls each
//! task's reference solution as tool calls. The key is sealed at rest, never shown again, and
//! reaches only the model; the board puts the entry on the standard track with its cost. The
//! same `llm` agent in a `FROM scratch` image, submitted with the model it calls, reaches that
//! model from the sandbox through the worker's relay, which adds the key the image never holds.

#[path = "../../sandbox/tests/support/images.rs"]
mod images;
mod support;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use mcpbench_tasks::{Step, Task};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{Options, Service};

const KEY: &str = "sk-model-secret-7f3a9c2e41";
/// A well-formed reference to an image that exists nowhere.
const PINNED: &str = "registry.example/acme/agent@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A chat-completions endpoint that knows the tasks: to a goal it answers first with every
/// call of the task's reference solution (one message of parallel tool calls), then, once the
/// tools answered, with the reference's answer. It keeps each request's `Authorization`.
#[derive(Clone)]
struct Scripted {
    by_goal: Arc<HashMap<String, Task>>,
    auth: Arc<Mutex<Vec<Option<String>>>>,
    models: Arc<Mutex<Vec<String>>>,
}

impl Scripted {
    /// Asserts that `calls` requests came, each with the sealed key as its bearer token and
    /// `scripted-1` as its model.
    fn saw_only_the_key_and_the_model(&self, calls: usize) {
        let auth = self.auth.lock().unwrap().clone();
        assert_eq!(auth.len(), calls, "{auth:?}");
        let bearer = format!("Bearer {KEY}");
        assert!(
            auth.iter().all(|a| a.as_deref() == Some(bearer.as_str())),
            "{auth:?}"
        );
        let models = self.models.lock().unwrap().clone();
        assert!(models.iter().all(|m| m == "scripted-1"), "{models:?}");
    }
}

/// The function name the `llm` agent offers for a server's tool.
fn function(qualified: &str) -> String {
    qualified
        .replacen('.', "__", 1)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

async fn complete(
    State(s): State<Scripted>,
    headers: HeaderMap,
    body: String,
) -> axum::Json<Value> {
    let body: Value = serde_json::from_str(&body).unwrap();
    s.auth.lock().unwrap().push(
        headers
            .get("authorization")
            .map(|v| v.to_str().unwrap().to_string()),
    );
    s.models
        .lock()
        .unwrap()
        .push(body["model"].as_str().unwrap_or_default().to_string());
    let messages = body["messages"].as_array().unwrap();
    let goal = messages[1]["content"].as_str().unwrap();
    let task = &s.by_goal[goal];
    let reference = &task.reference_solutions[0];
    let answered = messages.iter().any(|m| m["role"] == "tool");
    let message = if answered {
        let answer = reference.iter().find_map(|step| match step {
            Step::Answer { answer } => Some(answer.clone()),
            Step::Call(_) => None,
        });
        json!({"role": "assistant", "content": answer.unwrap_or_else(|| "Done.".into())})
    } else {
        let calls: Vec<Value> = reference
            .iter()
            .filter_map(Step::as_call)
            .enumerate()
            .map(|(i, c)| {
                json!({"id": format!("call_{i}"), "type": "function",
                       "function": {"name": function(&c.tool), "arguments": c.arguments.to_string()}})
            })
            .collect();
        json!({"role": "assistant", "content": null, "tool_calls": calls})
    };
    axum::Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    }))
}

/// Serves the scripted model on loopback; its base URL and what it saw.
async fn scripted_model(tasks: &[Task]) -> (String, Scripted) {
    let s = Scripted {
        by_goal: Arc::new(tasks.iter().map(|t| (t.goal.clone(), t.clone())).collect()),
        auth: Arc::default(),
        models: Arc::default(),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .with_state(s.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submitted_model_runs_on_our_agent_and_its_key_stays_sealed() {
    let svc = Service::start(Options::default()).await;
    let token = svc.vendor("acme", false).await;
    let (base_url, model) = scripted_model(&svc.tasks).await;
    let body = json!({
        "name": "scripted on the standard track", "model": "Scripted 1", "kind": "model",
        "model_endpoint": {"base_url": base_url, "model": "scripted-1", "api_key": KEY,
                           "prices": {"input_per_mtok": 2.5, "output_per_mtok": 10.0}},
        "about": {"organisation": "Acme"}
    });
    let (status, created) = svc.post("/submissions", Some(&token), &body).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    assert!(!created.to_string().contains(KEY));

    // Its owner sees the model, that a key was given, and never the key.
    let (_, shown) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    assert_eq!(shown["kind"], "model");
    assert_eq!(shown["model_endpoint"]["model"], "scripted-1");
    assert_eq!(shown["model_endpoint"]["key"], true);
    assert_eq!(shown["model_endpoint"]["prices"]["output_per_mtok"], 10.0);
    assert_eq!(shown["about"]["scaffold"], "standard");
    assert!(!shown.to_string().contains(KEY), "{shown}");
    // At rest it is sealed: nowhere in the database in clear.
    assert!(
        !svc.pg_dump().contains(KEY),
        "the key is in the database in clear"
    );

    let done = svc.wait(&id, &token, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["scores"]["success_rate"], 1.0, "{}", done["scores"]);
    assert!(!done.to_string().contains(KEY));

    // Every model request carried the key and the model's name; two per task.
    model.saw_only_the_key_and_the_model(2 * svc.tasks.len());

    // On the board: the standard track, hosted (the model saw each goal), its cost: two
    // completions of 100 tokens in and 20 out, at $2.50 and $10 per million.
    let oracle = svc.agent(mcpbench_agents::AgentKind::Oracle, b"").await;
    let open =
        json!({"name": "own agent", "model": "m", "kind": "endpoint", "endpoint_url": oracle});
    let (status, other) = svc.post("/submissions", Some(&token), &open).await;
    assert_eq!(status, 202, "{other}");
    // The oracle here signs nothing: its submission is finished whatever its runs say.
    svc.wait(
        other["id"].as_str().unwrap(),
        &token,
        Duration::from_secs(120),
    )
    .await;
    let (_, board) = svc.get("/leaderboard?set=dev", None).await;
    let entry = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["submission_id"] == id.as_str())
        .cloned()
        .expect("the model is on the board");
    assert_eq!(entry["track"], "standard");
    assert_eq!(entry["hosting"], "hosted");
    assert_eq!(entry["cost_per_task"], 0.0009);
    assert_eq!(entry["tokens_per_task"], 240.0);
    // Our agent counted those tokens: the cost is measured, not the agent's word.
    assert_eq!(entry["cost_basis"], "measured");
    let names = |path: &str| {
        let svc = &svc;
        let path = path.to_string();
        async move {
            let (status, board) = svc.get(&path, None).await;
            assert_eq!(status, 200, "{board}");
            board["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        names("/leaderboard?set=dev&track=standard").await,
        ["scripted on the standard track"]
    );
    assert_eq!(
        names("/leaderboard?set=dev&track=open").await,
        ["own agent"]
    );
    let (status, _, csv) = svc.get_text("/leaderboard?set=dev&format=csv").await;
    assert_eq!(status, 200);
    assert!(csv.lines().next().unwrap().contains(",track,"));
    assert!(csv.contains(",hosted,standard,"), "{csv}");
    let (status, _, page) = svc.get_text("/?set=dev&track=standard").await;
    assert_eq!(status, 200);
    assert!(page.contains("standard track"), "{page}");
    assert!(!page.contains("<strong>own agent</strong>"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deployment_s_price_table_prices_what_our_agent_measured() {
    let svc = Service::start(Options {
        prices: mcpbench_config::price_table("scripted-1=1:1").unwrap(),
        ..Options::default()
    })
    .await;
    let token = svc.vendor("acme", false).await;
    let (base_url, _model) = scripted_model(&svc.tasks).await;
    // The vendor states dearer prices; the deployment's table is what counts.
    let body = json!({
        "name": "priced by the table", "model": "Scripted 1", "kind": "model",
        "model_endpoint": {"base_url": base_url, "model": "scripted-1", "api_key": KEY,
                           "prices": {"input_per_mtok": 2.5, "output_per_mtok": 10.0}}
    });
    let (status, created) = svc.post("/submissions", Some(&token), &body).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    let done = svc.wait(id, &token, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    // Two completions of 100 tokens in and 20 out a task, at $1 per million either way.
    assert_eq!(
        done["scores"]["cost_per_task"], 0.00024,
        "{}",
        done["scores"]
    );
    assert_eq!(done["scores"]["cost_basis"], "measured");
    let (_, _, page) = svc.get_text("/?set=dev").await;
    assert!(page.contains("$0.00024"), "{page}");
    assert!(
        page.contains(">measured<"),
        "the page says the cost was measured"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_s_model_runs_as_a_baseline_on_the_standard_track() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let (base_url, model) = scripted_model(&svc.tasks).await;
    let plan = mcpbench_worker::Baselines {
        image: None,
        agents: Vec::new(),
        models: vec![mcpbench_config::BaselineModel {
            model: "scripted-1".into(),
            base_url,
            key: Some(KEY.into()),
        }],
    };
    let (_stop, _worker) = svc.worker(|c| c.baselines = plan).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let entry = loop {
        let (_, board) = svc.get("/leaderboard?set=dev", None).await;
        if let Some(e) = board["entries"].as_array().unwrap().first() {
            break e.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no baseline: {board}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    // Ours, on the standard track, its tokens measured; the key went to the model alone.
    assert_eq!(entry["name"], "scripted-1", "{entry}");
    assert_eq!(entry["vendor"], "MCPBench");
    assert_eq!(entry["reference"], true);
    assert_eq!(entry["track"], "standard");
    assert_eq!(entry["success_rate"], 1.0);
    assert_eq!(entry["cost_basis"], "measured");
    model.saw_only_the_key_and_the_model(2 * svc.tasks.len());
    assert!(
        !svc.pg_dump().contains(KEY),
        "the key is in the database in clear"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_model_submission_is_refused_with_the_reason_and_creates_nothing() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let token = svc.vendor("acme", false).await;
    let endpoint = json!({"base_url": "http://127.0.0.1:9/v1", "model": "m-1", "api_key": KEY});
    let with = |changes: Value| {
        let mut body = json!({"name": "n", "model": "m", "kind": "model",
                              "model_endpoint": endpoint.clone()});
        for (k, v) in changes.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let bad_key = json!({"base_url": "http://127.0.0.1:9/v1", "model": "m-1",
                         "api_key": "sk two words"});
    for (body, status, says) in [
        (
            with(json!({"model_endpoint": null})),
            422,
            "needs model_endpoint",
        ),
        (
            with(json!({"endpoint_url": "http://127.0.0.1:9/"})),
            422,
            "model_endpoint only",
        ),
        (
            with(json!({"model_endpoint": bad_key})),
            422,
            "api_key must be",
        ),
        (
            with(
                json!({"model_endpoint": {"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                           "prices": {"input_per_mtok": -1, "output_per_mtok": 1}}}),
            ),
            422,
            "prices",
        ),
        (
            with(
                json!({"model_endpoint": {"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                           "temperature": 2}}),
            ),
            400,
            "temperature",
        ),
        (
            with(json!({"model_endpoint": {"base_url": "ftp://127.0.0.1/v1", "model": "m"}})),
            422,
            "",
        ),
        (
            with(json!({"about": {"scaffold": "own"}})),
            422,
            "standard scaffold",
        ),
        (
            json!({"name": "n", "model": "m", "kind": "endpoint",
                   "endpoint_url": "http://127.0.0.1:9/", "model_endpoint": endpoint.clone()}),
            422,
            "belongs to kind",
        ),
        // An image reports its own cost: prices belong to the standard track.
        (
            json!({"name": "n", "model": "m", "kind": "docker", "image": PINNED,
                   "model_endpoint": {"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                      "prices": {"input_per_mtok": 1, "output_per_mtok": 1}}}),
            422,
            "an image reports its own cost",
        ),
        (
            json!({"name": "n", "model": "m", "kind": "docker", "image": PINNED,
                   "model_endpoint": bad_key}),
            422,
            "api_key must be",
        ),
    ] {
        let (got, problem) = svc.post("/submissions", Some(&token), &body).await;
        assert_eq!(got, status, "{body}: {problem}");
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(says), "{body}: {detail}");
        assert!(
            !problem.to_string().contains(KEY),
            "the key is echoed: {problem}"
        );
        assert!(!problem.to_string().contains("sk two words"));
    }
    let (_, mine) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(mine["submissions"].as_array().unwrap().len(), 0);
}

/// Under the hosted egress policy a model on our own networks is refused, as an agent's
/// endpoint is; and a private set takes no model unless the deployment lets hosted agents run
/// private sets (the model reads every goal).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_are_held_to_the_hosted_agents_rules() {
    let svc = Service::start(Options {
        worker: false,
        allow_private: false,
        hosted_private_sets: false,
        kept_for: mcpbench_api::KEPT_FOR,
        ..Options::default()
    })
    .await;
    let token = svc.vendor("acme", false).await;
    svc.private_set("2026-11", &svc.tasks.clone()).await;
    let body = |base_url: &str, set: &str| {
        json!({"name": "n", "model": "m", "kind": "model", "set": set,
               "model_endpoint": {"base_url": base_url, "model": "m-1"}})
    };
    for url in [
        "http://127.0.0.1:9/v1",
        "https://169.254.169.254/v1",
        "https://10.0.0.7/v1",
    ] {
        let (status, problem) = svc
            .post("/submissions", Some(&token), &body(url, "dev"))
            .await;
        assert_eq!(status, 422, "{url}: {problem}");
        assert!(
            problem["type"]
                .as_str()
                .unwrap()
                .ends_with("unsafe-endpoint"),
            "{url}: {problem}"
        );
    }
    // A private set: the model, or an image that names one, could read every goal.
    let image = json!({"name": "n", "model": "m", "kind": "docker", "set": "2026-11",
                       "image": PINNED,
                       "model_endpoint": {"base_url": "https://models.example/v1", "model": "m-1"}});
    for (body, says) in [
        (
            body("https://models.example/v1", "2026-11"),
            "your model reads every goal",
        ),
        (image, "an image that names a model"),
    ] {
        let (status, problem) = svc.post("/submissions", Some(&token), &body).await;
        assert_eq!(status, 422, "{problem}");
        let kind = problem["type"].as_str().unwrap();
        assert!(kind.ends_with("hosted-private-set"), "{problem}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(says), "{problem}");
    }
    let (_, mine) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(mine["submissions"].as_array().unwrap().len(), 0);
}

/// Where the deployment lets hosted agents run private sets, a model runs one too, and every
/// task its agent sent to it is recorded as exposed to its vendor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_on_a_private_set_is_recorded_as_having_seen_its_tasks() {
    let svc = Service::start(Options::default()).await;
    let token = svc.vendor("acme", false).await;
    let month = svc.tasks.clone();
    svc.private_set("2026-11", &month).await;
    let (base_url, _model) = scripted_model(&month).await;
    let body = json!({"name": "n", "model": "m", "kind": "model", "set": "2026-11",
                      "model_endpoint": {"base_url": base_url, "model": "scripted-1"}});
    let (status, created) = svc.post("/submissions", Some(&token), &body).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    let done = svc.wait(id, &token, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    let exposures = mcpbench_db::exposures::held_by(&svc.pool, "2026-11")
        .await
        .unwrap();
    assert_eq!(exposures.len(), month.len(), "{exposures:?}");
    assert!(exposures.iter().all(|e| e.vendor == "acme"));
    let (_, set) = svc.get("/sets/2026-11", None).await;
    assert_eq!(set["exposed"], month.len() as u64, "{set}");
}

/// The `mcpbench` binary linked statically, which `scripts/test` builds.
fn static_cli() -> std::path::PathBuf {
    let path = std::env::var_os("MCPBENCH_STATIC_CLI")
        .map(std::path::PathBuf::from)
        .expect(
            "MCPBENCH_STATIC_CLI must name a statically linked mcpbench; scripts/test builds it",
        );
    assert!(path.exists(), "{} does not exist", path.display());
    path
}

/// `mcpbench agent serve --kind llm` as a vendor would hand it in (deploy/Dockerfile's
/// `llm-agent` target: the static binary and the CA roots, nothing else), uploaded with the
/// model it calls, runs sandboxed on a private set: every call reaches the scripted model
/// through the relay with the sealed key added (the image was given a placeholder), every task
/// passes, every goal is recorded as exposed, and the board marks the entry as a sandboxed
/// image with a hosted model.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_image_reaches_its_model_through_the_relay_without_holding_the_key() {
    let svc = Service::start(Options {
        tasks: 3,
        sandbox: Some(support::sandbox(support::sandbox_config("api-model-image")).await),
        concurrency: 2,
        ..Options::default()
    })
    .await;
    let token = svc.vendor("acme", false).await;
    let month = svc.tasks.clone();
    svc.private_set("2026-11", &month).await;
    let (base_url, model) = scripted_model(&month).await;

    let tag = format!("mcpbench-test-llm:{}", std::process::id());
    let ca = std::path::Path::new("/etc/ssl/certs/ca-certificates.crt");
    let image_id = images::build_image(
        &tag,
        &[
            (&static_cli(), "/mcpbench"),
            (ca, "/etc/ssl/certs/ca-certificates.crt"),
        ],
        &[
            "/mcpbench",
            "agent",
            "serve",
            "--kind",
            "llm",
            "--addr",
            "0.0.0.0:8080",
        ],
    );
    let archive = std::fs::read(images::save(&tag)).unwrap();
    images::remove_image(&tag);
    let submission = json!({
        "name": "llm in an image", "model": "Scripted 1", "kind": "docker", "set": "2026-11",
        "model_endpoint": {"base_url": base_url, "model": "scripted-1", "api_key": KEY}
    });
    let (status, created) = svc.upload(&token, &submission, archive).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let (_, shown) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    assert_eq!(shown["kind"], "docker");
    assert_eq!(shown["model_endpoint"]["model"], "scripted-1");
    assert_eq!(shown["model_endpoint"]["key"], true);
    assert!(!shown.to_string().contains(KEY), "{shown}");

    let done = svc.wait(&id, &token, Duration::from_secs(300)).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["scores"]["passed"], month.len() as u64, "{done}");

    // Two model calls per task, each with the real key (the image sent its placeholder) and
    // the model's name, which the image read from MCPBENCH_MODEL.
    model.saw_only_the_key_and_the_model(2 * month.len());

    // The model could read every goal: each task is exposed to its vendor.
    let exposures = mcpbench_db::exposures::held_by(&svc.pool, "2026-11")
        .await
        .unwrap();
    assert_eq!(exposures.len(), month.len(), "{exposures:?}");
    assert!(exposures.iter().all(|e| e.vendor == "acme"));

    let (_, board) = svc.get("/leaderboard?set=2026-11", None).await;
    let entry = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["submission_id"] == id.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("the image is on the board: {board}"));
    assert_eq!(entry["hosting"], "sandboxed-model");
    assert_eq!(entry["track"], "open");
    images::remove_image(&image_id);
}
