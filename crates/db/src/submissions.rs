//! Task sets and submissions, as far as the queue needs them.

use crate::{DbError, queue};
use sqlx::PgPool;
use uuid::Uuid;

/// Stores a set and its tasks (idempotent by id).
pub async fn put_set(
    pool: &PgPool,
    id: &str,
    public: bool,
    tasks: &[(String, serde_json::Value)],
) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "INSERT INTO task_sets (id, state, public) VALUES ($1, 'active', $2) ON CONFLICT (id) DO NOTHING",
        id,
        public
    )
    .execute(&mut *tx)
    .await?;
    for (position, (task_id, task)) in tasks.iter().enumerate() {
        sqlx::query!(
            "INSERT INTO set_tasks (set_id, task_id, position, task) VALUES ($1, $2, $3, $4)
             ON CONFLICT (set_id, task_id) DO UPDATE SET task = EXCLUDED.task, position = EXCLUDED.position",
            id,
            task_id,
            position as i32,
            task
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

pub struct NewSubmission<'a> {
    pub vendor_id: i64,
    pub set_id: &'a str,
    pub name: &'a str,
    pub model: &'a str,
    pub endpoint_url: &'a str,
    pub signing_secret: &'a [u8],
    pub trials: i32,
    pub max_attempts: i32,
}

/// Creates an endpoint submission over every task of its set and queues its jobs, atomically.
pub async fn create(pool: &PgPool, s: &NewSubmission<'_>) -> Result<Uuid, DbError> {
    let mut tx = pool.begin().await?;
    let task_ids: Vec<String> = sqlx::query_scalar!(
        "SELECT task_id FROM set_tasks WHERE set_id = $1 ORDER BY position",
        s.set_id
    )
    .fetch_all(&mut *tx)
    .await?;
    if task_ids.is_empty() {
        return Err(DbError::Conflict(format!(
            "set {:?} has no tasks",
            s.set_id
        )));
    }
    let id = Uuid::new_v4();
    sqlx::query!(
        "INSERT INTO submissions (id, vendor_id, set_id, name, model, kind, endpoint_url, signing_secret,
                                  status, tasks_total)
         VALUES ($1, $2, $3, $4, $5, 'endpoint', $6, $7, 'queued', $8)",
        id,
        s.vendor_id,
        s.set_id,
        s.name,
        s.model,
        s.endpoint_url,
        s.signing_secret,
        (task_ids.len() as i32) * s.trials
    )
    .execute(&mut *tx)
    .await?;
    queue::enqueue(&mut tx, id, &task_ids, s.trials, s.max_attempts).await?;
    tx.commit().await?;
    Ok(id)
}

/// Cancels a submission of `vendor_id`: queued jobs are dropped, running ones see it at their
/// next heartbeat. False when there is no such submission of that vendor or it has ended.
pub async fn cancel(pool: &PgPool, id: Uuid, vendor_id: i64) -> Result<bool, DbError> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query!(
        "UPDATE submissions SET status = 'cancelled', finished_at = now(), error = 'cancelled by its owner'
         WHERE id = $1 AND vendor_id = $2 AND status IN ('queued', 'running')",
        id,
        vendor_id
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query!(
        "UPDATE jobs SET state = 'cancelled' WHERE submission_id = $1 AND state = 'queued'",
        id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(done == 1)
}

/// Progress of a submission: (status, tasks_done, tasks_total).
pub async fn progress(pool: &PgPool, id: Uuid) -> Result<(String, i32, i32), DbError> {
    let r = sqlx::query!(
        "SELECT status, tasks_done, tasks_total FROM submissions WHERE id = $1",
        id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(DbError::NotFound)?;
    Ok((r.status, r.tasks_done, r.tasks_total))
}
