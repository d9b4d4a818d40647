//! Baselines: the service submits its reference agents on every live set by itself (the
//! public set and a private month alike), runs them inside the worker, where nothing outside
//! the service sees a private task, and shows them as MCPBench's, never a vendor's. Queued
//! once, however many workers look.

#[path = "../../sandbox/tests/support/images.rs"]
mod images;
mod support;

use mcpbench_db::baselines;
use serde_json::Value;
use std::time::Duration;
use support::{Options, Service};

/// Waits until `set` has `n` completed baselines; their board entries, by name.
async fn completed_baselines(svc: &Service, set: &str, n: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    loop {
        let (status, board) = svc.get(&format!("/leaderboard?set={set}"), None).await;
        assert_eq!(status, 200, "{board}");
        let entries: Vec<Value> = board["entries"].as_array().unwrap().clone();
        if entries.len() >= n {
            return entries;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the baselines on {set} did not finish: {board}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// How many baseline submissions `set` has, in any state.
async fn baselines_on(svc: &Service, set: &str) -> i64 {
    sqlx::query_scalar::<_, i64>(
        "SELECT count(*) FROM submissions WHERE set_id = $1 AND baseline IS NOT NULL",
    )
    .bind(set)
    .fetch_one(&svc.pool)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_live_set_gets_the_baselines_once_run_inside_the_service() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let month = "2026-12";
    svc.private_set(month, &svc.tasks).await;
    // Two workers set to queue every baseline: each set gets one of each, not two.
    let all = mcpbench_worker::Baselines::agents(&mcpbench_config::baselines("all").unwrap().0);
    let (_a, _wa) = svc.worker(|c| c.baselines = all.clone()).await;
    let (_b, _wb) = svc.worker(|c| c.baselines = all.clone()).await;

    for set in ["dev", month] {
        let entries = completed_baselines(&svc, set, 5).await;
        let names: Vec<&str> = entries
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        for agent in mcpbench_config::BASELINE_AGENTS {
            assert!(names.contains(&agent), "{agent} on {set}: {names:?}");
        }
        for e in &entries {
            // Ours, marked so, run inside the service.
            assert_eq!(e["reference"], true, "{e}");
            assert_eq!(e["vendor"], baselines::VENDOR);
            assert_eq!(e["about"]["organisation"], "MCPBench");
            assert_eq!(e["hosting"], "in-service", "{e}");
        }
        let oracle = entries.iter().find(|e| e["name"] == "oracle").unwrap();
        assert_eq!(oracle["success_rate"], 1.0, "{oracle}");
        let null = entries.iter().find(|e| e["name"] == "null").unwrap();
        assert_eq!(null["success_rate"], 0.0, "{null}");
    }
    // Housekeeping rounds go on; nothing more is queued.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(baselines_on(&svc, "dev").await, 5);
    assert_eq!(baselines_on(&svc, month).await, 5);
    // Run inside the worker, the baselines exposed no private task.
    let exposed = mcpbench_db::exposures::exposed_tasks(&svc.pool, month)
        .await
        .unwrap();
    assert_eq!(exposed, 0);

    // A vendor cannot submit a baseline of its own.
    let token = svc.vendor("acme", false).await;
    let body = serde_json::json!({"name": "my own oracle", "model": "m", "kind": "baseline"});
    let (status, refused) = svc.post("/submissions", Some(&token), &body).await;
    assert!(matches!(status, 400 | 422), "{status} {refused}");
    assert_eq!(baselines_on(&svc, "dev").await, 5);

    // On the page: MCPBench's, marked as baselines.
    let (status, _, page) = svc.get_text(&format!("/?set={month}")).await;
    assert_eq!(status, 200);
    assert_eq!(page.matches(">baseline</span>").count(), 5, "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_may_queue_again_a_baseline_that_failed() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let agents = vec!["null".to_string()];
    let plan = mcpbench_worker::Baselines::agents(&agents);
    let queued = mcpbench_worker::queue_baselines(&svc.pool, None, "dev", &plan)
        .await
        .unwrap();
    assert_eq!(queued.len(), 1);
    // Queued already: nothing more.
    let again = mcpbench_worker::queue_baselines(&svc.pool, None, "dev", &plan)
        .await
        .unwrap();
    assert!(again.is_empty());
    // Once it failed, it may be queued again.
    sqlx::query("UPDATE submissions SET status = 'failed' WHERE id = $1")
        .bind(queued[0].1)
        .execute(&svc.pool)
        .await
        .unwrap();
    let retried = mcpbench_worker::queue_baselines(&svc.pool, None, "dev", &plan)
        .await
        .unwrap();
    assert_eq!(retried.len(), 1);
    assert_ne!(retried[0].1, queued[0].1);
    // A worker's own round never queues a failed one again (it leaves that to the operator),
    // even when it queues another agent the set lacks.
    sqlx::query("UPDATE submissions SET status = 'failed' WHERE id = $1")
        .bind(retried[0].1)
        .execute(&svc.pool)
        .await
        .unwrap();
    let missing = baselines::missing(&svc.pool, &agents).await.unwrap();
    assert!(missing.is_empty(), "{missing:?}");
    let plan = mcpbench_worker::Baselines::agents(&["null".into(), "random".into()]);
    let (_stop, _worker) = svc.worker(|c| c.baselines = plan).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while baselines_on(&svc, "dev").await < 3 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "random was not queued"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let live: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM submissions WHERE set_id = 'dev' AND baseline = 'null'
           AND status NOT IN ('failed', 'cancelled')",
    )
    .fetch_one(&svc.pool)
    .await
    .unwrap();
    assert_eq!(
        live, 0,
        "the failed null baseline was queued again by a worker"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_a_baseline_image_a_private_month_s_baselines_run_in_the_sandbox() {
    let svc = Service::start(Options {
        worker: false,
        ..Options::default()
    })
    .await;
    let month = "2026-11";
    svc.private_set(month, &svc.tasks).await;
    // deploy/Dockerfile's `baseline-agent`: the static binary, serving the agent the worker
    // names in MCPBENCH_AGENT_KIND.
    let static_cli = std::env::var_os("MCPBENCH_STATIC_CLI")
        .map(std::path::PathBuf::from)
        .expect(
            "MCPBENCH_STATIC_CLI must name a statically linked mcpbench; scripts/test builds it",
        );
    let tag = format!("mcpbench-test-baseline:{}", std::process::id());
    let image = images::build_image(
        &tag,
        &[
            (&static_cli, "/mcpbench"),
            (
                std::path::Path::new("/etc/ssl/certs/ca-certificates.crt"),
                "/etc/ssl/certs/ca-certificates.crt",
            ),
        ],
        &["/mcpbench", "agent", "serve", "--addr", "0.0.0.0:8080"],
    );
    let sandbox = support::sandbox(support::sandbox_config("baselines")).await;
    let plan = mcpbench_worker::Baselines {
        agents: ["oracle", "null", "heuristic"].map(String::from).to_vec(),
        models: Vec::new(),
        image: Some(image),
    };
    let (_stop, _worker) = svc
        .worker(|c| {
            c.sandbox = Some(sandbox);
            c.baselines = plan;
        })
        .await;
    let hosting = |entries: &[Value], name: &str| {
        let e = entries.iter().find(|e| e["name"] == name).unwrap();
        (
            e["hosting"].as_str().unwrap().to_string(),
            e["success_rate"].as_f64().unwrap(),
        )
    };
    // The month: the oracle inside the worker (it plays the references no image holds), the
    // others in the sandbox as a vendor's image runs; the image saw the tasks with no way out.
    let entries = completed_baselines(&svc, month, 3).await;
    assert_eq!(hosting(&entries, "oracle"), ("in-service".into(), 1.0));
    assert_eq!(hosting(&entries, "null"), ("sandboxed".into(), 0.0));
    let (heuristic, _) = hosting(&entries, "heuristic");
    assert_eq!(heuristic, "sandboxed");
    for e in &entries {
        assert_eq!(e["reference"], true, "{e}");
        // The image served the agent it was told to: no run failed as the agent's fault.
        assert!(e["failures"].get("agent_error").is_none(), "{e}");
    }
    let exposed = mcpbench_db::exposures::exposed_tasks(&svc.pool, month)
        .await
        .unwrap();
    assert_eq!(exposed, 0);
    // The public set's run inside the worker: its tasks are no secret.
    let entries = completed_baselines(&svc, "dev", 3).await;
    for name in ["oracle", "null", "heuristic"] {
        assert_eq!(hosting(&entries, name).0, "in-service", "{name}");
    }
    images::remove_image(&tag);
}
