//! A private month through the API: an admin drafts, activates, rotates and retires sets; the
//! worker runs a vendor's agent on sealed tasks; the commitment is public from go-live and the
//! reveal bundle verifies against it; the retired month opens (tasks browsable, traces
//! publishable). A month drawn partly from a private pool is closed to every public page while
//! live.

mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::time::Duration;
use support::{Options, Service};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_private_month_runs_sealed_and_opens_with_a_verifiable_reveal() {
    let svc = Service::start(Options::default()).await;
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let vendor = svc.token("acme").await;
    // The month's goals are found nowhere else (the dev set holds the same tasks otherwise).
    let mut month = svc.tasks.clone();
    for (i, t) in month.iter_mut().enumerate() {
        t.goal = format!("{} (private marker zq{i:03}xv)", t.goal);
    }
    svc.private_set("2026-11", &month).await;

    // The commitment is public from go-live: checkpoint, commitments, key; no task.
    let (status, set) = svc.get("/sets/2026-11", None).await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["state"], "active");
    assert_eq!(
        set["commitments"].as_array().unwrap().len(),
        svc.tasks.len()
    );
    let checkpoint = set["checkpoint"].as_str().unwrap().to_string();
    assert!(checkpoint.starts_with(&format!(
        "mcpbench.test/sets/2026-11\n{}\n",
        svc.tasks.len()
    )));
    let (status, kind, file) = svc.get_text("/sets/2026-11/checkpoint").await;
    assert_eq!(
        (status, kind.as_str(), file.as_str()),
        (200, "text/plain; charset=utf-8", checkpoint.as_str())
    );
    let (status, _, key) = svc.get_text("/.well-known/mcpbench-checkpoint-key").await;
    assert_eq!(status, 200);
    assert_eq!(key.trim_end(), set["signing_key"].as_str().unwrap());
    let (status, body) = svc.get("/sets/2026-11/bundle", None).await;
    assert_eq!(status, 404, "no reveal while live: {body}");
    assert_eq!(svc.get("/tasks?set=2026-11", None).await.0, 404);

    // The worker opens the sealed tasks; the oracle passes them all.
    let oracle = (AgentKind::Oracle, "oracle-model");
    let (id, serve) = svc
        .submit_reference(&vendor, Some("2026-11"), oracle, &month)
        .await;
    let (status, early) = svc
        .post("/admin/sets/2026-11/retire", Some(&admin), &json!({}))
        .await;
    assert_eq!(
        status, 409,
        "a set does not retire under a running submission: {early}"
    );
    assert!(
        early["detail"]
            .as_str()
            .unwrap()
            .contains("still queued or running")
    );
    serve();
    let done = svc.wait(&id, &vendor, Duration::from_secs(120)).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["scores"]["success_rate"], 1.0, "{done}");
    // A hosted endpoint received every goal of the month: each task is recorded as exposed to
    // its vendor, and the set says how many.
    let exposures = mcpbench_db::exposures::held_by(&svc.pool, "2026-11")
        .await
        .unwrap();
    assert_eq!(exposures.len(), month.len(), "{exposures:?}");
    assert!(exposures.iter().all(|e| e.vendor == "acme"));
    let (_, set) = svc.get("/sets/2026-11", None).await;
    assert_eq!(set["exposed"], month.len() as u64, "{set}");
    let (_, dev) = svc.get("/sets/dev", None).await;
    assert!(
        dev.get("exposed").is_none(),
        "a public set has nothing to expose: {dev}"
    );
    let (_, page) = svc
        .get(&format!("/submissions/{id}/runs"), Some(&vendor))
        .await;
    let run = page["runs"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        svc.get(&format!("/runs/{run}"), Some(&vendor)).await.0,
        404,
        "closed while live"
    );
    // Its traces are sealed at rest like its tasks.
    let stored: Vec<_> = std::fs::read_dir(svc.traces.path().join("runs").join(&id))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(stored.len(), month.len());
    assert!(
        stored.iter().all(|f| mcpbench_vault::is_sealed_file(f)),
        "a private run's trace is in clear"
    );
    // After a whole submission ran on it, the database still holds no goal of the month.
    let dump = svc.pg_dump();
    assert!(dump.contains("2026-11"), "the dump holds the month");
    assert!(
        !dump.contains("private marker"),
        "a private goal is in the database in clear"
    );

    // Next month is rotated from this one while it is live, then goes live itself.
    let (status, rotated) = svc
        .post(
            "/admin/sets/2026-11/rotate",
            Some(&admin),
            &json!({"to": "2026-12", "replace": 0.5}),
        )
        .await;
    assert_eq!(status, 201, "{rotated}");
    assert_eq!(
        rotated["kept"].as_u64().unwrap() + rotated["replaced"].as_u64().unwrap(),
        svc.tasks.len() as u64
    );
    assert_eq!(
        (
            rotated["set"]["state"].as_str(),
            rotated["set"]["rotated_from"].as_str()
        ),
        (Some("draft"), Some("2026-11"))
    );
    let (status, live) = svc
        .post("/admin/sets/2026-12/activate", Some(&admin), &json!({}))
        .await;
    assert_eq!(status, 200, "{live}");
    assert!(
        live["checkpoint"]
            .as_str()
            .unwrap()
            .starts_with("mcpbench.test/sets/2026-12\n")
    );

    // Retired: revealed as Historical-2026-11, tasks browsable, traces publishable; except the
    // tasks December kept, which stay withheld while December is live.
    let kept = rotated["kept"].as_u64().unwrap() as usize;
    let (status, retired) = svc
        .post("/admin/sets/2026-11/retire", Some(&admin), &json!({}))
        .await;
    assert_eq!(status, 200, "{retired}");
    assert_eq!(retired["tag"], "Historical-2026-11");
    assert_eq!(retired["bundle_url"], "/sets/2026-11/bundle");
    assert_eq!(retired["withheld"], kept as u64);
    let (status, page) = svc.get("/tasks?set=2026-11&limit=100", None).await;
    assert_eq!(status, 200, "{page}");
    let listed: Vec<&str> = page["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), month.len() - kept);
    let (status, by_tag) = svc.get("/tasks?set=Historical-2026-11&limit=1", None).await;
    assert_eq!(
        (status, by_tag["tasks"][0]["id"].as_str()),
        (200, Some(listed[0]))
    );
    let (_, page) = svc
        .get(&format!("/submissions/{id}/runs"), Some(&vendor))
        .await;
    let revealed_run = |revealed: bool| {
        page["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| listed.contains(&r["task_id"].as_str().unwrap()) == revealed)
            .map(|r| r["id"].as_str().unwrap().to_string())
            .unwrap()
    };
    let (run, held) = (revealed_run(true), revealed_run(false));
    assert_eq!(
        svc.get(&format!("/runs/{run}"), Some(&vendor)).await.0,
        200,
        "the owner reads it"
    );
    svc.publish(&id, &vendor).await;
    assert_eq!(
        svc.get(&format!("/runs/{run}"), None).await.0,
        200,
        "published after the reveal"
    );
    assert_eq!(
        svc.get(&format!("/runs/{held}"), None).await.0,
        404,
        "a withheld task's trace stays closed"
    );
    let (_, opened) = svc.get(&format!("/runs/{run}"), None).await;
    let trace = opened["trace"].as_array().unwrap();
    assert_eq!(
        (
            trace[0]["type"].as_str(),
            trace.last().unwrap()["type"].as_str()
        ),
        (Some("header"), Some("result")),
        "the sealed trace opens once revealed"
    );

    let r = svc
        .http
        .get(svc.at("/sets/2026-11/bundle"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("mcpbench-2026-11.bundle.json")
    );
    let bundle = r.bytes().await.unwrap();
    let v = mcpbench_attest::verify(&bundle, Some(&checkpoint), Some(&key)).unwrap();
    assert_eq!(
        (v.tasks, v.withheld.len(), v.set.as_str()),
        (svc.tasks.len(), kept, "2026-11")
    );
    let revealed: Value = serde_json::from_slice(&bundle).unwrap();
    let first_revealed = month.iter().position(|t| t.id == listed[0]).unwrap();
    assert_eq!(
        revealed["tasks"][first_revealed]["task"]["goal"],
        month[first_revealed].goal.as_str()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_set_endpoints_are_for_admins_and_refuse_what_states_do_not_allow() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let vendor = svc.token("acme").await;
    let draft = json!({"id": "2027-01", "generate": 6});
    let (status, body) = svc.post("/admin/sets", Some(&vendor), &draft).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = svc.post("/admin/sets", None, &draft).await;
    assert_eq!(status, 401, "{body}");

    let (status, created) = svc.post("/admin/sets", Some(&admin), &draft).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        (
            created["state"].as_str(),
            created["tasks"].as_i64(),
            created["public"].as_bool()
        ),
        (Some("draft"), Some(6), Some(false))
    );
    assert!(created["checkpoint"].is_null());
    for (body, want) in [
        (json!({"id": "2027-01", "generate": 6}), 409),
        (json!({"id": "january", "generate": 6}), 422),
        (json!({"id": "2027-02", "generate": 0}), 422),
        (json!({"id": "2027-02", "generate": 6, "extra": 1}), 400),
        (json!({"id": "../etc", "generate": 6}), 400),
    ] {
        let (status, problem) = svc.post("/admin/sets", Some(&admin), &body).await;
        assert_eq!(status, want, "{body} -> {problem}");
        assert!(problem["detail"].is_string());
    }
    // Submissions only to active sets; a draft cannot retire or rotate.
    let sub = json!({"name": "x", "model": "m", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:9/", "set": "2027-01"});
    assert_eq!(svc.post("/submissions", Some(&vendor), &sub).await.0, 422);
    assert_eq!(
        svc.post("/admin/sets/2027-01/retire", Some(&admin), &json!({}))
            .await
            .0,
        409
    );
    assert_eq!(
        svc.post(
            "/admin/sets/2027-01/rotate",
            Some(&admin),
            &json!({"to": "2027-02"})
        )
        .await
        .0,
        409
    );
    assert_eq!(
        svc.post("/admin/sets/2099-01/activate", Some(&admin), &json!({}))
            .await
            .0,
        404
    );
    // A draft can be deleted; a live set cannot.
    let r = svc
        .http
        .delete(svc.at("/admin/sets/2027-01"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(svc.get("/sets/2027-01", None).await.0, 404);
    svc.private_set("2027-03", &svc.tasks).await;
    let r = svc
        .http
        .delete(svc.at("/admin/sets/2027-03"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    let (status, body) = svc
        .post(
            "/admin/sets/2027-03/rotate",
            Some(&admin),
            &json!({"to": "2027-04", "replace": 0.9}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_score_jump_against_the_same_model_last_month_is_flagged_for_admins_and_on_the_board() {
    let svc = Service::start(Options::default()).await;
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let vendor = svc.token("acme").await;
    let run = |set: &'static str, kind: AgentKind| {
        let (svc, vendor) = (&svc, &vendor);
        async move {
            let (id, serve) = svc
                .submit_reference(vendor, Some(set), (kind, "acme-1"), &svc.tasks)
                .await;
            serve();
            let done = svc.wait(&id, vendor, Duration::from_secs(120)).await;
            assert_eq!(done["status"], "completed", "{done}");
            id
        }
    };
    // Last month the model solved nothing; this month, with the same name, everything.
    svc.private_set("2026-10", &svc.tasks).await;
    let failed = run("2026-10", AgentKind::Null).await;
    // Which part of a live private task's predicate failed quotes the task: not said.
    let (_, runs) = svc
        .get(&format!("/submissions/{failed}/runs"), Some(&vendor))
        .await;
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), svc.tasks.len());
    for r in runs {
        assert_eq!(
            (r["reason"].as_str(), &r["detail"]),
            (Some("predicate_false"), &serde_json::Value::Null),
            "{r}"
        );
    }
    svc.private_set("2026-11", &svc.tasks).await;
    let jumped = run("2026-11", AgentKind::Oracle).await;
    // Another vendor's steady model is not flagged.
    let other = svc.token("steady").await;
    let (id, serve) = svc
        .submit_reference(
            &other,
            Some("2026-11"),
            (AgentKind::Null, "steady-1"),
            &svc.tasks,
        )
        .await;
    serve();
    svc.wait(&id, &other, Duration::from_secs(120)).await;

    assert_eq!(
        svc.post("/admin/sets/2026-11/analyze", Some(&vendor), &json!({}))
            .await
            .0,
        403
    );
    let (status, found) = svc
        .post("/admin/sets/2026-11/analyze", Some(&admin), &json!({}))
        .await;
    assert_eq!(status, 200, "{found}");
    let flags = found["anomalies"].as_array().unwrap();
    assert_eq!(flags.len(), 1, "{found}");
    assert_eq!(
        (
            flags[0]["kind"].as_str(),
            flags[0]["submission_id"].as_str()
        ),
        (Some("score_jump"), Some(jumped.as_str()))
    );
    assert!(flags[0]["summary"].as_str().unwrap().contains("2026-10"));
    let (status, listed) = svc.get("/admin/anomalies?set=2026-11", Some(&admin)).await;
    assert_eq!(
        (status, listed["anomalies"].as_array().unwrap().len()),
        (200, 1)
    );
    assert_eq!(svc.get("/admin/anomalies", Some(&vendor)).await.0, 403);

    let (status, board) = svc.get("/leaderboard?set=2026-11", None).await;
    assert_eq!(status, 200, "{board}");
    for entry in board["entries"].as_array().unwrap() {
        let want: &[&str] = if entry["submission_id"] == jumped.as_str() {
            &["score_jump"]
        } else {
            &[]
        };
        assert_eq!(entry["flags"], json!(want), "{entry}");
    }
    // Analysing again replaces, never duplicates.
    svc.post("/admin/sets/2026-11/analyze", Some(&admin), &json!({}))
        .await;
    let (_, listed) = svc.get("/admin/anomalies", Some(&admin)).await;
    assert_eq!(listed["anomalies"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_month_drawn_from_a_private_pool_is_closed_to_every_public_page_while_live() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    // The pool: dev tasks the deployment does not publish, with ids and goals of their own.
    let dir = tempfile::tempdir().unwrap();
    let mut secret = support::dev_tasks(150);
    secret.drain(..140);
    for (i, t) in secret.iter_mut().enumerate() {
        t.id = format!("pool-{}", t.id);
        t.goal = format!(
            "{} (private marker zq{}xv)",
            t.goal,
            char::from(b'a' + i as u8)
        );
        let file = dir.path().join(format!("{}.json", t.id));
        std::fs::write(file, serde_json::to_string(t).unwrap()).unwrap();
    }
    let plan = mcpbench_sets::pool_draft(&svc.pool, &svc.custody, "2026-11", 6, dir.path(), None)
        .await
        .unwrap();
    assert_eq!(
        (plan.generated, plan.drawn),
        (5, 1),
        "a quarter, at least 1"
    );
    mcpbench_sets::activate(&svc.pool, &svc.custody, "2026-11")
        .await
        .unwrap();
    let drawn: Vec<String> = plan
        .tasks
        .iter()
        .filter(|t| t.id.starts_with("pool-"))
        .map(|t| t.id.clone())
        .collect();
    assert_eq!(drawn.len(), 1);
    let id = &drawn[0];
    assert!(id.ends_with("-202611"), "{id}");

    for path in [
        "/tasks?set=2026-11".to_string(),
        format!("/tasks/{id}?set=2026-11"),
        format!("/tasks/{id}"),
        "/web/tasks?set=2026-11".to_string(),
        format!("/web/tasks/{id}?set=2026-11"),
    ] {
        let (status, _, body) = svc.get_text(&path).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert!(!body.contains("private marker"), "{path}: {body}");
    }
    for path in ["/sets/2026-11", "/web/sets/2026-11", "/sets"] {
        let (status, _, body) = svc.get_text(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(!body.contains("private marker"), "{path}: {body}");
    }
    let dump = svc.pg_dump();
    assert!(
        dump.contains(id.as_str()),
        "the dump holds the month's rows"
    );
    assert!(
        !dump.contains("private marker"),
        "a pool goal is in the database in clear"
    );
}

/// By default a deployment runs private sets on Docker images only: a hosted endpoint would
/// receive every sealed goal. An endpoint submission to a private set is refused with that
/// reason, and nothing is created; public sets still take endpoints.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hosted_endpoints_are_refused_on_private_sets_unless_the_deployment_allows_them() {
    let svc = Service::start(Options {
        hosted_private_sets: false,
        kept_for: mcpbench_api::KEPT_FOR,
        worker: false,
        ..Options::default()
    })
    .await;
    let vendor = svc.token("acme").await;
    svc.private_set("2026-11", &svc.tasks.clone()).await;
    let body = |set: &str| {
        json!({"name": "n", "model": "m", "kind": "endpoint",
               "endpoint_url": "http://127.0.0.1:9/", "set": set})
    };
    let (status, problem) = svc
        .post("/submissions", Some(&vendor), &body("2026-11"))
        .await;
    assert_eq!(status, 422, "{problem}");
    assert!(
        problem["type"]
            .as_str()
            .unwrap()
            .ends_with("hosted-private-set"),
        "{problem}"
    );
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("Docker images only") && detail.contains("sealed tasks"),
        "{detail}"
    );
    let (_, mine) = svc.get("/submissions", Some(&vendor)).await;
    assert_eq!(
        mine["submissions"].as_array().unwrap().len(),
        0,
        "nothing was created"
    );
    let (status, created) = svc.post("/submissions", Some(&vendor), &body("dev")).await;
    assert_eq!(status, 202, "a public set takes endpoints: {created}");
}
