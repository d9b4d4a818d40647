//! Recorded runs: what scoring reads, what the owner and the public may see.

use crate::Stored;
use crate::{DbError, RunReason, SetState};
use mcpbench_scoring::{AttackOutcome, AttackSite, RunAnalysis, RunConditions, RunCounts, Usage};
use sqlx::PgPool;
use sqlx::types::Json;
use time::OffsetDateTime;
use uuid::Uuid;

/// One run with the task metadata scoring needs.
#[derive(Clone, Debug)]
pub struct ScoredRun {
    pub task_id: String,
    pub trial: i32,
    pub passed: bool,
    pub counts: RunCounts,
    pub server: String,
    pub category: String,
    pub difficulty: String,
    pub max_steps: i32,
    /// `None` for runs recorded before analyses were stored.
    pub analysis: Option<RunAnalysis>,
    /// From the request to the agent to its reply or the deadline.
    pub duration_ms: i64,
    /// What the agent said the run used; `None` when it said nothing.
    pub usage: Option<Usage>,
    /// The service counted `usage` itself.
    pub usage_measured: bool,
    /// What the harness gave the run; `None` for runs recorded before conditions were (or
    /// whose record does not read).
    pub conditions: Option<RunConditions>,
    /// For a task under attack: where the attack stood and whether the run met its goal (a
    /// run recorded without a verdict on it met nothing).
    pub attack: Option<AttackOutcome>,
}

/// A run as the API shows it, with what decides who may read its trace.
#[derive(Clone, Debug)]
pub struct Run {
    pub id: Uuid,
    pub submission_id: Uuid,
    pub vendor_id: i64,
    pub set_id: String,
    pub set_public: bool,
    pub set_state: SetState,
    /// Whether the run's task is in clear in its set: not while a private set is live, nor
    /// while a retired set withholds it because a live set still holds it.
    pub task_open: bool,
    pub published: bool,
    pub task_id: String,
    pub trial: i32,
    pub passed: bool,
    pub reason: RunReason,
    pub detail: Option<String>,
    pub counts: RunCounts,
    pub duration_ms: i64,
    pub trace_key: Option<String>,
    pub created_at: OffsetDateTime,
    /// What the trace shows beyond the verdict (its failure's evidence withheld on a live
    /// private set); `None` for runs recorded before analyses were stored.
    pub analysis: Option<RunAnalysis>,
    /// How many times its job was run: 1, unless our side failed and it ran again.
    pub attempts: u32,
}

/// A count as Postgres keeps it (it has no unsigned integers; a CHECK keeps counts from
/// going negative, and no run makes two billion calls).
pub(crate) fn stored_count(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A token count as Postgres keeps it (agents' reports are capped far below `i64::MAX`).
pub(crate) fn stored_tokens(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The usage stored with a run; `None` when no part of it was reported.
fn loaded_usage(input: Option<i64>, output: Option<i64>, cost_usd: Option<f64>) -> Option<Usage> {
    let tokens = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
    let usage = Usage {
        input_tokens: tokens(input),
        output_tokens: tokens(output),
        cost_usd,
    };
    (usage != Usage::default()).then_some(usage)
}

fn loaded_count(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

fn loaded_counts(
    tool_calls: i32,
    hallucinated: i32,
    invalid: i32,
    errors: i32,
    budget: bool,
) -> RunCounts {
    RunCounts {
        tool_calls: loaded_count(tool_calls),
        hallucinated_calls: loaded_count(hallucinated),
        invalid_calls: loaded_count(invalid),
        errors_observed: loaded_count(errors),
        budget_exceeded: budget,
    }
}

/// A row of [`get`] and [`list`], as selected.
struct RunRow {
    id: Uuid,
    submission_id: Uuid,
    vendor_id: i64,
    set_id: String,
    set_public: bool,
    set_state: SetState,
    task_open: bool,
    published: bool,
    task_id: String,
    trial: i32,
    passed: bool,
    reason: RunReason,
    detail: Option<String>,
    tool_calls: i32,
    hallucinated_calls: i32,
    invalid_calls: i32,
    errors_observed: i32,
    budget_exceeded: bool,
    duration_ms: i64,
    trace_key: Option<String>,
    created_at: OffsetDateTime,
    analysis: Option<Json<RunAnalysis>>,
    attempts: i32,
}

impl From<RunRow> for Run {
    fn from(r: RunRow) -> Self {
        Self {
            id: r.id,
            submission_id: r.submission_id,
            vendor_id: r.vendor_id,
            set_id: r.set_id,
            set_public: r.set_public,
            set_state: r.set_state,
            task_open: r.task_open,
            published: r.published,
            task_id: r.task_id,
            trial: r.trial,
            passed: r.passed,
            reason: r.reason,
            detail: r.detail,
            counts: loaded_counts(
                r.tool_calls,
                r.hallucinated_calls,
                r.invalid_calls,
                r.errors_observed,
                r.budget_exceeded,
            ),
            duration_ms: r.duration_ms,
            trace_key: r.trace_key,
            created_at: r.created_at,
            analysis: r.analysis.map(|a| a.0),
            attempts: loaded_count(r.attempts),
        }
    }
}

/// The failure groups of a submission's failed runs (docs/metrics.md, "Failure diagnosis"),
/// most frequent first, with the first run of each as the example.
pub async fn diagnoses(pool: &PgPool, submission: Uuid) -> Result<Vec<Diagnosis>, DbError> {
    let rows = sqlx::query_as!(
        Diagnosis,
        r#"SELECT g.grp AS "group!: mcpbench_scoring::FailureGroup", g.n AS "count!", e.task_id AS "example_task!",
                  e.evidence AS example_evidence
           FROM (SELECT analysis->'failure'->>'group' AS grp, count(*) AS n FROM runs
                 WHERE submission_id = $1 AND NOT passed
                   AND analysis->'failure'->>'group' IS NOT NULL
                 GROUP BY 1) g
           CROSS JOIN LATERAL (SELECT task_id, analysis->'failure'->>'evidence' AS evidence
                               FROM runs
                               WHERE submission_id = $1 AND NOT passed
                                 AND analysis->'failure'->>'group' = g.grp
                               ORDER BY task_id, trial LIMIT 1) e
           ORDER BY g.n DESC, g.grp"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// One failure group of a submission: how many failed runs fall in it, and the first of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    pub group: mcpbench_scoring::FailureGroup,
    pub count: i64,
    pub example_task: String,
    /// Withheld (`None`) on a live private set.
    pub example_evidence: Option<String>,
}

/// Why runs failed: each reason with its count and one example.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureGroup {
    pub reason: RunReason,
    pub count: i64,
    pub example_task: String,
    pub example_detail: Option<String>,
}

/// Every run of a submission, for scoring.
pub async fn for_scoring(pool: &PgPool, submission: Uuid) -> Result<Vec<ScoredRun>, DbError> {
    let rows = sqlx::query!(
        r#"SELECT r.task_id, r.trial, r.passed, r.tool_calls, r.hallucinated_calls,
                r.invalid_calls, r.errors_observed, r.budget_exceeded,
                t.server, t.category, t.difficulty, t.max_steps,
                r.analysis AS "analysis: Json<RunAnalysis>",
                r.duration_ms, r.input_tokens, r.output_tokens, r.cost_usd, r.usage_measured,
                r.conditions AS "conditions: Stored<RunConditions>",
                t.attack AS "attack: Stored<AttackSite>", r.attack_met
         FROM runs r
         JOIN submissions s ON s.id = r.submission_id
         JOIN set_tasks t ON t.set_id = s.set_id AND t.task_id = r.task_id
         WHERE r.submission_id = $1
         ORDER BY t.position, r.trial"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| ScoredRun {
            task_id: r.task_id,
            trial: r.trial,
            passed: r.passed,
            counts: loaded_counts(
                r.tool_calls,
                r.hallucinated_calls,
                r.invalid_calls,
                r.errors_observed,
                r.budget_exceeded,
            ),
            server: r.server,
            category: r.category,
            difficulty: r.difficulty,
            max_steps: r.max_steps,
            analysis: r.analysis.map(|a| a.0),
            duration_ms: r.duration_ms,
            usage: loaded_usage(r.input_tokens, r.output_tokens, r.cost_usd),
            usage_measured: r.usage_measured,
            conditions: r.conditions.and_then(|c| c.0),
            attack: (r.attack.and_then(|a| a.0)).map(|a| a.outcome(r.attack_met == Some(true))),
        })
        .collect())
}

pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Run>, DbError> {
    let row = sqlx::query_as!(
        RunRow,
        r#"SELECT r.id, r.submission_id, s.vendor_id, s.set_id, t.public AS set_public,
                  t.state AS "set_state: SetState", st.task IS NOT NULL AS "task_open!", s.published,
                  r.task_id, r.trial, r.passed, r.reason AS "reason: RunReason",
                  r.detail, r.tool_calls, r.hallucinated_calls, r.invalid_calls,
                  r.errors_observed, r.budget_exceeded, r.duration_ms, r.trace_key, r.created_at,
                  r.analysis AS "analysis: Json<RunAnalysis>", j.attempts
           FROM runs r JOIN submissions s ON s.id = r.submission_id
           JOIN jobs j ON j.id = r.job_id
           JOIN task_sets t ON t.id = s.set_id
           JOIN set_tasks st ON st.set_id = s.set_id AND st.task_id = r.task_id
           WHERE r.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Run::from))
}

/// A page of a submission's runs in task order, after (task, trial) when given.
pub async fn list(
    pool: &PgPool,
    submission: Uuid,
    after: Option<(&str, i32)>,
    limit: i64,
) -> Result<Vec<Run>, DbError> {
    let (after_task, after_trial) = after.map_or((None, -1), |(t, n)| (Some(t), n));
    let rows = sqlx::query_as!(
        RunRow,
        r#"SELECT r.id, r.submission_id, s.vendor_id, s.set_id, t.public AS set_public,
                  t.state AS "set_state: SetState", st.task IS NOT NULL AS "task_open!", s.published,
                  r.task_id, r.trial, r.passed, r.reason AS "reason: RunReason",
                  r.detail, r.tool_calls, r.hallucinated_calls, r.invalid_calls,
                  r.errors_observed, r.budget_exceeded, r.duration_ms, r.trace_key, r.created_at,
                  r.analysis AS "analysis: Json<RunAnalysis>", j.attempts
           FROM runs r JOIN submissions s ON s.id = r.submission_id
           JOIN jobs j ON j.id = r.job_id
           JOIN task_sets t ON t.id = s.set_id
           JOIN set_tasks st ON st.set_id = s.set_id AND st.task_id = r.task_id
           WHERE r.submission_id = $1
             AND ($2::text IS NULL OR (r.task_id, r.trial) > ($2, $3))
           ORDER BY r.task_id, r.trial LIMIT $4"#,
        submission,
        after_task,
        after_trial,
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(Run::from).collect())
}

/// The reasons a submission's runs failed, most frequent first, one example each.
pub async fn failures(pool: &PgPool, submission: Uuid) -> Result<Vec<FailureGroup>, DbError> {
    let rows = sqlx::query_as!(
        FailureGroup,
        r#"SELECT g.reason AS "reason!: RunReason", g.n AS "count!", e.task_id AS "example_task!",
                  e.detail AS example_detail
           FROM (SELECT reason, count(*) AS n FROM runs
                 WHERE submission_id = $1 AND NOT passed GROUP BY reason) g
           CROSS JOIN LATERAL (SELECT task_id, detail FROM runs
                               WHERE submission_id = $1 AND NOT passed AND reason = g.reason
                               ORDER BY task_id, trial LIMIT 1) e
           ORDER BY g.n DESC, g.reason"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// A run as `mcpbench admin rescore` reads it: where its trace is and what is stored of it.
#[derive(Clone, Debug)]
pub struct StoredRun {
    pub id: Uuid,
    pub task_id: String,
    pub trace_key: Option<String>,
    pub analysis: Option<RunAnalysis>,
}

/// Every run of a submission with its trace's key, in task order.
pub async fn stored(pool: &PgPool, submission: Uuid) -> Result<Vec<StoredRun>, DbError> {
    let rows = sqlx::query!(
        r#"SELECT id, task_id, trace_key, analysis AS "analysis: Json<RunAnalysis>"
           FROM runs WHERE submission_id = $1 ORDER BY task_id, trial"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| StoredRun {
            id: r.id,
            task_id: r.task_id,
            trace_key: r.trace_key,
            analysis: r.analysis.map(|a| a.0),
        })
        .collect())
}

/// Stores a run's analysis computed again from its trace.
pub async fn set_analysis(pool: &PgPool, run: Uuid, analysis: &RunAnalysis) -> Result<(), DbError> {
    sqlx::query!(
        "UPDATE runs SET analysis = $2 WHERE id = $1",
        run,
        Json(analysis) as Json<&RunAnalysis>
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// One run's verdict with where its task is filed and what decides who may read its trace:
/// what comparing two submissions task by task needs.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub id: Uuid,
    pub task_id: String,
    pub trial: i32,
    pub passed: bool,
    pub server: String,
    pub category: String,
    pub published: bool,
    pub set_public: bool,
    pub set_state: SetState,
    /// As [`Run::task_open`].
    pub task_open: bool,
}

/// Every run of a submission, in the set's task order, but those of tasks under attack (which
/// count in the security figures alone, never in a comparison of utility).
pub async fn outcomes(pool: &PgPool, submission: Uuid) -> Result<Vec<RunOutcome>, DbError> {
    let rows = sqlx::query_as!(
        RunOutcome,
        r#"SELECT r.id, r.task_id, r.trial, r.passed, t.server, t.category, s.published,
                  ts.public AS set_public, ts.state AS "set_state: SetState",
                  t.task IS NOT NULL AS "task_open!"
           FROM runs r
           JOIN submissions s ON s.id = r.submission_id
           JOIN task_sets ts ON ts.id = s.set_id
           JOIN set_tasks t ON t.set_id = s.set_id AND t.task_id = r.task_id
           WHERE r.submission_id = $1 AND t.attack IS NULL
           ORDER BY t.position, r.trial"#,
        submission
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
