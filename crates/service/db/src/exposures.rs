//! Private tasks sent to hosted endpoints: which vendor saw which task of which set, first when.

use crate::DbError;
use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

/// Records that `submission`'s hosted endpoint is being sent task `task` of the private set
/// `set` (the first time per vendor is kept).
pub async fn record(pool: &PgPool, set: &str, task: &str, submission: Uuid) -> Result<(), DbError> {
    sqlx::query!(
        "INSERT INTO exposures (set_id, task_id, vendor_id, submission_id)
         SELECT $1, $2, s.vendor_id, s.id FROM submissions s WHERE s.id = $3
         ON CONFLICT (set_id, task_id, vendor_id) DO NOTHING",
        set,
        task,
        submission
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// One task of a set exposed to one vendor.
#[derive(Clone, Debug)]
pub struct Exposure {
    pub task_id: String,
    pub vendor: String,
    /// The set it was sent as a task of.
    pub set_id: String,
    pub first_at: OffsetDateTime,
}

/// Every exposure of a task `set` holds, in it or in an earlier month that held the task
/// (`set_id` says which), by task.
pub async fn held_by(pool: &PgPool, set: &str) -> Result<Vec<Exposure>, DbError> {
    let rows = sqlx::query_as!(
        Exposure,
        r#"SELECT e.task_id, v.name AS vendor, e.set_id, e.first_at
           FROM exposures e JOIN vendors v ON v.id = e.vendor_id
           JOIN set_tasks t ON t.task_id = e.task_id AND t.set_id = $1
           ORDER BY e.task_id, e.first_at"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// How many distinct tasks of `set` were sent to a hosted endpoint, in this set or in an
/// earlier month that held them (a rotation keeps a task's id).
pub async fn exposed_tasks(pool: &PgPool, set: &str) -> Result<i64, DbError> {
    Ok(exposed_ids(pool, set).await?.len() as i64)
}

/// The ids of the tasks of `set` sent to a hosted endpoint, in this set or an earlier month,
/// sorted: what a rotation from `set` replaces first.
pub async fn exposed_ids(pool: &PgPool, set: &str) -> Result<Vec<String>, DbError> {
    let ids = sqlx::query_scalar!(
        r#"SELECT DISTINCT e.task_id AS "task_id!" FROM exposures e
           JOIN set_tasks t ON t.task_id = e.task_id AND t.set_id = $1
           ORDER BY 1"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(ids)
}

/// For each completed submission to `set`: the tasks of the set its vendor had been sent by
/// an earlier submission (in any month), before this one was made. The anomaly report
/// compares how it does on them against the rest.
pub async fn seen_before(pool: &PgPool, set: &str) -> Result<Vec<(Uuid, String)>, DbError> {
    let rows = sqlx::query!(
        r#"SELECT DISTINCT s.id AS submission_id, e.task_id
           FROM submissions s
           JOIN set_tasks t ON t.set_id = s.set_id
           JOIN exposures e ON e.vendor_id = s.vendor_id AND e.task_id = t.task_id
                           AND e.submission_id <> s.id AND e.first_at < s.created_at
           WHERE s.set_id = $1 AND s.status = 'completed'"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.submission_id, r.task_id))
        .collect())
}
