//! Task sets and their tasks. Only public sets (the dev set, revealed historical sets) are
//! ever listed with their tasks; a private set's tasks leave this module only for the worker.

use crate::DbError;
use sqlx::PgPool;
use time::OffsetDateTime;

/// A task as stored, with the metadata scoring needs copied out of its JSON.
#[derive(Clone, Debug)]
pub struct SetTask {
    pub id: String,
    pub server: String,
    pub category: String,
    pub difficulty: String,
    pub max_steps: i32,
    pub task: serde_json::Value,
}

/// A set's public description.
#[derive(Clone, Debug, PartialEq)]
pub struct SetInfo {
    pub id: String,
    pub state: String,
    pub public: bool,
    pub tasks: i64,
    pub created_at: OffsetDateTime,
}

impl SetTask {
    /// A loaded task as a set stores it: the JSON, plus the columns scoring and filters read.
    pub fn from_task(task: &mcpbench_tasks::Task) -> Self {
        Self {
            id: task.id.clone(),
            server: task.server.clone(),
            category: task.category.as_str().into(),
            difficulty: task.difficulty.as_str().into(),
            max_steps: task.max_steps as i32,
            task: serde_json::to_value(task).expect("tasks serialize"),
        }
    }
}

/// Stores a set and its tasks (idempotent by id; tasks are replaced by id).
pub async fn put_set(
    pool: &PgPool,
    id: &str,
    public: bool,
    tasks: &[SetTask],
) -> Result<(), DbError> {
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "INSERT INTO task_sets (id, state, public) VALUES ($1, 'active', $2) ON CONFLICT (id) DO NOTHING",
        id,
        public
    )
    .execute(&mut *tx)
    .await?;
    for (position, t) in tasks.iter().enumerate() {
        sqlx::query!(
            "INSERT INTO set_tasks (set_id, task_id, position, task, server, category, difficulty, max_steps)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (set_id, task_id) DO UPDATE SET
                 task = EXCLUDED.task, position = EXCLUDED.position, server = EXCLUDED.server,
                 category = EXCLUDED.category, difficulty = EXCLUDED.difficulty,
                 max_steps = EXCLUDED.max_steps",
            id,
            t.id,
            position as i32,
            t.task,
            t.server,
            t.category,
            t.difficulty,
            t.max_steps
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Every set, newest first (there are a few a month).
pub async fn list(pool: &PgPool, limit: i64) -> Result<Vec<SetInfo>, DbError> {
    let rows = sqlx::query_as!(
        SetInfo,
        r#"SELECT s.id, s.state, s.public, s.created_at,
                  (SELECT count(*) FROM set_tasks t WHERE t.set_id = s.id) AS "tasks!"
           FROM task_sets s ORDER BY s.created_at DESC, s.id LIMIT $1"#,
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

pub async fn get(pool: &PgPool, id: &str) -> Result<Option<SetInfo>, DbError> {
    let row = sqlx::query_as!(
        SetInfo,
        r#"SELECT s.id, s.state, s.public, s.created_at,
                  (SELECT count(*) FROM set_tasks t WHERE t.set_id = s.id) AS "tasks!"
           FROM task_sets s WHERE s.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// A page of a public set's tasks in set order, after task `after` (keyset pagination).
/// Empty for a private or unknown set.
pub async fn public_tasks(
    pool: &PgPool,
    set: &str,
    after: Option<&str>,
    limit: i64,
) -> Result<Vec<serde_json::Value>, DbError> {
    let rows = sqlx::query_scalar!(
        "SELECT t.task FROM set_tasks t JOIN task_sets s ON s.id = t.set_id
         WHERE t.set_id = $1 AND s.public
           AND t.position > COALESCE((SELECT position FROM set_tasks WHERE set_id = $1 AND task_id = $2), -1)
         ORDER BY t.position LIMIT $3",
        set,
        after,
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// One task of a public set; `None` for a private set, an unknown set or an unknown task alike.
pub async fn public_task(
    pool: &PgPool,
    set: &str,
    task_id: &str,
) -> Result<Option<serde_json::Value>, DbError> {
    let row = sqlx::query_scalar!(
        "SELECT t.task FROM set_tasks t JOIN task_sets s ON s.id = t.set_id
         WHERE t.set_id = $1 AND t.task_id = $2 AND s.public",
        set,
        task_id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// A task of any set, for the worker that runs it.
pub async fn task_for_run(
    pool: &PgPool,
    set: &str,
    task_id: &str,
) -> Result<serde_json::Value, DbError> {
    sqlx::query_scalar!(
        "SELECT task FROM set_tasks WHERE set_id = $1 AND task_id = $2",
        set,
        task_id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(DbError::NotFound)
}
