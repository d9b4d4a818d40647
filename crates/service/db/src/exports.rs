//! What the exports read: a set's per-task results, and the runs of its published
//! submissions whose traces go into its archive. Who may see what is decided by the caller
//! (the API's access rules); these only fetch.

use crate::{DbError, RunReason, Stored};
use mcpbench_scoring::Scores;
use sqlx::PgPool;
use time::OffsetDateTime;
use uuid::Uuid;

/// One run as a set's result matrix needs it: verdict, calls and the claims behind coverage.
#[derive(Clone, Debug)]
pub struct ResultRun {
    pub submission_id: Uuid,
    pub task_id: String,
    pub server: String,
    pub category: String,
    pub passed: bool,
    pub tool_calls: i32,
    /// From the run's analysis; `None` for runs recorded before analyses were stored.
    pub claims: Option<i32>,
    pub claims_held: Option<i32>,
    pub guards_broken: Option<i32>,
}

/// The runs of `submissions` on tasks of `set` that are in clear (a task a live set still
/// holds is left out), in the set's task order.
pub async fn results(
    pool: &PgPool,
    set: &str,
    submissions: &[Uuid],
) -> Result<Vec<ResultRun>, DbError> {
    let rows = sqlx::query_as!(
        ResultRun,
        r#"SELECT r.submission_id, r.task_id, t.server, t.category, r.passed, r.tool_calls,
                  (r.analysis->>'claims')::int AS claims,
                  (r.analysis->>'claims_held')::int AS claims_held,
                  (r.analysis->>'guards_broken')::int AS guards_broken
           FROM runs r
           JOIN set_tasks t ON t.set_id = $1 AND t.task_id = r.task_id
           WHERE r.submission_id = ANY($2) AND t.task IS NOT NULL
           ORDER BY t.position, r.submission_id, r.trial"#,
        set,
        submissions
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// A completed, published submission of a set, as its trace archive describes it.
#[derive(Clone, Debug)]
pub struct PublishedSubmission {
    pub id: Uuid,
    pub vendor: String,
    pub name: String,
    pub model: String,
    pub distractors: Option<String>,
    pub scores: Option<Stored<Scores>>,
    pub finished_at: Option<OffsetDateTime>,
}

/// The completed submissions of `set` whose owners published them (and did not withdraw),
/// oldest first.
pub async fn published(pool: &PgPool, set: &str) -> Result<Vec<PublishedSubmission>, DbError> {
    let rows = sqlx::query_as!(
        PublishedSubmission,
        r#"SELECT s.id, v.name AS vendor, s.name, s.model, s.distractors, s.scores AS "scores: Stored<Scores>", s.finished_at
           FROM submissions s JOIN vendors v ON v.id = s.vendor_id
           WHERE s.set_id = $1 AND s.status = 'completed' AND s.published
             AND s.withdrawn_at IS NULL
           ORDER BY s.finished_at, s.id"#,
        set
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// One run of a published submission: where its trace is, and whether its task is in clear.
#[derive(Clone, Debug)]
pub struct ArchivedRun {
    pub id: Uuid,
    pub task_id: String,
    pub trial: i32,
    pub passed: bool,
    pub reason: RunReason,
    pub trace_key: Option<String>,
    pub task_open: bool,
    pub created_at: OffsetDateTime,
}

/// Every run of `submission` in its set's task order.
pub async fn archived_runs(pool: &PgPool, submission: Uuid) -> Result<Vec<ArchivedRun>, DbError> {
    let rows = sqlx::query_as!(
        ArchivedRun,
        r#"SELECT r.id, r.task_id, r.trial, r.passed, r.reason AS "reason: RunReason", r.trace_key,
                  t.task IS NOT NULL AS "task_open!", r.created_at
           FROM runs r
           JOIN submissions s ON s.id = r.submission_id
           JOIN set_tasks t ON t.set_id = s.set_id AND t.task_id = r.task_id
           WHERE r.submission_id = $1
           ORDER BY t.position, r.trial"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
