//! The routing layer against a real PostgreSQL and stand-in gateways on loopback: a request
//! reaches the worker its run id names with its Host and token unchanged, an answer streams back
//! as it is written (server-sent events), and what names no worker, or a worker that is gone,
//! gets a clear answer without reaching anyone.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Uri};
use axum::response::IntoResponse;
use axum::routing::any;
use mcpbench_route::{Routes, new_route, router};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// A stand-in gateway: echoes what it got, or on `/mcp/*/stream` sends one event, waits for
/// `go`, then sends a second.
async fn gateway(go: Option<mpsc::Receiver<()>>) -> String {
    let go = Arc::new(tokio::sync::Mutex::new(go));
    let app = Router::new().route(
        "/mcp/{run}/{server}",
        any(move |headers: HeaderMap, uri: Uri, body: Bytes| {
            let go = go.clone();
            async move {
                if uri.path().ends_with("/stream") {
                    let mut go = go.lock().await.take().expect("one stream per test");
                    let events = async_stream(move |out| async move {
                        out.send(Ok(Bytes::from("data: one\n\n"))).await.ok();
                        go.recv().await;
                        out.send(Ok(Bytes::from("data: two\n\n"))).await.ok();
                    });
                    return ([("content-type", "text/event-stream")], events).into_response();
                }
                let echo = serde_json::json!({
                    "host": headers.get("host").and_then(|h| h.to_str().ok()),
                    "auth": headers.get("authorization").and_then(|h| h.to_str().ok()),
                    "x_hop": headers.get("x-hop").is_some(),
                    "path": uri.to_string(),
                    "body": String::from_utf8_lossy(&body),
                });
                axum::Json(echo).into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// A body fed by `fill` through a channel, chunk by chunk as it sends them.
fn async_stream<F, Fut>(fill: F) -> Body
where
    F: FnOnce(mpsc::Sender<Result<Bytes, Infallible>>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, mut rx) = mpsc::channel(4);
    tokio::spawn(fill(tx));
    let stream = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
    Body::from_stream(stream)
}

async fn setup() -> (mcpbench_db::PgPool, String) {
    let pool = mcpbench_testkit::fresh("route", 4).await.pool;
    let app = router(Routes::new(pool.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let public = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (pool, public)
}

#[tokio::test]
async fn a_request_reaches_the_worker_its_run_names_and_streams_back() {
    let (pool, public) = setup().await;
    let (go_tx, go_rx) = mpsc::channel(1);
    let (a, b) = (gateway(None).await, gateway(Some(go_rx)).await);
    let (route_a, route_b) = (new_route(), new_route());
    mcpbench_db::workers::announce(&pool, "a", false, &route_a, &a)
        .await
        .unwrap();
    mcpbench_db::workers::announce(&pool, "b", false, &route_b, &b)
        .await
        .unwrap();
    let http = reqwest::Client::new();

    // To a: Host, token, path and query, body as sent; a hop-by-hop header dropped.
    let answer = http
        .post(format!("{public}/mcp/run_{route_a}_00ff/github?x=1"))
        .header("host", "bench.example.org")
        .header("connection", "x-hop")
        .header("x-hop", "1")
        .bearer_auth("run-token")
        .body("{\"jsonrpc\":\"2.0\"}")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let echo: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(echo["host"], "bench.example.org");
    assert_eq!(echo["auth"], "Bearer run-token");
    assert_eq!(echo["path"], format!("/mcp/run_{route_a}_00ff/github?x=1"));
    assert_eq!(echo["body"], "{\"jsonrpc\":\"2.0\"}");
    assert_eq!(echo["x_hop"], false, "a header Connection names is dropped");

    // ...but not Host or the token: named by `Connection`, they would vanish here and the
    // gateway's Host check would see the worker's own address instead.
    let answer = http
        .post(format!("{public}/mcp/run_{route_a}_00ff/github"))
        .header("host", "evil.example")
        .header("connection", "host, authorization")
        .bearer_auth("run-token")
        .body("{}")
        .send()
        .await
        .unwrap();
    let echo: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(
        echo["host"], "evil.example",
        "the gateway sees the Host sent"
    );
    assert_eq!(echo["auth"], "Bearer run-token");

    // To b: the first event arrives before the second is even written.
    let mut answer = http
        .get(format!("{public}/mcp/run_{route_b}_00ff/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.headers()["content-type"], "text/event-stream");
    let first = tokio::time::timeout(Duration::from_secs(5), answer.chunk())
        .await
        .expect("the first event streams through before the answer ends")
        .unwrap()
        .unwrap();
    assert_eq!(first, "data: one\n\n");
    go_tx.send(()).await.unwrap();
    let second = answer.chunk().await.unwrap().unwrap();
    assert_eq!(second, "data: two\n\n");
}

#[tokio::test]
async fn what_names_no_worker_or_a_gone_one_is_answered_here() {
    let (pool, public) = setup().await;
    let http = reqwest::Client::new();
    // No route in the id, or one nobody announced: the gateway's own answer to an unknown run.
    for run in [
        "run_00ff00ff00ff",
        &format!("run_{}_00", new_route()),
        "run_ZZZZZZZZ_00",
    ] {
        let answer = http
            .post(format!("{public}/mcp/{run}/github"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 401, "{run}");
        assert_eq!(answer.headers()["www-authenticate"], "Bearer");
    }
    // A worker that announced itself and died: 502, saying so.
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let route = new_route();
    mcpbench_db::workers::announce(&pool, "gone", false, &route, &dead)
        .await
        .unwrap();
    let answer = http
        .post(format!("{public}/mcp/run_{route}_00/github"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 502);
    let body: serde_json::Value = answer.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("not answering"));
}

#[tokio::test]
async fn made_up_ids_cost_the_database_one_read_a_second() {
    let pool = mcpbench_testkit::fresh("route", 4).await.pool;
    let routes = Routes::new(pool.clone());
    let app = router(routes.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let public = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let http = reqwest::Client::new();

    // A burst of ids under routes nobody announced, as a prober sends them.
    let answers = futures_util::future::join_all((0..40).map(|_| {
        http.post(format!("{public}/mcp/run_{}_00/github", new_route()))
            .send()
    }))
    .await;
    for answer in answers {
        assert_eq!(answer.unwrap().status(), 401);
    }
    assert!(
        routes.reads() <= 2,
        "{} reads for 40 made-up ids",
        routes.reads()
    );

    // A worker that announces itself now is found by the next read.
    let gateway = gateway(None).await;
    let route = new_route();
    mcpbench_db::workers::announce(&pool, "new", false, &route, &gateway)
        .await
        .unwrap();
    let answer = http
        .post(format!("{public}/mcp/run_{route}_00/github"))
        .bearer_auth("t")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let reads = routes.reads();
    // Known now: answered from memory.
    for _ in 0..5 {
        let answer = http
            .post(format!("{public}/mcp/run_{route}_01/github"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
    }
    assert_eq!(routes.reads(), reads);
}
