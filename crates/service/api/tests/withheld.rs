//! Retiring a month never publishes a task a later live month still holds. Three months go
//! through rotation and retirement (each retired while the next is live, as the operator's
//! workflow does); after every step no goal of a live month appears in any public answer, a
//! retired month's bundle withholds exactly the tasks a live month holds (both verifiers
//! accept it and name them), their traces stay closed, and each withheld task is revealed
//! when the last month holding it retires.

mod support;

use mcpbench_agents::AgentKind;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;
use support::{Options, Service};

const MONTHS: [&str; 3] = ["2032-01", "2032-02", "2032-03"];

/// The goals of a set's tasks, opened with the service's keys as a worker would.
async fn goals(svc: &Service, set: &str) -> Vec<(String, String)> {
    let keyring = svc.custody.keyring.as_ref();
    let mut out = Vec::new();
    for row in mcpbench_db::sets::sealed_tasks(&svc.pool, set)
        .await
        .unwrap()
    {
        let task = mcpbench_sets::task_for_run(&svc.pool, keyring, set, &row.task_id)
            .await
            .unwrap();
        out.push((row.task_id, task["goal"].as_str().unwrap().to_string()));
    }
    out
}

/// Every way a goal can be written in an answer: as is, in a JSON string, in HTML text.
fn spellings(goal: &str) -> [String; 3] {
    let json = serde_json::to_string(goal).unwrap();
    let html = goal
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    [goal.to_string(), json[1..json.len() - 1].to_string(), html]
}

/// The public answers of the service: sets, bundles, task lists and pages, every task page of
/// the months, the board, and the runs of `submission` (published) with their traces.
async fn public_answers(svc: &Service, submission: &str, runs: &[String]) -> Vec<(String, String)> {
    let mut paths: Vec<String> = [
        "/",
        "/sets",
        "/web/sets",
        "/leaderboard",
        "/.well-known/mcpbench-checkpoint-key",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    for m in MONTHS {
        for p in [
            "/sets/{m}",
            "/sets/{m}/bundle",
            "/sets/{m}/checkpoint",
            "/tasks?set={m}&limit=100",
            "/web/tasks?set={m}",
            "/web/sets/{m}",
            "/leaderboard?set={m}",
            "/?set={m}",
        ] {
            paths.push(p.replace("{m}", m));
        }
        for row in mcpbench_db::sets::bundle_rows(&svc.pool, m)
            .await
            .unwrap_or_default()
        {
            if let Some(id) = row.task.as_ref().and_then(|t| t["id"].as_str()) {
                paths.push(format!("/tasks/{id}?set={m}"));
                paths.push(format!("/web/tasks/{id}?set={m}"));
            }
        }
    }
    paths.push(format!("/web/submissions/{submission}"));
    for run in runs {
        paths.push(format!("/runs/{run}"));
        paths.push(format!("/web/runs/{run}"));
    }
    let mut out = Vec::new();
    for path in paths {
        let (_, _, body) = svc.get_text(&path).await;
        out.push((path, body));
    }
    out
}

/// Fails naming the answer and the task when a live goal is in a public answer.
async fn assert_no_live_goal(svc: &Service, live: &[&str], submission: &str, runs: &[String]) {
    let dev: BTreeSet<&str> = svc.tasks.iter().map(|t| t.goal.as_str()).collect();
    let answers = public_answers(svc, submission, runs).await;
    let mut checked = 0;
    for set in live {
        for (id, goal) in goals(svc, set).await {
            // A fresh task the generator drew again from the public dev set is public already.
            if dev.contains(goal.as_str()) {
                eprintln!("{id} of {set} repeats a dev-set goal; not a secret to keep");
                continue;
            }
            for (path, body) in &answers {
                for spelling in spellings(&goal) {
                    assert!(
                        !body.contains(&spelling),
                        "the goal of {id}, live in {set}, is in the public answer of {path}"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no live goal was checked");
    eprintln!(
        "{checked} live goals absent from {} public answers",
        answers.len()
    );
}

fn ids(rows: &[(String, String)]) -> BTreeSet<String> {
    rows.iter().map(|(id, _)| id.clone()).collect()
}

/// Verifies a bundle with both verifiers; returns the places withheld.
fn verify_both(bundle: &[u8], checkpoint: &str, key: &str) -> Vec<usize> {
    let v = mcpbench_attest::verify(bundle, Some(checkpoint), Some(key)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../examples/verify/mcpbench_verify.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(write("bundle.json", bundle))
        .arg("--checkpoint")
        .arg(write("checkpoint", checkpoint.as_bytes()))
        .arg("--key")
        .arg(write("key", key.as_bytes()))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if v.withheld.is_empty() {
        assert!(!stdout.contains("withheld"), "{stdout}");
    } else {
        let places: Vec<String> = v.withheld.iter().map(usize::to_string).collect();
        assert!(
            stdout.contains(&format!(
                "withheld: {} of {} tasks",
                v.withheld.len(),
                v.tasks
            )) && stdout.contains(&format!("(places {})", places.join(", "))),
            "the Python verifier names other places than {places:?}: {stdout}"
        );
    }
    v.withheld
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retiring_a_month_reveals_no_task_a_live_month_still_holds() {
    let svc = Service::start(Options {
        tasks: 8,
        ..Options::default()
    })
    .await;
    let svc = &svc;
    let admin = svc.token_for(&svc.vendor("ops", true).await).await;
    let vendor = svc.token("acme").await;
    let (_, _, key) = svc.get_text("/.well-known/mcpbench-checkpoint-key").await;
    let mut first = svc.tasks.clone();
    for (i, t) in first.iter_mut().enumerate() {
        t.goal = format!("{} (private marker zq{i:03}xv)", t.goal);
    }
    svc.private_set(MONTHS[0], &first).await;
    let checkpoint = |set: &str| {
        let set = set.to_string();
        async move {
            let (status, _, note) = svc.get_text(&format!("/sets/{set}/checkpoint")).await;
            assert_eq!(status, 200);
            note
        }
    };
    let checkpoints = [checkpoint(MONTHS[0]).await];

    // The vendor's oracle runs the first month; its runs are published once it retires.
    let (submission, serve) = svc
        .submit_reference(
            &vendor,
            Some(MONTHS[0]),
            (AgentKind::Oracle, "oracle"),
            &first,
        )
        .await;
    serve();
    let done = svc
        .wait(&submission, &vendor, Duration::from_secs(120))
        .await;
    assert_eq!(done["scores"]["success_rate"], 1.0, "{done}");
    let (_, page) = svc
        .get(&format!("/submissions/{submission}/runs"), Some(&vendor))
        .await;
    let runs: Vec<(String, String)> = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["task_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(runs.len(), first.len());
    // While the month is live its owner sees each run's time as a bucket, not in milliseconds.
    for r in page["runs"].as_array().unwrap() {
        assert!(r["duration_ms"].is_null(), "{r}");
        let range = &r["duration_range_ms"];
        assert!(range["at_least_ms"].as_i64().unwrap() < range["below_ms"].as_i64().unwrap());
    }
    let run_ids: Vec<String> = runs.iter().map(|(id, _)| id.clone()).collect();
    // Another vendor's null agent runs it too, to compare the two by once it retires.
    let rival = svc.token("nobody").await;
    let (null_run, serve) = svc
        .submit_reference(&rival, Some(MONTHS[0]), (AgentKind::Null, "null"), &first)
        .await;
    serve();
    svc.wait(&null_run, &rival, Duration::from_secs(120)).await;

    let rotate = |from: &str, to: &str| {
        let (from, to) = (from.to_string(), to.to_string());
        let admin = admin.clone();
        async move {
            let (status, body) = svc
                .post(
                    &format!("/admin/sets/{from}/rotate"),
                    Some(&admin),
                    &json!({"to": to, "replace": 0.25}),
                )
                .await;
            assert_eq!(status, 201, "{body}");
            let (status, body) = svc
                .post(
                    &format!("/admin/sets/{to}/activate"),
                    Some(&admin),
                    &json!({}),
                )
                .await;
            assert_eq!(status, 200, "{body}");
        }
    };
    let retire = |set: &str| {
        let set = set.to_string();
        let admin = admin.clone();
        async move {
            let (status, body) = svc
                .post(
                    &format!("/admin/sets/{set}/retire"),
                    Some(&admin),
                    &json!({}),
                )
                .await;
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    let bundle = |set: &str| {
        let set = set.to_string();
        async move {
            let r = svc
                .http
                .get(svc.at(&format!("/sets/{set}/bundle")))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            r.bytes().await.unwrap().to_vec()
        }
    };

    // January retires while February, which kept six of its eight tasks, is live.
    rotate(MONTHS[0], MONTHS[1]).await;
    let february = goals(svc, MONTHS[1]).await;
    let jan_ids: BTreeSet<String> = first.iter().map(|t| t.id.clone()).collect();
    let kept: BTreeSet<String> = ids(&february).intersection(&jan_ids).cloned().collect();
    assert_eq!(kept.len(), 6, "a quarter of eight replaced");
    let retired = retire(MONTHS[0]).await;
    assert_eq!(retired["withheld"], 6, "{retired}");
    svc.publish(&submission, &vendor).await;
    let withheld = verify_both(&bundle(MONTHS[0]).await, &checkpoints[0], &key);
    let expected: Vec<usize> = (0..first.len())
        .filter(|&i| kept.contains(&first[i].id))
        .collect();
    assert_eq!(
        withheld, expected,
        "the bundle withholds exactly the kept tasks"
    );
    let (_, listed) = svc.get("/tasks?set=2032-01&limit=100", None).await;
    let listed: BTreeSet<&str> = listed["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        jan_ids.difference(&kept).map(String::as_str).collect(),
        "only the tasks that left are browsable"
    );
    // A kept task's trace holds its goal: closed to everyone, its owner too; the others open.
    for (run, task) in &runs {
        let want = if kept.contains(task) { 404 } else { 200 };
        assert_eq!(
            svc.get(&format!("/runs/{run}"), None).await.0,
            want,
            "{task}"
        );
        assert_eq!(
            svc.get(&format!("/runs/{run}"), Some(&vendor)).await.0,
            want,
            "{task}, its owner"
        );
    }
    svc.publish(&null_run, &rival).await;
    // Every public view of January's runs names the tasks its exports name and no other:
    // the submission's page (runs and failure examples), the comparison as JSON and as a page.
    let (_, _, page) = svc
        .get_text(&format!("/web/submissions/{submission}"))
        .await;
    let (_, _, null_page) = svc.get_text(&format!("/web/submissions/{null_run}")).await;
    let (status, compared) = svc
        .get(&format!("/compare?a={submission}&b={null_run}"), None)
        .await;
    assert_eq!(status, 200, "{compared}");
    let (_, _, compare_page) = svc
        .get_text(&format!("/web/compare?a={submission}&b={null_run}"))
        .await;
    let differences: BTreeSet<&str> = compared["differences"]
        .as_array()
        .expect("both submissions are public")
        .iter()
        .map(|d| d["task_id"].as_str().unwrap())
        .collect();
    let left: BTreeSet<&str> = jan_ids.difference(&kept).map(String::as_str).collect();
    assert_eq!(
        differences, left,
        "the comparison names only the tasks in clear"
    );
    for task in &jan_ids {
        let named = !kept.contains(task);
        for (view, text) in [
            ("the oracle's page", &page),
            ("the null agent's page", &null_page),
            ("the comparison page", &compare_page),
        ] {
            assert_eq!(text.contains(task.as_str()), named, "{view} and {task}");
        }
    }
    let (_, listed) = svc
        .get(&format!("/submissions/{submission}/runs"), Some(&vendor))
        .await;
    for r in listed["runs"].as_array().unwrap() {
        let held = kept.contains(r["task_id"].as_str().unwrap());
        assert_eq!(r["duration_ms"].is_null(), held, "exact once revealed: {r}");
    }
    assert_no_live_goal(svc, &[MONTHS[1]], &submission, &run_ids).await;

    // February retires while March is live: January's tasks that March no longer holds are
    // revealed in January's bundle and February's alike; the rest stay withheld in both.
    rotate(MONTHS[1], MONTHS[2]).await;
    let march = ids(&goals(svc, MONTHS[2]).await);
    let retired = retire(MONTHS[1]).await;
    let held_feb = ids(&february).intersection(&march).count();
    assert_eq!(retired["withheld"], held_feb as u64, "{retired}");
    let still: BTreeSet<&String> = kept.intersection(&march).collect();
    let (_, jan) = svc.get("/sets/2032-01", None).await;
    assert_eq!(jan["withheld"], still.len() as u64, "{jan}");
    let withheld = verify_both(&bundle(MONTHS[0]).await, &checkpoints[0], &key);
    assert_eq!(withheld.len(), still.len());
    let feb_checkpoint = checkpoint(MONTHS[1]).await;
    assert_eq!(
        verify_both(&bundle(MONTHS[1]).await, &feb_checkpoint, &key).len(),
        held_feb
    );
    for (run, task) in &runs {
        let want = if still.contains(task) { 404 } else { 200 };
        assert_eq!(
            svc.get(&format!("/runs/{run}"), None).await.0,
            want,
            "{task}"
        );
    }
    assert_no_live_goal(svc, &[MONTHS[2]], &submission, &run_ids).await;

    // March retires with no month after it: everything is revealed, every bundle whole.
    retire(MONTHS[2]).await;
    let mar_checkpoint = checkpoint(MONTHS[2]).await;
    for (set, note) in [
        (MONTHS[0], &checkpoints[0]),
        (MONTHS[1], &feb_checkpoint),
        (MONTHS[2], &mar_checkpoint),
    ] {
        assert_eq!(
            verify_both(&bundle(set).await, note, &key),
            Vec::<usize>::new()
        );
        let (_, info) = svc.get(&format!("/sets/{set}"), None).await;
        assert_eq!(info["withheld"], 0, "{info}");
    }
    let (_, listed) = svc.get("/tasks?set=2032-01&limit=100", None).await;
    assert_eq!(listed["tasks"].as_array().unwrap().len(), first.len());
    let revealed: Value = serde_json::from_slice(&bundle(MONTHS[0]).await).unwrap();
    assert_eq!(revealed["tasks"][0]["task"]["goal"], first[0].goal.as_str());
    for (run, _) in &runs {
        assert_eq!(svc.get(&format!("/runs/{run}"), None).await.0, 200);
    }
}
