//! What one client can hold or repeat: a vendor that floods the queue with an agent that
//! never answers leaves another vendor its share of the workers; open submissions per set are
//! capped; failed key exchanges and submissions are rate-limited (429 with `Retry-After`);
//! a request header that never finishes is answered by closing the connection, one address
//! holds a bounded number of connections, and behind our proxy each forwarded client holds a
//! bounded number of open requests.

mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::time::Duration;
use support::{Options, Service};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An agent that accepts connections and never answers: every run holds its worker slot for
/// the whole time budget.
async fn tarpit() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    url
}

fn retry_after(r: &reqwest::Response) -> u64 {
    r.headers()
        .get("retry-after")
        .expect("a 429 says when to retry")
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After in whole seconds")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flooding_vendor_with_a_tarpit_agent_leaves_another_vendor_its_share() {
    let svc = Service::start(Options {
        tasks: 6,
        concurrency: 4,
        // Each tarpit run holds its slot this long; the honest submission needs far less.
        time_budget: Duration::from_secs(10),
        vendor_max_running: Some(2),
        admission: mcpbench_api::Admission {
            max_open_submissions: Some(3),
            rate_limits: false,
            ..Default::default()
        },
        ..Options::default()
    })
    .await;
    let flood = svc.token("flood").await;
    let honest = svc.token("honest").await;
    let trap = tarpit().await;
    let body = json!({"name": "tarpit", "model": "m", "kind": "endpoint", "endpoint_url": trap});
    let mut flooding = Vec::new();
    for _ in 0..3 {
        let (status, created) = svc.post("/submissions", Some(&flood), &body).await;
        assert_eq!(status, 202, "{created}");
        flooding.push(created["id"].as_str().unwrap().to_string());
    }
    // A fourth open submission to the same set is refused until one finishes, with a time
    // to ask again.
    let r = svc
        .http
        .post(svc.at("/submissions"))
        .bearer_auth(&flood)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(r.headers()["retry-after"], "60");
    let refused: serde_json::Value = r.json().await.unwrap();
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("queued or running, the most allowed at once"),
        "{refused}"
    );
    // The flood holds its two slots; the honest vendor's submission comes after all of it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (id, serve) = svc
        .submit_reference(&honest, None, (AgentKind::Oracle, "oracle"), &svc.tasks)
        .await;
    serve();
    let watcher = {
        let pool = svc.pool.clone();
        tokio::spawn(async move {
            let mut most = 0;
            loop {
                let n: i64 = sqlx::query_scalar(
                    "SELECT count(*) FROM jobs j JOIN vendors v ON v.id = j.vendor_id
                     WHERE v.name = 'flood' AND j.state = 'running'",
                )
                .fetch_one(&pool)
                .await
                .unwrap();
                most = most.max(n);
                tokio::time::sleep(Duration::from_millis(50)).await;
                if most > 2 {
                    return most;
                }
            }
        })
    };
    let done = svc.wait(&id, &honest, Duration::from_secs(60)).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["scores"]["success_rate"], 1.0, "{done}");
    // It ran on the slots the flood could not take: not one tarpit run had ended by then.
    let flood_done: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM runs r JOIN submissions s ON s.id = r.submission_id
         JOIN vendors v ON v.id = s.vendor_id WHERE v.name = 'flood'",
    )
    .fetch_one(&svc.pool)
    .await
    .unwrap();
    assert_eq!(
        flood_done, 0,
        "the honest submission waited behind the flood"
    );
    assert!(
        !watcher.is_finished(),
        "the flooding vendor ran more than its cap of 2 at once: {:?}",
        watcher.await
    );
    watcher.abort();
    for id in &flooding {
        let (status, _) = svc
            .post(
                &format!("/submissions/{id}/cancel"),
                Some(&flood),
                &json!({}),
            )
            .await;
        assert_eq!(status, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_key_exchanges_and_submissions_are_rate_limited_with_retry_after() {
    let svc = Service::start(Options {
        worker: false,
        admission: mcpbench_api::Admission {
            max_open_submissions: None,
            rate_limits: true,
            // The test plays several clients by the address its proxy would forward.
            trust_forwarded_for: true,
            ..Default::default()
        },
        ..Options::default()
    })
    .await;
    let key = svc.vendor("acme", false).await;
    let exchange = |key: String, from: &'static str| {
        let r = svc
            .http
            .post(svc.at("/auth/token"))
            .header("x-forwarded-for", format!("198.51.100.9, {from}"))
            .json(&json!({ "api_key": key }));
        async move { r.send().await.unwrap() }
    };
    // One address: ten wrong keys are refused as such, then a wrong key waits; a right key
    // from the same address passes all the same (only failures are held back).
    for i in 0..10 {
        let r = exchange(format!("mcpb_nope{i}_secret"), "203.0.113.1").await;
        assert_eq!(r.status(), 401);
    }
    let r = exchange("mcpb_nope10_secret".into(), "203.0.113.1").await;
    assert_eq!(r.status(), 429);
    assert!(retry_after(&r) >= 1);
    assert_eq!(
        r.headers()["content-type"],
        mcpbench_api::PROBLEM_JSON,
        "a problem like every other error"
    );
    let body: Value = r.json().await.unwrap();
    assert!(!body.to_string().contains("nope10"), "{body}");
    assert_eq!(exchange(key.clone(), "203.0.113.1").await.status(), 200);
    // Another address is not held back by it.
    assert_eq!(
        exchange("mcpb_nope11_secret".into(), "203.0.113.2")
            .await
            .status(),
        401
    );

    // One key: wrong secrets for its prefix from many addresses, then a wrong secret waits
    // wherever it comes from; the key itself does not (its prefix is in clear in every token,
    // so anyone could otherwise lock its vendor out).
    let prefix = key.rsplit_once('_').unwrap().0.to_string();
    for i in 0..5 {
        let from: &'static str = [
            "203.0.113.10",
            "203.0.113.11",
            "203.0.113.12",
            "203.0.113.13",
            "203.0.113.14",
        ][i];
        let r = exchange(format!("{prefix}_wrongsecret"), from).await;
        assert_eq!(r.status(), 401);
    }
    let r = exchange(format!("{prefix}_wrongsecret"), "203.0.113.20").await;
    assert_eq!(r.status(), 429);
    assert!(retry_after(&r) >= 1);
    assert_eq!(exchange(key.clone(), "203.0.113.20").await.status(), 200);

    // A key used as a bearer credential counts the same: ten wrong ones from one address,
    // then a wrong one waits; a right one from there passes.
    let other = svc.vendor("initech", false).await;
    let as_bearer = |key: String, from: &'static str| {
        let r = svc
            .http
            .get(svc.at("/submissions"))
            .bearer_auth(key)
            .header("x-forwarded-for", format!("198.51.100.9, {from}"));
        async move { r.send().await.unwrap() }
    };
    for i in 0..10 {
        let r = as_bearer(format!("mcpb_guess{i}_secret"), "203.0.113.30").await;
        assert_eq!(r.status(), 401);
    }
    let r = as_bearer("mcpb_guess10_secret".into(), "203.0.113.30").await;
    assert_eq!(r.status(), 429, "a flood of guessed keys is held back");
    assert!(retry_after(&r) >= 1);
    assert!(!r.text().await.unwrap().contains("guess10"));
    assert_eq!(as_bearer(other.clone(), "203.0.113.30").await.status(), 200);
    assert_eq!(as_bearer(other, "203.0.113.31").await.status(), 200);

    // Submissions: ten in a burst (valid or not, each is counted before its body is read),
    // then 429 with Retry-After.
    let token = svc.token("globex").await;
    for _ in 0..10 {
        let r = svc
            .http
            .post(svc.at("/submissions"))
            .bearer_auth(&token)
            .header("x-forwarded-for", "203.0.113.30")
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
    }
    let r = svc
        .http
        .post(svc.at("/submissions"))
        .bearer_auth(&token)
        .header("x-forwarded-for", "203.0.113.31")
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429, "counted per vendor, whatever the address");
    assert!(retry_after(&r) >= 1);
    let before: i64 = sqlx::query_scalar("SELECT count(*) FROM submissions")
        .fetch_one(&svc.pool)
        .await
        .unwrap();
    assert_eq!(before, 0);
}

/// Reads until the server closes the connection (bounded, so a server that never does fails
/// the test rather than hanging it); returns what it sent.
async fn until_closed(stream: &mut TcpStream, limit: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let read = async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(limit, read)
        .await
        .expect("the server closed the connection");
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_that_never_finishes_is_closed_and_one_address_holds_at_most_64_connections() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let addr = svc.url.trim_start_matches("http://").to_string();
    // A request line and half a header, then nothing: closed once the header timeout passes
    // (the bound below is the test's patience, three times the timeout).
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let limit = mcpbench_api::HEADER_READ_TIMEOUT * 3;
    let answered = until_closed(&mut slow, limit).await;
    assert!(
        !answered.starts_with(b"HTTP/1.1 200"),
        "a half-sent request was served"
    );
    // A connection that sends nothing at all is closed too.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    until_closed(&mut idle, limit).await;

    // 64 connections from one address are held; the 65th is closed unanswered.
    let mut held = Vec::new();
    for _ in 0..64 {
        let mut s = TcpStream::connect(&addr).await.unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 12];
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"HTTP/1.1 200");
        held.push(s);
    }
    let mut extra = TcpStream::connect(&addr).await.unwrap();
    let _ = extra
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let answered = until_closed(&mut extra, limit).await;
    assert!(answered.is_empty(), "the 65th connection was served");
    drop(held);
    // Once they close, the address is served again.
    let mut again = None;
    for _ in 0..50 {
        let r = svc.http.get(svc.at("/healthz")).send().await;
        if let Ok(r) = r {
            again = Some(r.status().as_u16());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(again, Some(200));
}

/// Starts an image upload whose `submission` part never arrives past its header; returns the
/// connection, to read the answer from.
async fn held_upload(addr: &str, token: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n\
         --XX\r\nContent-Disposition: form-data; name=\"submission\"\r\n\r\n"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_that_stops_in_any_part_loses_its_slot_and_a_vendor_holds_one_slot() {
    let svc = Service::start(Options {
        worker: false,
        admission: mcpbench_api::Admission {
            max_open_submissions: None,
            rate_limits: false,
            upload_stall: Duration::from_secs(2),
            ..Default::default()
        },
        ..Options::default()
    })
    .await;
    // A worker with a Docker engine reported in, so uploads are taken.
    mcpbench_db::workers::seen(&svc.pool, "docker-worker", true)
        .await
        .unwrap();
    let addr = svc.url.trim_start_matches("http://").to_string();
    let (a, b) = (svc.token("a").await, svc.token("b").await);
    let mut stuck = held_upload(&addr, &a).await;
    // Give the server the part's header; then the vendor's second upload finds its slot held.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let form = || {
        reqwest::multipart::Form::new().part(
            "submission",
            reqwest::multipart::Part::text(r#"{"name":"n","model":"m","kind":"docker"}"#),
        )
    };
    let r = svc
        .http
        .post(svc.at("/submissions"))
        .bearer_auth(&a)
        .multipart(form())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429, "one upload at a time per vendor");
    assert!(retry_after(&r) >= 1);
    // Another vendor is not held back: its (incomplete) upload is read and judged.
    let (status, body) = svc.post_form(&b, form()).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("is missing"), "{body}");
    // The stuck upload is answered once its part stalls, and its slot is free again.
    let answer =
        String::from_utf8(until_closed(&mut stuck, Duration::from_secs(60)).await).unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("the upload stalled"), "{answer}");
    let (status, body) = svc.post_form(&a, form()).await;
    assert_eq!(status, 400, "the vendor's slot was freed: {body}");
}

/// Sends a token exchange whose body never arrives, as `client` by the address our proxy
/// forwards: a request held open until the request timeout.
async fn held_request(addr: &str, client: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /auth/token HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {client}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_our_proxy_each_forwarded_client_has_its_own_allowance_of_open_requests() {
    let svc = Service::start(Options {
        worker: false,
        admission: mcpbench_api::Admission {
            rate_limits: false,
            trust_forwarded_for: true,
            ..Default::default()
        },
        ..Options::default()
    })
    .await;
    let addr = svc.url.trim_start_matches("http://").to_string();
    let max = mcpbench_api::MAX_PER_ADDRESS;
    let healthz = |client: &'static str| {
        let r = svc
            .http
            .get(svc.at("/healthz"))
            .header("x-forwarded-for", client);
        async move { r.send().await.map(|r| r.status().as_u16()) }
    };
    // Every connection comes from the proxy (here 127.0.0.1): more than one address may hold,
    // each carrying another client's request, and none of them is closed.
    let mut held = Vec::new();
    for i in 0..max + 6 {
        held.push(held_request(&addr, &format!("198.51.100.{}", i + 1)).await);
    }
    assert_eq!(healthz("192.0.2.1").await.ok(), Some(200));

    // One forwarded client holds `max` requests open; one more is refused 429 with
    // Retry-After (once the server has read the held ones), while another client is served.
    for _ in 0..max {
        held.push(held_request(&addr, "203.0.113.7").await);
    }
    // The server reads the held requests' headers as it gets to them, which takes a while on
    // a loaded machine (the whole suite at once): asked again until then, up to 30 s.
    let mut refused = None;
    for _ in 0..600 {
        let r = svc
            .http
            .post(svc.at("/auth/token"))
            .header("x-forwarded-for", "203.0.113.7")
            .json(&json!({ "api_key": "mcpb_x_y" }))
            .send()
            .await
            .unwrap();
        if r.status() == 429 {
            refused = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let refused = refused.expect("the client's request past its open ones was refused");
    assert!(retry_after(&refused) >= 1);
    let body = refused.text().await.unwrap();
    assert!(
        body.contains("requests from your address are open"),
        "{body}"
    );
    assert_eq!(
        healthz("192.0.2.1").await.ok(),
        Some(200),
        "another client waits on no one"
    );

    // When its requests end (here: their connections close), the client is served again.
    drop(held);
    let mut again = None;
    for _ in 0..600 {
        if let Ok(200) = healthz("203.0.113.7").await {
            again = Some(200);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(again, Some(200));
}
