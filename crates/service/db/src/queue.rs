//! The job queue: enqueue, claim, heartbeat, complete, fail, reap.

use crate::runs::{stored_count, stored_tokens};
use crate::{DbError, JobState, RunReason, SubmissionStatus};
use mcpbench_scoring::{RunAnalysis, RunConditions, RunCounts, Usage};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use uuid::Uuid;

/// The `LISTEN` channel that wakes workers when jobs arrive; polling is the fallback.
pub const CHANNEL: &str = "mcpbench_jobs";

/// A job a worker holds, with the epoch that fences its writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub job_id: i64,
    pub submission_id: Uuid,
    pub task_id: String,
    pub trial: i32,
    pub epoch: i64,
    /// 1 on the first try.
    pub attempt: i32,
}

/// What a heartbeat learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beat {
    /// The lease is extended; carry on.
    Alive,
    /// The owner cancelled the submission; stop and give the job back.
    Cancelled,
    /// The lease was lost (reaped and perhaps claimed by another worker); stop, write nothing.
    Lost,
}

/// A run's result, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub passed: bool,
    pub reason: RunReason,
    pub detail: Option<String>,
    pub counts: RunCounts,
    pub duration_ms: i64,
    pub trace_key: Option<String>,
    /// What the trace shows beyond the verdict; `None` for a run without a trace to analyse.
    pub analysis: Option<RunAnalysis>,
    /// What the agent said the run used; `None` when it said nothing.
    pub usage: Option<Usage>,
    /// The service counted `usage` itself (its own agent drove the model).
    pub usage_measured: bool,
    /// What the harness gave the run.
    pub conditions: Option<RunConditions>,
    /// For a task under attack, whether the attacker's goal was met.
    pub attack_met: Option<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Stored; `finished` when no job of the submission is left to run.
    Recorded { finished: bool },
    /// The claim is no longer current (its lease was lost): nothing was written.
    Stale,
}

/// The order a submission's tasks are queued in: shuffled by the submission's id, the same
/// for one submission every time. A set lists its tasks grouped by server, and the submissions
/// that run at once would otherwise all run the same few tasks at the same moment: the
/// costliest servers' (postgres's engines) on every slot of every worker together, then the
/// cheapest' together. Shuffled, each moment's load is close to the set's mean (the month
/// benchmark, `cargo bench -p mcpbench-worker-app --bench month`, measures it).
pub fn queue_order(submission: Uuid, task_ids: &[String]) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let mut keyed: Vec<([u8; 32], &String)> = task_ids
        .iter()
        .map(|t| {
            let key = Sha256::new()
                .chain_update(submission.as_bytes())
                .chain_update(t.as_bytes())
                .finalize();
            (key.into(), t)
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, t)| t.clone()).collect()
}

/// Counts of jobs the reaper moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reaped {
    pub requeued: u64,
    pub failed: u64,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Queues one job per task and trial (idempotent) and wakes the workers. A task's trials are
/// queued together, the tasks in [`queue_order`].
pub async fn enqueue(
    conn: &mut PgConnection,
    submission: Uuid,
    task_ids: &[String],
    trials: i32,
    max_attempts: i32,
    needs_docker: bool,
) -> Result<u64, DbError> {
    let task_ids = queue_order(submission, task_ids);
    let inserted = sqlx::query!(
        "INSERT INTO jobs (submission_id, vendor_id, task_id, trial, max_attempts, needs_docker)
         SELECT $1, (SELECT vendor_id FROM submissions WHERE id = $1), t.task_id, tr, $4, $5
         FROM unnest($2::text[]) WITH ORDINALITY AS t(task_id, n)
         CROSS JOIN generate_series(0, $3 - 1) AS tr
         ORDER BY t.n, tr
         ON CONFLICT (submission_id, task_id, trial) DO NOTHING",
        submission,
        &task_ids,
        trials,
        max_attempts,
        needs_docker
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    sqlx::query!(
        "UPDATE submissions SET jobs_open = jobs_open + $2 WHERE id = $1",
        submission,
        inserted as i32
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!("SELECT pg_notify($1, '')", CHANNEL)
        .execute(&mut *conn)
        .await?;
    Ok(inserted)
}

/// Which jobs a worker may claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimRules {
    /// The worker can run Docker images.
    pub docker: bool,
    /// No vendor gets a job while it has this many running (across every worker); `None` is
    /// no cap. Concurrent claims may overshoot it by the number of claims racing.
    pub vendor_max_running: Option<i64>,
}

impl Default for ClaimRules {
    fn default() -> Self {
        Self {
            docker: true,
            vendor_max_running: None,
        }
    }
}

/// Claims a job, whatever it needs and with no cap (see [`claim_as`]).
pub async fn claim(pool: &PgPool, worker: &str, lease: Duration) -> Result<Option<Claim>, DbError> {
    claim_as(pool, worker, lease, ClaimRules::default()).await
}

/// Claims a job this worker can run, in one statement, sharing the workers fairly between
/// vendors: the oldest queued job of the vendor with the fewest jobs running (oldest first
/// between vendors that run as many), skipping vendors at their cap. A vendor that queues
/// forty thousand jobs, or whose agent holds every run for its whole budget, then delays
/// another vendor's submission by at most its share of the workers.
pub async fn claim_as(
    pool: &PgPool,
    worker: &str,
    lease: Duration,
    rules: ClaimRules,
) -> Result<Option<Claim>, DbError> {
    let row = sqlx::query!(
        "UPDATE jobs SET state = 'running', epoch = epoch + 1, attempts = attempts + 1,
                worker = $1, lease_until = now() + make_interval(secs => $2)
         WHERE id = (
             -- Per vendor (a few hundred rows at most): its running count and its oldest
             -- claimable job, each one probe of a partial index (`jobs_running_by_vendor`,
             -- `jobs_queued_by_vendor`). Queued jobs belong to live submissions only
             -- (cancelling a submission cancels its queued jobs in the same transaction), so
             -- no join with submissions. SKIP LOCKED: racing claims take each vendor's next.
             SELECT q.id FROM vendors v
             CROSS JOIN LATERAL (
                 SELECT count(*) AS n FROM jobs r
                 WHERE r.state = 'running' AND r.vendor_id = v.id) running
             CROSS JOIN LATERAL (
                 SELECT j.id FROM jobs j
                 WHERE j.state = 'queued' AND j.vendor_id = v.id AND (NOT j.needs_docker OR $3)
                 ORDER BY j.id
                 LIMIT 1
                 FOR UPDATE SKIP LOCKED) q
             WHERE $4::bigint IS NULL OR running.n < $4
             ORDER BY running.n, q.id
             LIMIT 1)
         RETURNING id, submission_id, task_id, trial, epoch, attempts",
        worker,
        secs(lease),
        rules.docker,
        rules.vendor_max_running
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| Claim {
        job_id: r.id,
        submission_id: r.submission_id,
        task_id: r.task_id,
        trial: r.trial,
        epoch: r.epoch,
        attempt: r.attempts,
    }))
}

/// Extends the lease of a claim that is still current.
pub async fn heartbeat(pool: &PgPool, claim: &Claim, lease: Duration) -> Result<Beat, DbError> {
    let row = sqlx::query!(
        r#"UPDATE jobs j SET lease_until = now() + make_interval(secs => $3)
         FROM submissions s
         WHERE j.id = $1 AND j.epoch = $2 AND j.state = 'running' AND s.id = j.submission_id
         RETURNING s.status AS "status: SubmissionStatus""#,
        claim.job_id,
        claim.epoch,
        secs(lease)
    )
    .fetch_optional(pool)
    .await?;
    Ok(match row {
        None => Beat::Lost,
        Some(r) if r.status == SubmissionStatus::Cancelled => Beat::Cancelled,
        Some(_) => Beat::Alive,
    })
}

/// Records a run for a current claim, exactly once, and keeps the submission's progress, in
/// one statement (one round trip): the job is marked done only under its current epoch, the
/// run is inserted only from that row, the counter moves only by what was inserted.
pub async fn complete(
    pool: &PgPool,
    claim: &Claim,
    run: &RunRecord,
) -> Result<Completion, DbError> {
    let usage = run.usage.as_ref();
    let row = sqlx::query!(
        r#"WITH job AS (
               UPDATE jobs SET state = 'done', lease_until = NULL
               WHERE id = $1 AND epoch = $2 AND state = 'running'
               RETURNING id),
           run AS (
               INSERT INTO runs (id, job_id, submission_id, task_id, trial, passed, reason, detail,
                                 tool_calls, hallucinated_calls, invalid_calls, errors_observed,
                                 budget_exceeded, duration_ms, trace_key, analysis,
                                 input_tokens, output_tokens, cost_usd, usage_measured,
                                 conditions, attack_met)
               SELECT $3, job.id, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                      $18, $19, $20, $21, $22, $23
               FROM job
               ON CONFLICT (submission_id, task_id, trial) DO NOTHING
               RETURNING 1),
           sub AS (
               UPDATE submissions SET
                   tasks_done = tasks_done + (SELECT count(*)::int FROM run),
                   jobs_open = jobs_open - 1,
                   status = CASE WHEN status = 'queued' THEN 'running' ELSE status END
               WHERE id = $4 AND EXISTS (SELECT 1 FROM job)
               RETURNING jobs_open)
           SELECT EXISTS (SELECT 1 FROM job) AS "current!",
                  COALESCE((SELECT jobs_open = 0 FROM sub), FALSE) AS "finished!""#,
        claim.job_id,
        claim.epoch,
        Uuid::new_v4(),
        claim.submission_id,
        claim.task_id,
        claim.trial,
        run.passed,
        run.reason as RunReason,
        run.detail,
        stored_count(run.counts.tool_calls),
        stored_count(run.counts.hallucinated_calls),
        stored_count(run.counts.invalid_calls),
        stored_count(run.counts.errors_observed),
        run.counts.budget_exceeded,
        run.duration_ms,
        run.trace_key,
        run.analysis.as_ref().map(Json) as Option<Json<&RunAnalysis>>,
        usage.and_then(|u| u.input_tokens).map(stored_tokens),
        usage.and_then(|u| u.output_tokens).map(stored_tokens),
        usage.and_then(|u| u.cost_usd),
        run.usage_measured && usage.is_some(),
        run.conditions.as_ref().map(Json) as Option<Json<&RunConditions>>,
        run.attack_met
    )
    .fetch_one(pool)
    .await?;
    Ok(if row.current {
        Completion::Recorded {
            finished: row.finished,
        }
    } else {
        Completion::Stale
    })
}

/// Gives a job back after a failure on our side: queued again, or failed after its last try.
/// Returns whether the submission has nothing left to run.
pub async fn fail(pool: &PgPool, claim: &Claim, error: &str) -> Result<bool, DbError> {
    // One statement: the job is given up only under its current epoch, and only a job that
    // failed for good leaves the submission's open count.
    let row = sqlx::query!(
        r#"WITH job AS (
               UPDATE jobs SET state = CASE WHEN (SELECT status FROM submissions WHERE id = jobs.submission_id) = 'cancelled' THEN 'cancelled'
                                            WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
                      last_error = $3, lease_until = NULL, worker = NULL
               WHERE id = $1 AND epoch = $2 AND state = 'running'
               RETURNING state),
           sub AS (
               UPDATE submissions SET jobs_open = jobs_open - 1
               WHERE id = $4 AND EXISTS (SELECT 1 FROM job WHERE state = 'failed')
               RETURNING jobs_open)
           SELECT COALESCE((SELECT jobs_open = 0 FROM sub), FALSE) AS "finished!""#,
        claim.job_id,
        claim.epoch,
        error,
        claim.submission_id
    )
    .fetch_one(pool)
    .await?;
    Ok(row.finished)
}

/// Puts a job back in the queue without counting the try (a worker shutting down).
pub async fn release(pool: &PgPool, claim: &Claim) -> Result<(), DbError> {
    sqlx::query!(
        "UPDATE jobs SET state = CASE WHEN (SELECT status FROM submissions WHERE id = jobs.submission_id) = 'cancelled' THEN 'cancelled' ELSE 'queued' END,
                attempts = attempts - 1, lease_until = NULL, worker = NULL
         WHERE id = $1 AND epoch = $2 AND state = 'running'",
        claim.job_id,
        claim.epoch
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Re-queues jobs whose lease ran out, or fails them after their last try.
pub async fn reap(pool: &PgPool) -> Result<Reaped, DbError> {
    let rows = sqlx::query!(
        r#"WITH reaped AS (
               UPDATE jobs SET state = CASE WHEN (SELECT status FROM submissions WHERE id = jobs.submission_id) = 'cancelled' THEN 'cancelled'
                                            WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
                      last_error = 'the worker running it stopped answering (its lease expired)',
                      lease_until = NULL, worker = NULL
               WHERE state = 'running' AND lease_until < now()
               RETURNING submission_id, state),
           gone AS (
               UPDATE submissions s SET jobs_open = s.jobs_open - g.n
               FROM (SELECT submission_id, count(*)::int AS n FROM reaped
                     WHERE state = 'failed' GROUP BY submission_id) g
               WHERE s.id = g.submission_id)
           SELECT state AS "state!: JobState" FROM reaped"#
    )
    .fetch_all(pool)
    .await?;
    let failed = rows.iter().filter(|r| r.state == JobState::Failed).count() as u64;
    let requeued = rows.iter().filter(|r| r.state == JobState::Queued).count() as u64;
    Ok(Reaped { requeued, failed })
}

/// Jobs waiting and jobs running, for metrics.
pub async fn depth(pool: &PgPool) -> Result<(i64, i64), DbError> {
    let r = sqlx::query!(
        r#"SELECT count(*) FILTER (WHERE state = 'queued') AS "queued!",
                  count(*) FILTER (WHERE state = 'running') AS "running!"
           FROM jobs"#
    )
    .fetch_one(pool)
    .await?;
    Ok((r.queued, r.running))
}
