//! Hostile and malformed input: forged tokens, other vendors' submissions, private tasks,
//! SSRF endpoints, oversized and malformed bodies, quotas, roles.

mod support;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpbench_db::sets;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};
use support::{JWT_SECRET, Options, Service};

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn sign(alg: Algorithm, secret: &[u8], claims: &Value) -> String {
    jsonwebtoken::encode(&Header::new(alg), claims, &EncodingKey::from_secret(secret)).unwrap()
}

fn unsigned(header: &Value, claims: &Value) -> String {
    format!(
        "{}.{}.",
        B64.encode(header.to_string()),
        B64.encode(claims.to_string())
    )
}

fn problem(status: u16, body: &Value, slug: &str) {
    assert_eq!(body["type"], format!("/problems/{slug}"), "{body}");
    assert_eq!(body["status"], status, "{body}");
    assert!(body["detail"].is_string(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_and_malformed_tokens_are_401_never_5xx() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let key = svc.vendor("acme", false).await;
    let other_key = svc.vendor("other", false).await;
    let good = svc.token_for(&key).await;
    let kid = key.split('_').nth(1).unwrap().to_owned();
    let other_id = mcpbench_db::vendors::by_key(&svc.pool, &other_key)
        .await
        .unwrap()
        .unwrap()
        .id;
    let my_id = mcpbench_db::vendors::by_key(&svc.pool, &key)
        .await
        .unwrap()
        .unwrap()
        .id;
    let claims = |f: &dyn Fn(&mut Value)| {
        let mut c = json!({"sub": my_id.to_string(), "kid": kid, "iss": "mcpbench",
                           "aud": "mcpbench-api", "iat": now(), "exp": now() + 600});
        f(&mut c);
        c
    };
    let secret = JWT_SECRET.as_bytes();
    let public_key_pem = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n";
    let confusion = {
        // HS256 signed with a public key, presented as RS256 (algorithm confusion).
        let t = sign(
            Algorithm::HS256,
            public_key_pem.as_bytes(),
            &claims(&|_| {}),
        );
        let mut parts: Vec<String> = t.split('.').map(String::from).collect();
        parts[0] = B64.encode(json!({"alg": "RS256", "typ": "JWT"}).to_string());
        parts.join(".")
    };
    let mut forged: Vec<(&str, String)> = vec![
        ("empty bearer", "Bearer ".into()),
        ("no scheme", good.clone()),
        ("basic scheme", format!("Basic {good}")),
        ("garbage", "Bearer not-a-token".into()),
        ("three empty parts", "Bearer ..".into()),
        ("dots only", "Bearer a.b.c".into()),
        (
            "alg none",
            format!(
                "Bearer {}",
                unsigned(&json!({"alg": "none", "typ": "JWT"}), &claims(&|_| {}))
            ),
        ),
        (
            "alg None",
            format!(
                "Bearer {}",
                unsigned(&json!({"alg": "None"}), &claims(&|_| {}))
            ),
        ),
        ("alg none with the real signature", {
            let sig = good.rsplit('.').next().unwrap();
            let t = unsigned(&json!({"alg": "none"}), &claims(&|_| {}));
            format!("Bearer {t}{sig}")
        }),
        (
            "wrong secret",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    b"another-secret-another-secret-0123456",
                    &claims(&|_| {})
                )
            ),
        ),
        (
            "HS384",
            format!(
                "Bearer {}",
                sign(Algorithm::HS384, secret, &claims(&|_| {}))
            ),
        ),
        (
            "HS512",
            format!(
                "Bearer {}",
                sign(Algorithm::HS512, secret, &claims(&|_| {}))
            ),
        ),
        (
            "HS256 signed with a public key",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    public_key_pem.as_bytes(),
                    &claims(&|_| {})
                )
            ),
        ),
        (
            "RS256 header, HMAC over a public key",
            format!("Bearer {confusion}"),
        ),
        (
            "expired",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| {
                        c["iat"] = json!(now() - 7200);
                        c["exp"] = json!(now() - 3600);
                    })
                )
            ),
        ),
        (
            "wrong audience",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["aud"] = json!("someone-else"))
                )
            ),
        ),
        (
            "wrong issuer",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["iss"] = json!("evil"))
                )
            ),
        ),
        (
            "no exp",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| {
                        c.as_object_mut().unwrap().remove("exp");
                    })
                )
            ),
        ),
        (
            "no aud",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| {
                        c.as_object_mut().unwrap().remove("aud");
                    })
                )
            ),
        ),
        (
            "string exp",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["exp"] = json!("9999999999"))
                )
            ),
        ),
        (
            "float exp",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["exp"] = json!(1e300))
                )
            ),
        ),
        (
            "negative exp",
            format!(
                "Bearer {}",
                sign(Algorithm::HS256, secret, &claims(&|c| c["exp"] = json!(-1)))
            ),
        ),
        (
            "sub not a number",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["sub"] = json!("admin"))
                )
            ),
        ),
        (
            "sub of another vendor",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["sub"] = json!(other_id.to_string()))
                )
            ),
        ),
        (
            "unknown kid",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["kid"] = json!("0000000000000000"))
                )
            ),
        ),
        (
            "no kid",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| {
                        c.as_object_mut().unwrap().remove("kid");
                    })
                )
            ),
        ),
        (
            "lifetime over an hour",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| c["exp"] = json!(now() + 7200))
                )
            ),
        ),
        ("tampered payload", {
            let parts: Vec<&str> = good.split('.').collect();
            let payload =
                B64.encode(claims(&|c| c["sub"] = json!(other_id.to_string())).to_string());
            format!("Bearer {}.{payload}.{}", parts[0], parts[2])
        }),
        (
            "truncated signature",
            format!("Bearer {}", &good[..good.len() - 4]),
        ),
        ("oversized", format!("Bearer {}", "a".repeat(16 * 1024))),
        ("not base64", "Bearer !!!.???.***".into()),
        (
            "json array payload",
            format!(
                "Bearer {}.{}.",
                B64.encode("{\"alg\":\"HS256\"}"),
                B64.encode("[1,2,3]")
            ),
        ),
    ];
    // A key's tokens die with the key.
    let revoked_key = svc.vendor("revoked", false).await;
    let revoked_token = svc.token_for(&revoked_key).await;
    mcpbench_db::vendors::revoke_keys(&svc.pool, "revoked")
        .await
        .unwrap();
    forged.push(("revoked key", format!("Bearer {revoked_token}")));
    assert!(forged.len() >= 20);
    for (what, value) in &forged {
        let r = svc
            .http
            .get(svc.at("/submissions"))
            .header("authorization", value)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        assert_eq!(status, 401, "{what}: {body}");
        problem(401, &body, "unauthorized");
    }
    // No header at all is 401 too, and the genuine token works.
    let (status, _) = svc.get("/submissions", None).await;
    assert_eq!(status, 401);
    let (status, _) = svc.get("/submissions", Some(&good)).await;
    assert_eq!(status, 200);
    // Bad API keys are 401 at the token endpoint.
    for k in [
        "",
        "mcpb_",
        "mcpb_x_y",
        &key[..key.len() - 1],
        &"k".repeat(5000),
        &revoked_key,
    ] {
        let (status, body) = svc.post("/auth/token", None, &json!({"api_key": k})).await;
        assert_eq!(status, 401, "{k:.20}: {body}");
    }
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
    let mut private: Vec<sets::SetTask> = svc.tasks.iter().map(sets::SetTask::from_task).collect();
    for t in &mut private {
        t.id = format!("zz-hidden-{}", t.id);
        t.task["id"] = json!(t.id);
        t.task["goal"] = json!(format!("SECRET GOAL {}", t.id));
    }
    sets::put_set(&svc.pool, "private-2026-11", false, &private)
        .await
        .unwrap();
    let (status, page) = svc.get("/tasks?set=private-2026-11", None).await;
    assert_eq!(status, 404, "{page}");
    for t in &private {
        let (status, _) = svc
            .get(&format!("/tasks/{}?set=private-2026-11", t.id), None)
            .await;
        assert_eq!(status, 404);
    }
    let mut everything = String::new();
    for path in [
        "/tasks",
        "/tasks?limit=100",
        "/sets",
        "/sets/private-2026-11",
        "/leaderboard?set=private-2026-11",
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
        (br#"{"name": "x", "model": "m", "kind": "docker", "image": "a@sha256:00"}"#.to_vec(), "application/json", 422, "unsupported-kind"),
        (br#"{"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/", "set": "nope"}"#.to_vec(), "application/json", 422, "invalid-submission"),
        (br#"{"name": "x"}"#.to_vec(), "text/plain", 415, "unsupported-media-type"),
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
    assert_eq!(
        svc.get("/submissions/not-a-uuid", Some(&token)).await.0,
        400
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monthly_quota_limits_private_sets_only() {
    let svc = Service::start(Options {
        worker: false,
        quota: Some(2),
        ..Options::default()
    })
    .await;
    let private: Vec<sets::SetTask> = svc.tasks.iter().map(sets::SetTask::from_task).collect();
    sets::put_set(&svc.pool, "month-2026-11", false, &private)
        .await
        .unwrap();
    let token = svc.token("acme").await;
    let (svc_ref, token_ref) = (&svc, &token);
    let submit = move |set: &'static str| async move {
        let body = json!({"name": "x", "model": "m", "kind": "endpoint",
                          "endpoint_url": "http://127.0.0.1:9/", "set": set});
        svc_ref.post("/submissions", Some(token_ref), &body).await
    };
    assert_eq!(submit("month-2026-11").await.0, 202);
    assert_eq!(submit("month-2026-11").await.0, 202);
    let (status, body) = submit("month-2026-11").await;
    assert_eq!(status, 429, "{body}");
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
                      "endpoint_url": "http://127.0.0.1:9/", "set": "month-2026-11"}),
        )
        .await;
    assert_eq!(status, 202);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_endpoints_need_the_admin_role() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let vendor = svc.token("acme").await;
    let admin_key = svc.vendor("ops", true).await;
    let admin = svc.token_for(&admin_key).await;
    let (status, body) = svc
        .post("/admin/vendors", Some(&vendor), &json!({"name": "new"}))
        .await;
    assert_eq!(status, 403, "{body}");
    problem(403, &body, "forbidden");
    let (status, created) = svc
        .post("/admin/vendors", Some(&admin), &json!({"name": "new"}))
        .await;
    assert_eq!(status, 201, "{created}");
    let key = created["api_key"].as_str().unwrap();
    let token = svc.token_for(key).await;
    assert_eq!(svc.get("/submissions", Some(&token)).await.0, 200);
    let (status, _) = svc
        .post("/admin/vendors", Some(&admin), &json!({"name": "new"}))
        .await;
    assert_eq!(status, 409, "names are unique");
    let (status, revoked) = svc
        .post("/admin/vendors/new/revoke", Some(&admin), &json!({}))
        .await;
    assert_eq!((status, revoked["revoked"].as_u64()), (200, Some(1)));
    assert_eq!(
        svc.get("/submissions", Some(&token)).await.0,
        401,
        "revocation is immediate"
    );
}
