//! The board is a function of the stored traces: a submission run by the worker, then scored
//! again from its traces alone (`mcpbench admin rescore`), comes out the same; analyses lost
//! or tampered with are computed again and the scores restored.

mod support;

use mcpbench_agents::{AgentKind, router};
use mcpbench_db::{runs, submissions};
use mcpbench_storage::TraceStore;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const TASKS: usize = 12;

/// The first [`TASKS`] dev tasks, as the submission's set holds them.
fn first_tasks() -> Vec<Arc<mcpbench_tasks::Task>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let mut tasks = mcpbench_tasks::load_dir(&dir).unwrap();
    tasks.retain(|t| t.attack.is_none());
    tasks.truncate(TASKS);
    tasks.into_iter().map(Arc::new).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rescoring_from_the_traces_gives_the_same_numbers() {
    let tasks = first_tasks();
    // The heuristic agent passes some tasks and fails others in several ways.
    let s = support::setup(router(AgentKind::Heuristic, &tasks, b"k"), TASKS).await;
    let (_worker, stop) = support::worker(&s, Duration::from_secs(1)).await;
    support::completed(&s).await;
    stop.send(true).unwrap();

    let recorded = runs::stored(&s.pool, s.submission).await.unwrap();
    assert_eq!(recorded.len(), TASKS);
    assert!(
        recorded.iter().all(|r| r.analysis.is_some()),
        "every run is recorded with its analysis"
    );
    let scores = submissions::find(&s.pool, s.submission)
        .await
        .unwrap()
        .unwrap()
        .scores
        .and_then(|stored| stored.0)
        .map(|scores| serde_json::to_value(scores).unwrap())
        .unwrap();
    assert!(scores["coverage"].is_number(), "{scores}");
    assert!(scores["tool_name_validity"].is_number(), "{scores}");
    let failed = scores["tasks"].as_u64().unwrap() - scores["passed"].as_u64().unwrap();
    let grouped: u64 = scores["failures"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(grouped, failed, "every failed run has a group");
    let diagnoses = runs::diagnoses(&s.pool, s.submission).await.unwrap();
    assert_eq!(
        diagnoses.iter().map(|d| d.count as u64).sum::<u64>(),
        failed
    );
    assert!(
        diagnoses.iter().all(|d| d.example_evidence.is_some()),
        "a public set's examples carry their evidence: {diagnoses:?}"
    );

    let store = TraceStore::local(s.traces.path()).unwrap();
    let again = mcpbench_worker::rescore_set(&s.pool, &store, None, "dev")
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    let r = &again[0];
    assert_eq!(
        (r.runs, r.unreadable, r.analyses_changed),
        (TASKS, 0, 0),
        "{r:?}"
    );
    assert!(r.scores_same, "{r:?}");

    // Lose every analysis and damage the stored scores: rescoring restores both.
    sqlx::query("UPDATE runs SET analysis = NULL")
        .execute(&s.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE submissions SET scores = '{}'::jsonb")
        .execute(&s.pool)
        .await
        .unwrap();
    let restored = mcpbench_worker::rescore_set(&s.pool, &store, None, "dev")
        .await
        .unwrap();
    assert_eq!(restored[0].analyses_changed, TASKS);
    assert!(!restored[0].scores_same);
    let after = submissions::find(&s.pool, s.submission)
        .await
        .unwrap()
        .unwrap()
        .scores
        .and_then(|stored| stored.0)
        .map(|scores| serde_json::to_value(scores).unwrap())
        .unwrap();
    assert_eq!(
        after, scores,
        "the scores computed from the traces are those recorded"
    );
    let analyses =
        |runs: &[runs::StoredRun]| -> Vec<_> { runs.iter().map(|r| r.analysis.clone()).collect() };
    let now = runs::stored(&s.pool, s.submission).await.unwrap();
    assert_eq!(analyses(&now), analyses(&recorded));

    // A trace cut short (its result line lost) is named, and its run left as it was.
    let victim = &recorded[0];
    let path = s.traces.path().join(victim.trace_key.as_deref().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    let cut: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"type\":\"result\""))
        .collect();
    std::fs::write(&path, cut.join("\n")).unwrap();
    let broken = mcpbench_worker::rescore_set(&s.pool, &store, None, "dev")
        .await
        .unwrap();
    assert_eq!(broken[0].unreadable, 1);
    assert!(
        broken[0].problems[0].contains("no result line"),
        "{:?}",
        broken[0].problems
    );
    assert!(broken[0].scores_same, "the run keeps its stored analysis");

    let missing = mcpbench_worker::rescore_set(&s.pool, &store, None, "no-such-set").await;
    assert!(matches!(
        missing,
        Err(mcpbench_worker::RescoreError::NoSet(_))
    ));
}

/// A submission at a distractor level is rescored on the same variants it ran: the random
/// agent at `all` calls servers the set as published never offers, which only the variant
/// replays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submission_at_a_distractor_level_rescores_on_its_variants() {
    let tasks = first_tasks();
    let s = support::setup(router(AgentKind::Random, &tasks, b"k"), TASKS).await;
    sqlx::query("UPDATE submissions SET distractors = 'all'")
        .execute(&s.pool)
        .await
        .unwrap();
    let (_worker, stop) = support::worker(&s, Duration::from_secs(1)).await;
    support::completed(&s).await;
    stop.send(true).unwrap();
    let scores = submissions::find(&s.pool, s.submission)
        .await
        .unwrap()
        .unwrap()
        .scores
        .and_then(|stored| stored.0)
        .map(|scores| serde_json::to_value(scores).unwrap())
        .unwrap();
    assert!(
        scores["distractor_call_share"].as_f64().unwrap() > 0.3,
        "the random agent strays to the extra servers: {scores}"
    );
    let store = TraceStore::local(s.traces.path()).unwrap();
    let again = mcpbench_worker::rescore_set(&s.pool, &store, None, "dev")
        .await
        .unwrap();
    let r = &again[0];
    assert_eq!((r.unreadable, r.analyses_changed), (0, 0), "{r:?}");
    assert!(r.scores_same, "{r:?}");
}
