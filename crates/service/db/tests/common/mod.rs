//! What the database tests share: one throwaway PostgreSQL per test binary, a fresh migrated
//! database per test, and the tasks and submissions they put in it.

#![allow(dead_code)] // each test binary uses its own part

use mcpbench_db::{PgPool, sets, submissions};

/// A migrated database of its own, with a set of `tasks` tasks and one vendor.
pub async fn fresh(tasks: usize) -> (PgPool, i64) {
    let pool = mcpbench_testkit::fresh("q", 8).await.pool;
    let set: Vec<sets::SetTask> = (0..tasks).map(|i| task(&format!("t-{i:03}"))).collect();
    sets::put_public_set(&pool, "dev", &set).await.unwrap();
    let vendor = mcpbench_testkit::seed::vendor(&pool, "acme").await;
    (pool, vendor)
}

pub fn task(id: &str) -> sets::SetTask {
    sets::SetTask {
        id: id.into(),
        server: "filesystem".into(),
        category: "single-tool".into(),
        difficulty: "easy".into(),
        max_steps: 4,
        task: serde_json::json!({ "id": id }),
        attack: None,
    }
}

/// A task of the private set `secret`, sealed: the data layer stores what the caller sealed
/// (mcpbench-sets seals; these bytes stand for a ciphertext) and never a private task in clear.
pub fn sealed(id: &str) -> sets::DraftTask {
    sets::DraftTask {
        id: id.into(),
        server: "filesystem".into(),
        category: "single-tool".into(),
        difficulty: "easy".into(),
        max_steps: 4,
        attack: None,
        content: sets::Content::Sealed {
            key_id: "k1".into(),
            bytes: vec![7; 40],
        },
        first_set: "secret".into(),
    }
}

/// A submission of one trial per task over the set `dev`.
pub async fn submit(pool: &PgPool, vendor: i64, max_attempts: i32) -> uuid::Uuid {
    submit_trials(pool, vendor, 1, max_attempts).await
}

/// A submission of `trials` trials per task over the set `dev`.
pub async fn submit_trials(
    pool: &PgPool,
    vendor: i64,
    trials: i32,
    max_attempts: i32,
) -> uuid::Uuid {
    let s = submissions::NewSubmission {
        vendor_id: vendor,
        set_id: "dev",
        name: "s",
        model: "m",
        agent: submissions::Agent::Endpoint("http://127.0.0.1:1/"),
        signing_secret: b"k",
        trials,
        max_attempts,
        monthly_quota: None,
        max_open: None,
        distractors: None,
        about: &Default::default(),
        webhook_url: None,
    };
    submissions::create(pool, &s).await.unwrap()
}
