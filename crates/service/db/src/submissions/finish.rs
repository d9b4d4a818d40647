//! Finishing a submission: its scores and its leaderboard row, exactly once; and scoring it
//! again from its stored traces.

use crate::{DbError, LEADERBOARD_CHANNEL};
use sqlx::PgPool;
use uuid::Uuid;

/// The scores of a finished submission, computed by the caller from its runs.
#[derive(Clone, Debug)]
pub struct FinalScores {
    /// The whole score document shown on `GET /submissions/{id}`.
    pub scores: serde_json::Value,
    pub tasks: i32,
    pub passed: i32,
    pub success_rate: f64,
    pub ci95: [f64; 2],
    /// The interval with related runs counted as such; `None` with fewer than two templates.
    pub ci95_clustered: Option<[f64; 2]>,
    pub efficiency: Option<f64>,
    pub hallucinated_tool_rate: Option<f64>,
    pub recovery_rate: Option<f64>,
    pub by_server: serde_json::Value,
    pub by_category: serde_json::Value,
    /// The overall process metrics (`mcpbench_scoring::ProcessMetrics`).
    pub process: serde_json::Value,
    /// Cost per task and median run time (`mcpbench_scoring::Spend`).
    pub spend: serde_json::Value,
}

/// How [`finish`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finished {
    /// Scored and on the leaderboard.
    Completed,
    /// Some jobs failed on our side after every retry; the text says which and why.
    Failed(String),
    /// Someone else finished it already, it was cancelled, or jobs are still open.
    NotNow,
}

/// Finishes a submission exactly once: under a row lock, if it is live and nothing of it is
/// left to run, it becomes `completed` with its scores and leaderboard row, or `failed` when
/// jobs failed on our side (a partial score is never ranked).
pub async fn finish(pool: &PgPool, id: Uuid, scores: &FinalScores) -> Result<Finished, DbError> {
    let mut tx = pool.begin().await?;
    let live = sqlx::query_scalar!(
        r#"SELECT NOT EXISTS (SELECT 1 FROM jobs WHERE submission_id = $1
                              AND state IN ('queued', 'running')) AS "idle!"
           FROM submissions WHERE id = $1 AND status IN ('queued', 'running') FOR UPDATE"#,
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    if live != Some(true) {
        return Ok(Finished::NotNow);
    }
    let failed = sqlx::query!(
        r#"SELECT count(*) AS "n!", min(last_error) AS reason FROM jobs
           WHERE submission_id = $1 AND state = 'failed'"#,
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    if failed.n > 0 || scores.tasks == 0 {
        let error = format!(
            "{} of the submission's runs could not be carried out on our side after every \
             retry ({}); nothing was scored, please submit again",
            failed.n,
            failed.reason.as_deref().unwrap_or("no run was recorded")
        );
        sqlx::query!(
            "UPDATE submissions SET status = 'failed', error = $2, finished_at = now() WHERE id = $1",
            id,
            error
        )
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        return Ok(Finished::Failed(error));
    }
    sqlx::query!(
        "UPDATE submissions SET status = 'completed', scores = $2, finished_at = now() WHERE id = $1",
        id,
        scores.scores
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "INSERT INTO leaderboard (submission_id, set_id, vendor, model, name, is_reference, tasks,
                                  passed, success_rate, ci_low, ci_high, efficiency,
                                  hallucinated_tool_rate, recovery_rate, by_server, by_category,
                                  process, ci_clustered_low, ci_clustered_high, spend,
                                  finished_at)
         SELECT s.id, s.set_id, v.name, s.model, s.name, v.is_reference, $2, $3, $4, $5, $6, $7,
                $8, $9, $10, $11, $12, $13, $14, $15, now()
         FROM submissions s JOIN vendors v ON v.id = s.vendor_id
         WHERE s.id = $1 AND s.distractors IS NULL
         ON CONFLICT (submission_id) DO NOTHING",
        id,
        scores.tasks,
        scores.passed,
        scores.success_rate,
        scores.ci95[0],
        scores.ci95[1],
        scores.efficiency,
        scores.hallucinated_tool_rate,
        scores.recovery_rate,
        scores.by_server,
        scores.by_category,
        scores.process,
        scores.ci95_clustered.map(|c| c[0]),
        scores.ci95_clustered.map(|c| c[1]),
        scores.spend
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "SELECT pg_notify($1, $2)",
        LEADERBOARD_CHANNEL,
        id.to_string()
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Finished::Completed)
}

/// Replaces the scores of a completed submission and its leaderboard row with `scores`
/// computed again from its runs (`mcpbench admin rescore`), and tells the API. `false` when
/// the submission is not completed (nothing is changed then).
pub async fn rescore(pool: &PgPool, id: Uuid, scores: &FinalScores) -> Result<bool, DbError> {
    let mut tx = pool.begin().await?;
    let updated = sqlx::query!(
        "UPDATE submissions SET scores = $2 WHERE id = $1 AND status = 'completed'",
        id,
        scores.scores
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if updated == 0 {
        return Ok(false);
    }
    sqlx::query!(
        "UPDATE leaderboard SET tasks = $2, passed = $3, success_rate = $4, ci_low = $5,
                ci_high = $6, efficiency = $7, hallucinated_tool_rate = $8, recovery_rate = $9,
                by_server = $10, by_category = $11, process = $12, ci_clustered_low = $13,
                ci_clustered_high = $14, spend = $15
         WHERE submission_id = $1",
        id,
        scores.tasks,
        scores.passed,
        scores.success_rate,
        scores.ci95[0],
        scores.ci95[1],
        scores.efficiency,
        scores.hallucinated_tool_rate,
        scores.recovery_rate,
        scores.by_server,
        scores.by_category,
        scores.process,
        scores.ci95_clustered.map(|c| c[0]),
        scores.ci95_clustered.map(|c| c[1]),
        scores.spend
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "SELECT pg_notify($1, $2)",
        LEADERBOARD_CHANNEL,
        id.to_string()
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}
