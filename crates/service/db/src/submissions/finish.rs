//! Finishing a submission: its scores and its leaderboard row, exactly once; and scoring it
//! again from its stored traces.

use crate::{DbError, LEADERBOARD_CHANNEL};
use mcpbench_scoring::{Conditions, Scores, Security};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

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
pub async fn finish(pool: &PgPool, id: Uuid, scores: &Scores) -> Result<Finished, DbError> {
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
    if failed.n > 0 || scores.overall.tasks == 0 {
        let error = format!(
            "{} of the submission's runs could not be carried out on our side after every \
             retry ({}); nothing was scored, please submit again",
            failed.n,
            failed.reason.as_deref().unwrap_or("no run was recorded")
        );
        sqlx::query!(
            "UPDATE submissions SET status = 'failed', error = $2, finished_at = now(),
                    webhook_due_at = CASE WHEN webhook_url IS NOT NULL THEN now() END
             WHERE id = $1",
            id,
            error
        )
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        return Ok(Finished::Failed(error));
    }
    sqlx::query!(
        "UPDATE submissions SET status = 'completed', scores = $2, finished_at = now(),
                webhook_due_at = CASE WHEN webhook_url IS NOT NULL THEN now() END
         WHERE id = $1",
        id,
        Json(scores) as _
    )
    .execute(&mut *tx)
    .await?;
    put_board_row(&mut tx, id, scores).await?;
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
pub async fn rescore(pool: &PgPool, id: Uuid, scores: &Scores) -> Result<bool, DbError> {
    let mut tx = pool.begin().await?;
    let updated = sqlx::query!(
        "UPDATE submissions SET scores = $2 WHERE id = $1 AND status = 'completed'",
        id,
        Json(scores) as _
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if updated == 0 {
        return Ok(false);
    }
    put_board_row(&mut tx, id, scores).await?;
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

/// Writes the leaderboard row of completed submission `id` from its scores: a new row, or new
/// figures in the row it has (`finished_at` kept). A submission run at a level of distractors
/// has no row (it is never ranked), nor has one its vendor withdrew.
async fn put_board_row(tx: &mut PgConnection, id: Uuid, scores: &Scores) -> Result<(), DbError> {
    let overall = &scores.overall;
    let ci95 = overall.success_ci95.unwrap_or([0.0, 0.0]);
    let clustered = overall.success_ci95_clustered;
    sqlx::query!(
        "INSERT INTO leaderboard (submission_id, set_id, vendor, model, name, is_reference, tasks,
                                  passed, success_rate, ci_low, ci_high, efficiency,
                                  hallucinated_tool_rate, recovery_rate, by_server, by_category,
                                  process, ci_clustered_low, ci_clustered_high, spend,
                                  conditions, security, finished_at)
         SELECT s.id, s.set_id, v.name, s.model, s.name, v.is_reference, $2, $3, $4, $5, $6, $7,
                $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, now()
         FROM submissions s JOIN vendors v ON v.id = s.vendor_id
         WHERE s.id = $1 AND s.distractors IS NULL AND s.withdrawn_at IS NULL
         ON CONFLICT (submission_id) DO UPDATE SET
                tasks = EXCLUDED.tasks, passed = EXCLUDED.passed,
                success_rate = EXCLUDED.success_rate, ci_low = EXCLUDED.ci_low,
                ci_high = EXCLUDED.ci_high, efficiency = EXCLUDED.efficiency,
                hallucinated_tool_rate = EXCLUDED.hallucinated_tool_rate,
                recovery_rate = EXCLUDED.recovery_rate, by_server = EXCLUDED.by_server,
                by_category = EXCLUDED.by_category, process = EXCLUDED.process,
                ci_clustered_low = EXCLUDED.ci_clustered_low,
                ci_clustered_high = EXCLUDED.ci_clustered_high, spend = EXCLUDED.spend,
                conditions = EXCLUDED.conditions, security = EXCLUDED.security",
        id,
        i32::try_from(overall.tasks).unwrap_or(i32::MAX),
        i32::try_from(overall.passed).unwrap_or(i32::MAX),
        overall.success_rate.unwrap_or(0.0),
        ci95[0],
        ci95[1],
        overall.efficiency,
        overall.hallucinated_tool_rate,
        overall.recovery_rate,
        Json(&scores.by_server) as _,
        Json(&scores.by_category) as _,
        Json(&overall.process) as _,
        clustered.map(|c| c[0]),
        clustered.map(|c| c[1]),
        Json(&overall.spend) as _,
        scores.conditions.as_ref().map(Json) as Option<Json<&Conditions>>,
        scores.security.as_ref().map(Json) as Option<Json<&Security>>
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}
