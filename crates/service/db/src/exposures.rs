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
    pub first_at: OffsetDateTime,
}

/// Every exposure of `set`, by task.
pub async fn of_set(pool: &PgPool, set: &str) -> Result<Vec<Exposure>, DbError> {
    let rows = sqlx::query_as!(
        Exposure,
        r#"SELECT e.task_id, v.name AS vendor, e.first_at
           FROM exposures e JOIN vendors v ON v.id = e.vendor_id
           WHERE e.set_id = $1 ORDER BY e.task_id, e.first_at"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// How many distinct tasks of `set` were sent to a hosted endpoint.
pub async fn exposed_tasks(pool: &PgPool, set: &str) -> Result<i64, DbError> {
    let n = sqlx::query_scalar!(
        r#"SELECT count(DISTINCT task_id) AS "n!" FROM exposures WHERE set_id = $1"#,
        set
    )
    .fetch_one(pool)
    .await?;
    Ok(n)
}
