//! What the anomaly detector reads (outcomes per submission and task, earlier months, the
//! shape of a set) and the flags it stores.

use crate::{AnomalyKind, DbError, LEADERBOARD_CHANNEL};
use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

/// One completed submission's runs of one task (reference agents left out).
#[derive(Clone, Debug)]
pub struct TaskOutcome {
    pub submission_id: Uuid,
    pub vendor_id: i64,
    pub model: String,
    pub task_id: String,
    pub passed: i64,
    pub trials: i64,
}

/// A task of a set, with whether a rotation kept it from an earlier month.
#[derive(Clone, Debug)]
pub struct Shape {
    pub task_id: String,
    pub kept: bool,
    pub server: String,
    pub category: String,
    pub difficulty: String,
}

/// A vendor's model over the committed months before a set, pooled: tasks solved (by most of
/// their trials) of tasks run.
#[derive(Clone, Debug)]
pub struct History {
    pub vendor_id: i64,
    pub model: String,
    pub passed: i64,
    pub runs: i64,
    pub sets: Vec<String>,
}

/// A stored flag.
#[derive(Clone, Debug)]
pub struct Flag {
    pub id: i64,
    pub set_id: String,
    pub kind: AnomalyKind,
    pub submission_id: Option<Uuid>,
    pub task_id: Option<String>,
    pub summary: String,
    pub detail: serde_json::Value,
    pub created_at: OffsetDateTime,
}

/// A flag to store.
#[derive(Clone, Debug)]
pub struct NewFlag {
    pub kind: AnomalyKind,
    pub submission_id: Option<Uuid>,
    pub task_id: Option<String>,
    pub summary: String,
    pub detail: serde_json::Value,
}

pub async fn outcomes(pool: &PgPool, set: &str) -> Result<Vec<TaskOutcome>, DbError> {
    let rows = sqlx::query_as!(
        TaskOutcome,
        r#"SELECT s.id AS submission_id, s.vendor_id, s.model, r.task_id,
                  count(*) FILTER (WHERE r.passed) AS "passed!", count(*) AS "trials!"
           FROM runs r JOIN submissions s ON s.id = r.submission_id
           JOIN vendors v ON v.id = s.vendor_id
           WHERE s.set_id = $1 AND s.status = 'completed' AND NOT v.is_reference
           GROUP BY s.id, s.vendor_id, s.model, r.task_id
           ORDER BY s.id, r.task_id"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

pub async fn shapes(pool: &PgPool, set: &str) -> Result<Vec<Shape>, DbError> {
    let rows = sqlx::query_as!(
        Shape,
        r#"SELECT task_id, first_set <> set_id AS "kept!", server, category, difficulty
           FROM set_tasks WHERE set_id = $1 ORDER BY position"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// Every vendor's models over the committed sets that went live before `set`.
pub async fn history(pool: &PgPool, set: &str) -> Result<Vec<History>, DbError> {
    let rows = sqlx::query_as!(
        History,
        r#"WITH per_task AS (
               SELECT s.vendor_id, s.model, s.set_id,
                      2 * count(*) FILTER (WHERE r.passed) > count(*) AS solved
               FROM runs r JOIN submissions s ON s.id = r.submission_id
               JOIN task_sets t ON t.id = s.set_id
               WHERE s.status = 'completed' AND t.checkpoint IS NOT NULL AND s.set_id <> $1
                 AND t.activated_at < (SELECT activated_at FROM task_sets WHERE id = $1)
               GROUP BY s.vendor_id, s.model, s.set_id, r.submission_id, r.task_id)
           SELECT vendor_id, model, count(*) FILTER (WHERE solved) AS "passed!",
                  count(*) AS "runs!", array_agg(DISTINCT set_id ORDER BY set_id) AS "sets!"
           FROM per_task GROUP BY vendor_id, model"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// Replaces the flags of `set` with `flags` (an analysis is redone whole) and tells the
/// leaderboard caches.
pub async fn replace(pool: &PgPool, set: &str, flags: &[NewFlag]) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    sqlx::query!("DELETE FROM anomaly_flags WHERE set_id = $1", set)
        .execute(&mut *tx)
        .await?;
    for f in flags {
        sqlx::query!(
            "INSERT INTO anomaly_flags (set_id, kind, submission_id, task_id, summary, detail)
             VALUES ($1, $2, $3, $4, $5, $6)",
            set,
            f.kind as AnomalyKind,
            f.submission_id,
            f.task_id,
            f.summary,
            f.detail
        )
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query!("SELECT pg_notify($1, $2)", LEADERBOARD_CHANNEL, set)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Flags, newest first, of one set or of all.
pub async fn list(pool: &PgPool, set: Option<&str>, limit: i64) -> Result<Vec<Flag>, DbError> {
    let rows = sqlx::query_as!(
        Flag,
        r#"SELECT id, set_id, kind AS "kind: AnomalyKind", submission_id, task_id, summary,
                detail, created_at
         FROM anomaly_flags WHERE $1::text IS NULL OR set_id = $1
         ORDER BY created_at DESC, id DESC LIMIT $2"#,
        set,
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
