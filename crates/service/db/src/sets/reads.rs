//! Reading sets: the list of sets, one set's description, the tasks of public sets a page at
//! a time, and what a new private month must keep apart from (goals in clear, ids held).

use super::SetInfo;
use crate::{DbError, SetState};
use sqlx::PgPool;

/// Every set, newest first (there are a few a month).
pub async fn list(pool: &PgPool, limit: i64) -> Result<Vec<SetInfo>, DbError> {
    let rows = sqlx::query_as!(
        SetInfo,
        r#"SELECT s.id, s.state AS "state: SetState", s.public, s.created_at, s.activated_at, s.retired_at,
                  s.checkpoint, s.signing_key, s.tag, s.rotated_from, s.rotation_replace,
                  s.rotation_seed_revealed,
                  CASE WHEN s.state = 'retired' THEN s.rotation_exposed END
                      AS rotation_exposed_revealed,
                  (SELECT count(*) FROM set_tasks t WHERE t.set_id = s.id) AS "tasks!",
                  (SELECT count(*) FROM set_tasks t
                   WHERE t.set_id = s.id AND t.sealed IS NOT NULL) AS "sealed!"
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
        r#"SELECT s.id, s.state AS "state: SetState", s.public, s.created_at, s.activated_at, s.retired_at,
                  s.checkpoint, s.signing_key, s.tag, s.rotated_from, s.rotation_replace,
                  s.rotation_seed_revealed,
                  CASE WHEN s.state = 'retired' THEN s.rotation_exposed END
                      AS rotation_exposed_revealed,
                  (SELECT count(*) FROM set_tasks t WHERE t.set_id = s.id) AS "tasks!",
                  (SELECT count(*) FROM set_tasks t
                   WHERE t.set_id = s.id AND t.sealed IS NOT NULL) AS "sealed!"
           FROM task_sets s WHERE s.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// Narrows a task listing; a `None` field matches every task.
#[derive(Clone, Copy, Debug, Default)]
pub struct TaskFilter<'a> {
    /// One of the task's servers.
    pub server: Option<&'a str>,
    pub category: Option<&'a str>,
    pub difficulty: Option<&'a str>,
}

/// A page of a public set's tasks matching `filter`, in set order, after task `after` (keyset
/// pagination). Empty for a private or unknown set.
pub async fn public_tasks(
    pool: &PgPool,
    set: &str,
    filter: TaskFilter<'_>,
    after: Option<&str>,
    limit: i64,
) -> Result<Vec<serde_json::Value>, DbError> {
    let rows = sqlx::query_scalar!(
        r#"SELECT t.task AS "task!" FROM set_tasks t JOIN task_sets s ON s.id = t.set_id
         WHERE t.set_id = $1 AND s.public AND t.task IS NOT NULL
           AND t.position > COALESCE((SELECT position FROM set_tasks WHERE set_id = $1 AND task_id = $2), -1)
           AND ($4::text IS NULL OR t.task->'servers' ? $4)
           AND ($5::text IS NULL OR t.task->>'category' = $5)
           AND ($6::text IS NULL OR t.task->>'difficulty' = $6)
         ORDER BY t.position LIMIT $3"#,
        set,
        after,
        limit,
        filter.server,
        filter.category,
        filter.difficulty
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// The goal of every task held in clear (public sets, and retired months once revealed): what
/// anyone may have read, which a new private month must not repeat.
pub async fn clear_goals(pool: &PgPool) -> Result<Vec<String>, DbError> {
    let rows = sqlx::query_scalar!(
        r#"SELECT DISTINCT t.task->>'goal' AS "goal!" FROM set_tasks t
           WHERE t.task IS NOT NULL AND t.task ? 'goal'"#
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// The id of every task any set holds, in any state, public or private (ids are in clear even
/// where the tasks are sealed): what a private pool must not draw again.
pub async fn task_ids(pool: &PgPool) -> Result<Vec<String>, DbError> {
    let rows = sqlx::query_scalar!("SELECT DISTINCT task_id FROM set_tasks")
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
        r#"SELECT t.task AS "task!" FROM set_tasks t JOIN task_sets s ON s.id = t.set_id
         WHERE t.set_id = $1 AND t.task_id = $2 AND s.public AND t.task IS NOT NULL"#,
        set,
        task_id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}
