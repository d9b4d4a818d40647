//! The service for tests: a throwaway PostgreSQL (one per test binary, a database per test),
//! the API on a free loopback port, a worker with its gateway, reference agents on loopback.

#![allow(dead_code)]

use mcpbench_agents::AgentKind;
use mcpbench_api::{AppState, Config, MAX_TOKEN_TTL, Tokens};
use mcpbench_attest::NoteSigner;
use mcpbench_db::{PgPool, vendors};
use mcpbench_egress::Policy;
use mcpbench_sets::Custody;
use mcpbench_storage::TraceStore;
use mcpbench_tasks::Task;
use mcpbench_vault::Keyring;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

pub const JWT_SECRET: &str = "test-secret-test-secret-test-secret-0123";

pub use mcpbench_testkit::seed::dev_tasks;

/// A sandbox on this machine's Docker engine for a test's worker, in a deployment of its own
/// (so no other test's reaper judges its pods).
pub fn sandbox_config(name: &str) -> mcpbench_sandbox::SandboxConfig {
    let mut config = mcpbench_sandbox::SandboxConfig::new("test-worker");
    config.deployment = format!("{name}-{}", std::process::id());
    config.readiness = Duration::from_secs(20);
    config
}

pub async fn sandbox(config: mcpbench_sandbox::SandboxConfig) -> mcpbench_sandbox::Sandbox {
    mcpbench_sandbox::Sandbox::connect(config)
        .await
        .expect("the Docker engine answers")
}

pub struct Service {
    pub url: String,
    pub pool: PgPool,
    pub http: reqwest::Client,
    pub tasks: Vec<Task>,
    pub traces: tempfile::TempDir,
    /// The keys of private sets, shared with the API (the worker holds the same keyring).
    pub custody: Arc<Custody>,
    pub db_url: String,
    /// The keyring the workers open private sets with, as `MCPBENCH_TASK_KEYS` says it.
    keyring_spec: String,
    stop: tokio::sync::watch::Sender<bool>,
    handles: Vec<tokio::task::AbortHandle>,
}

pub struct Options {
    pub tasks: usize,
    /// The dev set's tasks this test runs, chosen from the whole set (`tasks` is then unread).
    pub pick: Option<fn(Vec<Task>) -> Vec<Task>>,
    /// Endpoints may be private (loopback agents); false tests the hosted policy.
    pub allow_private: bool,
    pub worker: bool,
    pub quota: Option<i64>,
    /// The worker runs Docker images in this sandbox.
    pub sandbox: Option<mcpbench_sandbox::Sandbox>,
    /// The worker's time budget per task.
    pub time_budget: Duration,
    /// The worker's concurrency.
    pub concurrency: usize,
    /// The largest image archive the API accepts.
    pub image_upload_max_bytes: u64,
    /// `MCPBENCH_PUBLIC_URL`.
    pub public_url: Option<String>,
    /// Connection caps, open submissions, rate limits (none of the last two by default: tests
    /// submit freely unless they test them).
    pub admission: mcpbench_api::Admission,
    /// The most jobs one vendor runs at once in the test's worker (no cap by default).
    pub vendor_max_running: Option<i64>,
    /// `MCPBENCH_HOSTED_PRIVATE_SETS` (on by default: the tests' agents are loopback endpoints).
    pub hosted_private_sets: bool,
    /// How long kept boards and pages live without a notification.
    pub kept_for: Duration,
    /// How long old keys work after a rotation.
    pub key_grace: Duration,
    /// The calendar the API runs (none by default: the tests' months are turned by hand).
    pub calendar: Option<mcpbench_api::CalendarRun>,
    /// The worker's price table (`MCPBENCH_PRICES`; empty by default).
    pub prices: mcpbench_config::PriceTable,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tasks: 6,
            pick: None,
            allow_private: true,
            worker: true,
            quota: Some(10),
            sandbox: None,
            time_budget: Duration::from_secs(30),
            concurrency: 4,
            image_upload_max_bytes: mcpbench_api::DEFAULT_IMAGE_UPLOAD_MAX_BYTES,
            public_url: None,
            admission: mcpbench_api::Admission {
                max_open_submissions: None,
                rate_limits: false,
                ..Default::default()
            },
            vendor_max_running: None,
            hosted_private_sets: true,
            kept_for: mcpbench_api::KEPT_FOR,
            key_grace: Duration::from_secs(86_400),
            calendar: None,
            prices: Default::default(),
        }
    }
}

impl Service {
    pub async fn start(options: Options) -> Self {
        let mcpbench_testkit::Database { pool, url } = mcpbench_testkit::fresh("api", 16).await;
        let tasks = match options.pick {
            Some(pick) => pick(mcpbench_testkit::seed::dev_set()),
            None => dev_tasks(options.tasks),
        };
        mcpbench_testkit::seed::put_dev_set(&pool, &tasks).await;
        let traces = tempfile::tempdir().unwrap();
        let store = TraceStore::local(traces.path()).unwrap();
        let metrics = mcpbench_telemetry::Metrics::new();
        let policy = if options.allow_private {
            Policy::local()
        } else {
            Policy::hosted()
        };
        let (keyring, keyring_spec) = Keyring::generate("test1");
        let custody = Arc::new(Custody {
            keyring: Some(keyring),
            signer: Some(NoteSigner::from_seed("mcpbench.test", &[42u8; 32]).unwrap()),
            service: "mcpbench.test".into(),
        });
        let config = Config {
            tokens: Arc::new(Tokens::new(JWT_SECRET.as_bytes(), MAX_TOKEN_TTL).unwrap()),
            egress: policy,
            monthly_quota: options.quota,
            default_set: "dev".into(),
            max_attempts: 3,
            image_upload_max_bytes: options.image_upload_max_bytes,
            custody: custody.clone(),
            public_url: options.public_url.clone(),
            admission: options.admission.clone(),
            hosted_private_sets: options.hosted_private_sets,
            kept_for: options.kept_for,
            key_grace: options.key_grace,
            calendar: options.calendar.clone(),
        };
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let mut handles = Vec::new();
        if options.worker {
            let mut config = mcpbench_worker::Config::new("test-worker");
            config.egress = policy;
            config.lease = Duration::from_secs(5);
            config.poll = Duration::from_millis(200);
            config.vendor_max_running = options.vendor_max_running;
            config.time_budget = options.time_budget;
            config.concurrency = options.concurrency;
            config.sandbox = options.sandbox.clone();
            config.keyring = Some(Arc::new(Keyring::parse(&keyring_spec).unwrap()));
            // A failed completion webhook is tried again within the test's patience.
            config.webhook_backoff = Duration::from_millis(300);
            config.prices = options.prices.clone();
            let worker = mcpbench_testkit::loopback::worker(
                pool.clone(),
                store.clone(),
                metrics.clone(),
                config,
                stopped.clone(),
            )
            .await;
            handles.push(worker.abort_handle());
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = AppState::new(pool.clone(), store, metrics, config);
        let mut api_stopped = stopped.clone();
        let api = tokio::spawn(async move {
            mcpbench_api::serve(listener, state, async move {
                let _ = api_stopped.wait_for(|s| *s).await;
            })
            .await
            .unwrap();
        });
        handles.push(api.abort_handle());
        if options.sandbox.is_some() {
            // The worker reports what it can run at start; submissions check it.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            while !mcpbench_db::workers::docker_available(&pool, Duration::from_secs(60))
                .await
                .unwrap()
            {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the worker never reported"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Self {
            url: base,
            pool,
            http: reqwest::Client::new(),
            tasks,
            traces,
            custody,
            db_url: url,
            keyring_spec,
            stop,
            handles,
        }
    }

    /// One more worker on this service's database and trace store, set as `adjust` leaves the
    /// test worker's settings; it stops when the returned sender sends `true`.
    pub async fn worker(
        &self,
        adjust: impl FnOnce(&mut mcpbench_worker::Config),
    ) -> (
        tokio::sync::watch::Sender<bool>,
        tokio::task::JoinHandle<Result<(), String>>,
    ) {
        let mut config = mcpbench_worker::Config::new("extra-worker");
        config.egress = Policy::local();
        config.lease = Duration::from_secs(5);
        config.poll = Duration::from_millis(200);
        config.keyring = Some(Arc::new(Keyring::parse(&self.keyring_spec).unwrap()));
        adjust(&mut config);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let store = TraceStore::local(self.traces.path()).unwrap();
        let handle = mcpbench_testkit::loopback::worker(
            self.pool.clone(),
            store,
            mcpbench_telemetry::Metrics::new(),
            config,
            stopped,
        )
        .await;
        (stop, handle)
    }

    /// The whole database as `pg_dump` writes it.
    pub fn pg_dump(&self) -> String {
        mcpbench_testkit::pg_dump(&self.db_url)
    }

    /// A private set (sealed, committed, live) of `tasks`, named by its month.
    pub async fn private_set(&self, month: &str, tasks: &[Task]) {
        mcpbench_sets::create(&self.pool, &self.custody, month, tasks, false)
            .await
            .unwrap();
        mcpbench_sets::activate(&self.pool, &self.custody, month)
            .await
            .unwrap();
    }

    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// A new vendor's API key.
    pub async fn vendor(&self, name: &str, admin: bool) -> String {
        vendors::create(&self.pool, name, admin, false)
            .await
            .unwrap()
            .1
    }

    /// A bearer token for a new vendor.
    pub async fn token(&self, name: &str) -> String {
        let key = self.vendor(name, false).await;
        self.token_for(&key).await
    }

    pub async fn token_for(&self, key: &str) -> String {
        let r = self
            .http
            .post(self.at("/auth/token"))
            .json(&json!({ "api_key": key }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        body["access_token"].as_str().unwrap().to_owned()
    }

    /// Serves a reference agent on loopback with `secret`; returns its URL.
    pub async fn agent(&self, kind: AgentKind, secret: &[u8]) -> String {
        let tasks: Vec<Arc<Task>> = self.tasks.iter().cloned().map(Arc::new).collect();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let app = mcpbench_agents::router(kind, &tasks, secret);
        tokio::spawn(async move {
            let _ = mcpbench_agents::serve(listener, app).await;
        });
        url
    }

    /// `GET path` as text: the status, the content type and the body.
    pub async fn get_text(&self, path: &str) -> (u16, String, String) {
        let r = self.http.get(self.at(path)).send().await.unwrap();
        let status = r.status().as_u16();
        let kind = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        (status, kind, r.text().await.unwrap())
    }

    /// Submits a reference agent of `kind` that knows `tasks`, as `model`, to `set` (the
    /// default set when `None`). The agent answers only once the returned closure is called,
    /// so the submission stays unfinished until then.
    pub async fn submit_reference(
        &self,
        token: &str,
        set: Option<&str>,
        (kind, model): (AgentKind, &str),
        tasks: &[Task],
    ) -> (String, impl FnOnce() + use<>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let mut body = json!({"name": format!("{model}-agent"), "model": model,
                              "kind": "endpoint", "endpoint_url": url});
        if let Some(set) = set {
            body["set"] = json!(set);
        }
        let (status, created) = self.post("/submissions", Some(token), &body).await;
        assert_eq!(status, 202, "{created}");
        let secret = created["signing_secret"]
            .as_str()
            .unwrap()
            .as_bytes()
            .to_vec();
        let tasks: Vec<Arc<Task>> = tasks.iter().cloned().map(Arc::new).collect();
        let serve = move || {
            let app = mcpbench_agents::router(kind, &tasks, &secret);
            tokio::spawn(async move {
                let _ = mcpbench_agents::serve(listener, app).await;
            });
        };
        (created["id"].as_str().unwrap().to_string(), serve)
    }

    /// Submits a reference agent of `kind` as `model` on the default set, serves it, and
    /// waits for the submission to finish; returns its id.
    pub async fn submit_and_wait(&self, token: &str, kind: AgentKind, model: &str) -> String {
        let (id, serve) = self
            .submit_reference(token, None, (kind, model), &self.tasks)
            .await;
        serve();
        self.wait(&id, token, Duration::from_secs(120)).await;
        id
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let mut req = self.http.get(self.at(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        let body = r.json().await.unwrap_or(Value::Null);
        (status, body)
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let mut req = self.http.post(self.at(path)).json(body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        let body = r.json().await.unwrap_or(Value::Null);
        (status, body)
    }

    /// `POST /submissions` as multipart: the submission's JSON and an image archive.
    pub async fn upload(&self, token: &str, submission: &Value, archive: Vec<u8>) -> (u16, Value) {
        let form = reqwest::multipart::Form::new()
            .part(
                "submission",
                reqwest::multipart::Part::text(submission.to_string())
                    .mime_str("application/json")
                    .unwrap(),
            )
            .part(
                "image",
                reqwest::multipart::Part::bytes(archive)
                    .file_name("image.tar")
                    .mime_str("application/x-tar")
                    .unwrap(),
            );
        let (status, body) = self.post_form(token, form).await;
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    /// `POST /submissions` with any multipart form; the status and the body's text.
    pub async fn post_form(&self, token: &str, form: reqwest::multipart::Form) -> (u16, String) {
        let r = self
            .http
            .post(self.at("/submissions"))
            .bearer_auth(token)
            .multipart(form)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    /// Publishes a submission's traces as its owner.
    pub async fn publish(&self, id: &str, token: &str) {
        let path = format!("/submissions/{id}/publish");
        let (status, body) = self.post(&path, Some(token), &json!({})).await;
        assert_eq!(status, 200, "{body}");
    }

    /// The id of a submission's first run, as its owner lists them.
    pub async fn first_run(&self, id: &str, token: &str) -> String {
        let (status, runs) = self
            .get(&format!("/submissions/{id}/runs"), Some(token))
            .await;
        assert_eq!(status, 200, "{runs}");
        runs["runs"][0]["id"].as_str().unwrap().to_string()
    }

    /// Polls a submission until it leaves `queued` and `running` (at most `limit`).
    pub async fn wait(&self, id: &str, token: &str, limit: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let (status, body) = self.get(&format!("/submissions/{id}"), Some(token)).await;
            assert_eq!(status, 200, "{body}");
            if !matches!(body["status"].as_str(), Some("queued" | "running")) {
                return body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the submission did not finish in time: {body}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        for h in &self.handles {
            h.abort();
        }
    }
}
