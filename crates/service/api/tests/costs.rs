//! What a score cost: the usage agents report reaches each run's trace, the submission's
//! scores and the board (JSON, CSV and the page, with its plot of success against cost and
//! the cost frontier); a cost nobody reported is unknown there, never 0.

mod support;

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::response::IntoResponse;
use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use support::{Options, Service};
use tower::ServiceExt;

/// Submits a reference agent of `kind` named `name` whose every reply gets the `usage` that
/// `usage(n)` gives for its `n`-th reply (from 0; `Value::Null` leaves it out); its id.
async fn submit(
    svc: &Service,
    token: &str,
    name: &str,
    kind: AgentKind,
    usage: impl Fn(usize) -> Value + Send + Sync + 'static,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let body = json!({"name": name, "model": "m", "kind": "endpoint", "endpoint_url": url});
    let (status, created) = svc.post("/submissions", Some(token), &body).await;
    assert_eq!(status, 202, "{created}");
    let secret = created["signing_secret"].as_str().unwrap().as_bytes();
    let tasks: Vec<_> = svc.tasks.iter().cloned().map(Arc::new).collect();
    let inner = mcpbench_agents::router(kind, &tasks, secret);
    let usage = Arc::new(usage);
    let replies = Arc::new(AtomicUsize::new(0));
    // The reference agent answers; its answer leaves with the usage added.
    let app = axum::Router::new().fallback(move |request: Request| {
        let (inner, usage, replies) = (inner.clone(), usage.clone(), replies.clone());
        async move {
            let answered = inner.oneshot(request).await.unwrap();
            let status = answered.status();
            let bytes = to_bytes(answered.into_body(), 1 << 20).await.unwrap();
            let mut reply: Value = serde_json::from_slice(&bytes).unwrap();
            let report = usage(replies.fetch_add(1, Ordering::SeqCst));
            if !report.is_null() {
                reply["usage"] = report;
            }
            (status, Body::from(reply.to_string())).into_response()
        }
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    created["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn costs_reach_the_board_and_unknown_is_never_zero() {
    let svc = Service::start(Options::default()).await;
    let token = svc.vendor("acme", false).await;
    let runs = svc.tasks.len();
    // Every reply but the first reports 1,000 tokens in, 200 out and $0.0021.
    let priced = submit(&svc, &token, "priced", AgentKind::Oracle, |n| {
        if n == 0 {
            Value::Null
        } else {
            json!({"input_tokens": 1000, "output_tokens": 200, "cost_usd": 0.0021})
        }
    })
    .await;
    // Cheap and hopeless: it solves nothing for $0.0001 a task.
    let cheap = submit(
        &svc,
        &token,
        "cheap",
        AgentKind::Null,
        |_| json!({"cost_usd": 0.0001}),
    )
    .await;
    let silent = submit(&svc, &token, "silent", AgentKind::Oracle, |_| Value::Null).await;
    // A broken report costs the run nothing and tells nothing.
    let garbled = submit(
        &svc,
        &token,
        "garbled",
        AgentKind::Oracle,
        |_| json!({"cost_usd": "free", "input_tokens": -5}),
    )
    .await;
    for id in [&priced, &cheap, &silent, &garbled] {
        let done = svc.wait(id, &token, Duration::from_secs(120)).await;
        assert_eq!(done["status"], "completed", "{done}");
    }

    // The submission's own scores.
    let (_, view) = svc
        .get(&format!("/submissions/{priced}"), Some(&token))
        .await;
    let scores = &view["scores"];
    assert_eq!(scores["cost_per_task"], 0.0021, "{scores}");
    assert_eq!(scores["cost_runs"], runs - 1);
    assert_eq!(scores["tokens_per_task"], 1200.0);
    assert!(scores["median_seconds"].as_f64().is_some(), "{scores}");

    // The board.
    let (status, board) = svc.get("/leaderboard?set=dev", None).await;
    assert_eq!(status, 200);
    let entry = |name: &str| {
        board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} on the board"))
            .clone()
    };
    let (p, c, s, g) = (
        entry("priced"),
        entry("cheap"),
        entry("silent"),
        entry("garbled"),
    );
    assert_eq!(
        (p["cost_per_task"].clone(), p["cost_runs"].clone()),
        (json!(0.0021), json!(runs - 1))
    );
    assert_eq!(c["cost_per_task"], 0.0001);
    assert_eq!(c["cost_runs"], runs);
    // What an agent of its own says it used is its word: reported, not measured.
    assert_eq!(p["cost_basis"], "reported");
    assert_eq!(s["cost_basis"], Value::Null, "no usage, no basis");
    for unknown in [&s, &g] {
        assert_eq!(unknown["cost_per_task"], Value::Null, "{unknown}");
        assert_eq!(unknown["tokens_per_task"], Value::Null);
        assert_eq!(unknown["cost_runs"], 0);
        assert_eq!(unknown["success_rate"], 1.0, "a broken report fails no run");
        assert!(unknown["median_seconds"].as_f64().is_some());
    }

    // The broken report is in the run's trace, with the reason.
    let run = svc.first_run(&garbled, &token).await;
    svc.publish(&garbled, &token).await;
    let (status, shown) = svc.get(&format!("/runs/{run}"), None).await;
    assert_eq!(status, 200, "{shown}");
    let agent = shown["trace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["type"] == "agent")
        .expect("an agent line")
        .clone();
    assert!(agent.get("usage").is_none(), "{agent}");
    assert!(
        agent["usage_error"]
            .as_str()
            .unwrap()
            .contains("usage.cost_usd"),
        "{agent}"
    );

    // The CSV: a number where reported, an empty cell where unknown.
    let (status, _, csv) = svc.get_text("/leaderboard?set=dev&format=csv").await;
    assert_eq!(status, 200);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: BTreeMap<String, BTreeMap<&str, String>> = lines
        .map(|l| {
            let cells: Vec<String> = l.split(',').map(String::from).collect();
            let row: BTreeMap<&str, String> =
                header.iter().copied().zip(cells.iter().cloned()).collect();
            (row["name"].clone(), row)
        })
        .collect();
    assert_eq!(rows["priced"]["cost_per_task_usd"], "0.0021");
    assert_eq!(rows["priced"]["cost_runs"], (runs - 1).to_string());
    assert_eq!(rows["priced"]["tokens_per_task"], "1200");
    assert_eq!(rows["priced"]["cost_basis"], "reported");
    assert_eq!(rows["silent"]["cost_per_task_usd"], "");
    assert_eq!(rows["silent"]["cost_runs"], "0");
    assert!(!rows["silent"]["median_seconds"].is_empty());

    // The page: the columns, and the plot with the frontier (cheap and priced: nothing is
    // both cheaper and better than either), the unknown ones named under it.
    let (status, _, page) = svc.get_text("/?set=dev").await;
    assert_eq!(status, 200);
    assert!(page.contains("Cost / task"), "the cost column");
    assert!(page.contains("$0.0021"));
    assert!(page.contains(&format!("from {} of {runs} runs", runs - 1)));
    assert!(page.contains("Not plotted, cost unknown: "));
    let note = page
        .split("Not plotted, cost unknown: ")
        .nth(1)
        .unwrap()
        .split('.')
        .next()
        .unwrap();
    assert!(
        note.contains("silent") && note.contains("garbled"),
        "{note}"
    );
    assert_eq!(page.matches("data-frontier=\"yes\"").count(), 2);
    // Both reported their costs: squares, not the circles of a measured cost.
    assert_eq!(
        page.matches("data-cost=\"reported\"").count(),
        2,
        "unknown costs are not drawn at 0"
    );
    assert_eq!(page.matches("data-cost=\"measured\"").count(), 0);
    // Sorted by cost, the cheapest first and the unknown last.
    let (_, _, by_cost) = svc.get_text("/?set=dev&sort=cost").await;
    let at = |name: &str| by_cost.find(&format!("<strong>{name}</strong>")).unwrap();
    assert!(at("cheap") < at("priced") && at("priced") < at("silent"));
}
