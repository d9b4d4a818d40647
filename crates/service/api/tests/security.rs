//! Hostile and malformed input: other vendors' submissions, private tasks, SSRF endpoints,
//! oversized and malformed bodies, quotas.

mod support;

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{Options, Service};

fn problem(status: u16, body: &Value, slug: &str) {
    assert_eq!(body["type"], format!("/problems/{slug}"), "{body}");
    assert_eq!(body["status"], status, "{body}");
    assert!(body["detail"].is_string(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vendors_see_only_their_own_submissions() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let a = svc.token("vendor-a").await;
    let b = svc.token("vendor-b").await;
    let (status, created) = svc
        .post(
            "/submissions",
            Some(&a),
            &json!({"name": "x", "model": "m", "kind": "endpoint",
                                               "endpoint_url": "http://127.0.0.1:9/"}),
        )
        .await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    for path in [
        format!("/submissions/{id}"),
        format!("/submissions/{id}/runs"),
    ] {
        let (status, body) = svc.get(&path, Some(&b)).await;
        assert_eq!(status, 404, "{path}: {body}");
        problem(404, &body, "not-found");
        assert_eq!(svc.get(&path, Some(&a)).await.0, 200);
    }
    for action in ["cancel", "publish"] {
        let (status, _) = svc
            .post(&format!("/submissions/{id}/{action}"), Some(&b), &json!({}))
            .await;
        assert_eq!(status, 404, "{action}");
    }
    let (_, list) = svc.get("/submissions", Some(&b)).await;
    assert_eq!(list["submissions"], json!([]));
    // And the submission was not touched by B's attempts.
    let (_, mine) = svc.get(&format!("/submissions/{id}"), Some(&a)).await;
    assert_eq!(
        (mine["status"].as_str(), mine["published"].as_bool()),
        (Some("queued"), Some(false))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_tasks_never_appear_in_public_responses() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let mut private = svc.tasks.clone();
    for t in &mut private {
        t.id = format!("zz-hidden-{}", t.id);
        t.goal = format!("SECRET GOAL {}", t.id);
    }
    svc.private_set("2026-11", &private).await;
    let (status, page) = svc.get("/tasks?set=2026-11", None).await;
    assert_eq!(status, 404, "{page}");
    for t in &private {
        let (status, _) = svc.get(&format!("/tasks/{}?set=2026-11", t.id), None).await;
        assert_eq!(status, 404);
    }
    let mut everything = String::new();
    for path in [
        "/tasks",
        "/tasks?limit=100",
        "/sets",
        "/sets/2026-11",
        "/sets/2026-11/checkpoint",
        "/sets/2026-11/bundle",
        "/leaderboard?set=2026-11",
        "/openapi.json",
    ] {
        let r = svc.http.get(svc.at(path)).send().await.unwrap();
        everything.push_str(&r.text().await.unwrap());
    }
    assert!(!everything.contains("SECRET GOAL"), "a private goal leaked");
    assert!(
        !everything.contains("zz-hidden-"),
        "a private task id leaked: {everything:.400}"
    );
    // The public dev set is browsable, page by page.
    let (status, page) = svc.get("/tasks?limit=4", None).await;
    assert_eq!(status, 200);
    assert_eq!(page["tasks"].as_array().unwrap().len(), 4);
    let after = page["next_after"].as_str().unwrap();
    let (_, rest) = svc.get(&format!("/tasks?after={after}"), None).await;
    assert_eq!(rest["tasks"].as_array().unwrap().len(), svc.tasks.len() - 4);
    let (status, one) = svc.get(&format!("/tasks/{}", svc.tasks[0].id), None).await;
    assert_eq!(
        (status, one["id"].as_str()),
        (200, Some(svc.tasks[0].id.as_str()))
    );
}

/// A loopback listener that counts the connections it accepts.
async fn canary() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    tokio::spawn(async move {
        while let Ok((_s, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssrf_endpoints_are_refused_before_any_connection() {
    let svc = Service::start(Options {
        allow_private: false,
        ..Options::default()
    })
    .await;
    let token = svc.token("acme").await;
    let (p, hits) = canary().await;
    let long = format!("https://example.com/{}", "a".repeat(3000));
    let forms = vec![
        format!("http://127.0.0.1:{p}/"),
        format!("https://127.0.0.1:{p}/"),
        format!("https://localhost:{p}/"),
        format!("https://LOCALHOST:{p}/"),
        format!("https://localhost.:{p}/"),
        format!("https://agent.localhost:{p}/"),
        format!("https://2130706433:{p}/"),
        format!("https://0x7f000001:{p}/"),
        format!("https://0177.0.0.1:{p}/"),
        format!("https://127.1:{p}/"),
        format!("https://127.0.1:{p}/"),
        format!("https://0x7f.1:{p}/"),
        format!("https://%31%32%37.0.0.1:{p}/"),
        format!("https://[::1]:{p}/"),
        format!("https://[::ffff:127.0.0.1]:{p}/"),
        format!("https://[::ffff:7f00:1]:{p}/"),
        format!("https://[0:0:0:0:0:ffff:127.0.0.1]:{p}/"),
        format!("https://0.0.0.0:{p}/"),
        format!("https://0:{p}/"),
        format!("https://[::]:{p}/"),
        "https://169.254.169.254/latest/meta-data/".into(),
        "https://[::ffff:169.254.169.254]/".into(),
        "https://[fd00:ec2::254]/".into(),
        "https://10.0.0.1/".into(),
        "https://172.16.0.1/".into(),
        "https://192.168.1.1/".into(),
        "https://100.64.0.1/".into(),
        "https://[fc00::1]/".into(),
        "https://[fe80::1]/".into(),
        "https://224.0.0.1/".into(),
        "https://255.255.255.255/".into(),
        format!("https://user:pass@127.0.0.1:{p}/"),
        "https://user@example.com/".into(),
        "http://example.com/".into(),
        "file:///etc/passwd".into(),
        "ftp://example.com/".into(),
        format!("gopher://127.0.0.1:{p}/"),
        "javascript:alert(1)".into(),
        "data:text/plain,hello".into(),
        "https://".into(),
        "not a url".into(),
        long,
        format!("https://127.0.0.1.nip.io:{p}/"),
        "https://no-such-host.invalid/".into(),
    ];
    assert!(forms.len() >= 30);
    for url in &forms {
        let (status, body) = svc
            .post(
                "/submissions",
                Some(&token),
                &json!({"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": url}),
            )
            .await;
        assert_eq!(status, 422, "{url:.80}: {body}");
        problem(422, &body, "unsafe-endpoint");
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the private listener was reached"
    );
    let (_, list) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(list["submissions"], json!([]), "nothing was queued");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_get_problems_and_change_nothing() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let token = svc.token("acme").await;
    let send = |body: Vec<u8>, content_type: &'static str| {
        svc.http
            .post(svc.at("/submissions"))
            .bearer_auth(&token)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let big = format!(
        r#"{{"name": "{}", "model": "m", "kind": "endpoint"}}"#,
        "x".repeat(200_000)
    );
    let cases: Vec<(Vec<u8>, &str, u16, &str)> = vec![
        (big.into_bytes(), "application/json", 413, "too-large"),
        (b"{".to_vec(), "application/json", 400, "bad-request"),
        (b"{\"name\": }".to_vec(), "application/json", 400, "bad-request"),
        (b"[]".to_vec(), "application/json", 400, "bad-request"),
        (b"null".to_vec(), "application/json", 400, "bad-request"),
        (vec![0xff, 0xfe, 0x00], "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m"}"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m", "kind": "vm"}"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "extra": 1}"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/"}"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/", "trials": 0}"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/", "trials": 99}"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint"}"#.to_vec(), "application/json", 422, "invalid-submission"),
        (br#"{"name": "x", "model": "m", "kind": "docker", "image": "a@sha256:00"}"#.to_vec(), "application/json", 422, "docker-unavailable"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/", "set": "nope"}"#.to_vec(), "application/json", 422, "invalid-submission"),
        (br#"{"name": "x"}"#.to_vec(), "text/plain", 415, "unsupported-media-type"),
        // A valid submission with bytes after it: refused whole, not read up to the brace.
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/"}xyz"#.to_vec(), "application/json", 400, "bad-request"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/"} {}"#.to_vec(), "application/json", 400, "bad-request"),
    ];
    for (body, content_type, status, slug) in cases {
        let shown = String::from_utf8_lossy(&body)
            .chars()
            .take(60)
            .collect::<String>();
        let r = send(body, content_type).await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{shown}");
        assert_eq!(
            r.headers()["content-type"],
            "application/problem+json",
            "{shown}"
        );
        let problem_body: Value = r.json().await.unwrap();
        problem(status, &problem_body, slug);
    }
    let (_, list) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(list["submissions"], json!([]), "nothing was queued");
    // Query strings are checked as well.
    assert_eq!(svc.get("/leaderboard?set=a%20b", None).await.0, 400);
    assert_eq!(
        svc.get("/leaderboard?server=a&category=b", None).await.0,
        400
    );
    assert_eq!(
        svc.get(&format!("/leaderboard?set={}", "a".repeat(500)), None)
            .await
            .0,
        400
    );
    assert_eq!(
        svc.get("/submissions?limit=100000", Some(&token)).await.0,
        400
    );
    assert_eq!(
        svc.get("/submissions?before=yesterday", Some(&token))
            .await
            .0,
        400
    );
    // Malformed paths and queries are problems too, and never repeat what was sent.
    for (path, auth) in [
        ("/submissions/not-a-uuid%3Cb%3E", true),
        ("/runs/zz%3Cb%3Ezz", false),
        ("/submissions?before=%3Cb%3Ezz", true),
        ("/tasks?limit=%3Cb%3Ezz", false),
        ("/tasks?server=%3Cb%3Ezz", false),
        ("/sets/%3Cb%3Ezz", false),
    ] {
        let mut r = svc.http.get(svc.at(path));
        if auth {
            r = r.bearer_auth(&token);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status().as_u16(), 400, "{path}");
        assert_eq!(
            r.headers()["content-type"],
            "application/problem+json",
            "{path}"
        );
        let body = r.text().await.unwrap();
        assert!(
            !body.contains("<b>") && !body.contains("zz"),
            "{path}: {body}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monthly_quota_limits_private_sets_only() {
    let svc = Service::start(Options {
        worker: false,
        quota: Some(2),
        ..Options::default()
    })
    .await;
    svc.private_set("2026-11", &svc.tasks).await;
    let token = svc.token("acme").await;
    let (svc_ref, token_ref) = (&svc, &token);
    let submit = move |set: &'static str| async move {
        let body = json!({"name": "x", "model": "m", "kind": "endpoint",
                          "endpoint_url": "http://127.0.0.1:9/", "set": set});
        svc_ref.post("/submissions", Some(token_ref), &body).await
    };
    let (status, first) = submit("2026-11").await;
    assert_eq!(status, 202);
    assert_eq!(submit("2026-11").await.0, 202);
    // One failed on our side before any run was recorded: it showed nothing, and is not
    // counted.
    sqlx::query("UPDATE submissions SET status = 'failed' WHERE id = $1::uuid")
        .bind(first["id"].as_str().unwrap())
        .execute(&svc.pool)
        .await
        .unwrap();
    assert_eq!(submit("2026-11").await.0, 202);
    let r = svc
        .http
        .post(svc.at("/submissions"))
        .bearer_auth(&token)
        .json(&json!({"name": "x", "model": "m", "kind": "endpoint",
                      "endpoint_url": "http://127.0.0.1:9/", "set": "2026-11"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    // Ask again when the month turns (UTC): at most 31 days away.
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=31 * 86_400).contains(&wait), "{wait}");
    let body: serde_json::Value = r.json().await.unwrap();
    problem(429, &body, "quota-exceeded");
    for _ in 0..4 {
        assert_eq!(submit("dev").await.0, 202, "the dev set is unlimited");
    }
    // Another vendor has a quota of its own.
    let other = svc.token("other").await;
    let (status, _) = svc
        .post(
            "/submissions",
            Some(&other),
            &json!({"name": "x", "model": "m", "kind": "endpoint",
                      "endpoint_url": "http://127.0.0.1:9/", "set": "2026-11"}),
        )
        .await;
    assert_eq!(status, 202);
}
