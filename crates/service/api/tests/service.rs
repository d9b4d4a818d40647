//! End to end: a vendor gets a token, submits the oracle agent served on loopback, watches it
//! to completion, finds it on the leaderboard with the expected score, and publishes traces.

mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use support::{Options, Service};

/// Binds a port for an agent, submits it, then serves the agent with the secret we got back.
async fn submit_agent(svc: &Service, token: &str, kind: AgentKind, name: &str) -> Value {
    submit_agent_with(svc, token, kind, name, json!({})).await
}

/// As [`submit_agent`], with `extra` fields in the request.
async fn submit_agent_with(
    svc: &Service,
    token: &str,
    kind: AgentKind,
    name: &str,
    extra: Value,
) -> Value {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let mut body = json!({"name": name, "model": format!("{name}-model"), "kind": "endpoint",
                          "endpoint_url": url, "set": "dev"});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let (status, created) = svc.post("/submissions", Some(token), &body).await;
    assert_eq!(status, 202, "{created}");
    let secret = created["signing_secret"]
        .as_str()
        .unwrap()
        .as_bytes()
        .to_vec();
    let tasks: Vec<Arc<_>> = svc.tasks.iter().cloned().map(Arc::new).collect();
    let app = mcpbench_agents::router(kind, &tasks, &secret);
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    created
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_endpoint_submission_runs_to_the_leaderboard() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    let n = svc.tasks.len() as i64;

    let oracle = submit_agent(&svc, &token, AgentKind::Oracle, "oracle").await;
    let null = submit_agent(&svc, &token, AgentKind::Null, "null").await;
    let id = oracle["id"].as_str().unwrap();
    let done = svc.wait(id, &token, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["progress"], json!({"done": n, "total": n}));
    assert_eq!(done["scores"]["passed"], n);
    assert_eq!(done["scores"]["success_rate"], 1.0);
    assert_eq!(done["failures"], json!([]));
    let null_done = svc
        .wait(
            null["id"].as_str().unwrap(),
            &token,
            Duration::from_secs(120),
        )
        .await;
    assert_eq!(null_done["status"], "completed", "{null_done}");
    // The null agent answers nothing: every failure is explained, grouped by reason.
    let failures = null_done["failures"].as_array().unwrap();
    let failed: i64 = failures.iter().map(|f| f["count"].as_i64().unwrap()).sum();
    assert_eq!(failed, n - null_done["scores"]["passed"].as_i64().unwrap());
    assert!(failures.iter().all(|f| f["example_task"].is_string()));

    // The leaderboard: the oracle first with a perfect score and its interval.
    let (status, board) = svc.get("/leaderboard?set=dev", None).await;
    assert_eq!(status, 200);
    let entries = board["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{board}");
    assert_eq!(entries[0]["submission_id"], *id);
    assert_eq!(entries[0]["rank"], 1);
    assert_eq!(entries[0]["vendor"], "acme");
    assert_eq!(entries[0]["model"], "oracle-model");
    assert_eq!(entries[0]["tasks"], n);
    assert_eq!(entries[0]["success_rate"], 1.0);
    let ci = entries[0]["success_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < 1.0 && ci[1].as_f64().unwrap() == 1.0);
    assert!(entries[1]["success_rate"].as_f64().unwrap() < 1.0);
    assert!(entries[0]["finished_at"].is_string());

    // Filtered by a server the tasks use: counts are of that server's tasks only.
    let server = svc.tasks[0].server.clone();
    let of_server = svc.tasks.iter().filter(|t| t.server == server).count() as i64;
    let (status, board) = svc
        .get(&format!("/leaderboard?server={server}"), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(board["entries"][0]["tasks"], of_server, "{board}");
    // A server that does not exist is refused with the choices, as the task browser does.
    let (status, board) = svc.get("/leaderboard?server=no-such-server", None).await;
    assert_eq!(status, 400, "{board}");
    assert!(
        board["detail"]
            .as_str()
            .unwrap()
            .contains("server must be one of"),
        "{board}"
    );

    // Runs: the owner lists them; the public sees a trace only once published.
    let (status, page) = svc
        .get(&format!("/submissions/{id}/runs"), Some(&token))
        .await;
    assert_eq!(status, 200);
    let runs = page["runs"].as_array().unwrap();
    assert_eq!(runs.len() as i64, n);
    assert!(runs.iter().all(|r| r["attempts"] == 1), "{page}");
    let run_id = runs[0]["id"].as_str().unwrap();
    // Paged by `after`: what the schema allows is answered (a trial past every trial is after
    // them all), what it does not is a 400.
    let first = format!(
        "{}:{}",
        runs[0]["task_id"].as_str().unwrap(),
        runs[0]["trial"]
    );
    let (status, rest) = svc
        .get(
            &format!("/submissions/{id}/runs?after={first}"),
            Some(&token),
        )
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["runs"].as_array().unwrap().len() as i64, n - 1);
    let (status, rest) = svc
        .get(
            &format!("/submissions/{id}/runs?after=zzzz:99999999999"),
            Some(&token),
        )
        .await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["runs"], serde_json::json!([]));
    for bad in ["nocolon", "task:1x", "task:", "ta%20sk:1"] {
        let (status, _) = svc
            .get(&format!("/submissions/{id}/runs?after={bad}"), Some(&token))
            .await;
        assert_eq!(status, 400, "{bad}");
    }
    let (status, _) = svc.get(&format!("/runs/{run_id}"), None).await;
    assert_eq!(status, 404, "unpublished traces are closed to the public");
    let (status, owner_view) = svc.get(&format!("/runs/{run_id}"), Some(&token)).await;
    assert_eq!(status, 200, "the owner reads runs on the public dev set");
    assert_eq!(owner_view["trace"][0]["type"], "header");
    svc.publish(id, &token).await;
    let (status, public) = svc.get(&format!("/runs/{run_id}"), None).await;
    assert_eq!(status, 200);
    let trace = public["trace"].as_array().unwrap();
    assert_eq!(trace.last().unwrap()["type"], "result");
    assert_eq!(trace[0]["set"], "dev");
    assert!(public.get("judgement").is_none(), "no judge ran: {public}");

    // A rubric judge's reading (the worker's judge is tested in the worker's tests) is shown
    // beside the run and the submission, never in their scores.
    let judgement = mcpbench_scoring::Judgement {
        model: "judge-model".into(),
        items: vec![mcpbench_scoring::ItemScore {
            id: "R1".into(),
            text: "Task fulfilment: everything the goal asks.".into(),
            mean: 8.5,
            min: 8.0,
            max: 9.0,
        }],
        score: 0.85,
        shuffles: 5,
        valid_shuffles: 5,
    };
    let task_id = runs[0]["task_id"].as_str().unwrap();
    let trial = runs[0]["trial"].as_i64().unwrap() as i32;
    let sub: uuid::Uuid = id.parse().unwrap();
    mcpbench_db::judgements::record(&svc.pool, sub, task_id, trial, &judgement)
        .await
        .unwrap();
    let (_, public) = svc.get(&format!("/runs/{run_id}"), None).await;
    assert_eq!(public["judgement"]["score"], 0.85, "{public}");
    assert_eq!(public["judgement"]["items"][0]["mean"], 8.5);
    let (_, view) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    assert_eq!(view["judge"]["runs"], 1, "{view}");
    assert_eq!(view["judge"]["mean_passed"], 0.85);
    assert_eq!(view["judge"]["models"], json!(["judge-model"]));
    assert_eq!(view["scores"], done["scores"], "the scores do not change");
    let (status, _, page) = svc.get_text(&format!("/web/runs/{run_id}")).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Rubric judge") && page.contains("judge-model") && page.contains("0.85"),
        "{page}"
    );
    let (status, _, page) = svc.get_text(&format!("/web/submissions/{id}")).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Rubric judge") && page.contains("Runs judged"),
        "{page}"
    );

    // A trace larger than the page draws is there whole as JSON, line for line as stored (a
    // line that is not JSON left out), and its page says where.
    let key: String = sqlx::query_scalar("SELECT trace_key FROM runs WHERE id = $1::uuid")
        .bind(run_id)
        .fetch_one(&svc.pool)
        .await
        .unwrap();
    let stored = std::fs::read(svc.traces.path().join(&key)).unwrap();
    let mut large = stored.clone();
    let filler = json!({"type": "note", "text": "y".repeat(1000)}).to_string();
    for _ in 0..1100 {
        large.extend_from_slice(filler.as_bytes());
        large.push(b'\n');
    }
    large.extend_from_slice(b"{not json\n\n");
    std::fs::write(svc.traces.path().join(&key), &large).unwrap();
    let (status, whole) = svc.get(&format!("/runs/{run_id}"), None).await;
    assert_eq!(status, 200);
    let lines = whole["trace"].as_array().unwrap();
    assert_eq!(
        lines.len(),
        trace.len() + 1100,
        "every JSON line, none other"
    );
    assert_eq!(
        lines[..trace.len()],
        trace[..],
        "the stored lines come first, as they were"
    );
    assert_eq!(lines.last().unwrap()["text"], "y".repeat(1000));
    assert_eq!(
        whole["judgement"]["score"], 0.85,
        "the rest of the answer is whole"
    );
    let (status, _, page) = svc.get_text(&format!("/web/runs/{run_id}")).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("more than this page draws") && page.contains(&format!("GET /runs/{run_id}")),
        "{page}"
    );
    std::fs::write(svc.traces.path().join(&key), &stored).unwrap();

    // Head to head: the oracle against the null agent on the tasks both ran.
    let null_id = null["id"].as_str().unwrap();
    let null_passed = null_done["scores"]["passed"].as_u64().unwrap();
    let (status, c) = svc.get(&format!("/compare?a={id}&b={null_id}"), None).await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["paired"]["shared"], n);
    let wins = c["paired"]["a_only"].as_u64().unwrap();
    assert_eq!(wins, n as u64 - null_passed);
    assert_eq!(c["paired"]["b_only"], 0);
    let p = c["paired"]["p_value"].as_f64().unwrap();
    assert!(
        (p - (2.0 * 0.5f64.powi(wins as i32)).min(1.0)).abs() < 1e-12,
        "{p}"
    );
    let by_server: u64 = c["by_server"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["a_only"].as_u64().unwrap() + t["both"].as_u64().unwrap())
        .sum();
    assert_eq!(by_server, n as u64, "every shared task in one server's row");
    assert!(
        c.get("differences").is_none(),
        "the null agent's runs are not published: no task list for the public: {c}"
    );
    let (_, mine) = svc
        .get(&format!("/compare?a={id}&b={null_id}"), Some(&token))
        .await;
    let differences = mine["differences"].as_array().unwrap();
    assert_eq!(differences.len() as u64, wins, "{mine}");
    assert!(
        differences
            .iter()
            .all(|d| d["a_solved"] == true && d["a_run"].is_string() && d["b_run"].is_string()),
        "the owner reads both traces on the public dev set: {mine}"
    );
    let (_, itself) = svc.get(&format!("/compare?a={id}&b={id}"), None).await;
    assert_eq!(
        (
            &itself["paired"]["a_only"],
            &itself["paired"]["b_only"],
            &itself["paired"]["p_value"]
        ),
        (&json!(0), &json!(0), &json!(1.0)),
        "a submission ties with itself: {itself}"
    );
    for (query, status) in [
        (format!("a={id}&b={}", uuid::Uuid::new_v4()), 404),
        (format!("a={id}"), 400),
        ("a=x&b=y".to_string(), 400),
    ] {
        assert_eq!(
            svc.get(&format!("/compare?{query}"), None).await.0,
            status,
            "{query}"
        );
    }
    let (status, _, page) = svc
        .get_text(&format!("/web/compare?a={id}&b={null_id}"))
        .await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Head to head") && page.contains("exact McNemar"),
        "{page}"
    );
    let (_, _, board_page) = svc.get_text("/").await;
    assert!(
        board_page.contains(&format!("/web/compare?a={id}&amp;b={null_id}")),
        "the board links each entry to a head-to-head with the first: {board_page}"
    );

    // The owner's list shows both submissions, newest first.
    let (status, list) = svc.get("/submissions", Some(&token)).await;
    assert_eq!(status, 200);
    assert_eq!(list["submissions"].as_array().unwrap().len(), 2);
}

/// A submission at a distractor level runs every task with that many extra tools, is scored
/// like any other, and is never ranked; a level that is not one is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_submission_at_a_distractor_level_runs_the_variants_and_is_not_ranked() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    for bad in ["1001", "some", "-1", ""] {
        let (status, body) = svc
            .post(
                "/submissions",
                Some(&token),
                &json!({"name": "x", "model": "m", "kind": "endpoint",
                        "endpoint_url": "http://127.0.0.1:9/", "distractors": bad}),
            )
            .await;
        assert_eq!(status, 400, "{bad:?}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains("distractors"),
            "{body}"
        );
    }
    let created = submit_agent_with(
        &svc,
        &token,
        AgentKind::Oracle,
        "wide",
        json!({"distractors": "all"}),
    )
    .await;
    let id = created["id"].as_str().unwrap();
    let done = svc.wait(id, &token, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["distractors"], "all");
    assert_eq!(
        done["scores"]["success_rate"], 1.0,
        "the references pass at every level"
    );
    let (_, board) = svc.get("/leaderboard?set=dev", None).await;
    assert_eq!(
        board["entries"],
        json!([]),
        "a level is not the set as published"
    );
    // Every server the task does not need was offered, whole.
    let run_id = svc.first_run(id, &token).await;
    let (status, run) = svc.get(&format!("/runs/{run_id}"), Some(&token)).await;
    assert_eq!(status, 200);
    let header = &run["trace"][0];
    let own = header["servers"].as_array().unwrap().len();
    assert_eq!(
        header["distractor_servers"].as_array().unwrap().len() + own,
        mcpbench_tasks::SERVERS.len(),
        "{header}"
    );
    let (_, _, page) = svc.get_text(&format!("/web/submissions/{id}")).await;
    assert!(
        page.contains("Distractors") && page.contains("not ranked"),
        "{page}"
    );
}

/// Cancelling stops the queued jobs: only those already running may still end, and nothing
/// is ranked.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_submission_stops_and_never_ranks() {
    let svc = Service::start(Options::default()).await;
    let token = svc.token("acme").await;
    // An agent slow enough that the cancel arrives while the first jobs run.
    let app = axum::Router::new().route(
        "/",
        axum::routing::post(|| async {
            tokio::time::sleep(Duration::from_secs(3)).await;
            axum::Json(json!({ "answer": "slow" }))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let (status, created) = svc
        .post(
            "/submissions",
            Some(&token),
            &json!({"name": "slow", "model": "m", "kind": "endpoint", "endpoint_url": url}),
        )
        .await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().unwrap();
    let (status, body) = svc
        .post(
            &format!("/submissions/{id}/cancel"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!((status, body["status"].as_str()), (200, Some("cancelled")));
    assert_eq!(body["error"], "cancelled by its owner");
    let (status, body) = svc
        .post(
            &format!("/submissions/{id}/cancel"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    // The queue empties without running the rest (4 slots for 6 tasks).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while mcpbench_db::queue::depth(&svc.pool).await.unwrap() != (0, 0) {
        assert!(tokio::time::Instant::now() < deadline, "jobs kept running");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, page) = svc
        .get(&format!("/submissions/{id}/runs"), Some(&token))
        .await;
    assert!(
        page["runs"].as_array().unwrap().len() < svc.tasks.len(),
        "{page}"
    );
    let (_, view) = svc.get(&format!("/submissions/{id}"), Some(&token)).await;
    assert_eq!(view["status"], "cancelled");
    let (_, board) = svc.get("/leaderboard", None).await;
    assert_eq!(board["entries"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operations_endpoints_answer() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let r = svc.http.get(svc.at("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = svc.http.get(svc.at("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let _ = svc.get("/leaderboard", None).await;
    let r = svc.http.get(svc.at("/metrics")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(
        text.contains("mcpbench_http_request_duration_seconds"),
        "{text}"
    );
    assert!(text.contains("route=\"/leaderboard\""), "{text}");
    // The queue gauges follow the database: a queued submission shows within seconds.
    let token = svc.token("acme").await;
    let (status, _) = svc
        .post(
            "/submissions",
            Some(&token),
            &json!({"name": "x", "model": "m", "kind": "endpoint",
                    "endpoint_url": "http://127.0.0.1:9/"}),
        )
        .await;
    assert_eq!(status, 202);
    let expected = format!("mcpbench_queue_jobs_queued {}", svc.tasks.len());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let text = svc
            .http
            .get(svc.at("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains(&expected) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{expected} never showed: {text}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let (status, doc) = svc.get("/openapi.json", None).await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let (status, problem) = svc.get("/no/such/path", None).await;
    assert_eq!(
        (status, problem["type"].as_str()),
        (404, Some("/problems/not-found"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_vendor_withdraws_a_completed_submission_from_the_board_for_good() {
    let svc = Service::start(Options::default()).await;
    let acme = svc.token("acme").await;
    let rival = svc.token("rival").await;
    let id = svc
        .submit_and_wait(&acme, AgentKind::Oracle, "oracle-1")
        .await;
    let ranked = |board: &Value| {
        board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["submission_id"] == id)
    };
    let (_, board) = svc.get("/leaderboard?set=dev", None).await;
    assert!(ranked(&board), "{board}");

    // Only its vendor withdraws it, and only once it is completed.
    let path = format!("/submissions/{id}/withdraw");
    assert_eq!(svc.post(&path, Some(&rival), &json!({})).await.0, 404);
    assert_eq!(svc.post(&path, None, &json!({})).await.0, 401);
    let (queued, _never_served) = svc
        .submit_reference(&acme, None, (AgentKind::Null, "null-1"), &svc.tasks)
        .await;
    let (status, problem) = svc
        .post(
            &format!("/submissions/{queued}/withdraw"),
            Some(&acme),
            &json!({}),
        )
        .await;
    assert_eq!(status, 409, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("only a completed one")
    );

    let (status, view) = svc.post(&path, Some(&acme), &json!({})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "completed");
    assert!(view["withdrawn_at"].is_string(), "{view}");
    let (status, again) = svc.post(&path, Some(&acme), &json!({})).await;
    assert_eq!(status, 409);
    assert!(
        again["detail"]
            .as_str()
            .unwrap()
            .contains("withdrawn already")
    );

    // Its row leaves the board (the kept board is dropped at once); its record stays.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, board) = svc.get("/leaderboard?set=dev", None).await;
        if !ranked(&board) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still ranked: {board}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, record) = svc.get(&format!("/submissions/{id}"), Some(&acme)).await;
    assert_eq!(status, 200);
    assert_eq!(record["withdrawn_at"], view["withdrawn_at"]);
    assert!(record["scores"].is_object());
    let (_, _, page) = svc.get_text(&format!("/web/submissions/{id}")).await;
    assert!(page.contains("from the board by its vendor"), "{page}");

    // Scoring the set again from its traces does not put it back.
    let store = mcpbench_storage::TraceStore::local(svc.traces.path()).unwrap();
    mcpbench_worker::rescore_set(&svc.pool, &store, None, "dev")
        .await
        .unwrap();
    let rows = mcpbench_db::leaderboard::entries(&svc.pool, "dev")
        .await
        .unwrap();
    assert!(rows.iter().all(|e| e.submission_id.to_string() != id));
}
