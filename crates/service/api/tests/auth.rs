//! Authentication and roles: forged and malformed tokens, bad API keys, revocation, admin.

mod support;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
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
            "issued an hour from now",
            format!(
                "Bearer {}",
                sign(
                    Algorithm::HS256,
                    secret,
                    &claims(&|c| {
                        c["iat"] = json!(now() + 3600);
                        c["exp"] = json!(now() + 3600 + 600);
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
    // A key's tokens die with the key, and so does the key used as a bearer credential.
    let revoked_key = svc.vendor("revoked", false).await;
    let (status, body) = svc.get("/submissions", Some(&revoked_key)).await;
    assert_eq!(
        status, 200,
        "an API key is a bearer credential itself: {body}"
    );
    let revoked_token = svc.token_for(&revoked_key).await;
    mcpbench_db::vendors::revoke_keys(&svc.pool, "revoked")
        .await
        .unwrap();
    forged.push(("revoked key's token", format!("Bearer {revoked_token}")));
    forged.push(("revoked key", format!("Bearer {revoked_key}")));
    forged.push((
        "a key with a wrong secret",
        format!("Bearer {}x", &key[..key.len() - 1]),
    ));
    forged.push((
        "a key of no vendor",
        "Bearer mcpb_0123456789abcdef_00".into(),
    ));
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
    // No header at all is 401 too, and the genuine token works, as does one issued a few
    // seconds ahead by a replica whose clock runs fast.
    let (status, _) = svc.get("/submissions", None).await;
    assert_eq!(status, 401);
    let (status, _) = svc.get("/submissions", Some(&good)).await;
    assert_eq!(status, 200);
    let skewed = sign(
        Algorithm::HS256,
        secret,
        &claims(&|c| {
            c["iat"] = json!(now() + 10);
            c["exp"] = json!(now() + 610);
        }),
    );
    let (status, body) = svc.get("/submissions", Some(&skewed)).await;
    assert_eq!(status, 200, "{body}");
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
    assert_eq!(
        svc.get("/submissions", Some(key)).await.0,
        200,
        "the key itself"
    );
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
    assert_eq!(
        svc.get("/submissions", Some(key)).await.0,
        401,
        "for the key too"
    );
}

/// A vendor rotates its own key: the new one works at once, the old one (and a token made from
/// it) keeps working through the grace period, then stops; an operator's revocation ends a key
/// in its grace too. With no grace the old key ends at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vendor_rotates_its_own_key_and_the_old_one_ends_after_the_grace() {
    let svc = Service::start(Options {
        worker: false,
        key_grace: std::time::Duration::from_secs(2),
        ..Options::default()
    })
    .await;
    let old = svc.vendor("acme", false).await;
    let old_token = svc.token_for(&old).await;
    assert_eq!(svc.post("/auth/keys/rotate", None, &json!({})).await.0, 401);
    let (status, rotated) = svc.post("/auth/keys/rotate", Some(&old), &json!({})).await;
    assert_eq!(status, 201, "{rotated}");
    assert_eq!(rotated["old_keys"], 1, "{rotated}");
    let new = rotated["api_key"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    let ends = time::OffsetDateTime::parse(
        rotated["old_keys_end_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert!(ends > time::OffsetDateTime::now_utc(), "{rotated}");
    for (credential, what) in [
        (&old, "the old key"),
        (&old_token, "its token"),
        (&new, "the new key"),
    ] {
        assert_eq!(
            svc.get("/submissions", Some(credential)).await.0,
            200,
            "{what} in the grace"
        );
    }
    // Past the grace only the new key works.
    while time::OffsetDateTime::now_utc() <= ends {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    for (credential, status, what) in [
        (&old, 401, "the old key"),
        (&old_token, 401, "its token"),
        (&new, 200, "the new key"),
    ] {
        assert_eq!(
            svc.get("/submissions", Some(credential)).await.0,
            status,
            "{what} after the grace"
        );
    }
    let (status, body) = svc
        .post("/auth/token", None, &json!({"api_key": old}))
        .await;
    assert_eq!(status, 401, "{body}");

    // Rotated again, then revoked by an operator while the old key is in its grace: both end.
    let (_, again) = svc.post("/auth/keys/rotate", Some(&new), &json!({})).await;
    let newest = again["api_key"].as_str().unwrap();
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let (status, revoked) = svc
        .post("/admin/vendors/acme/revoke", Some(&admin), &json!({}))
        .await;
    assert_eq!(
        (status, revoked["revoked"].as_u64()),
        (200, Some(2)),
        "{revoked}"
    );
    for credential in [&new, newest] {
        assert_eq!(svc.get("/submissions", Some(credential)).await.0, 401);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_grace_a_rotated_key_ends_at_once() {
    let svc = Service::start(Options {
        worker: false,
        key_grace: std::time::Duration::ZERO,
        ..Options::default()
    })
    .await;
    let old = svc.vendor("acme", false).await;
    let (status, rotated) = svc.post("/auth/keys/rotate", Some(&old), &json!({})).await;
    assert_eq!(status, 201, "{rotated}");
    assert_eq!(svc.get("/submissions", Some(&old)).await.0, 401);
    let new = rotated["api_key"].as_str().unwrap();
    assert_eq!(svc.get("/submissions", Some(new)).await.0, 200);
}
