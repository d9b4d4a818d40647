//! Task sets against a real PostgreSQL: a private set never shows or takes a task in clear, a
//! public set id keeps its tasks once it has results, and every change of what the public
//! sees tells the API's kept pages.

mod common;

use common::{fresh, sealed, submit, task};
use mcpbench_db::{AnomalyKind, PgPool, anomalies, sets, submissions};
use std::time::Duration;

#[tokio::test]
async fn private_set_tasks_are_not_public_and_quota_counts_per_set() {
    let (pool, vendor) = fresh(2).await;
    sets::create_draft(
        &pool,
        "secret",
        false,
        None,
        &[sealed("s-1"), sealed("s-2")],
    )
    .await
    .unwrap();
    sets::activate(&pool, "secret", None, &[]).await.unwrap();
    assert!(
        sets::put_public_set(&pool, "secret", &[task("s-3")])
            .await
            .is_err(),
        "a private set never takes a task in clear"
    );
    assert!(
        sets::public_tasks(&pool, "secret", sets::TaskFilter::default(), None, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        sets::public_task(&pool, "secret", "s-1")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        sets::public_tasks(&pool, "dev", sets::TaskFilter::default(), None, 10)
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(matches!(
        sets::task_for_run(&pool, "secret", "s-1").await.unwrap(),
        sets::StoredTask::Sealed { .. }
    ));
    let about = submissions::About::default();
    let new = |set| submissions::NewSubmission {
        vendor_id: vendor,
        set_id: set,
        name: "s",
        model: "m",
        agent: submissions::Agent::Endpoint("http://127.0.0.1:1/"),
        signing_secret: b"k",
        trials: 2,
        max_attempts: 3,
        monthly_quota: Some(1),
        max_open: None,
        distractors: None,
        about: &about,
        webhook_url: None,
    };
    let id = submissions::create(&pool, &new("secret")).await.unwrap();
    assert_eq!(
        submissions::progress(&pool, id).await.unwrap(),
        (mcpbench_db::SubmissionStatus::Queued, 0, 4)
    );
    assert!(matches!(
        submissions::create(&pool, &new("secret")).await,
        Err(mcpbench_db::DbError::Quota { .. })
    ));
    submissions::create(&pool, &new("dev")).await.unwrap();
    submissions::create(&pool, &new("dev")).await.unwrap();
}

#[tokio::test]
async fn a_public_set_id_never_takes_other_tasks_once_it_has_results() {
    let (pool, vendor) = fresh(3).await;
    let ids = |pool: PgPool| async move {
        sets::public_tasks(&pool, "dev", sets::TaskFilter::default(), None, 100)
            .await
            .unwrap()
            .into_iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // Before any result: the set's tasks are replaced, none of the old ones left behind.
    let fresh_list: Vec<sets::SetTask> = ["u-1", "u-2"].iter().map(|i| task(i)).collect();
    sets::put_public_set(&pool, "dev", &fresh_list)
        .await
        .unwrap();
    assert_eq!(ids(pool.clone()).await, ["u-1", "u-2"]);

    submit(&pool, vendor, 1).await;
    // The same tasks again are fine (a restart loads its dev set again).
    sets::put_public_set(&pool, "dev", &fresh_list)
        .await
        .unwrap();
    // Other tasks, or the same ids with other content, are refused and change nothing.
    let mut changed = fresh_list.clone();
    changed[1].task = serde_json::json!({ "id": "u-2", "goal": "something else" });
    for other in [changed, vec![task("u-1")]] {
        let err = sets::put_public_set(&pool, "dev", &other)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, mcpbench_db::DbError::Conflict(m) if m.contains("new set id")),
            "{err}"
        );
    }
    assert_eq!(ids(pool.clone()).await, ["u-1", "u-2"]);
    // A new id takes them.
    sets::put_public_set(&pool, "dev-v2", &[task("u-1")])
        .await
        .unwrap();
}

/// Every change of what the public sees tells the API's kept pages to go: a public set's
/// tasks, a private set going live, retiring and its withheld tasks released later (a draft,
/// which the public does not see, tells nothing).
#[tokio::test]
async fn what_changes_the_public_view_notifies_the_kept_pages() {
    let (pool, _) = fresh(1).await;
    let mut listener = sqlx::postgres::PgListener::connect_with(&pool)
        .await
        .unwrap();
    listener
        .listen(mcpbench_db::LEADERBOARD_CHANNEL)
        .await
        .unwrap();
    let mut told = async |what: &str| {
        let heard = tokio::time::timeout(Duration::from_secs(10), listener.recv()).await;
        assert!(matches!(heard, Ok(Ok(_))), "{what} notified nothing");
        // Nothing more than once.
        let again = tokio::time::timeout(Duration::from_millis(200), listener.recv()).await;
        assert!(again.is_err(), "{what} notified twice");
    };
    sets::put_public_set(&pool, "dev2", &[task("p-1")])
        .await
        .unwrap();
    told("a public set's tasks").await;
    sets::create_draft(&pool, "secret", false, None, &[sealed("s-1")])
        .await
        .unwrap();
    sets::activate(&pool, "secret", None, &[[1; 32]])
        .await
        .unwrap();
    told("going live").await;
    // Retired under a tag without revealing: the task stays withheld until released.
    sets::retire(&pool, "secret", Some("2026-11"), &[], None)
        .await
        .unwrap();
    told("retiring").await;
    let revealed = sets::RevealedTask {
        salt: vec![1; 32],
        task: serde_json::json!({ "id": "s-1" }),
    };
    assert!(sets::release(&pool, "secret", 0, &revealed).await.unwrap());
    told("a release").await;
}

#[tokio::test]
async fn a_flag_of_every_kind_the_analysis_raises_is_stored_and_reads_back() {
    // `exposed_gap` was once missing from the table's CHECK: storing it failed the whole
    // analysis, and the set kept none of its flags.
    let (pool, vendor) = fresh(2).await;
    let submission = submit(&pool, vendor, 3).await;
    let flags: Vec<anomalies::NewFlag> = AnomalyKind::ALL
        .into_iter()
        .map(|kind| {
            let spike = kind == AnomalyKind::TaskSpike;
            anomalies::NewFlag {
                kind,
                submission_id: (!spike).then_some(submission),
                task_id: spike.then(|| "t-000".to_string()),
                summary: format!("a {kind}"),
                detail: serde_json::json!({ "n": 1 }),
            }
        })
        .collect();
    anomalies::replace(&pool, "dev", &flags).await.unwrap();
    let mut stored: Vec<AnomalyKind> = anomalies::list(&pool, Some("dev"), 10)
        .await
        .unwrap()
        .into_iter()
        .map(|f| f.kind)
        .collect();
    stored.sort_by_key(|k| k.as_str());
    let mut every = AnomalyKind::ALL.to_vec();
    every.sort_by_key(|k| k.as_str());
    assert_eq!(stored, every);
}
