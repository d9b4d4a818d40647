//! The gateway's door: tokens, hosts, origins and paths, tried with raw HTTP.

mod common;

use reqwest::StatusCode;
use serde_json::json;
use std::time::Duration;

fn initialize() -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_runs_token_on_the_runs_servers_gets_in() {
    let (gw, _runner) = common::runner(Duration::from_secs(5)).await;
    let task = common::dev_task("fs-");
    let open = gw.gateway.open_run(task.clone()).unwrap();
    let url = format!("{}/mcp/{}/filesystem", gw.base_url, open.run_id);
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let post = |url: String, token: Option<String>| {
        let mut r = http
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .json(&initialize());
        if let Some(t) = token {
            r = r.header("authorization", format!("Bearer {t}"));
        }
        r.send()
    };
    let ok = post(url.clone(), Some(open.token.clone())).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);

    let missing = post(url.clone(), None).await.unwrap();
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert!(missing.headers().contains_key("www-authenticate"));
    let wrong = post(url.clone(), Some("0".repeat(64))).await.unwrap();
    let unknown = post(
        format!("{}/mcp/run_nope/filesystem", gw.base_url),
        Some(open.token.clone()),
    )
    .await
    .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        wrong.text().await.unwrap(),
        unknown.text().await.unwrap(),
        "unknown runs and wrong tokens look alike"
    );

    let offered = task.offered_servers();
    let absent = mcpbench_tasks::SERVERS
        .iter()
        .find(|s| !offered.iter().any(|o| o == *s))
        .expect("a server the run is not offered");
    let other_server = post(
        format!("{}/mcp/{}/{absent}", gw.base_url, open.run_id),
        Some(open.token.clone()),
    )
    .await
    .unwrap();
    assert_eq!(other_server.status(), StatusCode::NOT_FOUND);
    let bad_path = post(
        format!("{}/mcp/{}", gw.base_url, open.run_id),
        Some(open.token.clone()),
    )
    .await
    .unwrap();
    assert_eq!(bad_path.status(), StatusCode::NOT_FOUND);

    let rebinding = http
        .post(&url)
        .header("host", "attacker.example")
        .header("authorization", format!("Bearer {}", open.token))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(
        rebinding.status(),
        StatusCode::FORBIDDEN,
        "a foreign Host header is refused"
    );
    let browser = http
        .post(&url)
        .header("origin", "https://evil.example")
        .header("authorization", format!("Bearer {}", open.token))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(
        browser.status(),
        StatusCode::FORBIDDEN,
        "a browser origin is refused"
    );

    let closed = gw.gateway.close_run(&open.run_id).unwrap();
    assert_eq!(
        closed.events.len(),
        1,
        "only the admitted initialize reached the run"
    );
    let after = post(url, Some(open.token)).await.unwrap();
    assert_eq!(
        after.status(),
        StatusCode::UNAUTHORIZED,
        "a closed run answers nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_2026_requests_are_served_and_recorded() {
    let (gw, _runner) = common::runner(Duration::from_secs(5)).await;
    let task = common::dev_task("fs-");
    let open = gw.gateway.open_run(task.clone()).unwrap();
    let url = format!("{}/mcp/{}/filesystem", gw.base_url, open.run_id);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let response = reqwest::Client::new()
        .post(&url)
        .header("authorization", format!("Bearer {}", open.token))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .json(
            &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: serde_json::Value = response.json().await.unwrap();
    let names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = task
        .available_tools
        .iter()
        .filter_map(|t| t.strip_prefix("filesystem."))
        .collect();
    assert_eq!(
        names, listed,
        "exactly the task's tools of this server, in order"
    );
    let closed = gw.gateway.close_run(&open.run_id).unwrap();
    assert_eq!(closed.revisions, vec!["2026-07-28".to_string()]);
    assert_eq!(closed.events[0].method, "tools/list");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_two_revisions_are_offered_and_the_trace_records_the_agreed_one() {
    let (gw, _runner) = common::runner(Duration::from_secs(5)).await;
    let task = common::dev_task("fs-");
    let open = gw.gateway.open_run(task.clone()).unwrap();
    let url = format!("{}/mcp/{}/filesystem", gw.base_url, open.run_id);
    let mut agreed = Vec::new();
    for asked in ["2025-06-18", "2025-11-25"] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        let text = reqwest::Client::new()
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("authorization", format!("Bearer {}", open.token))
            .json(&body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let answer: serde_json::Value = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .find_map(|d| serde_json::from_str(d.trim()).ok())
            .unwrap_or_else(|| panic!("no JSON-RPC answer in {text:?}"));
        agreed.push(
            answer["result"]["protocolVersion"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(
        agreed,
        ["2025-11-25", "2025-11-25"],
        "an older revision rmcp knows is not offered"
    );
    let closed = gw.gateway.close_run(&open.run_id).unwrap();
    let first = &closed.events[0];
    assert_eq!(first.method, "initialize");
    assert_eq!(first.protocol.as_deref(), Some("2025-11-25"));
    assert_eq!(
        first.result,
        Some(json!("client asked for 2025-06-18")),
        "the proposal is kept as the event's result"
    );
    assert_eq!(
        closed.revisions,
        ["2025-11-25"],
        "the header lists what was spoken"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_holds_a_few_sessions_per_server_and_they_end_with_it() {
    let (gw, _runner) = common::runner(Duration::from_secs(5)).await;
    let task = common::dev_task("fs-");
    let open = gw.gateway.open_run(task.clone()).unwrap();
    let url = format!("{}/mcp/{}/filesystem", gw.base_url, open.run_id);
    let http = reqwest::Client::new();
    let bearer = format!("Bearer {}", open.token);
    // An agent looping `initialize`, with a large client name: a few sessions, then refusals.
    let mut sessions = Vec::new();
    let mut refused = 0;
    for _ in 0..12 {
        let mut body = initialize();
        body["params"]["clientInfo"]["name"] = json!("n".repeat(100_000));
        let r = http
            .post(&url)
            .header("authorization", &bearer)
            .header("accept", "application/json, text/event-stream")
            .json(&body)
            .send()
            .await
            .unwrap();
        match r.status() {
            StatusCode::OK => {
                sessions.push(r.headers()["mcp-session-id"].to_str().unwrap().to_string())
            }
            StatusCode::TOO_MANY_REQUESTS => {
                let text = r.text().await.unwrap();
                assert!(text.contains("the most one run may"), "{text}");
                refused += 1;
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!(sessions.len(), mcpbench_gateway::MAX_SESSIONS);
    assert_eq!(refused, 12 - mcpbench_gateway::MAX_SESSIONS);
    assert_eq!(
        gw.gateway.open_sessions().await,
        mcpbench_gateway::MAX_SESSIONS
    );

    // A stream open on one of them, as an agent listening for the server's messages keeps.
    let session = |r: reqwest::RequestBuilder| {
        r.header("authorization", &bearer)
            .header("mcp-session-id", &sessions[0])
            .header("mcp-protocol-version", "2025-11-25")
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = session(http.post(&url))
        .header("accept", "application/json, text/event-stream")
        .json(&initialized)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let mut stream = session(http.get(&url))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);

    // The run closes: its sessions go, and the stream ends.
    gw.gateway.close_run(&open.run_id).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream outlived its run");
    let mut left = usize::MAX;
    for _ in 0..50 {
        left = gw.gateway.open_sessions().await;
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(left, 0, "the run's sessions are closed with it");
}
