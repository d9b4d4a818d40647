//! The optional rubric judge in the worker: every recorded run of a public set is judged by a
//! scripted OpenAI-compatible endpoint, stored apart, and the scores stay what they were.

mod support;

use axum::extract::State;
use mcpbench_agents::{AgentKind, router};
use mcpbench_db::{SubmissionStatus, judgements, submissions};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TASKS: usize = 4;

/// Scores every rubric item 7, as a model would, in a fenced block after a sentence.
async fn judge_reply(State(asked): State<Arc<AtomicUsize>>, body: String) -> axum::Json<Value> {
    asked.fetch_add(1, Ordering::SeqCst);
    let request: Value = serde_json::from_str(&body).unwrap();
    let user = request["messages"][1]["content"].as_str().unwrap();
    let scores: serde_json::Map<String, Value> = user
        .split("## Rubric")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| (l.split(':').next().unwrap().to_string(), json!(7)))
        .collect();
    let content = format!(
        "Assessment below.\n```json\n{}\n```",
        json!({ "scores": scores })
    );
    axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": content}}]}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_runs_are_judged_apart_from_their_scores() {
    let asked = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(judge_reply))
        .with_state(asked.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let judge_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tasks/dev");
    let mut tasks = mcpbench_tasks::load_dir(&dir).unwrap();
    tasks.truncate(TASKS);
    let tasks: Vec<_> = tasks.into_iter().map(Arc::new).collect();
    let s = support::setup(router(AgentKind::Oracle, &tasks, b"k"), TASKS).await;
    let mut config = mcpbench_worker::Config::new("test");
    let args = mcpbench_config::JudgeArgs {
        judge_url: Some(judge_url),
        judge_model: Some("judge-7".into()),
        judge_api_key: Some("sk-test".into()),
        judge_shuffles: 5,
        judge_private_sets: false,
    };
    config.judge = mcpbench_worker::judge_from_args(&args).unwrap();
    assert!(config.judge.is_some());
    let (_worker, stop) = support::worker_with(&s, config).await;

    let deadline = Instant::now() + Duration::from_secs(120);
    let judged = loop {
        let (status, _, _) = submissions::progress(&s.pool, s.submission).await.unwrap();
        assert_ne!(status, SubmissionStatus::Failed);
        let judged = judgements::of_submission(&s.pool, s.submission)
            .await
            .unwrap();
        if status == SubmissionStatus::Completed && judged.len() == TASKS {
            break judged;
        }
        assert!(Instant::now() < deadline, "the runs were not all judged");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    stop.send(true).unwrap();
    assert_eq!(
        asked.load(Ordering::SeqCst),
        TASKS * 5,
        "five shuffles a run"
    );
    for (passed, j) in &judged {
        assert!(*passed, "the oracle passes");
        assert_eq!(j.model, "judge-7");
        assert_eq!((j.shuffles, j.valid_shuffles), (5, 5));
        assert!((j.score - 0.7).abs() < 1e-9, "{j:?}");
        assert!(
            j.items.iter().any(|i| i.id == "C1"),
            "the task's own items are judged"
        );
    }
    // The deterministic scores know nothing of it.
    let scores = submissions::find(&s.pool, s.submission)
        .await
        .unwrap()
        .unwrap()
        .scores
        .and_then(|stored| stored.0)
        .map(|scores| serde_json::to_value(scores).unwrap())
        .unwrap();
    assert_eq!(scores["success_rate"], 1.0);
    assert!(!scores.to_string().contains("judge"), "{scores}");
}

#[test]
fn half_a_judge_configuration_is_refused() {
    let args = mcpbench_config::JudgeArgs {
        judge_url: Some("http://127.0.0.1:9/v1".into()),
        ..Default::default()
    };
    let e = mcpbench_worker::judge_from_args(&args).unwrap_err();
    assert!(e.contains("MCPBENCH_JUDGE_MODEL"), "{e}");
    assert!(
        mcpbench_worker::judge_from_args(&Default::default())
            .unwrap()
            .is_none()
    );
}
