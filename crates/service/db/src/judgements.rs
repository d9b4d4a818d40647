//! The rubric judge's readings of runs, apart from the runs' records and every score.

use crate::DbError;
use mcpbench_scoring::Judgement;
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

/// Stores (or replaces) the judgement of the recorded run of `task_id`, trial `trial`, in
/// `submission`; nothing when there is no such run.
pub async fn record(
    pool: &PgPool,
    submission: Uuid,
    task_id: &str,
    trial: i32,
    judgement: &Judgement,
) -> Result<(), DbError> {
    sqlx::query!(
        r#"INSERT INTO judgements (run_id, submission_id, model, score, judgement)
           SELECT id, submission_id, $4, $5, $6 FROM runs
           WHERE submission_id = $1 AND task_id = $2 AND trial = $3
           ON CONFLICT (run_id) DO UPDATE
           SET model = EXCLUDED.model, score = EXCLUDED.score,
               judgement = EXCLUDED.judgement, judged_at = now()"#,
        submission,
        task_id,
        trial,
        judgement.model,
        judgement.score,
        Json(judgement) as Json<&Judgement>
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// The judgement of one run, if it has one.
pub async fn of_run(pool: &PgPool, run: Uuid) -> Result<Option<Judgement>, DbError> {
    let row = sqlx::query!(
        r#"SELECT judgement AS "judgement: Json<Judgement>" FROM judgements WHERE run_id = $1"#,
        run
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| r.judgement.0))
}

/// Every judged run of a submission: whether it passed, and its judgement.
pub async fn of_submission(
    pool: &PgPool,
    submission: Uuid,
) -> Result<Vec<(bool, Judgement)>, DbError> {
    let rows = sqlx::query!(
        r#"SELECT r.passed, j.judgement AS "judgement: Json<Judgement>"
           FROM judgements j JOIN runs r ON r.id = j.run_id
           WHERE j.submission_id = $1
           ORDER BY r.task_id, r.trial"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.passed, r.judgement.0))
        .collect())
}
