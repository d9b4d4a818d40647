//! The completion webhooks due: a submission that names a URL is due once it ends (`finish`
//! marks it), and is claimed by one worker at a time (its due time moved ahead by a lease, as
//! a job's is), then marked delivered, or due again later, or given up with the last reason.

use crate::{DbError, Stored, SubmissionStatus};
use mcpbench_scoring::Scores;
use sqlx::PgPool;
use std::time::Duration;
use time::OffsetDateTime;
use uuid::Uuid;

/// A webhook to send now: its submission as the body tells it, where, and how to sign it.
#[derive(Debug)]
pub struct Due {
    pub submission_id: Uuid,
    pub url: String,
    pub signing_secret: Vec<u8>,
    pub set_id: String,
    pub status: SubmissionStatus,
    pub scores: Option<Stored<Scores>>,
    pub finished_at: Option<OffsetDateTime>,
    /// This attempt's number, from 1.
    pub attempt: i32,
}

/// Claims the webhook due the longest, if any: it is due again after `lease` (should this
/// worker die sending it) and this attempt is counted.
pub async fn claim(pool: &PgPool, lease: Duration) -> Result<Option<Due>, DbError> {
    let due = sqlx::query_as!(
        Due,
        r#"UPDATE submissions s
           SET webhook_due_at = now() + make_interval(secs => $1),
               webhook_attempts = s.webhook_attempts + 1
           WHERE s.id = (SELECT id FROM submissions
                         WHERE webhook_due_at <= now()
                         ORDER BY webhook_due_at FOR UPDATE SKIP LOCKED LIMIT 1)
           RETURNING s.id AS submission_id, s.webhook_url AS "url!", s.signing_secret,
                     s.set_id, s.status AS "status: SubmissionStatus",
                     s.scores AS "scores: Stored<Scores>", s.finished_at,
                     s.webhook_attempts AS attempt"#,
        lease.as_secs_f64()
    )
    .fetch_optional(pool)
    .await?;
    Ok(due)
}

/// The webhook of `submission_id` was taken (a 2xx answer).
pub async fn delivered(pool: &PgPool, submission_id: Uuid) -> Result<(), DbError> {
    sqlx::query!(
        "UPDATE submissions SET webhook_due_at = NULL, webhook_delivered_at = now(),
                webhook_error = NULL
         WHERE id = $1",
        submission_id
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// The webhook of `submission_id` failed for `reason`: due again after `retry`, or given up
/// when `None`.
pub async fn failed(
    pool: &PgPool,
    submission_id: Uuid,
    reason: &str,
    retry: Option<Duration>,
) -> Result<(), DbError> {
    sqlx::query!(
        "UPDATE submissions SET webhook_error = $2,
                webhook_due_at = CASE WHEN $3::float8 IS NULL THEN NULL
                                      ELSE now() + make_interval(secs => $3) END
         WHERE id = $1",
        submission_id,
        reason,
        retry.map(|r| r.as_secs_f64())
    )
    .execute(pool)
    .await?;
    Ok(())
}
