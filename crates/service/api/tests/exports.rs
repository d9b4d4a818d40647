//! What a user takes away and how they describe what they submit: the board as CSV and
//! filtered by the submissions' stated metadata, a set's task-by-submission result matrix (only
//! runs the caller may see), and a retired set's published traces as one streamed archive
//! (withheld tasks left out, the sums checking out, the same bytes each time).

mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::time::Duration;
use support::{Options, Service};

/// RFC 4180 as the exports write it: quoted cells may hold commas, quotes and line breaks.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut cell) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(
        cell.is_empty() && row.is_empty(),
        "the last row has no line end"
    );
    rows
}

/// The rows as maps from the header's names.
fn records(text: &str) -> Vec<BTreeMap<String, String>> {
    let rows = parse_csv(text);
    let header = &rows[0];
    rows[1..]
        .iter()
        .map(|r| {
            assert_eq!(r.len(), header.len(), "a row as wide as the header: {r:?}");
            header.iter().cloned().zip(r.iter().cloned()).collect()
        })
        .collect()
}

/// Submits a reference agent with `extra` merged into the body; the submission's id.
async fn submit(svc: &Service, token: &str, kind: AgentKind, set: &str, extra: Value) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let mut body = json!({"name": "agent", "model": "m", "kind": "endpoint",
                          "endpoint_url": url, "set": set});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (status, created) = svc.post("/submissions", Some(token), &body).await;
    assert_eq!(status, 202, "{created}");
    let secret = created["signing_secret"]
        .as_str()
        .unwrap()
        .as_bytes()
        .to_vec();
    let tasks: Vec<_> = svc.tasks.iter().cloned().map(std::sync::Arc::new).collect();
    let app = mcpbench_agents::router(kind, &tasks, &secret);
    tokio::spawn(async move {
        let _ = mcpbench_agents::serve(listener, app).await;
    });
    created["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_board_exports_as_csv_and_filters_by_what_submissions_say_of_themselves() {
    let svc = Service::start(Options::default()).await;
    let acme = svc.token("acme").await;
    let beta = svc.token("beta").await;

    // Refused, each with the field named, and nothing is created.
    let bad = [
        (
            json!({"organisation": "=HYPERLINK(\"x\")"}),
            "about.organisation",
        ),
        (json!({"weights": "half"}), "weights"),
        (json!({"scaffold": "borrowed"}), "scaffold"),
        (json!({"framework": "x".repeat(81)}), "about.framework"),
        (json!({"vendor_says": "hi"}), "vendor_says"),
        (json!("open"), "about"),
    ];
    for (about, named) in bad {
        let body = json!({"name": "n", "model": "m", "kind": "endpoint",
                          "endpoint_url": "http://127.0.0.1:9/", "about": about});
        let (status, problem) = svc.post("/submissions", Some(&acme), &body).await;
        assert_eq!(status, 400, "{about}: {problem}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(named), "{named} not in {detail:?}");
    }
    let (_, mine) = svc.get("/submissions", Some(&acme)).await;
    assert_eq!(mine["submissions"].as_array().unwrap().len(), 0);

    let about = json!({"organisation": "Acme AI", "model_version": "2025-06-01",
                       "weights": "open", "framework": "LangGraph 0.2", "scaffold": "own"});
    // A name a spreadsheet would run, with a comma and quotes.
    let a = submit(
        &svc,
        &acme,
        AgentKind::Oracle,
        "dev",
        json!({"about": about, "name": "=1+1, \"best\""}),
    )
    .await;
    let b = submit(
        &svc,
        &beta,
        AgentKind::Null,
        "dev",
        json!({"about": {"weights": "closed"}}),
    )
    .await;
    let c = submit(&svc, &beta, AgentKind::Random, "dev", json!({})).await;
    for (id, token) in [(&a, &acme), (&b, &beta), (&c, &beta)] {
        let done = svc.wait(id, token, Duration::from_secs(120)).await;
        assert_eq!(done["status"], "completed", "{done}");
    }
    let (_, shown) = svc.get(&format!("/submissions/{a}"), Some(&acme)).await;
    assert_eq!(shown["about"], about);
    let (_, shown) = svc.get(&format!("/submissions/{c}"), Some(&beta)).await;
    assert_eq!(shown["about"]["weights"], Value::Null, "not stated is null");

    let r = svc
        .http
        .get(svc.at("/leaderboard?format=csv"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/csv; charset=utf-8");
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("mcpbench-dev-leaderboard.csv")
    );
    let text = r.text().await.unwrap();
    let rows = records(&text);
    assert_eq!(rows.len(), 3, "{text}");
    let (_, board) = svc.get("/leaderboard", None).await;
    for (row, entry) in rows.iter().zip(board["entries"].as_array().unwrap()) {
        assert_eq!(
            row["submission_id"],
            entry["submission_id"].as_str().unwrap()
        );
        assert_eq!(row["rank"], entry["rank"].to_string());
        assert_eq!(
            row["success_rate"].parse::<f64>().unwrap(),
            entry["success_rate"].as_f64().unwrap()
        );
        assert_eq!(row["passed"], entry["passed"].to_string());
    }
    let first = &rows[0];
    assert_eq!(first["submission_id"], a, "the oracle leads");
    assert_eq!(
        first["name"], "'=1+1, \"best\"",
        "defused, and read back whole"
    );
    assert_eq!(
        (
            &*first["organisation"],
            &*first["model_version"],
            &*first["weights"]
        ),
        ("Acme AI", "2025-06-01", "open")
    );
    assert_eq!(
        (&*first["framework"], &*first["scaffold"]),
        ("LangGraph 0.2", "own")
    );
    assert_eq!(
        first["hosting"], "hosted",
        "an endpoint received every goal it ran"
    );
    let random = rows.iter().find(|r| r["submission_id"] == c).unwrap();
    assert_eq!(random["organisation"], "", "not stated is an empty cell");
    assert!(!text.contains(",=1"), "no cell starts a formula");

    // Filters rank among the entries that state them.
    let ids = |board: &Value| -> Vec<String> {
        board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["submission_id"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, open) = svc.get("/leaderboard?weights=open", None).await;
    assert_eq!(status, 200, "{open}");
    assert_eq!(ids(&open), std::slice::from_ref(&a));
    assert_eq!(open["filter"], json!({"weights": "open"}));
    let (_, closed) = svc.get("/leaderboard?weights=closed", None).await;
    assert_eq!(ids(&closed), std::slice::from_ref(&b));
    assert_eq!(closed["entries"][0]["rank"], 1, "ranked among the shown");
    let (_, own) = svc
        .get("/leaderboard?scaffold=own&organisation=Acme%20AI", None)
        .await;
    assert_eq!(ids(&own), std::slice::from_ref(&a));
    let (_, none) = svc.get("/leaderboard?organisation=Nobody", None).await;
    assert_eq!(ids(&none), Vec::<String>::new());
    let r = svc
        .http
        .get(svc.at("/leaderboard?weights=closed&format=csv"))
        .send()
        .await
        .unwrap();
    let rows = records(&r.text().await.unwrap());
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["submission_id"], b);
    for bad in [
        "weights=half",
        "scaffold=x",
        "organisation=%3Dcmd",
        "format=xml",
    ] {
        let (status, problem) = svc.get(&format!("/leaderboard?{bad}"), None).await;
        assert_eq!(status, 400, "{bad}: {problem}");
    }

    // The page: the columns, the filters, and links to the exports.
    let (status, _, page) = svc.get_text("/?weights=open").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Acme AI") && page.contains("LangGraph 0.2"),
        "{page}"
    );
    assert!(
        !page.contains(&format!("/web/submissions/{b}")),
        "filtered out"
    );
    assert!(page.contains("/leaderboard?set=dev&amp;format=csv&amp;weights=open"));
    assert!(page.contains("/sets/dev/results?format=csv"));
    let (_, _, page) = svc.get_text(&format!("/web/submissions/{a}")).await;
    assert!(
        page.contains("m 2025-06-01 by Acme AI (open weights)")
            && page.contains("the vendor's own, framework LangGraph 0.2"),
        "{page}"
    );
    let (_, _, page) = svc.get_text("/?organisation=Acme%20AI").await;
    assert!(page.contains("Only <strong>Acme AI</strong>"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sets_result_matrix_shows_only_the_runs_the_caller_may_see() {
    let svc = Service::start(Options::default()).await;
    let acme = svc.token("acme").await;
    let beta = svc.token("beta").await;
    let a = submit(&svc, &acme, AgentKind::Oracle, "dev", json!({"trials": 2})).await;
    let b = submit(&svc, &beta, AgentKind::Null, "dev", json!({})).await;
    for (id, token) in [(&a, &acme), (&b, &beta)] {
        svc.wait(id, token, Duration::from_secs(120)).await;
    }
    svc.publish(&a, &acme).await;

    // The public sees the published one; beta sees its own too.
    let (status, public) = svc.get("/sets/dev/results", None).await;
    assert_eq!(status, 200, "{public}");
    assert_eq!(public["not_shown"], 1);
    let columns = public["submissions"].as_array().unwrap();
    assert_eq!(columns.len(), 1);
    assert_eq!(columns[0]["submission_id"], a.as_str());
    let tasks = public["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), svc.tasks.len());
    for (row, task) in tasks.iter().zip(&svc.tasks) {
        assert_eq!(row["task_id"], task.id.as_str(), "in the set's order");
        let cell = &row["cells"][0];
        assert_eq!(
            (cell["trials"].as_u64(), cell["passed"].as_u64()),
            (Some(2), Some(2))
        );
        assert_eq!(cell["coverage"], 1.0);
        assert!(cell["calls"].as_f64().unwrap() >= 1.0, "{cell}");
    }
    let (_, theirs) = svc.get("/sets/dev/results", Some(&beta)).await;
    assert_eq!(theirs["not_shown"], 0);
    let null_column = theirs["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["submission_id"] == b.as_str())
        .unwrap();
    let row = &theirs["tasks"][0]["cells"][null_column];
    assert_eq!(
        (row["passed"].as_u64(), row["calls"].as_f64()),
        (Some(0), Some(0.0))
    );
    assert_eq!(row["coverage"], 0.0, "the null agent holds no claim");

    let r = svc
        .http
        .get(svc.at("/sets/dev/results?format=csv"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/csv; charset=utf-8");
    let rows = records(&r.text().await.unwrap());
    assert_eq!(
        rows.len(),
        svc.tasks.len(),
        "a row per task and shown submission"
    );
    assert!(
        rows.iter()
            .all(|r| r["submission_id"] == a && r["passed"] == "2")
    );

    // A live private set's per-task outcomes stay sealed; an unknown set is 404.
    svc.private_set("2026-11", &svc.tasks.clone()).await;
    let (status, problem) = svc.get("/sets/2026-11/results", Some(&acme)).await;
    assert_eq!(status, 409, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("sealed until it retires")
    );
    assert_eq!(svc.get("/sets/nope/results", None).await.0, 404);

    // Two submissions on two sets do not compare: a conflict that names both sets. (The null
    // agent knows no goal, so the month's private goals need not be given to it.)
    let month = submit(&svc, &acme, AgentKind::Null, "2026-11", json!({})).await;
    svc.wait(&month, &acme, Duration::from_secs(120)).await;
    let (status, problem) = svc.get(&format!("/compare?a={a}&b={month}"), None).await;
    assert_eq!(status, 409, "{problem}");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("dev") && detail.contains("2026-11"),
        "{detail}"
    );
}

/// November's trace archive, as it starts to arrive.
async fn november_archive(svc: &Service) -> reqwest::Response {
    svc.http
        .get(svc.at("/sets/2026-11/traces"))
        .send()
        .await
        .unwrap()
}

/// The archive's files, by path.
fn untar(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut archive = tar::Archive::new(bytes);
    archive
        .entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let path = e.path().unwrap().to_string_lossy().into_owned();
            let mut body = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut body).unwrap();
            (path, body)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retired_sets_published_traces_stream_as_one_archive_without_withheld_tasks() {
    let svc = Service::start(Options::default()).await;
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let acme = svc.token("acme").await;
    let beta = svc.token("beta").await;
    let mut month = svc.tasks.clone();
    for (i, t) in month.iter_mut().enumerate() {
        t.goal = format!("{} (private marker zq{i:03}xv)", t.goal);
    }
    svc.private_set("2026-11", &month).await;
    let (a, serve_a) = svc
        .submit_reference(&acme, Some("2026-11"), (AgentKind::Oracle, "o"), &month)
        .await;
    let (b, serve_b) = svc
        .submit_reference(&beta, Some("2026-11"), (AgentKind::Null, "n"), &month)
        .await;
    serve_a();
    serve_b();
    for (id, token) in [(&a, &acme), (&b, &beta)] {
        let done = svc.wait(id, token, Duration::from_secs(120)).await;
        assert_eq!(done["status"], "completed", "{done}");
    }
    let (status, problem) = svc.get("/sets/2026-11/traces", None).await;
    assert_eq!(status, 409, "no archive while live: {problem}");
    assert_eq!(svc.get("/sets/dev/traces", None).await.0, 409);
    assert_eq!(svc.get("/sets/nope/traces", None).await.0, 404);

    // December keeps half of November's tasks: those stay withheld after November retires.
    let (status, rotated) = svc
        .post(
            "/admin/sets/2026-11/rotate",
            Some(&admin),
            &json!({"to": "2026-12", "replace": 0.5}),
        )
        .await;
    assert_eq!(status, 201, "{rotated}");
    let kept = rotated["kept"].as_u64().unwrap() as usize;
    assert!(kept > 0 && kept < month.len(), "{rotated}");
    svc.post("/admin/sets/2026-12/activate", Some(&admin), &json!({}))
        .await;
    let (status, retired) = svc
        .post("/admin/sets/2026-11/retire", Some(&admin), &json!({}))
        .await;
    assert_eq!(status, 200, "{retired}");
    svc.publish(&a, &acme).await;
    let (_, page) = svc.get("/tasks?set=2026-11&limit=100", None).await;
    let revealed: Vec<String> = page["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(revealed.len(), month.len() - kept);

    let r = november_archive(&svc).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/x-tar");
    assert!(
        r.headers().get("content-length").is_none(),
        "streamed as it is made, not measured first"
    );
    let bytes = r.bytes().await.unwrap();
    let files = untar(&bytes);
    let dir = format!("2026-11/{a}");
    assert!(
        files.keys().all(|p| p.starts_with(&dir)),
        "only the published one: {:?}",
        files.keys()
    );
    let traces: Vec<&String> = files.keys().filter(|p| p.ends_with(".jsonl")).collect();
    assert_eq!(traces.len(), revealed.len(), "{traces:?}");
    for id in &revealed {
        assert!(files.contains_key(&format!("{dir}/{id}.0.jsonl")), "{id}");
    }
    let text = String::from_utf8_lossy(&bytes);
    let withheld_markers = month.iter().filter(|t| !revealed.contains(&t.id)).map(|t| {
        t.goal
            .rsplit_once("(private marker ")
            .unwrap()
            .1
            .to_string()
    });
    for marker in withheld_markers {
        assert!(
            !text.contains(&marker),
            "a withheld task's goal ({marker}) is in the archive"
        );
    }
    // The sums check out, the list says what each file is, the traces are the API's.
    let sums = String::from_utf8(files[&format!("{dir}/SHA256SUMS")].clone()).unwrap();
    assert_eq!(sums.lines().count(), revealed.len());
    for line in sums.lines() {
        let (hash, name) = line.split_once("  ").unwrap();
        assert_eq!(
            hash,
            hex::encode(Sha256::digest(&files[&format!("{dir}/{name}")]))
        );
    }
    let runs: Value = serde_json::from_slice(&files[&format!("{dir}/runs.json")]).unwrap();
    let first = &runs[0];
    let (_, api) = svc
        .get(&format!("/runs/{}", first["id"].as_str().unwrap()), None)
        .await;
    let archived: Vec<Value> =
        String::from_utf8(files[&format!("{dir}/{}", first["trace"].as_str().unwrap())].clone())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    assert_eq!(Value::Array(archived), api["trace"]);
    let about: Value = serde_json::from_slice(&files[&format!("{dir}/submission.json")]).unwrap();
    assert_eq!(about["scores"]["success_rate"], 1.0);

    // The same data, the same bytes.
    let again = november_archive(&svc).await;
    assert_eq!(again.bytes().await.unwrap(), bytes);
    // Two archives may stream to one address at once: each one read to its end gives its
    // place back, so a third, a fourth and a fifth in a row are served too.
    for _ in 0..3 {
        let r = november_archive(&svc).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.bytes().await.unwrap(), bytes);
    }
}
