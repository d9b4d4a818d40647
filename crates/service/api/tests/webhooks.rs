//! The completion webhook (docs/protocol.md, section 10): a submission that names a URL is
//! POSTed there when it ends, signed as the requests to its agent are and checked by the same
//! verifier; a receiver that fails is tried again with the same id; a URL that points where
//! agents may not is refused at submission.

mod support;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{Options, Service};

/// What a receiver was sent, in order.
type Received = Arc<Mutex<Vec<(HeaderMap, Bytes)>>>;

/// A receiver on loopback that answers 500 to its first `failures` requests, then 204.
async fn receiver(failures: usize) -> (String, Received) {
    let got: Received = Arc::default();
    let app = Router::new()
        .route(
            "/hook",
            post(
                |State((got, failures)): State<(Received, usize)>,
                 headers: HeaderMap,
                 body: Bytes| async move {
                    let mut got = got.lock().unwrap();
                    got.push((headers, body));
                    if got.len() <= failures {
                        StatusCode::INTERNAL_SERVER_ERROR
                    } else {
                        StatusCode::NO_CONTENT
                    }
                },
            ),
        )
        .with_state((got.clone(), failures));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, got)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_finished_submission_is_posted_signed_and_a_failing_receiver_is_tried_again() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    let (hook, got) = receiver(1).await;

    // The oracle, submitted with a webhook, served with the secret the answer gives.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/", listener.local_addr().unwrap());
    let (status, created) = svc
        .post(
            "/submissions",
            Some(&token),
            &json!({"name": "oracle-agent", "model": "oracle-1", "kind": "endpoint",
                    "endpoint_url": endpoint, "webhook_url": hook}),
        )
        .await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let secret = created["signing_secret"].as_str().unwrap().to_string();
    let tasks: Vec<_> = svc.tasks.iter().cloned().map(Arc::new).collect();
    let app = mcpbench_agents::router(AgentKind::Oracle, &tasks, secret.as_bytes());
    tokio::spawn(async move { mcpbench_agents::serve(listener, app).await });
    svc.wait(&id, &token, Duration::from_secs(120)).await;

    // The first attempt is answered 500, the second is taken.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while got.lock().unwrap().len() < 2 {
        assert!(tokio::time::Instant::now() < deadline, "no second attempt");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let got = got.lock().unwrap().clone();
    let message = format!("finished-{id}");
    for (headers, body) in &got {
        assert_eq!(headers["webhook-id"], message.as_str());
        assert_eq!(headers["content-type"], "application/json");
        // Checked as an agent checks a request, with the same secret.
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let verifier = mcpbench_runner::Verifier::new(secret.as_bytes());
        assert_eq!(verifier.check(headers, body, now), Ok(message.clone()));
        let wrong = mcpbench_runner::Verifier::new(b"another secret");
        assert!(wrong.check(headers, body, now).is_err());
        let sent: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(sent["type"], "submission.finished");
        assert_eq!(sent["data"]["submission_id"], id.as_str());
        assert_eq!(sent["data"]["status"], "completed");
        assert_eq!(sent["data"]["success_rate"], 1.0, "{sent}");
        assert_eq!(sent["data"]["set"], "dev");
    }

    // How it went is on the submission.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let webhook = loop {
        let (_, view) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
        if view["webhook"]["delivered_at"].is_string() {
            break view["webhook"].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "{view}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(webhook["url"], hook.as_str());
    assert_eq!(webhook["attempts"], 2, "{webhook}");
    assert!(webhook.get("last_error").is_none(), "{webhook}");
    // Delivered once: nothing more comes.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (_, view) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    assert_eq!(view["webhook"]["attempts"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_webhook_url_agents_could_not_reach_is_refused_and_nothing_is_queued() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let token = svc.token("acme").await;
    let submit = |webhook: Value| {
        let body = json!({"name": "a", "model": "m", "kind": "endpoint",
                          "endpoint_url": "http://127.0.0.1:9/", "webhook_url": webhook});
        let (svc, token) = (&svc, &token);
        async move { svc.post("/submissions", Some(token), &body).await }
    };
    for (url, status, kind) in [
        (
            "http://169.254.169.254/latest/meta-data",
            422,
            "unsafe-webhook",
        ),
        ("file:///etc/passwd", 422, "unsafe-webhook"),
        ("not a url", 422, "unsafe-webhook"),
    ] {
        let (got, problem) = submit(json!(url)).await;
        assert_eq!(got, status, "{url}: {problem}");
        assert!(
            problem["type"].as_str().unwrap().ends_with(kind),
            "{problem}"
        );
        assert!(problem["detail"].as_str().unwrap().contains("webhook_url"));
    }
    let (got, problem) = submit(json!(format!("https://example.org/{}", "a".repeat(3000)))).await;
    assert_eq!(got, 400, "{problem}");
    let (got, _) = submit(json!(42)).await;
    assert_eq!(got, 400);
    let (_, list) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(
        list["submissions"],
        json!([]),
        "nothing was kept of a refused submission"
    );
}
